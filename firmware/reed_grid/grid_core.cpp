// The non-template half of the core: CRC, frame text and host command parsing (see grid_core.h).
#include "grid_core.h"

namespace reedgrid {

uint16_t crc16(const uint8_t *data, size_t length, uint16_t crc) {
  for (size_t i = 0; i < length; i++) {
    crc ^= (uint16_t)((uint16_t)data[i] << 8);
    for (uint8_t bit = 0; bit < 8; bit++)
      crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
  }
  return crc;
}

static const char HEX_DIGITS[] = "0123456789ABCDEF";

void Line::hex(uint32_t value, uint8_t digits) {
  while (digits--) put(HEX_DIGITS[(value >> (4 * digits)) & 0xF]);
}

void Line::decimal(uint16_t value) {
  char digits[5];
  uint8_t n = 0;
  do {
    digits[n++] = (char)('0' + value % 10);
    value /= 10;
  } while (value);
  while (n) put(digits[--n]);
}

void Line::seal() {
  uint16_t crc = crc16((const uint8_t *)text_, length_);
  put(" *");
  hex(crc, 4);
  put("\r\n");
}

static int8_t hex_value(char c) {
  if (c >= '0' && c <= '9') return (int8_t)(c - '0');
  if (c >= 'A' && c <= 'F') return (int8_t)(c - 'A' + 10);
  if (c >= 'a' && c <= 'f') return (int8_t)(c - 'a' + 10);
  return -1;
}

Command CommandReader::feed(uint8_t byte) {
  Command none;
  none.kind = Command::CMD_NONE;
  if (byte == '\r' || byte == '\n') {
    if (overflow_) {
      overflow_ = false;
      length_ = 0;
      Command command;
      command.kind = Command::CMD_TOO_LONG;
      return command;
    }
    if (length_ == 0) return none;  // blank lines and the second half of "\r\n"
    Command command = parse();
    length_ = 0;
    return command;
  }
  if (length_ < COMMAND_MAX)
    line_[length_++] = (char)byte;
  else
    overflow_ = true;
  return none;
}

Command CommandReader::parse() const {
  Command command;
  command.kind = Command::CMD_UNKNOWN;
  command.value = 0;
  command.token[0] = 0;
  uint8_t end = length_;
  bool checked = false;
  // An optional " *CCCC" at the end: when present it must match the text before it.
  if (length_ >= 6 && line_[length_ - 6] == ' ' && line_[length_ - 5] == '*') {
    uint16_t given = 0;
    for (uint8_t i = length_ - 4; i < length_; i++) {
      int8_t v = hex_value(line_[i]);
      if (v < 0) {
        command.kind = Command::CMD_BAD_CRC;
        return command;
      }
      given = (uint16_t)((given << 4) | (uint8_t)v);
    }
    end = (uint8_t)(length_ - 6);
    if (crc16((const uint8_t *)line_, end) != given) {
      command.kind = Command::CMD_BAD_CRC;
      return command;
    }
    checked = true;
  }
  if (end == 0) return command;
  char kind = line_[0];
  if (end > 1 && line_[1] != ' ') return command;  // commands are one letter
  uint8_t arg = 2;
  switch (kind) {
    case 'I':
    case 'S':
      if (end != 1) {
        command.kind = Command::CMD_BAD_ARGUMENT;
        return command;
      }
      command.kind = kind == 'I' ? Command::CMD_IDENTIFY : Command::CMD_SNAPSHOT;
      return command;
    case 'D': {
      if (!checked) {
        command.kind = Command::CMD_BAD_CRC;  // a setting is only changed by a checked line
        return command;
      }
      uint32_t value = 0;
      if (end <= arg || end - arg > 4) {
        command.kind = Command::CMD_BAD_ARGUMENT;
        return command;
      }
      for (uint8_t i = arg; i < end; i++) {
        if (line_[i] < '0' || line_[i] > '9') {
          command.kind = Command::CMD_BAD_ARGUMENT;
          return command;
        }
        value = value * 10 + (uint32_t)(line_[i] - '0');
      }
      if (value > MAX_DEBOUNCE_MS) {
        command.kind = Command::CMD_BAD_ARGUMENT;
        return command;
      }
      command.kind = Command::CMD_DEBOUNCE;
      command.value = (uint16_t)value;
      return command;
    }
    case 'P': {
      if (end <= arg || end - arg > TOKEN_MAX) {
        command.kind = Command::CMD_BAD_ARGUMENT;
        return command;
      }
      uint8_t n = 0;
      for (uint8_t i = arg; i < end; i++) {
        char c = line_[i];
        bool ok = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
        if (!ok) {
          command.kind = Command::CMD_BAD_ARGUMENT;
          return command;
        }
        command.token[n++] = c;
      }
      command.token[n] = 0;
      command.kind = Command::CMD_PING;
      return command;
    }
    default:
      return command;
  }
}

}  // namespace reedgrid
