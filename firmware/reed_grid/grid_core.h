// The reed grid's scan, debounce and framing, in plain C++ with no Arduino dependency, so that the same code
// runs in the sketch and in host unit tests (g++ with sanitizers). The protocol is described in ../PROTOCOL.md.
//
// Integer widths are spelled out because int is 16-bit on AVR and 32-bit on the host.
#ifndef REED_GRID_CORE_H
#define REED_GRID_CORE_H

#include <stddef.h>
#include <stdint.h>

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

// A frame under construction: "SS T fields *CCCC\r\n" (see PROTOCOL.md).
class Line {
 public:
  Line() : length_(0) {}
  void put(char c) {
    if (length_ < FRAME_MAX) text_[length_++] = c;
  }
  void put(const char *s) {
    while (*s) put(*s++);
  }
  void hex(uint32_t value, uint8_t digits);
  void decimal(uint16_t value);
  void seal();  // appends " *CCCC\r\n" over what is there
  uint8_t length() const { return length_; }
  const char *text() const { return text_; }

 private:
  char text_[FRAME_MAX];
  uint8_t length_;
};

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

// One row's closed columns as a bit mask (bit c = column c), read with the row driven.
typedef uint16_t (*RowReader)(uint8_t row, void *context);

// The grid: debounced state, what the host has been told, and the frames still to send.
template <uint8_t ROWS, uint8_t COLS>
class Grid {
 public:
  Grid() { reset(0); }

  // Power-up: everything open, a boot handshake and a snapshot queued.
  void reset(uint32_t now) {
    for (uint8_t r = 0; r < ROWS; r++) raw_[r] = stable_[r] = reported_[r] = 0;
    for (uint8_t r = 0; r < ROWS; r++) oldest_[r] = (uint16_t)now;
    for (uint16_t i = 0; i < ROWS * COLS; i++) since_[i] = 0;
    debounce_ = DEFAULT_DEBOUNCE_MS;
    seq_ = 0;
    head_ = count_ = 0;
    want_hello_ = HELLO_BOOT;
    want_snapshot_ = true;
    want_pong_ = false;
    want_error_ = 0;
    last_snapshot_ = last_frame_ = now;
    initial_scan_ = true;
  }

  // One pass over the matrix at time `now` (milliseconds). A switch takes its new state once its reading has held
  // for the debounce time; the first pass after reset takes the readings as they are.
  void scan(uint32_t now, RowReader read, void *context) {
    const uint16_t mask = COLS >= 16 ? 0xFFFF : (uint16_t)((1u << COLS) - 1);
    const uint16_t now16 = (uint16_t)now;
    uint16_t *since = since_;
    for (uint8_t r = 0; r < ROWS; r++, since += COLS) {
      uint16_t bits = read(r, context) & mask;
      uint16_t moved = bits ^ raw_[r];
      raw_[r] = bits;
      if (moved) stamp(since, moved, now16);
      if (initial_scan_) {
        stable_[r] = bits;
        continue;
      }
      // A switch whose reading moved in this very scan cannot have held it for the debounce time (unless that is
      // 0): under chatter that skips the whole second walk.
      uint16_t differ = (uint16_t)((bits ^ stable_[r]) & (debounce_ ? (uint16_t)~moved : 0xFFFF));
      if (!differ) {
        oldest_[r] = now16;  // nothing pending: whatever moves next is newer than this
        continue;
      }
      // oldest_[r] is at most the time of the row's oldest pending reading, so until the debounce time has passed
      // since then no switch of the row can be due, and the walk over its switches is skipped (a flood of 256
      // pending changes would otherwise cost every scan 0.4 ms on the Mega).
      if ((uint16_t)(now16 - oldest_[r]) < debounce_) continue;
      uint16_t oldest = now16, bit = 1;
      for (const uint16_t *t = since; differ; t++, differ >>= 1, bit <<= 1) {
        if (!(differ & 1)) continue;
        uint16_t age = (uint16_t)(now16 - *t);
        if (age >= debounce_)
          stable_[r] ^= bit;
        else if (age > (uint16_t)(now16 - oldest))
          oldest = *t;
      }
      oldest_[r] = oldest;
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
        debounce_ = command.value;
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
  // them and a switch that flickered while waiting is reported by its net state. One frame per call, so that a
  // pass of the sketch's loop stays well under the millisecond between two scans.
  void service(uint32_t now) {
    if (initial_scan_) return;  // nothing is known before the first scan
    if (room() >= FRAME_MAX) {
      Line line;
      if (want_error_) {
        start(line, 'E');
        line.put(want_error_);
        want_error_ = 0;
      } else if (want_hello_) {
        start(line, 'H');
        line.decimal(PROTOCOL_VERSION);
        line.put(' ');
        line.put(REED_GRID_FIRMWARE_VERSION);
        line.put(' ');
        line.decimal(ROWS);
        line.put('x');
        line.decimal(COLS);
        line.put(' ');
        line.decimal(debounce_);
        line.put(want_hello_ == HELLO_BOOT ? " boot" : want_hello_ == HELLO_ASK ? " ask" : " set");
        want_hello_ = HELLO_NONE;
      } else if (want_pong_) {
        start(line, 'P');
        line.hex(now, 8);
        line.put(' ');
        line.put(pong_);
        want_pong_ = false;
      } else if (want_snapshot_ || (uint32_t)(now - last_snapshot_) >= SNAPSHOT_EVERY_MS) {
        start(line, 'S');
        line.hex(now, 8);
        line.put(' ');
        line.decimal(ROWS);
        line.put('x');
        line.decimal(COLS);
        line.put(' ');
        for (uint8_t r = 0; r < ROWS; r++) {
          line.hex(stable_[r], (COLS + 3) / 4);
          reported_[r] = stable_[r];  // the snapshot tells the host everything
        }
        want_snapshot_ = false;
        last_snapshot_ = now;
      } else if (pending_changes()) {
        start(line, 'C');
        line.hex(now, 8);
        uint8_t n = 0;
        for (uint8_t r = 0; r < ROWS && n < CHANGES_PER_FRAME; r++) {
          uint16_t differ = stable_[r] ^ reported_[r], bit = 1;
          for (uint8_t c = 0; differ && n < CHANGES_PER_FRAME; c++, differ >>= 1, bit <<= 1) {
            if (!(differ & 1)) continue;
            line.put(' ');
            line.hex(r, 1);
            line.hex(c, 1);
            line.put(stable_[r] & bit ? '+' : '-');
            reported_[r] ^= bit;
            n++;
          }
        }
      } else if ((uint32_t)(now - last_frame_) >= HEARTBEAT_EVERY_MS) {
        start(line, 'K');
        line.hex(now, 8);
      } else {
        return;
      }
      line.seal();
      push(line);
      last_frame_ = now;
    }
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

  uint16_t room() const { return (uint16_t)(TX_CAPACITY - count_); }

  // since[c] = now for each set bit c of moved, a byte at a time: the AVR's registers are 8 bits wide, and walking
  // a pointer spares the index arithmetic.
  static void stamp(uint16_t *since, uint16_t moved, uint16_t now) {
    for (uint8_t half = 0; half < 2; half++, since += 8) {
      uint8_t bits = half ? (uint8_t)(moved >> 8) : (uint8_t)moved;
      for (uint16_t *t = since; bits; t++, bits >>= 1)
        if (bits & 1) *t = now;
    }
  }

  bool pending_changes() const {
    for (uint8_t r = 0; r < ROWS; r++)
      if (stable_[r] != reported_[r]) return true;
    return false;
  }

  void start(Line &line, char type) {
    line.hex(seq_++, 2);
    line.put(' ');
    line.put(type);
    line.put(' ');
  }

  void push(const Line &line) {
    uint16_t tail = (uint16_t)(head_ + count_);
    if (tail >= TX_CAPACITY) tail = (uint16_t)(tail - TX_CAPACITY);
    for (uint8_t i = 0; i < line.length(); i++) {
      tx_[tail] = line.text()[i];
      if (++tail == TX_CAPACITY) tail = 0;
    }
    count_ = (uint16_t)(count_ + line.length());
  }

  uint16_t raw_[ROWS], stable_[ROWS], reported_[ROWS];
  uint16_t since_[ROWS * COLS];  // low 16 bits of the time each switch's reading last changed
  uint16_t oldest_[ROWS];        // no pending reading of the row is older than this
  uint16_t debounce_;
  uint8_t seq_;
  char tx_[TX_CAPACITY];
  uint16_t head_, count_;
  CommandReader reader_;
  uint8_t want_hello_;
  bool want_snapshot_, want_pong_, initial_scan_;
  const char *want_error_;
  char pong_[TOKEN_MAX + 1];
  uint32_t last_snapshot_, last_frame_;
};

}  // namespace reedgrid

#endif
