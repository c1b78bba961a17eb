// Which Arduino pins drive the rows and read the columns, for each supported board. The only board-specific file:
// hardware/WIRING.md follows these tables, and the simulator harness reads them from here.
//
// Rows are driven low one at a time (the others are inputs with their pull-ups); columns are inputs with the internal
// pull-ups. Each switch has its own diode, cathode (band) towards the row, so several closed switches never make
// ghosts. The scan reads each port once a row: keep the rows on at most two ports and the columns on at most two.
#ifndef REED_GRID_PINS_H
#define REED_GRID_PINS_H

#if defined(ARDUINO_AVR_MEGA2560) || defined(__AVR_ATmega2560__)
// Arduino Mega 2560: 16 x 16. Rows on D22-D37 (the double header at the end), columns on A0-A15.
#define GRID_ROWS 16
#define GRID_COLS 16
#define GRID_ROW_PINS {22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37}
#define GRID_COL_PINS {A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15}

#elif defined(ARDUINO_AVR_UNO) || defined(ARDUINO_AVR_NANO) || defined(__AVR_ATmega328P__)
// Arduino Uno or Nano: 8 x 8. Rows on D4-D11, columns on A0-A5, D2, D3. D0/D1 are the USB serial port; D13 carries
// the on-board LED, whose load would defeat a pull-up; A6/A7 of the Nano are analog-only.
#define GRID_ROWS 8
#define GRID_COLS 8
#define GRID_ROW_PINS {4, 5, 6, 7, 8, 9, 10, 11}
#define GRID_COL_PINS {A0, A1, A2, A3, A4, A5, 2, 3}

#else
#error "reed_grid: choose Arduino Mega 2560, Uno or Nano as the board"
#endif

#endif
