// The reed grid's scan, debounce and framing, in plain C++ with no Arduino dependency, so that the same code
// runs in the sketch and in host unit tests (g++ with sanitizers). The protocol is described in ../PROTOCOL.md.
//
// Integer widths are spelled out because int is 16-bit on AVR and 32-bit on the host.
#ifndef REED_GRID_CORE_H
#define REED_GRID_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __AVR__
#include <avr/pgmspace.h>
#define REED_PROGMEM PROGMEM
#define REED_CRC_ENTRY(i) pgm_read_word(&CRC_TABLE[i])
#else
#define REED_PROGMEM
#define REED_CRC_ENTRY(i) CRC_TABLE[i]
#endif

namespace reedgrid {

const uint8_t PROTOCOL_VERSION = 1;
#define REED_GRID_FIRMWARE_VERSION "1.0.0"
// 20 ms: contact bounce of a reed switch lasts well under 1 ms, but a magnet lowered by a hand trembles around the
// switch's pull-in distance for a few milliseconds; 20 ms covers that and stays far below what a player notices.
const uint16_t DEFAULT_DEBOUNCE_MS = 20;
const uint16_t MAX_DEBOUNCE_MS = 1000;
const uint16_t SNAPSHOT_EVERY_MS = 1000;   // unasked snapshots: the host heals within a second
const uint16_t HEARTBEAT_EVERY_MS = 250;   // frames at least this often, so silence means a dead link
const uint8_t CHANGES_PER_FRAME = 16;      // keeps a change frame under 90 bytes
const uint8_t FRAME_MAX = 96;              // longest frame: a 16 x 16 snapshot is 92 bytes with its "\r\n"
const uint16_t TX_CAPACITY = 200;          // the core's own send queue, drained into the serial port by the sketch
const uint8_t COMMAND_MAX = 32;            // longest host command line
const uint8_t TOKEN_MAX = 8;               // longest ping token

// CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), as Klipper's blocks; "123456789" gives 0x29B1.
uint16_t crc16(const uint8_t *data, size_t length, uint16_t crc = 0xFFFF);
// One entry per byte value (grid_core.cpp): a byte costs about 15 cycles on the AVR instead of about 80 bit by bit.
// Kept in flash on the AVR (512 of the Uno's 32768 bytes; the RAM has no room for it).
extern const uint16_t CRC_TABLE[256] REED_PROGMEM;
// One byte more into a running CRC; inline, as the frames are built a byte at a time.
inline uint16_t crc16_byte(uint16_t crc, uint8_t byte) {
  return (uint16_t)((crc << 8) ^ REED_CRC_ENTRY((uint8_t)((crc >> 8) ^ byte)));
}

// A host command as parsed from one line.
struct Command {
  enum Kind { CMD_NONE, CMD_IDENTIFY, CMD_SNAPSHOT, CMD_DEBOUNCE, CMD_PING, CMD_BAD_CRC, CMD_UNKNOWN, CMD_BAD_ARGUMENT,
              CMD_TOO_LONG } kind;
  uint16_t value;            // CMD_DEBOUNCE: milliseconds
  char token[TOKEN_MAX + 1];  // CMD_PING: echoed back
};

// Collects host bytes into lines and parses them. Read-only commands (I, S, P) are accepted without a CRC so that a
// person can type them in a serial monitor; D changes the firmware and needs its " *CCCC".
class CommandReader {
 public:
  CommandReader() : length_(0), overflow_(false) {}
  // Returns a command with kind != CMD_NONE when a line ends.
  Command feed(uint8_t byte);

 private:
  Command parse() const;
  char line_[COMMAND_MAX];
  uint8_t length_;
  bool overflow_;
};

// A hex digit's character, without a table in RAM.
inline char hex_digit(uint8_t value) { return (char)(value < 10 ? '0' + value : 'A' - 10 + value); }

// The unsigned type of a row's switches: 16 bits for up to 16 columns, a byte for up to 8.
template <bool WIDE> struct RowWord { typedef uint16_t type; };
template <> struct RowWord<false> { typedef uint8_t type; };

// One row's closed columns as a bit mask (bit c = column c), read with the row driven. The scan asks for rows 0, 1,
// ... in order and debounces each before asking for the next: a reader may drive the next row before it returns.
typedef uint16_t (*RowReader)(uint8_t row, void *context);

// The grid: debounced state, what the host has been told, and the frames still to send.
template <uint8_t ROWS, uint8_t COLS>
class Grid {
 public:
  Grid() { reset(0); }

  // Power-up: everything open, a boot handshake and a snapshot queued.
  void reset(uint32_t now) {
    for (uint8_t r = 0; r < ROWS; r++) raw_[r] = stable_[r] = reported_[r] = 0;
    set_debounce(DEFAULT_DEBOUNCE_MS);
    last_scan_ = (uint16_t)now;
    seq_ = 0;
    head_ = tail_ = count_ = 0;
    want_hello_ = HELLO_BOOT;
    want_snapshot_ = true;
    want_pong_ = false;
    want_error_ = 0;
    changes_in_frame_ = snapshot_row_ = NO_FRAME;
    last_snapshot_ = last_frame_ = now;
    initial_scan_ = true;
  }

  // One pass over the matrix at time `now` (milliseconds). A switch takes its new state once its reading has held
  // for the debounce time; the first pass after reset takes the readings as they are.
  //
  // Each switch whose reading differs from its debounced state counts the milliseconds its reading has held in a
  // counter kept bit-sliced, one word per counter bit for the whole row (a "vertical counter"): a row's counters
  // are started, advanced and checked with a handful of word operations, whatever the number of switches or the
  // pattern of their movements (a per-switch walk cost a Mega scan 1.2 ms when all 256 switches moved at once).
  // Rows with nothing moved and nothing held are skipped.
  void scan(uint32_t now, RowReader read, void *context) {
    const uint16_t mask = COLS >= 16 ? 0xFFFF : (uint16_t)((1u << COLS) - 1);
    const uint16_t elapsed = (uint16_t)((uint16_t)now - last_scan_);
    last_scan_ = (uint16_t)now;
    for (uint8_t r = 0; r < ROWS; r++) {
      Bits bits = (Bits)(read(r, context) & mask);
      Bits moved = (Bits)(bits ^ raw_[r]);
      raw_[r] = bits;
      Bits stable = (Bits)stable_[r];
      Bits held = (Bits)(bits ^ stable);
      if (initial_scan_ || !debounce_) {
        stable_[r] = bits;
        continue;
      }
      if (!held) continue;  // nothing pending: the counters of this row mean nothing until a reading moves
      Bits *count = held_ms_[r];
      const uint8_t bits_used = count_bits_;
      if (moved) {  // a moved reading starts its count over
        uint16_t start = start_;
        Bits *c = count;
        for (uint8_t k = 0; k < bits_used; k++, c++, start >>= 1)
          *c = (start & 1) ? (Bits)(*c | moved) : (Bits)(*c & (Bits)~moved);
      }
      Bits counting = (Bits)(held & (Bits)~moved), carry;
      if (!counting) continue;
      uint16_t add = elapsed;
      uint8_t k = 0;
      if (add == 1) {  // the usual tick: counting += 1, the carry rippling only as far as it goes
        carry = counting;
        for (Bits *c = count; k < bits_used && carry; k++, c++) {
          Bits was = *c;
          *c = (Bits)(was ^ carry);
          carry = (Bits)(was & carry);
        }  // what carries out of the top bit has held for the debounce time
      } else {  // a tick skipped: counting += elapsed, a full adder per bit
        carry = 0;
        for (; k < bits_used && (carry || add); k++, add >>= 1) {
          Bits c = count[k], a = (add & 1) ? counting : 0;
          count[k] = (Bits)(c ^ a ^ carry);
          carry = (Bits)((c & a) | (carry & (c ^ a)));
        }
        if (add) carry = counting;  // a gap longer than the counters reach: everything held is due
      }
      stable_[r] = (Bits)(stable ^ carry);
    }
    if (initial_scan_) {
      initial_scan_ = false;
      for (uint8_t r = 0; r < ROWS; r++) reported_[r] = stable_[r];
    }
  }

  void receive(uint8_t byte) {
    Command command = reader_.feed(byte);
    switch (command.kind) {
      case Command::CMD_NONE: break;
      case Command::CMD_IDENTIFY: want_hello_ = HELLO_ASK; break;
      case Command::CMD_SNAPSHOT: want_snapshot_ = true; break;
      case Command::CMD_DEBOUNCE:
        set_debounce(command.value);
        want_hello_ = HELLO_SET;
        break;
      case Command::CMD_PING:
        for (uint8_t i = 0; i <= TOKEN_MAX; i++) pong_[i] = command.token[i];
        want_pong_ = true;
        break;
      case Command::CMD_BAD_CRC: want_error_ = "crc"; break;
      case Command::CMD_UNKNOWN: want_error_ = "cmd"; break;
      case Command::CMD_BAD_ARGUMENT: want_error_ = "arg"; break;
      case Command::CMD_TOO_LONG: want_error_ = "long"; break;
    }
  }

  // Turns what is due into a frame when the send queue has room for a whole one; never blocks, never drops:
  // changes are the difference between the debounced state and what the host was told, so a backlog only delays
  // them and a switch that flickered while waiting is reported by its net state. At most one frame per call, written
  // straight into the send queue with its CRC kept as it goes (one table look-up a byte): the longest frame costs
  // about 0.15 ms on the AVR, so a pass of the sketch's loop stays well inside the millisecond between two scans.
  void service(uint32_t now) {
    if (initial_scan_) return;  // nothing is known before the first scan
    if (changes_in_frame_ != NO_FRAME) {
      more_changes();
      return;
    }
    if (snapshot_row_ != NO_FRAME) {
      more_snapshot();
      return;
    }
    if (room() < FRAME_MAX) return;
    if (want_error_) {
      start('E');
      text(want_error_);
      want_error_ = 0;
    } else if (want_hello_) {
      start('H');
      decimal(PROTOCOL_VERSION);
      emit(' ');
      text(REED_GRID_FIRMWARE_VERSION);
      emit(' ');
      decimal(ROWS);
      emit('x');
      decimal(COLS);
      emit(' ');
      decimal(debounce_);
      text(want_hello_ == HELLO_BOOT ? " boot" : want_hello_ == HELLO_ASK ? " ask" : " set");
      want_hello_ = HELLO_NONE;
    } else if (want_pong_) {
      start('P');
      time(now);
      emit(' ');
      text(pong_);
      want_pong_ = false;
    } else if (want_snapshot_ || (uint32_t)(now - last_snapshot_) >= SNAPSHOT_EVERY_MS) {
      start('S');
      time(now);
      emit(' ');
      decimal(ROWS);
      emit('x');
      decimal(COLS);
      emit(' ');
      want_snapshot_ = false;
      last_snapshot_ = last_frame_ = now;
      snapshot_row_ = 0;
      more_snapshot();
      return;
    } else if (pending_changes()) {
      start('C');
      time(now);
      changes_in_frame_ = 0;
      last_frame_ = now;
      more_changes();  // at least one: the frame is never empty
      return;
    } else if ((uint32_t)(now - last_frame_) >= HEARTBEAT_EVERY_MS) {
      start('K');
      time(now);
    } else {
      return;
    }
    seal();
    last_frame_ = now;
  }

  // The sketch drains the send queue into the serial port as the port has room.
  uint16_t pending_bytes() const { return count_; }
  uint8_t pop() {
    uint8_t byte = (uint8_t)tx_[head_];
    if (++head_ == TX_CAPACITY) head_ = 0;  // no "%": the AVR divides in software, some 200 cycles a byte
    count_--;
    return byte;
  }

  uint16_t debounce() const { return debounce_; }
  uint16_t stable_row(uint8_t row) const { return stable_[row]; }

 private:
  enum Hello { HELLO_NONE, HELLO_BOOT, HELLO_ASK, HELLO_SET };
  static const uint8_t NO_FRAME = 0xFF;
  static const uint8_t CHANGES_PER_PASS = 4;
  static const uint8_t ROWS_PER_PASS = 4;
  // A row's switches in the narrowest word that holds them: the Uno's 8 x 8 keeps a byte a counter bit.
  typedef typename RowWord<(COLS > 8)>::type Bits;
  static const uint8_t COUNT_BITS = 10;  // counters to 1023 ms: MAX_DEBOUNCE_MS fits

  // The counters are as wide as the debounce time needs (5 bits for 20 ms): a moved reading starts at
  // 2^bits - debounce, and the carry out of the top bit marks the switches that have held for the debounce time. A
  // new debounce time restarts the wait of the readings still held: the next scan sees them as moved.
  void set_debounce(uint16_t ms) {
    for (uint8_t r = 0; r < ROWS; r++) raw_[r] = stable_[r];
    debounce_ = ms;
    uint8_t bits = 1;
    while (bits < COUNT_BITS && (1u << bits) < ms) bits++;
    count_bits_ = bits;
    start_ = (uint16_t)((1u << bits) - ms);
  }

  uint16_t room() const { return (uint16_t)(TX_CAPACITY - count_); }

  bool pending_changes() const {
    for (uint8_t r = 0; r < ROWS; r++)
      if (stable_[r] != reported_[r]) return true;
    return false;
  }

  // The next few changes of the open change frame, then its end once it is full or nothing more differs. A few a
  // pass, so that a pass costs some 0.1 ms on the AVR even in a flood of 256 changes.
  void more_changes() {
    uint8_t n = changes_in_frame_, budget = CHANGES_PER_PASS;
    for (uint8_t r = 0; r < ROWS && n < CHANGES_PER_FRAME && budget; r++) {
      uint16_t stable = stable_[r], differ = stable ^ reported_[r], bit = 1;
      for (uint8_t c = 0; differ && n < CHANGES_PER_FRAME && budget; c++, differ >>= 1, bit <<= 1) {
        if (!(differ & 1)) continue;
        emit(' ');
        emit(hex_digit(r));
        emit(hex_digit(c));
        emit(stable & bit ? '+' : '-');
        reported_[r] ^= bit;
        n++;
        budget--;
      }
    }
    changes_in_frame_ = n;
    if (budget && n < CHANGES_PER_FRAME) n = CHANGES_PER_FRAME;  // nothing more differs: the frame ends here
    if (n == CHANGES_PER_FRAME) {
      seal();
      changes_in_frame_ = NO_FRAME;
    }
  }

  // The next few rows of the open snapshot, then its end. Each row's state is what the host is told from then on.
  void more_snapshot() {
    uint8_t r = snapshot_row_;
    for (uint8_t budget = ROWS_PER_PASS; r < ROWS && budget; r++, budget--) {
      uint16_t row = stable_[r];
      if (COLS > 8) hex_byte((uint8_t)(row >> 8));
      hex_byte((uint8_t)row);
      reported_[r] = row;
    }
    snapshot_row_ = r;
    if (r == ROWS) {
      seal();
      snapshot_row_ = NO_FRAME;
    }
  }

  // Frame text goes byte by byte into the send queue; the caller has checked there is room for a whole frame.
  void emit(char c) {
    tx_[tail_] = c;
    if (++tail_ == TX_CAPACITY) tail_ = 0;
    count_++;
    crc_ = crc16_byte(crc_, (uint8_t)c);
  }
  void text(const char *s) {
    while (*s) emit(*s++);
  }
  // Two digits a byte, from the byte's halves: no shifting of a wider number bit by bit on the AVR.
  void hex_byte(uint8_t value) {
    emit(hex_digit(value >> 4));
    emit(hex_digit(value & 0xF));
  }
  void time(uint32_t ms) {
    hex_byte((uint8_t)(ms >> 24));
    hex_byte((uint8_t)(ms >> 16));
    hex_byte((uint8_t)(ms >> 8));
    hex_byte((uint8_t)ms);
  }
  void decimal(uint16_t value) {
    char digits[5];
    uint8_t n = 0;
    do {
      digits[n++] = (char)('0' + value % 10);
      value /= 10;
    } while (value);
    while (n) emit(digits[--n]);
  }
  void start(char type) {
    crc_ = 0xFFFF;
    hex_byte(seq_++);
    emit(' ');
    emit(type);
    emit(' ');
  }
  void seal() {  // " *CCCC\r\n" over what the frame holds
    uint16_t crc = crc_;
    emit(' ');
    emit('*');
    hex_byte((uint8_t)(crc >> 8));
    hex_byte((uint8_t)crc);
    emit('\r');
    emit('\n');
  }

  uint16_t raw_[ROWS], stable_[ROWS], reported_[ROWS];
  Bits held_ms_[ROWS][COUNT_BITS];  // held_ms_[r][k]: bit k of the held milliseconds of each switch of row r
  uint16_t debounce_, last_scan_, start_;  // start_: where a moved reading's count starts
  uint8_t count_bits_;
  uint8_t seq_;
  char tx_[TX_CAPACITY];
  uint16_t head_, tail_, count_, crc_;
  uint8_t changes_in_frame_;  // in the change frame being written, or NO_FRAME
  uint8_t snapshot_row_;      // the next row of the snapshot being written, or NO_FRAME
  CommandReader reader_;
  uint8_t want_hello_;
  bool want_snapshot_, want_pong_, initial_scan_;
  const char *want_error_;
  char pong_[TOKEN_MAX + 1];
  uint32_t last_snapshot_, last_frame_;
};

}  // namespace reedgrid

#endif
