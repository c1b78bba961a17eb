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
//
// Only the row being read is ever driven (low); every other row is an input with its pull-up, and a row is released
// by driving it high for a few cycles (to charge its line and turn its diodes off at once, so that the columns climb
// back through their pull-ups as fast as if it stayed high) while no pin is low. So no pin is ever driven high while
// another is driven low: a reversed or shorted diode, even a solder bridge, can join two lines but never two drivers.
// Rows driven high while idle, as the sketch once did, would put some 70-85 mA through a faulty diode and the
// closed switch below it (hardware/TROUBLESHOOTING.md).
static volatile uint8_t *row_out[GRID_ROWS], *row_dir[GRID_ROWS], *row_in[GRID_ROWS];
static uint8_t row_mask[GRID_ROWS];
// The two row ports' input registers (both boards keep their rows on two ports) and their row bits; row_idle[r]: what
// the two ports' row bits read (the second port's in the high byte) while row r is driven and every other row idles
// high on its pull-up.
static const uint8_t MAX_ROW_PORTS = 2;
static volatile uint8_t *row_port[MAX_ROW_PORTS];
static uint8_t row_port_bits[MAX_ROW_PORTS];
static uint16_t row_idle[GRID_ROWS];
static uint8_t row_port_of[GRID_ROWS];
static uint8_t row_ports;
static const uint8_t MAX_COL_PORTS = 2;
static volatile uint8_t *col_port[MAX_COL_PORTS];  // the distinct column ports: input, output and direction registers
static volatile uint8_t *col_port_out[MAX_COL_PORTS], *col_port_dir[MAX_COL_PORTS];
static uint8_t col_ports;
static uint8_t col_port_of[GRID_COLS];
static uint8_t col_mask[GRID_COLS];
static bool whole_ports;  // column c is bit c % 8 of the (c / 8)th port, as on the Mega: read them as they are
// Bit c of a row word, from a table: the AVR would shift "1u << c" one bit per instruction.
static const uint16_t COL_BIT[16] = {0x0001, 0x0002, 0x0004, 0x0008, 0x0010, 0x0020, 0x0040, 0x0080,
                                     0x0100, 0x0200, 0x0400, 0x0800, 0x1000, 0x2000, 0x4000, 0x8000};

static reedgrid::Grid<GRID_ROWS, GRID_COLS> grid;
static uint32_t last_scan;
static uint16_t own_reading[GRID_ROWS];  // each row's columns as its own read last found them
static uint8_t fault_column[GRID_ROWS];  // where a tied row's faulty diode was last found (0xFF: not yet)

// Timer 0 (the Arduino's millis() clock) counts every 4 us; a row is read once at least SETTLE_TICKS counts have
// passed since it was driven: over 12 us, which lets the column lines settle through the wiring's capacitance
// (hardware/WIRING.md; 4.7 kOhm pull-ups give them a time constant under 5 us).
static const uint8_t SETTLE_TICKS = 4;
static uint8_t driven_at;

static void settle() {
  while ((uint8_t)(TCNT0 - driven_at) < SETTLE_TICKS) {
  }
}

// No interrupt handler of the sketch or the core writes a port register, so these read-modify-writes need no cli().
static inline __attribute__((always_inline)) void drive(uint8_t row) {
  *row_out[row] &= (uint8_t)~row_mask[row];  // pull-up off, then output: low, never high on the way
  *row_dir[row] |= row_mask[row];
  driven_at = TCNT0;
}

static inline __attribute__((always_inline)) void release(uint8_t row) {
  *row_out[row] |= row_mask[row];  // high for a few cycles while nothing else is driven, charging the line
  *row_dir[row] &= (uint8_t)~row_mask[row];  // then an input, its pull-up on
}

// Columns `cols` driven low (or released again: every one an input before any pull-up is on, so that no column is
// ever high while another is low), by port.
static void drive_columns(uint16_t cols, bool low) {
  uint8_t bits[MAX_COL_PORTS];
  if (whole_ports) {
    bits[0] = (uint8_t)cols;
    bits[1] = (uint8_t)(cols >> 8);
  } else {
    for (uint8_t p = 0; p < col_ports; p++) bits[p] = 0;
    for (uint8_t c = 0; c < GRID_COLS; c++)
      if (cols & COL_BIT[c]) bits[col_port_of[c]] |= col_mask[c];
  }
  for (uint8_t p = 0; p < col_ports; p++) {
    if (low) {
      *col_port_out[p] &= (uint8_t)~bits[p];
      *col_port_dir[p] |= bits[p];
    } else {
      *col_port_dir[p] &= (uint8_t)~bits[p];
    }
  }
  if (!low)
    for (uint8_t p = 0; p < col_ports; p++) *col_port_out[p] |= bits[p];
}

// With no row driven: whether idle row `tied` reads low while the columns `cols` are driven low, i.e. whether its
// faulty diode lies in one of them. The row is charged high first, while nothing is driven low.
static bool pulled_by(uint8_t tied, uint16_t cols) {
  release(tied);
  drive_columns(cols, true);
  driven_at = TCNT0;
  settle();
  bool low = !(*row_in[tied] & row_mask[tied]);
  drive_columns(cols, false);
  return low;
}

// The column of a tied row's faulty diode among `closed` (the driven row's readings, one of which carries the tie):
// the one found last time if it still answers, else by halving, each probe driving some of those columns low.
// 0xFF when no single column answers.
static uint8_t faulty_column(uint8_t tied, uint16_t closed) {
  uint8_t known = fault_column[tied];
  if (known != 0xFF && (closed & COL_BIT[known]) && pulled_by(tied, COL_BIT[known])) return known;
  uint16_t left = closed;
  while (left & (left - 1)) {  // more than one column left
    uint16_t half = 0, rest = left;
    for (uint8_t n = 0; rest & (rest - 1); n++) {  // every other one of what is left
      uint16_t lowest = rest & (uint16_t)-rest;
      if (n % 2 == 0) half |= lowest;
      rest &= (uint16_t)~lowest;
    }
    left = pulled_by(tied, half) ? half : (uint16_t)(left & ~half);
  }
  uint8_t found = 0xFF;
  if (left && pulled_by(tied, left))
    for (uint8_t c = 0; c < GRID_COLS; c++)
      if (left == COL_BIT[c]) found = c;
  fault_column[tied] = found;
  return found;
}

// A row's reading when idle rows were tied to it (only a diode that conducts from its row to its column, reversed or
// shorted, under a closed switch can pull an idle row down, through that column and a closed switch of the driven
// row; `row_levels` holds what the two row ports read). A switch of this row whose column the tied row also has closed
// may be a ghost (from the column, through the tied row's closed switch and its faulty diode, to this row) or real: no
// reading tells the two apart without driving a row high against this one, so it keeps its last state. The faulty
// diode's own column reads true, and so does every other column. Rare, so kept out of read_row's way; the next row,
// already driven, is released while the tied rows are looked into and driven again after.
static __attribute__((noinline)) uint16_t untangle(uint8_t row, uint16_t closed, uint16_t row_levels) {
  bool next = row + 1 < GRID_ROWS;
  if (next) release((uint8_t)(row + 1));
  uint16_t doubtful = 0;
  for (uint8_t r = 0; r < GRID_ROWS; r++) {
    uint8_t port_levels = row_port_of[r] ? (uint8_t)(row_levels >> 8) : (uint8_t)row_levels;
    if (r == row || (port_levels & row_mask[r])) continue;
    uint8_t bad = faulty_column(r, closed);
    uint16_t maybe = closed & own_reading[r];
    doubtful |= bad == 0xFF ? maybe : (uint16_t)(maybe & ~COL_BIT[bad]);
  }
  if (next) drive((uint8_t)(row + 1));
  return (uint16_t)((closed & ~doubtful) | (grid.stable_row(row) & doubtful));
}

// Pipelined: reads the row driven before (row 0 is driven here), releases it and drives the next at once, so that the
// next row settles while this one's reading is worked out and debounced instead of in a busy wait. Both boards keep
// their columns on two ports and their rows on two (pins.h): plain variables, no array on the stack, keep it short.
static uint16_t read_row(uint8_t row, void *) {
  if (row == 0) drive(0);
  settle();
  uint8_t col0 = *col_port[0], col1 = *col_port[1], row0 = *row_port[0], row1 = *row_port[1];
  release(row);
  if (row + 1 < GRID_ROWS) drive((uint8_t)(row + 1));
  uint16_t closed = 0;
  if (whole_ports) {
    closed = (uint16_t)~(col0 | (uint16_t)col1 << 8);
  } else {
    for (uint8_t c = 0; c < GRID_COLS; c++)
      if (!((col_port_of[c] ? col1 : col0) & col_mask[c])) closed |= COL_BIT[c];
  }
  uint16_t rows = (uint16_t)((row0 & row_port_bits[0]) | (uint16_t)(row1 & row_port_bits[1]) << 8);
  if (rows == row_idle[row]) {
    own_reading[row] = closed;
    return closed;
  }
  return untangle(row, closed, rows);
}

void setup() {
  // A watchdog reset leaves the watchdog running with its shortest timeout: stop it before anything slow.
  MCUSR = 0;
  wdt_disable();
  for (uint8_t r = 0; r < GRID_ROWS; r++) {
    pinMode(row_pins[r], INPUT_PULLUP);  // idle: an input, so a faulty diode can never join it to a driven row
    uint8_t port = digitalPinToPort(row_pins[r]);
    row_out[r] = portOutputRegister(port);
    row_dir[r] = portModeRegister(port);
    row_in[r] = portInputRegister(port);
    row_mask[r] = digitalPinToBitMask(row_pins[r]);
    fault_column[r] = 0xFF;
    uint8_t p = 0;
    while (p < row_ports && row_port[p] != row_in[r]) p++;
    if (p == row_ports) row_port[row_ports++] = row_in[r];
    row_port_of[r] = p;
    row_port_bits[p] |= row_mask[r];
  }
  for (uint8_t r = 0; r < GRID_ROWS; r++) {
    uint8_t own = row_port_of[r];
    row_idle[r] = (uint16_t)(row_port_bits[0] | (uint16_t)row_port_bits[1] << 8) &
                  (uint16_t)~(own ? (uint16_t)row_mask[r] << 8 : row_mask[r]);
  }
  for (uint8_t c = 0; c < GRID_COLS; c++) {
    pinMode(col_pins[c], INPUT_PULLUP);
    volatile uint8_t *port = portInputRegister(digitalPinToPort(col_pins[c]));
    uint8_t p = 0;
    while (p < col_ports && col_port[p] != port) p++;
    if (p == col_ports) {
      col_port_out[col_ports] = portOutputRegister(digitalPinToPort(col_pins[c]));
      col_port_dir[col_ports] = portModeRegister(digitalPinToPort(col_pins[c]));
      col_port[col_ports++] = port;
    }
    col_port_of[c] = p;
    col_mask[c] = digitalPinToBitMask(col_pins[c]);
  }
  if (col_ports == 1) col_port[1] = col_port[0];  // a board with one port of each reads it twice
  if (row_ports == 1) row_port[1] = row_port[0];
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
