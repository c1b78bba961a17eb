"""A USB cable for the simulated grid that can be damaged and unplugged, as tests and the twin need one.

It sits between the grid process's pty and the host: the host opens `path`, a symlink that moves to a new pty when
the wire is plugged in again, like /dev/serial/by-id after a USB replug.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pty
import select
import threading
import tty
from collections.abc import Callable
from pathlib import Path

_IN_OPEN = 0x20


class FaultyWire:
    """A pty in front of the grid's pty that forwards bytes both ways and, on request, damages the grid's output or
    unplugs: the host opens `path`, a symlink that moves to a new pty when the wire is plugged in again, like
    /dev/serial/by-id after a USB replug."""

    def __init__(self, upstream: str, path: Path, on_replug: Callable[[], None] | None = None) -> None:
        self.path = path
        self.upstream = upstream
        self.on_replug = on_replug  # the board loses power while unplugged: e.g. the grid's power_cycle
        self.up = os.open(upstream, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self.up)
        # DTR: a USB-serial chip pulls DTR low whenever the host opens the port, and the board resets. A pty has no
        # DTR, so the wire watches its own pty being opened (inotify) and opens the grid's pty again, which the
        # harness takes as the same reset.
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._opens = self._libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        self.opens = 0  # times the host opened the wire
        self.lock = threading.Lock()
        self.plugged = False
        self.corrupt = 0  # bytes still to damage
        self.drop = 0  # bytes still to drop
        self.drop_lines = 0  # whole frames still to drop
        self.truncate = 0  # frames still to cut short
        self._mode = ""
        self._column = 0
        self._stop = threading.Event()
        self._plug()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> FaultyWire:
        self._thread.start()
        return self

    def _plug(self) -> None:
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        tmp = self.path.with_suffix(".new")
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(os.ttyname(self.slave))
        tmp.replace(self.path)
        self._watch = self._libc.inotify_add_watch(self._opens, os.ttyname(self.slave).encode(), _IN_OPEN)
        self.plugged = True

    def unplug(self) -> None:
        with self.lock:
            self.plugged = False
            self.path.unlink(missing_ok=True)
            os.close(self.master)
            os.close(self.slave)
            self._libc.inotify_rm_watch(self._opens, self._watch)

    def replug(self) -> None:
        with self.lock:
            self._plug()
        if self.on_replug:
            self.on_replug()

    def inject(self, data: bytes) -> None:
        with self.lock:
            os.write(self.master, data)

    def _damage(self, data: bytes) -> bytes:
        out = bytearray()
        for byte in data:
            if self._column == 0:  # a frame starts: does a whole-frame fault take it?
                self._mode = ""
                if self.drop_lines:
                    self.drop_lines -= 1
                    self._mode = "drop"
                elif self.truncate:
                    self.truncate -= 1
                    self._mode = "cut"
            self._column = 0 if byte == 0x0A else self._column + 1
            if self._mode == "drop" or (self._mode == "cut" and byte != 0x0A and self._column > 12):
                continue
            if self.drop:
                self.drop -= 1
                continue
            if self.corrupt and byte != 0x0A:
                self.corrupt -= 1
                byte ^= 0x04
            out.append(byte)
        return bytes(out)

    def _run(self) -> None:
        while not self._stop.is_set():
            with self.lock:
                fds = [self.up, self._opens] + ([self.master] if self.plugged else [])
            try:
                ready, _, _ = select.select(fds, [], [], 0.01)
            except OSError:  # unplugged between taking the descriptors and the select: take them again
                continue
            with self.lock:
                if self._opens in ready:
                    self._host_opened()
                if self.up in ready:
                    data = os.read(self.up, 4096)
                    if self.plugged:
                        data = self._damage(data)
                        with contextlib.suppress(OSError):
                            os.write(self.master, data)
                if self.plugged and self.master in ready:
                    with contextlib.suppress(OSError):  # the host closed its side for a moment
                        os.write(self.up, os.read(self.master, 4096))

    def _host_opened(self) -> None:
        with contextlib.suppress(BlockingIOError):
            events = os.read(self._opens, 4096)
            if not self.plugged or not events:
                return
            os.close(self.up)
            self.up = os.open(self.upstream, os.O_RDWR | os.O_NOCTTY)
            tty.setraw(self.up)
            self.opens += 1  # counted once the grid has seen the opening too

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        if self.plugged:
            self.unplug()
        os.close(self.up)
        os.close(self._opens)
