// Host unit tests of the plain C++ core (scan, debounce, framing, commands). Built with -fsanitize=address,undefined
// by `make host-test`; every check that fails prints its line and the test exits 1.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

#include "grid_core.h"

using namespace reedgrid;

static int failures = 0;
#define CHECK(cond)                                               \
  do {                                                            \
    if (!(cond)) {                                                \
      fprintf(stderr, "%s:%d: CHECK(%s)\n", __FILE__, __LINE__, #cond); \
      failures++;                                                 \
    }                                                             \
  } while (0)

// The switches as a test sets them: closed[row] bit c.
struct Matrix {
  uint16_t closed[16];
  Matrix() { memset(closed, 0, sizeof closed); }
};
static uint16_t read_matrix(uint8_t row, void *context) { return ((Matrix *)context)->closed[row]; }

template <class G>
static std::vector<std::string> drain(G &grid) {
  std::string text;
  while (grid.pending_bytes()) text += (char)grid.pop();
  std::vector<std::string> lines;
  size_t start = 0, end;
  while ((end = text.find("\r\n", start)) != std::string::npos) {
    lines.push_back(text.substr(start, end - start));
    start = end + 2;
  }
  CHECK(start == text.size());  // only whole frames leave the core
  return lines;
}

// Checks a frame's CRC and returns its body ("SS T fields").
static std::string body(const std::string &line) {
  size_t star = line.rfind(" *");
  CHECK(star != std::string::npos && star + 6 == line.size());
  if (star == std::string::npos) return "";
  unsigned given = (unsigned)strtoul(line.c_str() + star + 2, 0, 16);
  CHECK(crc16((const uint8_t *)line.data(), star) == given);
  CHECK(line.size() <= FRAME_MAX);
  return line.substr(0, star);
}

static std::string type_of(const std::string &line) { return body(line).substr(3, 1); }

template <class G>
static void send(G &grid, const char *text) {
  while (*text) grid.receive((uint8_t)*text++);
}

static std::string checked(const char *command) {
  char out[64];
  snprintf(out, sizeof out, "%s *%04X\n", command, crc16((const uint8_t *)command, strlen(command)));
  return out;
}

// The loop's passes until nothing more is due, each writing a part of at most one frame.
template <class G>
static void serve(G &grid, uint32_t t) {
  for (uint16_t before = 0xFFFF; grid.pending_bytes() != before;) {
    before = grid.pending_bytes();
    grid.service(t);
  }
}

// One millisecond of the firmware's loop: scan the matrix, then the loop's passes until the millisecond ends.
template <class G>
static void step(G &grid, Matrix &m, uint32_t t) {
  grid.scan(t, read_matrix, &m);
  serve(grid, t);
}

// A grid just powered up, its boot handshake and first snapshot already read by the host.
template <class G>
static void boot(G &grid, Matrix &m) {
  grid.reset(0);
  step(grid, m, 0);
  drain(grid);
}

static void test_crc() {
  CHECK(crc16((const uint8_t *)"123456789", 9) == 0x29B1);
}

static void test_boot_handshake_then_snapshot() {
  Grid<8, 8> grid;
  Matrix m;
  m.closed[2] = 0x81;
  grid.reset(5);
  step(grid, m, 5);
  std::vector<std::string> lines = drain(grid);
  CHECK(lines.size() == 2);
  CHECK(body(lines[0]) == "00 H 1 " REED_GRID_FIRMWARE_VERSION " 8x8 20 boot");
  CHECK(body(lines[1]) == "01 S 00000005 8x8 0000810000000000");
}

static void test_debounce_holds_a_change_for_the_debounce_time() {
  Grid<8, 8> grid;
  Matrix m;
  boot(grid, m);
  m.closed[0] = 1 << 3;
  for (uint32_t t = 10; t < 30; t++) {
    step(grid, m, t);
    CHECK(drain(grid).empty());
  }
  step(grid, m, 30);
  std::vector<std::string> lines = drain(grid);
  CHECK(lines.size() == 1 && body(lines[0]) == "02 C 0000001E 03+");
}

static void test_bounce_shorter_than_debounce_is_ignored() {
  Grid<8, 8> grid;
  Matrix m;
  boot(grid, m);
  for (uint32_t t = 1; t < 200; t++) {
    m.closed[5] = (t < 100 && t % 7 < 3) ? 0x10 : 0;  // chatter, each closing shorter than 20 ms
    step(grid, m, t);
    for (const std::string &line : drain(grid)) CHECK(type_of(line) != "C");
  }
  CHECK(grid.stable_row(5) == 0);
}

// The debounce against a plain model of it: a switch takes its reading once that reading has not moved for the
// debounce time. Random patterns mix single switches, whole rows, the whole matrix, a column at a time (each row's
// switches moving at different moments), skipped ticks and debounce changes.
static void test_debounce_agrees_with_a_per_switch_model() {
  Grid<16, 16> grid;
  Matrix m;
  boot(grid, m);
  uint32_t moved_at[16][16] = {{0}};
  uint16_t raw[16] = {0}, model[16] = {0};
  uint16_t debounce = DEFAULT_DEBOUNCE_MS;
  srand(11);
  uint32_t t = 1;
  for (int step_number = 0; step_number < 30000; step_number++) {
    int pick = rand() % 100;
    if (pick < 20) {
      m.closed[rand() % 16] ^= (uint16_t)(1u << (rand() % 16));
    } else if (pick < 22) {
      m.closed[rand() % 16] ^= 0xFFFF;
    } else if (pick < 23) {
      for (int r = 0; r < 16; r++) m.closed[r] ^= 0xFFFF;
    } else if (pick < 30) {
      uint16_t bit = (uint16_t)(1u << (step_number % 16));
      for (int r = 0; r < 16; r++) m.closed[r] ^= bit;
    } else if (pick == 99 && rand() % 20 == 0) {
      debounce = (uint16_t)(rand() % 3 == 0 ? 0 : 1 + rand() % 60);
      send(grid, checked(("D " + std::to_string(debounce)).c_str()).c_str());
      for (int r = 0; r < 16; r++)
        for (int c = 0; c < 16; c++) moved_at[r][c] = t;  // readings still held wait the new time from now
    }
    grid.scan(t, read_matrix, &m);
    for (int r = 0; r < 16; r++) {
      for (int c = 0; c < 16; c++) {
        uint16_t bit = (uint16_t)(1u << c);
        if ((m.closed[r] ^ raw[r]) & bit) moved_at[r][c] = t;
        if (((m.closed[r] ^ model[r]) & bit) && t - moved_at[r][c] >= debounce) model[r] ^= bit;
      }
      raw[r] = m.closed[r];
      CHECK(grid.stable_row((uint8_t)r) == model[r]);
    }
    if (grid.stable_row(0) != model[0]) break;  // one report is enough
    serve(grid, t);
    drain(grid);
    t += (rand() % 10 == 0) ? 2 : 1;  // the Arduino's millis() skips a value now and then
  }
}

static void test_flood_of_256_changes_is_framed_without_loss() {
  Grid<16, 16> grid;
  Matrix m;
  boot(grid, m);
  for (int r = 0; r < 16; r++) m.closed[r] = 0xFFFF;
  uint16_t told[16] = {0};
  int changes = 0;
  for (uint32_t t = 1; t < 400; t++) {
    step(grid, m, t);
    CHECK(grid.pending_bytes() <= TX_CAPACITY);
    // Drain only a little each millisecond, as a 115200-baud port would (11.5 bytes per ms).
    std::string text;
    for (int i = 0; i < 12 && grid.pending_bytes(); i++) text += (char)grid.pop();
    static std::string partial;
    partial += text;
    size_t end;
    while ((end = partial.find("\r\n")) != std::string::npos) {
      std::string b = body(partial.substr(0, end));
      partial.erase(0, end + 2);
      if (b.substr(3, 1) == "C") {
        for (size_t i = 14; i + 3 <= b.size(); i += 4) {
          int r = (int)strtol(b.substr(i, 1).c_str(), 0, 16), c = (int)strtol(b.substr(i + 1, 1).c_str(), 0, 16);
          CHECK(b[i + 2] == '+');
          told[r] |= (uint16_t)(1u << c);
          changes++;
        }
      } else if (b.substr(3, 1) == "S") {
        for (int r = 0; r < 16; r++) told[r] = (uint16_t)strtoul(b.substr(20 + 4 * r, 4).c_str(), 0, 16);
      }
    }
  }
  for (int r = 0; r < 16; r++) CHECK(told[r] == 0xFFFF);
  CHECK(changes > 0);
}

static void test_commands() {
  Grid<8, 8> grid;
  Matrix m;
  boot(grid, m);
  send(grid, checked("D 50").c_str());
  grid.service(1);
  std::vector<std::string> lines = drain(grid);
  CHECK(lines.size() == 1 && body(lines[0]).substr(3) == "H 1 " REED_GRID_FIRMWARE_VERSION " 8x8 50 set");
  CHECK(grid.debounce() == 50);

  send(grid, "D 60\n");  // a setting without its CRC is refused
  send(grid, "D 60 *0000\n");
  send(grid, checked("D 1001").c_str());
  send(grid, "X\r\n");
  grid.service(2);
  lines = drain(grid);
  CHECK(grid.debounce() == 50);
  // Errors coalesce while the queue waits, the last one wins; the important part is no setting changed.
  CHECK(!lines.empty() && type_of(lines.back()) == "E");

  send(grid, "P abc12\n");
  grid.service(3);
  lines = drain(grid);
  CHECK(lines.size() == 1 && body(lines[0]).substr(3) == "P 00000003 abc12");

  send(grid, "I\nS\n");
  grid.service(4);
  CHECK(drain(grid).size() == 1);  // at most one frame per pass of the loop
  grid.service(4);
  grid.service(4);  // a snapshot takes a pass per four rows
  lines = drain(grid);
  CHECK(lines.size() == 1 && type_of(lines[0]) == "S");
  send(grid, "I\nS\n");
  serve(grid, 4);
  lines = drain(grid);
  CHECK(lines.size() == 2 && type_of(lines[0]) == "H" && type_of(lines[1]) == "S");
  CHECK(body(lines[0]).substr(body(lines[0]).size() - 3) == "ask");

  std::string long_line(100, 'P');
  send(grid, (long_line + "\n").c_str());
  grid.service(5);
  lines = drain(grid);
  CHECK(lines.size() == 1 && body(lines[0]).substr(3) == "E long");
}

static void test_heartbeat_unasked_snapshot_and_sequence_wrap() {
  Grid<8, 8> grid;
  Matrix m;
  grid.reset(0);
  grid.scan(0, read_matrix, &m);
  int heartbeats = 0, snapshots = 0, frames = 0;
  unsigned expect = 0;
  for (uint32_t t = 0; t < 70000; t++) {
    step(grid, m, t);
    for (const std::string &line : drain(grid)) {
      std::string b = body(line);
      CHECK((unsigned)strtoul(b.substr(0, 2).c_str(), 0, 16) == expect);
      expect = (expect + 1) & 0xFF;
      frames++;
      if (b[3] == 'K') heartbeats++;
      if (b[3] == 'S') snapshots++;
    }
  }
  CHECK(snapshots >= 70);  // one a second
  CHECK(heartbeats >= 200);  // the gaps between snapshots
  CHECK(frames > 256);  // the sequence wrapped
}

static void test_fuzzed_commands_never_crash() {
  Grid<16, 16> grid;
  Matrix m;
  grid.reset(0);
  srand(7);
  for (uint32_t t = 0; t < 20000; t++) {
    for (int i = 0; i < 3; i++) {
      int pick = rand() % 10;
      uint8_t byte = pick < 6 ? (uint8_t)"IDSP *0123456789ABCDEF\n"[rand() % 23] : (uint8_t)(rand() & 0xFF);
      grid.receive(byte);
    }
    m.closed[rand() % 16] ^= (uint16_t)(1u << (rand() % 16));
    step(grid, m, t);
    for (const std::string &line : drain(grid)) body(line);
    CHECK(grid.debounce() <= MAX_DEBOUNCE_MS);
  }
}

int main() {
  test_crc();
  test_boot_handshake_then_snapshot();
  test_debounce_holds_a_change_for_the_debounce_time();
  test_bounce_shorter_than_debounce_is_ignored();
  test_debounce_agrees_with_a_per_switch_model();
  test_flood_of_256_changes_is_framed_without_loss();
  test_commands();
  test_heartbeat_unasked_snapshot_and_sequence_wrap();
  test_fuzzed_commands_never_crash();
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("core tests passed\n");
  return 0;
}
