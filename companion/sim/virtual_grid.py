"""A virtual reed grid for the digital twin on machines without simavr: the firmware's protocol over a pty.

`python -m companion.sim.virtual_grid --rows 8 --cols 8` prints "pty NAME" and then takes the same switch commands
on stdin as the simavr harness (go, close, open, pulse, set, reset, time, quit), so tests and the twin drive both
alike. It behaves as the firmware does: scans every millisecond, debounces per switch, reports the difference between
the debounced state and what it has told the host, a snapshot every second and a heartbeat when quiet.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
import tty

from companion.sensing import frames

FIRMWARE_VERSION = "1.0.0-virtual"
DEFAULT_DEBOUNCE_MS = 20
SNAPSHOT_EVERY_MS = 1000
HEARTBEAT_EVERY_MS = 250
CHANGES_PER_FRAME = 16


class VirtualGrid:
    """The firmware's behaviour, clocked by the host's monotonic clock, talking through a pty master."""

    def __init__(self, rows: int, cols: int) -> None:
        if not (1 <= rows <= 16 and 1 <= cols <= 16):
            raise ValueError(f"matrix {rows}x{cols} is outside 1..16")
        self.rows, self.cols = rows, cols
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)  # no echo, no line discipline: bytes as a USB serial port delivers them
        self.port = os.ttyname(self._slave)
        self.closed: set[tuple[int, int]] = set()  # the physical switches
        self._pulses: list[tuple[float, tuple[int, int]]] = []
        self.lock = threading.Lock()
        self._epoch = time.monotonic()
        self.reset()

    def now_ms(self) -> int:
        return int((time.monotonic() - self._epoch) * 1000) & 0xFFFFFFFF

    def reset(self) -> None:
        self._epoch = time.monotonic()
        self.raw: set[tuple[int, int]] = set(self.closed)
        self.stable: set[tuple[int, int]] = set(self.closed)
        self.reported: set[tuple[int, int]] = set(self.closed)
        self.since: dict[tuple[int, int], int] = {}
        self.debounce = DEFAULT_DEBOUNCE_MS
        self.seq = 0
        self.want_hello = "boot"
        self.want_snapshot = True
        self.want_pong = ""
        self.want_error = ""
        self.last_snapshot = self.last_frame = 0
        self._line = b""

    def pulse(self, switch: tuple[int, int], microseconds: int) -> None:
        self.closed.add(switch)
        self._pulses.append((time.monotonic() + microseconds / 1e6, switch))

    def step(self) -> bytes:
        """One millisecond of firmware: scan, read commands, and the frames now due."""
        now = self.now_ms()
        moment = time.monotonic()
        for due, switch in list(self._pulses):
            if due <= moment:
                self.closed.discard(switch)
                self._pulses.remove((due, switch))
        for switch in self.raw ^ self.closed:
            self.since[switch] = now
        self.raw = set(self.closed)
        for switch in self.raw ^ self.stable:
            if now - self.since.get(switch, 0) >= self.debounce:
                self.stable ^= {switch}
        out = b""
        while True:
            frame = self._next_frame(now)
            if frame is None:
                return out
            out += frame
            self.last_frame = now

    def receive(self, data: bytes) -> None:
        for byte in data:
            if byte in b"\r\n":
                if self._line:
                    self._command(frames.parse_command(self._line))
                self._line = b""
            elif len(self._line) <= 32:
                self._line += bytes([byte])
            else:
                self._line = b"x" * 33  # over-long: answered with "long" at its end

    def _command(self, command: frames.Command) -> None:
        if command.error:
            self.want_error = command.error
        elif command.letter == "I":
            self.want_hello = "ask"
        elif command.letter == "S":
            self.want_snapshot = True
        elif command.letter == "D":
            self.debounce = int(command.argument)
            self.want_hello = "set"
        elif command.letter == "P":
            self.want_pong = command.argument

    def _frame(self, kind: str, fields: str) -> bytes:
        frame = frames.encode_frame(self.seq, kind, fields)
        self.seq = (self.seq + 1) & 0xFF
        return frame

    def _next_frame(self, now: int) -> bytes | None:
        if self.want_error:
            code, self.want_error = self.want_error, ""
            return self._frame("E", code)
        if self.want_hello:
            reason, self.want_hello = self.want_hello, ""
            return self._frame(
                "H", f"{frames.PROTOCOL_VERSION} {FIRMWARE_VERSION} {self.rows}x{self.cols} {self.debounce} {reason}"
            )
        if self.want_pong:
            token, self.want_pong = self.want_pong, ""
            return self._frame("P", f"{now:08X} {token}")
        if self.want_snapshot or now - self.last_snapshot >= SNAPSHOT_EVERY_MS:
            self.want_snapshot = False
            self.last_snapshot = now
            self.reported = set(self.stable)
            bitmap = frames.encode_bitmap(self.stable, self.rows, self.cols)
            return self._frame("S", f"{now:08X} {self.rows}x{self.cols} {bitmap}")
        pending = sorted(self.stable ^ self.reported)[:CHANGES_PER_FRAME]
        if pending:
            self.reported ^= set(pending)
            items = " ".join(f"{r:X}{c:X}{'+' if (r, c) in self.stable else '-'}" for r, c in pending)
            return self._frame("C", f"{now:08X} {items}")
        if now - self.last_frame >= HEARTBEAT_EVERY_MS:
            return self._frame("K", f"{now:08X}")
        return None

    def run(self, stop: threading.Event) -> None:
        os.set_blocking(self.master, False)
        while not stop.is_set():
            try:
                self.receive(os.read(self.master, 4096))
            except BlockingIOError:
                pass
            except OSError:
                pass  # nobody has the port open: like a board with no host
            with self.lock:
                out = self.step()
            while out:
                try:
                    out = out[os.write(self.master, out) :]
                except BlockingIOError:
                    time.sleep(0.001)
                except OSError:
                    break
            time.sleep(0.001)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=8)
    parser.add_argument("--cols", type=int, default=8)
    args = parser.parse_args(argv)
    grid = VirtualGrid(args.rows, args.cols)
    print(f"pty {grid.port}", flush=True)
    stop = threading.Event()
    runner = threading.Thread(target=grid.run, args=(stop,), daemon=True)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        with grid.lock:
            answer = _control(grid, words, runner)
        if answer is None:
            break
        print(answer, flush=True)
    stop.set()
    return 0


def _control(grid: VirtualGrid, words: list[str], runner: threading.Thread) -> str | None:
    """One harness command (see firmware/sim/grid_harness.c); None to quit."""
    name, args = words[0], words[1:]
    try:
        if name == "quit":
            return None
        if name == "go":
            if not runner.is_alive():
                grid.reset()
                runner.start()
        elif name == "close":
            grid.closed.add((int(args[0]), int(args[1])))
        elif name == "open":
            grid.closed.discard((int(args[0]), int(args[1])))
        elif name == "pulse":
            grid.pulse((int(args[0]), int(args[1])), int(args[2]))
        elif name == "set":
            grid.closed = {(r, c) for r, word in enumerate(args) for c in range(grid.cols) if int(word, 16) >> c & 1}
        elif name == "reset":
            grid.reset()
        elif name == "time":
            return f"ok {grid.now_ms() * 1000}"
        else:
            return f"error {' '.join(words)}"
    except (IndexError, ValueError):
        return f"error {' '.join(words)}"
    return "ok"


if __name__ == "__main__":
    sys.exit(main())
