"""The table: whichever senses are attached, the referee's loop, and the game in the store. The one assembly.

It runs with the reed grid and the camera, either alone, or neither (the phones alone), and says which. The
grid is read by the host link's own thread, the camera in a thread of its own; a third thread looks at the board
every few milliseconds and hands settled boards to the loop. A sense that drops out is announced by `Senses`, with
why where the table knows it, and the table keeps trying to get it back.

Its devices come from factories (devices.py): `companion serve` opens the hardware, the digital twin hands it
virtual ones; everything else, `companion serve`, the demo, the benches and the tests share.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.boards import Board, default_board, load_board
from companion.boards.markers import MIN_MARKERS, markers_on
from companion.errors import UserError
from companion.listeners import Listeners
from companion.rules import Event
from companion.table.beside import Beside, beside_boards, site_namer
from companion.table.config import TableConfig, save_grid_ports
from companion.table.datasets import set_path
from companion.table.devices import Devices, hardware
from companion.table.game_board import BOARD_OPTIONS, board_of, board_set, board_words, grid_profile_of
from companion.table.grid_walk import TableGrid
from companion.table.loop import TableLoop
from companion.table.observe import CameraView, Observer, camera_view
from companion.table.probe_walk import TableProbe, port_of
from companion.table.senses import Senses
from companion.table.session import CannotResume, Session
from companion.table.store import CannotSave, Store, set_aside_if_damaged

if TYPE_CHECKING:
    import numpy as np

    from companion.calibration.grid import GridProfile
    from companion.sensing.camera import FrameSource
    from companion.sensing.pieces import Registry
    from companion.sensing.pushed import PushedFrames
    from companion.sensing.vision import Vision
    from companion.sensing.vision_crops import Cropped, Plan
    from companion.sensing.vision_profile import CameraProfile
    from companion.sensing.vision_table import TableVision

TICK = 0.01  # seconds between looks at the board: well under the settle window
CAMERA_GONE_AFTER = 3  # failed reads in a row before the camera counts as vanished
FUSED_FRAMES = 3  # frames of a settled board averaged where stickers are decoded (bench vision --fuse)
CAMERA_RETRY = (0.5, 8.0)  # seconds before a stopped camera is tried again: the first wait, doubled up to the last
ASPECT_SLACK = 0.01  # a frame whose width to height differs from the profile's by less than this is only rescaled

Reader = tuple["Vision | TableVision", "Registry"]  # the camera's reader of the board in play, and its registry


class FrameSize(Exception):
    """A frame the camera profile does not fit (another shape of picture): said to the phones as it is."""


class LiveTable:
    def __init__(self, config: TableConfig, devices: Devices | None = None) -> None:
        """`devices`: how the grids, the camera and the GPIO are opened (default: the hardware)."""
        self.config = config
        self.devices = devices or hardware(config.gpio)
        # A damaged database is kept aside and a new log begins: a table nobody is at must come back by itself.
        damaged = set_aside_if_damaged(config.db)
        self.store = Store(config.db)
        self.notes: list[str] = [damaged] if damaged else []  # for the terminal: a damaged log, a sense left out
        try:
            session = Session.resume(self.store)
        except CannotResume as error:  # kept in the log as it is; the table starts a new game rather than failing
            self.notes.append(f"{error}; it is kept in the log, and a new game begins")
            session = None
        self.resumed = session is not None
        if session is None:
            session = Session.start(self.store, config.game, list(config.players), config.options, config.seed)
        self.session = session
        # The table's own board is the configured one (its grid profile is the configured file, its camera pose the
        # profile's); a game on another board (one of the library's, ORBIT's back side, another game's) is read
        # with that board's own grid profile, kept beside the configured one, and the camera over that board.
        self.game = game = config.game
        self.board = load_board(Path(config.board)) if config.board else default_board(game)
        # A grid with a place for its profile is opened even before its first calibration, so that the phones can
        # calibrate it (the profile is then written there); it referees once it is calibrated.
        self.grid_profile = Path(config.grid_profile) if config.serial != "none" and config.grid_profile else None
        own_switches = _switch_sites(config, self.board, self.notes)  # the configured profile, checked at start
        # Boards beside the game's own, each on a grid of its own (Orbital Battle's planet maps): their switches join
        # the game board's in one map, so the referee judges their sites like the game board's.
        self.beside = beside_boards(game, config.boards, self.notes, config.serial)
        # Each is opened, so that the phones can calibrate one not calibrated yet; only the calibrated ones must be in
        # step for the board to be read (an unplugged grid not set up yet must not hold back the others).
        self.calibrated = {other.index for other in self.beside if other.switch_sites}
        camera = config.camera != "none" and _calibrated(config.camera_profile, "camera", self.notes)
        self.camera_profile = None
        if camera:
            from companion.sensing.vision_profile import load_profile

            assert config.camera_profile is not None
            self.camera_profile = load_profile(config.camera_profile)
        # The camera reads every board in view: the game's own and those beside it, each by its own markers.
        self.camera_sites = (
            frozenset(
                [
                    *(s.id for s in self.board.sites),
                    *(other.prefix + s.id for other in self.beside for s in other.board.sites),
                ]
            )
            if camera
            else None
        )
        self.vision: Reader | None = None  # the camera's reader of the board in play
        # Told each new reader (the calibration view's snapshot draws the board in play with one of its own).
        self.visions: Listeners[Reader] = Listeners()
        self.phone: PushedFrames | None = None  # the camera page's frames, when a phone is the table's camera
        self._camera_source: FrameSource | None = None  # opened at start (a phone's at once: the page feeds it)
        if self.camera_sites is not None and config.camera == "phone":
            from companion.sensing.pushed import PushedFrames

            source = self.devices.camera("phone", self._still_wanted)
            self._camera_source = source
            self.phone = source if isinstance(source, PushedFrames) else None
            if self.phone is not None:
                self.phone.size = self.camera_profile.image_size  # stills turned or scaled are fitted to it
                self.phone.colour = bool(self.camera_profile.colours)  # gray stills unless pieces are found by colour
                self.phone.planner = self._crop_plan  # crops instead of the still where the change reads in them
        self.signals = self.devices.signals()  # the GPIO's LED, buzzer and button (None: none wired)
        self.playing = self.board  # the board of the game in play, which the senses read
        self.switch_sites = own_switches
        self.site_name = site_namer(self.board, self.beside)
        self.observer: Observer | None = None
        self.loop: TableLoop | None = None
        self.grid: TableGrid | None = None
        gridded = any(other.grid.has_grid for other in self.beside)  # a board beside it lies on a grid of its own
        if self.grid_profile is not None or self.camera_sites is not None or gridded:
            grids = self.grid_profile is not None or gridded
            self.observer = Observer({} if grids else None, self.camera_sites, settle=config.settle)
        if self.observer is not None and self.grid_profile is not None:
            self.grid = TableGrid(self.board, lambda: self.link, self.grid_profile, self.observer,
                                  self._grid_calibrated, settle=config.settle)  # fmt: skip
        self.link = None
        self.beside_links: list = []  # the grids under the boards beside the game's own, in the config's order
        self._beside_sites = {k: v for other in self.beside for k, v in other.switch_sites.items()}
        self.senses = Senses(session, self.observer, grid=own_switches is not None, camera=camera)
        self._sense(session, own_switches, announce=False)
        if self.observer is not None:
            self.loop = TableLoop(session, self.observer, self.site_name, config.hold)
        self.config_path: Path | None = None  # the config file, where a probe from the phones writes the ports
        self.latest_image = None  # the camera's last frame, for the calibration view
        self._settled_frames: list = []  # frames taken since the grid last went quiet, fused with the next one
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def use(self, session: Session) -> TableLoop | None:
        """Referee another game at this table (one a phone started): the senses switch to its board (its grid
        profile, the camera over it), and its loop reads them."""
        self.session = session
        self.senses.session = session
        self.loop = None
        if self.observer is not None:
            self._sense(session)
            self.loop = TableLoop(session, self.observer, self.site_name, self.config.hold)
        return self.loop

    def own_board(self, game: str) -> Board:
        """The board a game is on when its options choose none: the configured board for the table's game, else
        the game's own."""
        return self.board if game == self.game else default_board(game)

    def _sense(self, session: Session, switches: dict | None = None, announce: bool = True) -> None:
        """Read the board of `session`'s game from now on: its grid profile (none yet: the grid reads nothing and
        the phones are told to walk it), the camera over it, the boards beside it (the table's game only). The
        configured board's `switches` are given at start (its profile was checked then)."""
        record = session.record
        board = board_of(record.game, record.options, self.own_board)
        name = board_set(record.game, record.options)
        own = record.game == self.game and (name is None or _same_file(record.options, self.config.board))
        words = board_words(record.game, name, session.game.title)
        self.playing = board
        told: list[str] = []
        beside = self.beside if record.game == self.game else []
        gridded = [other for other in beside if other.grid.has_grid]  # the boards beside it on grids of their own
        if self.observer is not None and (self.grid is not None or gridded):
            if self.grid is not None:
                assert self.grid_profile is not None
                profile = grid_profile_of(self.grid_profile, record.game, name, own)
                if switches is None or not own:
                    switches = _board_switches(profile, board, words, told)
                self.grid.board, self.grid.profile = board, profile
                if switches is None and not told and (announce or not own):  # (own: the start's note says it)
                    told.append(f"The grid has not learnt {words} yet: walk it from Calibrate (the grid's "
                                "walk-through), and declare moves on a phone until then.")  # fmt: skip
            # The boards beside are the table's game's (a calibration of one since start is kept for its next game).
            self._beside_sites.update({k: v for k, v in self.observer.switch_sites.items() if len(k) == 3})
            mapping = {**(self._beside_sites if gridded else {}), **(switches or {})}
            self.observer.remap(mapping)
            self.switch_sites = mapping if switches is not None or gridded else None
        if self.camera_profile is not None and self.observer is not None:
            self.vision = _board_vision(self.config, board, record.game, self.camera_profile, own, words, told, beside)
            seen = [*(s.id for s in board.sites), *(other.prefix + s.id for other in beside for s in other.board.sites)]
            self.observer.watch_sites(None if self.vision is None else frozenset(seen))
            if self.vision is not None:
                self.visions.tell(self.vision)
        self.site_name = site_namer(board, beside)
        grid = None if self.grid is None else self.switch_sites is not None
        camera = None if self.camera_profile is None else self.vision is not None
        # (at start no link is open yet: the grid is out of step until it answers, which is no news for the log)
        self.senses.board_changed(grid, camera, self._grids_connected(), told=announce)
        if not announce:  # at start, for the terminal: the phones were told when the game began
            self.notes.extend(text.rstrip(".") for text in told)
            return
        for text in told:
            with contextlib.suppress(CannotSave):
                session.note(Event("senses-board", text, {"board": name or board.name}))

    def table_grid(self) -> TableGrid | None:
        """The grid as its calibration from the phones needs it (None: no grid at this table): it walks the board
        of the game in play and writes that board's profile."""
        return self.grid

    def beside_grids(self) -> list[TableGrid]:
        """The grids under the boards beside the game's own, as their calibration from the phones needs them."""
        if self.observer is None:
            return []
        return [TableGrid(other.board, lambda i=i: self._beside_link(i), Path(other.grid.profile), self.observer,
                          lambda profile, index=other.index: self._grid_calibrated(profile, index),
                          settle=self.config.settle, place=other.index, prefix=other.prefix)
                for i, other in enumerate(self.beside) if other.grid.has_grid]  # fmt: skip

    def table_probe(self) -> TableProbe | None:
        """The grids as a probe from the phones needs them, to tell which lies under which board (None: one grid)."""
        gridded = [other for other in self.beside if other.grid.has_grid]
        if self.observer is None or self.grid_profile is None or not gridded:
            return None
        prefixes = {self.game: "", **{other.grid.board: other.prefix for other in gridded}}
        return TableProbe(self._probe_links, prefixes, self._rebind, self.config.settle)

    def _probe_links(self) -> dict:
        return {
            self.game: self.link,
            **{other.grid.board: self._beside_link(i) for i, other in enumerate(self.beside) if other.grid.has_grid},
        }

    def _rebind(self, links: dict) -> None:
        """Each board read from the grid that answered for it (a probe); the config keeps the ports, if there is one."""
        if self.config_path is not None:
            save_grid_ports(self.config_path, {board: port_of(link) for board, link in links.items()})
        self.beside_links = [links.get(other.grid.board) for other in self.beside]
        self.link = links[self.game]

    def _beside_link(self, i: int):
        return self.beside_links[i] if i < len(self.beside_links) else None

    def _grid_calibrated(self, profile: GridProfile, index: int | None = None) -> None:
        assert self.observer is not None
        if index is not None:
            self.calibrated.add(index)
        self.switch_sites = dict(self.observer.switch_sites)
        self.senses.calibrated("grid", self._grids_connected())

    def _links(self) -> list:
        """Every grid's link (a board with no grid under it has none)."""
        return [link for link in (self.link, *self.beside_links) if link is not None]

    def _read_links(self) -> list:
        """The links whose switches the board is read from: the game board's grid and the calibrated others."""
        beside = [link for other, link in zip(self.beside, self.beside_links, strict=False)
                  if other.index in self.calibrated]  # fmt: skip
        return [link for link in (self.link, *beside) if link is not None]

    def _grids_connected(self) -> bool:
        links = self._read_links()
        return bool(links) and all(link.connected for link in links)

    def _grid_link(self, up: bool) -> None:
        """One grid came or went: the table's grid counts as up only while every grid under its boards is (a
        planet map whose grid is away would read as empty). One coming up while another has not yet (at start) is
        no loss: nothing is said until every grid answers."""
        if self._stop.is_set():
            return  # the table is stopping: its links going down is no news, and the log is closing
        connected = self._grids_connected()
        if self.signals is not None:
            self.signals.link(up and connected)
        if up and not connected:
            return
        self.senses.grid(up and connected)

    def describe(self) -> str:
        """One line for the terminal: the game and what referees the board."""
        state = "resumed" if self.resumed else "new"
        return f"{self.session.game.title} ({state} game {self.session.record.id}): {self.senses.mode()}"

    def sensors(self) -> dict[str, Any]:
        """What the senses are now (Senses.status), and which of the table's threads has stopped, if one has (it
        should never: /healthz then says the table is not well)."""
        status = self.senses.status()
        stopped = [thread.name for thread in self._threads if not thread.is_alive() and not self._stop.is_set()]
        if stopped:
            status["stopped"] = stopped
        return status

    def start(self, wait: float = 3.0, threads: bool = True) -> LiveTable:
        """Starts the senses; a grid that has not answered within `wait` seconds is announced as lost (and as
        back whenever it answers). `threads` False: the grids' links run, but the camera's thread and the referee's
        do not (a driver on a clock of its own looks at the board: the twin's hands in time)."""
        if self.grid_profile is not None or any(other.grid.has_grid for other in self.beside):
            if self.grid_profile is not None:
                port = None if self.config.serial == "auto" else self.config.serial
                self.link = self.devices.grid(port, self._grid_link)
            self.beside_links = [self.devices.grid(other.grid.serial, self._grid_link) if other.grid.has_grid
                                 else None for other in self.beside]  # fmt: skip
            for link in self._links():
                link.start()
            deadline = time.monotonic() + wait
            # every grid gets the wait (one not yet calibrated is about to be walked), but only those the board is
            # read from make the table say its grid is lost
            synced = {id(link) for link in self._links() if link.wait_synced(max(0.0, deadline - time.monotonic()))}
            if not all(id(link) in synced for link in self._read_links()):
                self.senses.grid(False)
        if self.camera_sites is not None and threads:
            self._spawn(self._watch_camera, "camera")
        if self.observer is not None and threads:
            self._spawn(self._look, "referee")
        return self

    def stop(self) -> None:
        self._stop.set()
        for link in self._links():
            link.stop()
        if self._camera_source is not None:
            self._camera_source.close()  # (a phone's: its reader waits no longer)
        for thread in self._threads:
            thread.join(timeout=2)
        if self.signals is not None:
            self.signals.close()
        self.session.close()  # (after any announcement under way: a thread slow to stop may be in one)
        if self.store is not self.session.store:
            self.store.close()

    def _spawn(self, target: Callable[[], None], name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _look(self) -> None:
        assert self.observer is not None
        failed: set[str] = set()
        while not self._stop.wait(TICK):
            try:
                self.look(time.monotonic())
            except Exception as error:  # a fault of the table's own: said once, and the next look goes on
                _say_once(failed, "the referee's look at the board failed", error)

    def look(self, now: float) -> None:
        """One look at the board: every grid's switches to the observer, then the loop (the referee's thread does
        this every TICK)."""
        assert self.observer is not None
        # (how far the links had read before their switches are taken: what they show held at least until then)
        heard = min((link.caught_up() for link in self._read_links()), default=now)
        closed = self.switches()
        if closed is not None:
            self.observer.reed(closed, now, heard)
        loop = self.loop  # a new game from a phone replaces it; the next look uses the new one
        if loop is not None:
            with contextlib.suppress(CannotSave):  # the phones are told; the board is judged again later
                warning = loop.warning
                loop.tick(now)
                if self.signals is not None and loop.warning is not warning and loop.warning is not None \
                        and not loop.warning.progress:  # fmt: skip
                    self.signals.illegal_move()

    def switches(self) -> frozenset | None:
        """Every grid's closed switches, the game board's as (row, col) and a board beside it's as (its place in the
        list, row, col); None while a grid is out of step (a board read half would look like pieces taken off)."""
        links = self._read_links()
        if not links or not all(link.synced for link in links):
            return None
        closed = set(self.link.occupancy()) if self.link is not None else set()
        for other, link in zip(self.beside, self.beside_links, strict=True):
            if link is not None and link.synced:  # (one not calibrated yet may be away: its switches name no site)
                closed |= {(other.index, *switch) for switch in link.occupancy()}
        return frozenset(closed)

    def wants_frame(self) -> bool:
        """Whether the table wants a camera frame now: the grid is quiet on a change the camera has not read yet (or,
        with no grid to say so, always). A phone on a stand sends its full-resolution still then."""
        return self._still_wanted()

    def _still_wanted(self) -> bool:
        """A phone camera sends a full-resolution still once the grid is quiet on a change the camera has not read
        (or, with no grid to say so, whenever it may)."""
        observer = self.observer
        if observer is None:
            return False
        changed = observer.changed_sites()
        return changed is None or (bool(changed) and observer.grid_quiet(time.monotonic()))

    def _crop_plan(self) -> Plan | None:
        """The crops a phone sends instead of its still: where the board in play's reader (or on a table of several
        boards, each changed board's) would read the sites the grid says changed (None: the whole still, as before
        the first reading)."""
        reader, observer = self.vision, self.observer
        to_read = observer.sites_to_read() if observer is not None else None
        if reader is None or to_read is None:
            return None
        return reader[0].crop_plan(to_read[0] | to_read[1])  # (whether a stack looks changed the crops will show)

    def read_frame(
        self, image: np.ndarray, now: float, cropped: Cropped | None = None, taken: float | None = None
    ) -> None:
        """One camera frame read (every board in view, each by its own markers) and handed to the observer. A frame
        of another size than the profile's is rescaled when it has the profile's shape, else FrameSize. `cropped`:
        the frame holds only the crops of a plan (a phone's), read where the plan says. `taken`: the moment before
        which it cannot have been taken, where its source knows (Frame.taken)."""
        view = self.frame_view(image, now, cropped)
        if view is not None and taken is not None:
            view = replace(view, taken=taken)
        if view is not None:
            assert self.observer is not None
            self.observer.camera(view)

    def frame_view(self, image: np.ndarray, now: float, cropped: Cropped | None = None) -> CameraView | None:
        """What one camera frame taken at `now` shows, as `read_frame` reads it, before the observer is told (it is
        told once the reading is done); None when the frame is not read (crops asked for before the board changed,
        or a board in play the camera cannot read)."""
        assert self.observer is not None
        image = self._fitted(image)
        reader = self.vision  # (a game on another board brings another)
        # Decoded in crops around the changed sites (and a slow sweep), and the held ones where they look changed.
        to_read = self.observer.sites_to_read()
        changed, held = to_read if to_read is not None else (None, frozenset())
        if cropped is not None and (
            to_read is None or not changed | held <= cropped.plan.read or not _planned(reader, cropped)
        ):
            return None  # the grid or the board changed since the crops were asked for: the next still is asked for
        if cropped is None:  # (the calibration view shows the last whole picture)
            self.latest_image = image
        if reader is None:  # the board in play is one the camera cannot read: the calibration view only
            return None
        vision, registry = reader
        if cropped is None and self.observer.watches_grid() and vision.arm_over(image):
            # An arm over the board holds every booking: a frame that shows one cannot settle it, so its stickers are
            # not decoded, and the reader is free for the frame that shows the arm gone. It vouches for no site. The
            # frames before it are not fused with those after: the hand may have set a piece where no switch feels.
            self._settled_frames = []
            return CameraView(now, {}, frozenset(self.observer.camera_sites or ()), True, hand=True)
        # While the grid stays quiet the board is still: the frames since it settled are fused with this one where
        # stickers are decoded (a site read unread in the first is read again in the average of several).
        still = changed is not None and self.observer.grid_quiet(now) and cropped is None
        fused = self._settled_frames if still and all(f.shape == image.shape for f in self._settled_frames) else []
        # With no grid, a big frame is read where the board looks changed (the frames follow one another).
        by_look = not self.observer.watches_grid()
        if cropped is not None:
            reading = vision.process(image, now, changed, cropped=cropped, held=held)
        else:
            reading = vision.process(image, now, changed, more=tuple(fused), by_look=by_look, held=held)
        self._settled_frames = [*fused, image][-FUSED_FRAMES + 1 :] if still else []
        # A side's counters are named for the player who plays them (the game in play's players).
        names = registry.seated(self.session.record.players)
        return camera_view(reading, registry, self.playing, names)

    def _fitted(self, image: np.ndarray) -> np.ndarray:
        """The frame at the camera profile's size: rescaled when only its resolution differs (a browser that picks
        another), FrameSize when its shape does (a phone turned to portrait: the calibration no longer fits)."""
        if self.camera_profile is None or getattr(image, "ndim", 0) < 2:
            return image
        import cv2

        width, height = self.camera_profile.image_size
        got_h, got_w = image.shape[:2]
        if (got_w, got_h) == (width, height):
            return image
        if got_w == 0 or got_h == 0 or abs(got_w * height / (got_h * width) - 1) > ASPECT_SLACK:
            raise FrameSize(f"recalibrate the camera: its pictures are now {got_w} x {got_h}, and its calibration "
                            f"is for {width} x {height}")  # fmt: skip
        smaller = got_w > width
        return cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA if smaller else cv2.INTER_LINEAR)

    def _watch_camera(self) -> None:
        """Frames in, read, until the table stops. Nothing ends it: a camera that cannot be opened, stops sending,
        sends pictures of another shape or fails is announced as stopped with why, and tried again with a growing
        wait (one that failed is opened afresh); the first good frame after that announces it back."""
        assert self.observer is not None
        failures, wait, lost = 0, CAMERA_RETRY[0], False
        failed: set[str] = set()
        while not self._stop.is_set():
            why = None
            try:
                source = self._camera_source or self.devices.camera(self._camera_spec(), self._still_wanted)
                self._camera_source = source
                frame = source.read()
                if frame is not None:
                    self.read_frame(frame.image, time.monotonic(), frame.cropped, frame.taken)
            except UserError as error:  # cannot be opened (unplugged, in use): said once it counts as gone
                frame, why = None, str(error)
            except FrameSize as error:  # said at once: the next frame will be no better
                frame, why, failures = None, str(error), CAMERA_GONE_AFTER - 1
            except Exception as error:  # the camera's driver or the reading failed: opened afresh next time
                _say_once(failed, "the camera failed", error)
                frame, why = None, f"it failed ({type(error).__name__}: {error})"
                self._close_camera()
            if frame is not None:
                if lost:
                    self.senses.camera(True)
                failures, wait, lost = 0, CAMERA_RETRY[0], False
                continue
            failures += 1
            if failures >= CAMERA_GONE_AFTER:
                lost = True
                self.senses.camera(False, why)
            if self._stop.wait(wait):
                break
            if lost:
                wait = min(wait * 2, CAMERA_RETRY[1])
        self._close_camera()

    def _camera_spec(self) -> str:
        """The configured camera as its device factory opens it: the Pi camera's gray frames, or colour frames where
        the profile finds pieces by colour."""
        return _pi_camera(self.camera_profile) if self.config.camera == "picamera" else self.config.camera

    def _close_camera(self) -> None:
        source = self._camera_source
        if source is not None and source is not self.phone:
            self._camera_source = None
            with contextlib.suppress(Exception):
                source.close()


def _planned(reader: Reader | None, cropped: Cropped) -> bool:
    """Whether the reader is the one whose plan the crops follow: the one board's, or the table's of several boards
    (a plan over boards it reads)."""
    from companion.sensing.vision import Vision
    from companion.sensing.vision_crops import TablePlan

    if reader is None:
        return False
    vision, plan = reader[0], cropped.plan
    if isinstance(vision, Vision):
        return not isinstance(plan, TablePlan) and vision.board.name == plan.board
    return isinstance(plan, TablePlan) and set(plan.boards) <= {where.board.name for where in vision.boards}


def _vision(
    config: TableConfig, board: Board, game: str, profile: CameraProfile, beside: list[Beside]
) -> tuple[Vision | TableVision, Registry]:
    """The camera's reader, checked now so a bad profile is one line at start rather than a dead thread later: one
    board's Vision, or with boards beside the game's own a TableVision that follows each by its own markers."""
    from companion.sensing.pieces import default_registry, load_registry
    from companion.sensing.vision import Vision
    from companion.sensing.vision_table import BoardInView, TableVision

    registry = load_registry(config.registry) if config.registry and game == config.game else default_registry(game)
    if not beside:
        return Vision(board, registry, profile), registry
    boards = [BoardInView(board), *(BoardInView(other.board, other.prefix) for other in beside)]
    return TableVision(boards, registry, profile), registry


def _board_vision(config: TableConfig, board: Board, game: str, profile: CameraProfile, own: bool, words: str,
                  told: list[str], beside: list[Beside]) -> tuple[Vision | TableVision, Registry] | None:  # fmt: skip
    """The camera over the board in play. The profile's pose was taken over the table's own board: another board
    (a copy laid over its own photo, whose millimetres are its own) is found afresh by its corner markers, as they
    lie where its file puts them; a board without them, or another game's pieces without a registry, is left to
    the grid and the phones, and the phones are told."""
    if own:
        return _vision(config, board, game, profile, beside)  # (a bad profile is an error at start, as it always was)
    if len(markers_on(board)) < MIN_MARKERS:
        told.append(f"The camera cannot find {words}: its file has no corner markers on the board, so the camera "
                    "does not read it.")  # fmt: skip
        return None
    try:
        vision = _vision(config, board, game, replace(profile, pose=None), beside)
    except UserError as error:
        told.append(f"The camera does not read {words}: {error}.")
        return None
    told.append(f"The camera finds {words} by its corner markers (where the board's printed overlay has them): "
                f"{MIN_MARKERS} must be in view.")  # fmt: skip
    return vision


def _say_once(said: set[str], what: str, error: Exception) -> None:
    """A fault of the companion's own, on the terminal with its traceback, once per kind (the thread goes on)."""
    key = f"{type(error).__name__}: {error}"
    if key not in said:
        said.add(key)
        print(f"{what}: {key}", file=sys.stderr, flush=True)
        traceback.print_exception(error, file=sys.stderr)


def _calibrated(profile: str | None, sense: str, notes: list[str]) -> bool:
    """A sense is used once it is calibrated; until then the table goes on without it and says why. (A profile that
    exists but is wrong is still an error: that is a mistake to fix, not a step still to come.)"""
    command = {"grid": "companion calibrate grid", "camera": "companion calibrate camera` and `board"}[sense]
    if profile is None:
        notes.append(f"the {sense} is left out: it has no profile yet (--{sense}-profile, from `{command}`)")
        return False
    if not Path(profile).exists():
        how = "the page's Calibrate view or `companion calibrate grid`" if sense == "grid" else f"`{command}`"
        notes.append(f"the {sense} is left out: {profile} does not exist yet (make it with {how})")
        return False
    return True


def _switch_sites(config: TableConfig, board: Board, notes: list[str]) -> dict | None:
    if config.serial == "none" or not _calibrated(config.grid_profile, "grid", notes):
        return None
    from companion.calibration.grid import load_profile

    assert config.grid_profile is not None
    profile = load_profile(Path(config.grid_profile), board)
    return {switch: site for site, switch in profile.sites.items()}


def _same_file(options: Mapping[str, Any], configured: str | None) -> bool:
    """Do the options choose the configured board's own file (`serve --board my-copy`, and my-copy chosen)?"""
    if configured is None:
        return False
    spec = next((options.get(option) for option in BOARD_OPTIONS.values() if isinstance(options.get(option), str)),
                None)  # fmt: skip
    try:
        return spec is not None and set_path(spec).resolve() == Path(configured).resolve()
    except OSError:
        return False


def _board_switches(profile: Path, board: Board, words: str, told: list[str]) -> dict | None:
    """A board's own grid profile, as switch -> site (None: none yet, or one that cannot be read, which is said)."""
    from companion.calibration.grid import load_profile

    if not profile.exists():
        return None
    try:
        loaded = load_profile(profile, board)
    except UserError as error:
        told.append(f"The grid's calibration of {words} cannot be read ({error}): walk it again from Calibrate.")
        return None
    return {switch: site for site, switch in loaded.sites.items()}


def _pi_camera(profile: CameraProfile | None) -> str:
    """The Pi camera's gray frames, or colour frames where the profile finds pieces by colour."""
    return "pi:colour" if profile is not None and profile.colours else "pi"
