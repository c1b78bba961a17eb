// Orrery reed-switch grid: scans a diode matrix of reed switches, debounces each switch and reports changes and
// snapshots to the host over USB serial at 115200 baud (protocol: firmware/PROTOCOL.md).
// Boards: Arduino Mega 2560 (16 x 16), Uno or Nano (8 x 8); the pins are in pins.h.
// The scan, debounce and framing live in grid_core.h / grid_core.cpp, plain C++ tested on the host.

#include "grid_core.h"
#include "pins.h"

static const uint8_t row_pins[GRID_ROWS] = GRID_ROW_PINS;
static const uint8_t col_pins[GRID_COLS] = GRID_COL_PINS;

// Port registers and masks looked up once: reading a port directly costs a few cycles, digitalRead() about 4 us,
// which would make a 16 x 16 scan take a millisecond.
static volatile uint8_t *row_out[GRID_ROWS];
static volatile uint8_t *col_in[GRID_COLS];
static uint8_t row_mask[GRID_ROWS];
static uint8_t col_mask[GRID_COLS];

static reedgrid::Grid<GRID_ROWS, GRID_COLS> grid;
static uint32_t last_scan;

static uint16_t read_row(uint8_t row, void *) {
  uint8_t old = SREG;
  cli();
  *row_out[row] &= (uint8_t)~row_mask[row];
  SREG = old;
  delayMicroseconds(10);  // lets the column lines settle through the wiring's capacitance
  uint16_t closed = 0;
  for (uint8_t c = 0; c < GRID_COLS; c++)
    if (!(*col_in[c] & col_mask[c])) closed |= (uint16_t)(1u << c);
  old = SREG;
  cli();
  *row_out[row] |= row_mask[row];
  SREG = old;
  return closed;
}

void setup() {
  for (uint8_t r = 0; r < GRID_ROWS; r++) {
    pinMode(row_pins[r], OUTPUT);
    digitalWrite(row_pins[r], HIGH);
    row_out[r] = portOutputRegister(digitalPinToPort(row_pins[r]));
    row_mask[r] = digitalPinToBitMask(row_pins[r]);
  }
  for (uint8_t c = 0; c < GRID_COLS; c++) {
    pinMode(col_pins[c], INPUT_PULLUP);
    col_in[c] = portInputRegister(digitalPinToPort(col_pins[c]));
    col_mask[c] = digitalPinToBitMask(col_pins[c]);
  }
  Serial.begin(115200);
  last_scan = millis();
  grid.reset(last_scan);
  grid.scan(last_scan, read_row, 0);
}

void loop() {
  uint32_t now = millis();
  if (now != last_scan) {  // one pass per millisecond keeps debounce times exact and the loop light
    last_scan = now;
    grid.scan(now, read_row, 0);
  }
  while (Serial.available() > 0) grid.receive((uint8_t)Serial.read());
  grid.service(now);
  // Never block on the serial port: hand it only as many bytes as it has room for.
  int room = Serial.availableForWrite();
  while (room-- > 0 && grid.pending_bytes() > 0) Serial.write(grid.pop());
}
