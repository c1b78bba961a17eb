"""The table as the web sees it: the game in play, its loop, the token that lets a phone act, and the hub.

The Table holds no Flask state; the app keeps it on `app.extensions["orrery"]`. It is the one place that turns the
session's committed entries and the loop's questions and warnings into stream messages.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from companion.boards import Board, default_board
from companion.rules import Action
from companion.table.grid_walk import GridWalk, TableGrid
from companion.table.loop import Question, TableLoop, Warning
from companion.table.session import Session
from companion.table.setup_guide import SetupGuide
from companion.table.steps import NotNow
from companion.table.store import Entry, Store
from companion.web.calibration import CameraFeed
from companion.web.hub import Hub

LoopFactory = Callable[[Session], TableLoop | None]
Sensors = Callable[[], dict[str, Any]]


def entry_json(entry: Entry) -> dict[str, Any]:
    """A log entry as the API and the stream send it."""
    return {
        "id": entry.id,
        "game_id": entry.game_id,
        "kind": entry.kind,
        "action": entry.action,
        "source": entry.source,
        "actor": entry.actor,
        "events": entry.events,
        "created": entry.created,
    }


class Table:
    """One table: `session` (and its `loop` when sensors watch the board) may be replaced by a new game."""

    def __init__(
        self,
        session: Session,
        loop: TableLoop | None = None,
        *,
        token: str | None = None,
        make_loop: LoopFactory | None = None,
        sensors: Sensors | None = None,
        board: Callable[[str], Board] = default_board,
        hub: Hub | None = None,
        camera: CameraFeed | None = None,
        grid: TableGrid | None = None,
    ) -> None:
        if session.store.path == ":memory:":
            raise ValueError("the web table needs a store in a file: the streams read it on their own connections")
        self.token = token or secrets.token_urlsafe(16)
        self.hub = hub or Hub()
        self.sensors: Sensors = sensors or (lambda: {"grid": "none", "camera": "none"})
        self._board = board
        self.camera = camera  # None: no camera at this table
        self.grid = grid  # the reed grid, its profile file and the observer that reads it (None: no grid)
        self.walk: GridWalk | None = None  # the grid's latest calibration walk-through
        self.guide: SetupGuide | None = None  # the latest guided setup
        self._make_loop = make_loop or (lambda session: None)
        self._lock = threading.RLock()
        self._games: list[Callable[[Session, TableLoop | None], None]] = []
        self.session = session
        self.loop = loop
        self._attach(session, loop)

    # Reading.
    def board(self) -> Board:
        return self._board(self.session.record.game)

    def state(self) -> dict[str, Any]:
        """What every phone shows: the session's snapshot, the seats, the open question and the warning."""
        with self._lock:
            session, loop = self.session, self.loop
        snapshot = session.snapshot()
        snapshot["title"] = session.game.title
        snapshot["players"] = list(session.record.players)
        snapshot["question"] = _question(loop.question if loop else None)
        snapshot["warning"] = _warning(loop.warning if loop else None)
        return snapshot

    @contextmanager
    def reader(self) -> Iterator[Store]:
        """The store on a connection of its own: any thread may read while the session writes (WAL)."""
        store = Store(self.session.store.path)
        try:
            yield store
        finally:
            store.close()

    def entries(self, after: int = 0, game_id: int | None = None) -> list[dict[str, Any]]:
        with self.reader() as store:
            return [entry_json(e) for e in store.entries(game_id, after)]

    # Acting (the API has checked the token).
    def choose(self, question_id: int, index: int, actor: str | None) -> Entry:
        loop = self.loop
        if loop is None:
            raise LookupError("no sensors watch this board, so there is no question to answer")
        entry = loop.choose(question_id, index, actor)
        self.hub.transient("question", None)
        self._publish_state()
        return entry

    def override(self, action: Action, actor: str | None) -> Entry:
        loop = self.loop
        return loop.override(action, actor) if loop else self.session.submit(action, "override", actor)

    def new_game(
        self, game: str, players: Sequence[str], options: Mapping[str, Any], seed: int | None, guide: bool = True
    ) -> Session:
        """Start a game on the same log (its own connection: the old session may still be writing); with `guide`,
        the table is then guided through setting the pieces out (unless the grid is being calibrated)."""
        with self._lock:
            store = Store(self.session.store.path)
            seed = seed if seed is not None else secrets.randbelow(2**31)  # the companion shuffles for the table
            session = Session.start(store, game, players, options, seed)
            loop = self._make_loop(session)
            walking = self.walk is not None and self.walk.running
            if loop is not None and (guide or walking):
                loop.pause()  # before the table listens to it: the pieces about to be set out are not moves
            replaced = self.guide if self.guide is not None and self.guide.running else None
            if replaced is not None:
                replaced.cancel()
            self.session, self.loop = session, loop
            guiding = self._make_guide() if guide and not walking else None
            self._attach(session, loop)
            # The game's opening note was committed by Session.start, before anyone listened: announce it now.
            for entry in store.entries(session.record.id):
                self.hub.announce(entry.id, entry_json(entry))
            for listener in list(self._games):
                listener(session, loop)
        self._publish_state()
        if guiding is not None:
            guiding.start()
        elif replaced is not None:
            self.hub.transient("setup", replaced.status())
        return session

    def use_loop(self, loop: TableLoop | None) -> None:
        """Watch the board through another loop (another sensor set-up or calibration) for the same game."""
        with self._lock:
            self.loop = loop
            self._attach(self.session, loop, subscribe=False)
        self._hold_loop()

    # The guides: the grid's calibration walk-through and the guided setup. The referee is held back while either
    # runs (pieces set down for them are not moves), and one runs at a time.
    def grid_status(self) -> dict[str, Any]:
        """The grid at this table: its size, the profile file, site -> switch as the table reads it, the walk."""
        grid, walk = self.grid, self.walk
        if grid is None:
            return {"board": self.board().name, "grid": False, "rows": None, "cols": None, "profile": None,
                    "mapped": None, "walk": None}  # fmt: skip
        rows, cols = grid.size() or (None, None)
        return {"board": grid.board.name, "grid": True, "rows": rows, "cols": cols, "profile": str(grid.profile),
                "mapped": {site: list(switch) for site, switch in grid.mapping().items()},
                "walk": None if walk is None else walk.status()}  # fmt: skip

    def start_walk(self, sites: Sequence[str] | None = None) -> dict[str, Any]:
        """Start calibrating the grid from the phones: every site of the board, or just `sites` (the others keep
        their switches)."""
        with self._lock:
            if self.grid is None:
                raise NotNow("there is no reed grid at this table")
            self._one_at_a_time()
            walk = GridWalk(self.grid, sites, lambda status: self.hub.transient("calibration", status),
                            self._hold_loop)  # fmt: skip
            self.walk = walk
        self._hold_loop()
        return walk.start()

    def walk_command(self, do: str, site: str | None = None) -> dict[str, Any]:
        walk = self.walk
        if walk is None or not walk.running:
            raise NotNow("no walk-through is running: start one")
        return walk.command(do, site)

    def start_guide(self) -> dict[str, Any]:
        """Guide the table through setting out the layout the rules expect now, one piece at a time."""
        with self._lock:
            self._one_at_a_time()
            guide = self._make_guide()
        self._hold_loop()
        return guide.start()

    def _make_guide(self) -> SetupGuide:
        session, loop = self.session, self.loop
        self.guide = SetupGuide(session.game.layout(session.state), self.board(), loop.observer if loop else None,
                                lambda status: self.hub.transient("setup", status), self._hold_loop,
                                physical=session.game.physical_piece)  # fmt: skip
        return self.guide

    def guide_command(self, do: str) -> dict[str, Any]:
        guide = self.guide
        if guide is None or not guide.running:
            raise NotNow("the setup is not being guided now: start the guide first")
        return guide.command(do)

    def _one_at_a_time(self) -> None:
        if self.walk is not None and self.walk.running:
            raise NotNow("the grid's walk-through is running: finish or stop it first")
        if self.guide is not None and self.guide.running:
            raise NotNow("the setup is being guided: finish or stop it first")

    def _hold_loop(self) -> None:
        """Pause the referee while a guide runs, resume it after. Outside the table's lock: the loop may be judging
        a board and announcing it, which reads the table's state."""
        with self._lock:
            loop = self.loop
            held = any(g is not None and g.running for g in (self.walk, self.guide))
        if loop is None or loop.paused == held:
            return
        if held:
            loop.pause()
            self.hub.transient("question", None)
        else:
            loop.resume()
        self._publish_state()

    def on_new_game(self, listener: Callable[[Session, TableLoop | None], None]) -> None:
        """Called with the new session and loop when a phone starts a new game (the demo hands them to its twin)."""
        self._games.append(listener)

    def publish_sensors(self) -> None:
        self.hub.transient("sensors", self.sensors())

    # Wiring the session and the loop to the hub.
    def _attach(self, session: Session, loop: TableLoop | None, subscribe: bool = True) -> None:
        if subscribe:
            session.subscribe(self._on_entry)
        if loop is not None:
            before_q, before_w = loop.on_question, loop.on_warning

            def on_question(question: Question) -> None:
                before_q(question)
                self.hub.transient("question", _question(question))

            def on_warning(warning: Warning | None) -> None:
                before_w(warning)
                self.hub.transient("warning", _warning(warning))

            loop.on_question, loop.on_warning = on_question, on_warning
        self.hub.transient("question", _question(loop.question if loop else None))
        self.hub.transient("warning", _warning(loop.warning if loop else None))
        self._publish_state()

    def _on_entry(self, entry: Entry) -> None:
        # Called by the session after the commit, in the thread that made the change.
        self.hub.announce(entry.id, entry_json(entry))
        self._publish_state()

    def _publish_state(self) -> None:
        self.hub.transient("state", self.state())


def _question(question: Question | None) -> dict[str, Any] | None:
    if question is None:
        return None
    return {"id": question.id, "choices": list(question.texts)}


def _warning(warning: Warning | None) -> dict[str, Any] | None:
    if warning is None:
        return None
    return {"text": warning.text, "headline": warning.headline, "advice": list(warning.advice),
            "sites": list(warning.sites), "progress": warning.progress}
