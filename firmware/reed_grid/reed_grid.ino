// Orrery reed-switch grid: scans a diode matrix of reed switches, debounces each switch and reports changes and
// snapshots to the host over USB serial at 115200 baud (protocol: firmware/PROTOCOL.md).
// Boards: Arduino Mega 2560 (16 x 16), Uno or Nano (8 x 8); the pins are in pins.h.
// The scan, debounce and framing live in grid_core.h / grid_core.cpp, plain C++ tested on the host.

#include <avr/wdt.h>

#include "grid_core.h"
#include "pins.h"

static const uint8_t row_pins[GRID_ROWS] = GRID_ROW_PINS;
static const uint8_t col_pins[GRID_COLS] = GRID_COL_PINS;

// Port registers and masks looked up once: reading a port directly costs a few cycles, digitalRead() about 4 us,
// which would make a 16 x 16 scan take a millisecond. The columns are grouped by port (the Mega's are all on PORTF
// and PORTK), each port read once per row.
static volatile uint8_t *row_out[GRID_ROWS];
static uint8_t row_mask[GRID_ROWS];
static volatile uint8_t *col_port[GRID_COLS];  // the distinct column ports
static uint8_t col_ports;
static uint8_t col_port_of[GRID_COLS];
static uint8_t col_mask[GRID_COLS];
static bool whole_ports;  // column c is bit c % 8 of the (c / 8)th port, as on the Mega: read them as they are
// Bit c of a row word, from a table: the AVR would shift "1u << c" one bit per instruction.
static const uint16_t COL_BIT[16] = {0x0001, 0x0002, 0x0004, 0x0008, 0x0010, 0x0020, 0x0040, 0x0080,
                                     0x0100, 0x0200, 0x0400, 0x0800, 0x1000, 0x2000, 0x4000, 0x8000};

static reedgrid::Grid<GRID_ROWS, GRID_COLS> grid;
static uint32_t last_scan;

// Timer 0 (the Arduino's millis() clock) counts every 4 us; a row is read once at least SETTLE_TICKS counts have
// passed since it was driven: over 12 us, which lets the column lines settle through the wiring's capacitance
// (hardware/WIRING.md; 4.7 kOhm pull-ups give them a time constant under 5 us).
static const uint8_t SETTLE_TICKS = 4;
static uint8_t driven_at;

static void drive(uint8_t row) {
  uint8_t old = SREG;
  cli();
  *row_out[row] &= (uint8_t)~row_mask[row];
  SREG = old;
  driven_at = TCNT0;
}

// Pipelined: reads the row driven before (row 0 is driven here), releases it and drives the next, so that the next
// row settles while the core debounces this one instead of in a busy wait.
static uint16_t read_row(uint8_t row, void *) {
  if (row == 0) drive(0);
  while ((uint8_t)(TCNT0 - driven_at) < SETTLE_TICKS) {
  }
  uint8_t levels[GRID_COLS];
  for (uint8_t p = 0; p < col_ports; p++) levels[p] = *col_port[p];
  uint16_t closed = 0;
  if (whole_ports) {
    closed = (uint16_t)~(levels[0] | (col_ports > 1 ? (uint16_t)levels[1] << 8 : 0xFF00));
  } else {
    for (uint8_t c = 0; c < GRID_COLS; c++)
      if (!(levels[col_port_of[c]] & col_mask[c])) closed |= COL_BIT[c];
  }
  uint8_t old = SREG;
  cli();
  *row_out[row] |= row_mask[row];
  SREG = old;
  if (row + 1 < GRID_ROWS) drive((uint8_t)(row + 1));
  return closed;
}

void setup() {
  // A watchdog reset leaves the watchdog running with its shortest timeout: stop it before anything slow.
  MCUSR = 0;
  wdt_disable();
  for (uint8_t r = 0; r < GRID_ROWS; r++) {
    pinMode(row_pins[r], OUTPUT);
    digitalWrite(row_pins[r], HIGH);
    row_out[r] = portOutputRegister(digitalPinToPort(row_pins[r]));
    row_mask[r] = digitalPinToBitMask(row_pins[r]);
  }
  for (uint8_t c = 0; c < GRID_COLS; c++) {
    pinMode(col_pins[c], INPUT_PULLUP);
    volatile uint8_t *port = portInputRegister(digitalPinToPort(col_pins[c]));
    uint8_t p = 0;
    while (p < col_ports && col_port[p] != port) p++;
    if (p == col_ports) col_port[col_ports++] = port;
    col_port_of[c] = p;
    col_mask[c] = digitalPinToBitMask(col_pins[c]);
  }
  whole_ports = GRID_COLS % 8 == 0;
  for (uint8_t c = 0; c < GRID_COLS; c++)
    if (col_port_of[c] != c / 8 || col_mask[c] != (uint8_t)COL_BIT[c % 8]) whole_ports = false;
  Serial.begin(115200);
  last_scan = millis();
  grid.reset(last_scan);
  grid.scan(last_scan, read_row, 0);
  // A firmware that stops (a fault, a glitch on the supply) restarts within a quarter second; the host sees the
  // boot hello and takes a fresh snapshot. The loop passes every millisecond, far inside the timeout.
  wdt_enable(WDTO_250MS);
}

void loop() {
  wdt_reset();
  uint32_t now = millis();
  if (now != last_scan) {  // one pass per millisecond keeps debounce times exact and the loop light
    last_scan = now;
    grid.scan(now, read_row, 0);
  } else {
    // A pass either scans or builds a frame, never both: the longest pass is the longer of the two, not their sum,
    // so a flood of changes does not push the next scan past its tick.
    grid.service(now);
  }
  while (Serial.available() > 0) grid.receive((uint8_t)Serial.read());
  // Never block on the serial port: hand it only as many bytes as it has room for, and at most 16 a pass (about
  // 100 us; the port sends 11.5 a millisecond), so that a pass that also built a frame stays inside its tick.
  int room = Serial.availableForWrite();
  if (room > 16) room = 16;
  while (room-- > 0 && grid.pending_bytes() > 0) Serial.write(grid.pop());
}
