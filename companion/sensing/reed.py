"""The host side of the reed grid: a serial link to the firmware that keeps the occupancy it reports, and nothing else.

The link opens a named port or finds the board by USB id, handshakes, and reads on its own thread. It applies change
frames only while it is in step with the firmware: a bad frame, a sequence gap, a firmware reset or a change that
contradicts what it holds all make it ask for a snapshot and wait for one, never guess. After an unplug it reopens
the port with backoff. Consumers read `occupancy()` and a queue of timestamped `SwitchChange`s.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

import serial
from serial.tools import list_ports

from companion.errors import UserError
from companion.listeners import Listeners
from companion.sensing import frames, usb_ids
from companion.sensing.frames import Switch

BAUDRATE = 115200
# Opening the port resets most boards (DTR), and the bootloader then listens for an upload before it starts the
# sketch: optiboot (Uno, new Nano) about 1 s, ATmegaBOOT (old Nano) about 1.5 s, stk500v2 (Mega) about 1.1 s after
# the reset, longer while bytes arrive, since it takes them for an upload. So the host says nothing after opening
# and waits this long for the firmware's unasked hello; it never reopens (which would reset the board again) before.
BOOT_WAIT = 3.0
# A device that sends valid frames has its sketch running, and a grid answers the hello's question (I, asked every
# 0.3 s) within milliseconds; one that has not answered this long after its first frame is not a grid we can use (a
# device speaking something frame-like, a grid whose replies are lost): it is passed over and tried again later.
HELLO_WAIT = 2.0
ASK_EVERY = 0.3


@dataclass(frozen=True)
class SwitchChange:
    """A switch that opened or closed: `firmware_ms` is the firmware clock of the frame that told it, `host_time`
    the time.monotonic() at which the line arrived; `source` is "change", or "snapshot" when a resync found it."""

    switch: Switch
    closed: bool
    firmware_ms: int
    host_time: float
    source: str


@dataclass(frozen=True)
class Counters:
    frames: int = 0  # valid frames
    crc_errors: int = 0
    bad_frames: int = 0  # lines that are not frames (garbage, truncation)
    gaps: int = 0  # sequence numbers skipped
    resyncs: int = 0  # snapshots that put the link back in step after it lost step
    reconnects: int = 0
    resets: int = 0  # firmware boots seen mid-session
    firmware_errors: int = 0  # error frames the firmware sent


class LinkLost(Exception):
    """The port went away or fell silent: close it and open it again."""


Comports = Callable[[], list]  # serial.tools.list_ports.comports, or a stand-in listing the same ListPortInfo


def candidate_ports(comports: Comports | None = None) -> list[str]:
    """Serial ports whose USB id is one a grid's Arduino may have (usb_ids.py): Arduino ids first, then bridge chips,
    each group by device name. Only candidates: a port is a grid once it has spoken the protocol."""
    ports = [(info, usb_ids.describe(info.vid, info.pid)) for info in (comports or list_ports.comports)()]
    known = [(entry.bridge, info.device) for info, entry in ports if entry is not None]
    return [device for _, device in sorted(known)]


@dataclass(frozen=True)
class PortReport:
    """One serial port as `companion grid ports` shows it: what it is and why it is, or is not, a grid."""

    device: str
    usb_id: str  # "2341:0042", or "" for a port without one
    name: str
    verdict: str
    hello: frames.Hello | None = None


def probe(device: str, wait: float = BOOT_WAIT) -> tuple[frames.Hello | None, int]:
    """Opens a port (which resets a board through DTR) and listens for the firmware: its hello (None when none came
    within `wait`) and how many valid frames it sent. Nothing is written to a port before it has sent a valid frame."""
    link = ReedLink(device, boot_wait=wait, backoff=(60.0, 60.0)).start()  # no second opening within the wait
    try:
        deadline = time.monotonic() + wait
        while link.info is None and time.monotonic() < deadline:
            time.sleep(0.02)
        return link.info, link.counters.frames
    finally:
        link.stop()


def survey(comports: Comports | None = None, probe_all: bool = False, wait: float = BOOT_WAIT) -> list[PortReport]:
    """Every serial port with its USB id, and whether it answered like a grid; ports with an unknown USB id are
    probed only with probe_all (opening a port resets whatever is behind it). The probes run side by side."""
    infos = sorted((comports or list_ports.comports)(), key=lambda info: info.device)
    entries = {info.device: usb_ids.describe(info.vid, info.pid) for info in infos}
    to_probe = [info.device for info in infos if probe_all or entries[info.device] is not None]
    with ThreadPoolExecutor(max_workers=max(1, len(to_probe))) as pool:
        probed = dict(zip(to_probe, pool.map(lambda device: probe(device, wait), to_probe), strict=True))
    reports = []
    for info in infos:
        entry = entries[info.device]
        usb = f"{info.vid:04x}:{info.pid:04x}" if info.vid is not None and info.pid is not None else ""
        name = entry.name if entry else (info.description or "serial port")
        hello, heard = probed.get(info.device, (None, 0))
        if info.device not in probed:
            verdict = "not probed: its USB id is not an Arduino's or a USB-serial chip's (--all probes it)"
        elif hello is None and heard:
            # Frames but no hello: firmware of another protocol version, or a device that only looks like a grid.
            verdict = (
                f"not a grid: it sent {heard} reed-grid frame{'s' if heard != 1 else ''} but did not answer "
                f"the handshake within {wait:g} s (flash the grid's firmware: companion firmware flash --port "
                f"{info.device})"
            )
        elif hello is None:
            verdict = f"not a grid: no reed-grid frame within {wait:g} s of opening it"
        else:
            verdict = (
                f"reed grid: firmware {hello.firmware}, protocol {hello.protocol}, {hello.rows} x {hello.cols}, "
                f"debounce {hello.debounce_ms} ms"
            )
        reports.append(PortReport(info.device, usb, name, verdict, hello))
    return reports


class ReedLink:
    """A running link to a reed grid. Use as a context manager, or call start() and stop()."""

    def __init__(
        self,
        port: str | None = None,
        *,
        debounce_ms: int | None = None,
        silence_timeout: float = 1.0,
        boot_wait: float = BOOT_WAIT,
        backoff: tuple[float, float] = (0.05, 2.0),
        on_link: Callable[[bool], None] | None = None,
        comports: Comports | None = None,
    ) -> None:
        if debounce_ms is not None and not 0 <= debounce_ms <= 1000:
            raise UserError(f"reed grid: debounce {debounce_ms} ms is outside 0..1000")
        self.port = port
        self.debounce_ms = debounce_ms  # re-applied after every handshake that reports another value
        self.silence_timeout = silence_timeout
        self.boot_wait = boot_wait  # silence after opening (or after a running firmware fell silent) before reopening
        self._patience = boot_wait  # the wait of the next session: longer after each one a grid stayed silent through
        self.backoff = backoff
        self.links: Listeners[bool] = Listeners()  # the link up (in step with a grid) or down, each time it changes
        if on_link is not None:
            self.links.subscribe(on_link)
        self.comports = comports  # port=None: the candidates come from here (pyserial's list_ports by default)
        self._found: str | None = None  # the candidate that last spoke the protocol
        self._silent: set[str] = set()  # candidates that stayed silent since a grid was last found
        self.changes: queue.Queue[SwitchChange] = queue.Queue()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._synced_event = threading.Event()
        self._thread: threading.Thread | None = None
        self._serial: serial.Serial | None = None
        self._counters = Counters()
        self._closed: frozenset[Switch] = frozenset()
        self._hello: frames.Hello | None = None
        self._synced = False
        self._lost = False
        self._expect = 0
        self._asked_at = 0.0
        self._last_change = 0.0
        self._heard = float("-inf")  # when the reader last had every byte the grid sent applied (caught_up)
        self._pongs: dict[str, float] = {}
        self._connected = False
        self._handshaken = False
        self._opened_port = ""

    # --- what the rest of the companion reads -------------------------------------------------------------------

    def occupancy(self) -> frozenset[Switch]:
        """The closed switches as the firmware last reported them."""
        with self._lock:
            return self._closed

    @property
    def synced(self) -> bool:
        """True while the occupancy is known to match the firmware's (no bad frame or gap since the last snapshot)."""
        return self._synced

    @property
    def open_port(self) -> str | None:
        """The port the link holds open now, handshaken or not (None between openings). Opening a port drops what
        arrived before it (pyserial empties the input queue), so only bytes sent after this are read."""
        return self._opened_port if self._serial is not None else None

    @property
    def found_port(self) -> str | None:
        """The port that last spoke the protocol (the named one, or the candidate the link found)."""
        return self._found

    @property
    def connected(self) -> bool:
        return self._connected

    @property
    def info(self) -> frames.Hello | None:
        """The last handshake: protocol and firmware version, matrix size, debounce."""
        return self._hello

    @property
    def counters(self) -> Counters:
        with self._lock:
            return self._counters

    def caught_up(self) -> float:
        """The time.monotonic() by which the reader had read and applied every byte the grid sent: what
        `occupancy()` says holds at least until then. A starved reader thread (a loaded host) falls behind the grid,
        and a board it still shows may already have changed: a board is known to have stayed still only up to
        here."""
        return self._heard

    def quiet_for(self) -> float:
        """Seconds since the last reported change: the board has settled when this exceeds the table's wait."""
        return time.monotonic() - self._last_change

    def wait_synced(self, timeout: float) -> bool:
        return self._synced_event.wait(timeout)

    def next_change(self, timeout: float) -> SwitchChange | None:
        try:
            return self.changes.get(timeout=timeout)
        except queue.Empty:
            return None

    def request_snapshot(self) -> None:
        self._send(frames.encode_command("S"))

    def set_debounce(self, ms: int) -> None:
        if not 0 <= ms <= 1000:
            raise UserError(f"reed grid: debounce {ms} ms is outside 0..1000")
        self.debounce_ms = ms
        self._send(frames.encode_command("D", str(ms)))

    def ping(self, timeout: float = 1.0) -> float | None:
        """Round trip in seconds, or None when no answer came in time."""
        token = f"{int(time.monotonic() * 1000) % 10**8:08d}"
        sent = time.monotonic()
        self._send(frames.encode_command("P", token))
        deadline = sent + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if token in self._pongs:
                    return self._pongs.pop(token) - sent
            time.sleep(0.002)
        return None

    # --- lifetime ------------------------------------------------------------------------------------------------

    def start(self) -> ReedLink:
        self._thread = threading.Thread(target=self._run, name="reed-link", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=5)

    def __enter__(self) -> ReedLink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- the reader thread -----------------------------------------------------------------------------------------

    def _run(self) -> None:
        delay = self.backoff[0]
        first = True
        while not self._stop.is_set():
            if not first:
                self._count(reconnects=1)
                self._stop.wait(delay)
                delay = min(delay * 2, self.backoff[1])
            first = False
            port = self.port or self._next_candidate()
            if port is None:
                continue
            try:
                link = serial.Serial(port, BAUDRATE, timeout=0.02)
            except (serial.SerialException, OSError):
                self._silent.add(port)
                continue
            self._handshaken = False
            self._opened_port = port
            try:
                self._serial = link
                self._session(link)
            except (serial.SerialException, OSError, LinkLost):
                pass
            finally:
                if self._handshaken:
                    delay = self.backoff[0]  # it worked for a while: the next drop starts the backoff again
                    self._silent.clear()
                else:
                    self._silent.add(port)  # no grid there: the next candidate's turn
                self._serial = None
                with contextlib.suppress(serial.SerialException, OSError):
                    link.close()
                if self._stop.is_set():
                    self._connected = self._synced = False  # closed on purpose: nothing was lost, nobody is told
                else:
                    self._set_link(False)

    def _next_candidate(self) -> str | None:
        """The port to try next when none was named: the one that last spoke the protocol, else a candidate that has
        not yet stayed silent this round. Each is opened and listened to, and written to only once it has sent a
        valid frame, so a CH340 that is not a grid never hears from us."""
        ports = candidate_ports(self.comports)
        fresh = [port for port in ports if port not in self._silent]
        if not fresh:  # every candidate stayed silent: a grid among them may be slow to boot, so wait longer
            self._silent.clear()
            self._longer_patience()
            fresh = ports
        if self._found in fresh:
            return self._found
        return fresh[0] if fresh else None

    def _session(self, link: serial.Serial) -> None:
        """Reads frames until the link fails (sets _handshaken when the firmware answered).

        After opening, the board is (usually) in its bootloader: nothing is sent until a valid frame shows the
        firmware running. A boot hello is taken as it comes; any other frame means the firmware was already running
        (a board without auto-reset) and is asked with I. Silence after the handshake first waits out a reboot
        through the bootloader; only silence beyond that closes the port."""
        self._hello = None
        self._synced = False
        self._synced_event.clear()
        self._lost = False
        opened = last_frame = time.monotonic()
        first_frame = 0.0
        asked_hello = 0.0
        buffer = b""
        while not self._stop.is_set():
            looked = time.monotonic()
            waiting = link.in_waiting
            if not waiting and not buffer:
                self._heard = looked  # nothing had come that is not applied yet
            data = link.read(max(1, waiting))
            now = time.monotonic()
            if data:
                buffer += data
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    if self._handle(line, now):
                        last_frame = now
                        first_frame = first_frame or now
                if len(buffer) > frames.MAX_LINE:  # no line end in sight: garbage
                    buffer = b""
                    self._bad("format")
            quiet = now - last_frame
            # The sketch runs while valid frames come; before the first one, or after a silence, the board may be in
            # its bootloader, which takes every byte for an upload and waits on: say nothing then.
            running = last_frame > opened and quiet <= self.silence_timeout
            if self._hello is not None and running and not self._connected:
                self._handshaken = True
                self._patience = self.boot_wait
                self._found = self._opened_port
                self._set_link(True)
            if self._hello is None and running and now - asked_hello > ASK_EVERY:
                self._send(frames.encode_command("I"))
                asked_hello = now
            if self._hello is None and first_frame and now - first_frame > HELLO_WAIT:
                raise LinkLost("frames, but no answer to the hello")
            if self._hello is not None and running and not self._synced and now - self._asked_at > 0.25:
                self.request_snapshot_now(now)
            if self._connected and not running:
                self._set_link(False)  # the consumers hear of it now; the port stays open for a reboot
            if quiet > (self.silence_timeout if last_frame > opened else 0.0) + self._patience:
                if self._opened_port in (self.port, self._found):
                    # A grid slower to boot than we thought (a loaded host, a bootloader that listens longer): the
                    # reopening resets it again, so the next wait is longer, or it would never get to its hello.
                    self._longer_patience()
                raise LinkLost("no frame from the firmware")

    def _longer_patience(self) -> None:
        self._patience = min(self._patience * 2, self.boot_wait * 8)

    def request_snapshot_now(self, now: float) -> None:
        self._asked_at = now
        self._send(frames.encode_command("S"))

    def _handle(self, line: bytes, now: float) -> bool:
        """Applies one line; True if it was a valid frame."""
        if not line.strip(b"\r"):
            return False
        try:
            frame = frames.parse_frame(line)
        except frames.FrameError as error:
            self._bad(error.kind)
            # A frame cut short by a reset or a dropped byte runs into the next one: take the next one from its start.
            start = frames.next_frame_start(line)
            return start is not None and self._handle(line[start:], now)
        self._count(frames=1)
        if isinstance(frame, frames.Hello):
            self._take_hello(frame, now)
            return True
        if self._hello is None:
            return True  # frames before the handshake say nothing we can place
        if frame.seq != self._expect:
            self._count(gaps=1)
            self._lose_step(now)
        self._expect = (frame.seq + 1) & 0xFF
        if isinstance(frame, frames.Snapshot):
            self._take_snapshot(frame, now)
        elif isinstance(frame, frames.Changes):
            if self._synced:
                self._take_changes(frame, now)
        elif isinstance(frame, frames.Pong):
            with self._lock:
                self._pongs[frame.token] = now
        elif isinstance(frame, frames.Error):
            self._count(firmware_errors=1)
        return True

    def _take_hello(self, hello: frames.Hello, now: float) -> None:
        if hello.protocol != frames.PROTOCOL_VERSION:
            raise LinkLost(f"firmware speaks protocol {hello.protocol}, the host {frames.PROTOCOL_VERSION}")
        previous = self._hello
        self._hello = hello
        self._expect = (hello.seq + 1) & 0xFF
        if previous is not None and hello.reason == "boot":
            self._count(resets=1)
        if previous is None or hello.reason == "boot" or (previous.rows, previous.cols) != (hello.rows, hello.cols):
            # A new stream: what we hold may be stale until the snapshot that follows a boot (or that we ask for).
            self._lose_step(now, fault=previous is not None)
        if self.debounce_ms is not None and hello.debounce_ms != self.debounce_ms:
            self._send(frames.encode_command("D", str(self.debounce_ms)))

    def _take_snapshot(self, snapshot: frames.Snapshot, now: float) -> None:
        hello = self._hello
        assert hello is not None
        if (snapshot.rows, snapshot.cols) != (hello.rows, hello.cols):
            self._bad("format")
            self._lose_step(now)
            return
        with self._lock:
            before = self._closed
            self._closed = snapshot.closed
            if not self._synced and self._lost:
                self._counters = replace(self._counters, resyncs=self._counters.resyncs + 1)
            self._synced = True
            self._lost = False
        for switch in sorted(before ^ snapshot.closed):
            self._emit(SwitchChange(switch, switch in snapshot.closed, snapshot.ms, now, "snapshot"))
        self._synced_event.set()

    def _take_changes(self, changes: frames.Changes, now: float) -> None:
        hello = self._hello
        assert hello is not None
        with self._lock:
            closed = set(self._closed)
            consistent = True
            for switch, state in changes.items:
                row, col = switch
                # A switch outside the matrix, or one "changing" to the state it has, means we are out of step.
                if row >= hello.rows or col >= hello.cols or (switch in closed) == state:
                    consistent = False
                    break
                closed ^= {switch}
            if consistent:
                self._closed = frozenset(closed)
        if not consistent:
            self._lose_step(now)
            return
        for switch, state in changes.items:
            self._emit(SwitchChange(switch, state, changes.ms, now, "change"))

    def _emit(self, change: SwitchChange) -> None:
        self._last_change = change.host_time
        self.changes.put(change)

    def _lose_step(self, now: float, fault: bool = True) -> None:
        """Stop applying changes until a snapshot arrives, and ask for one now."""
        self._synced = False
        self._synced_event.clear()
        if fault:
            self._lost = True
        if now - self._asked_at > 0.05:
            self.request_snapshot_now(now)

    def _bad(self, kind: str) -> None:
        self._count(**{"crc_errors" if kind == "crc" else "bad_frames": 1})
        if self._hello is not None:
            self._lose_step(time.monotonic())

    def _count(self, **increments: int) -> None:
        with self._lock:
            self._counters = replace(
                self._counters, **{k: getattr(self._counters, k) + v for k, v in increments.items()}
            )

    def _send(self, data: bytes) -> None:
        link = self._serial
        if link is None:
            return
        with contextlib.suppress(serial.SerialException, OSError):
            link.write(data)

    def _set_link(self, up: bool) -> None:
        if up == self._connected:
            return
        self._connected = up
        if not up:
            self._synced = False
            self._synced_event.clear()
        self.links.tell(up)
