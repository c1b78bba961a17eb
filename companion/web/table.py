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
from companion.table.loop import Question, TableLoop, Warning
from companion.table.session import Session
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
        grid_map: Mapping[str, tuple[int, int]] | None = None,
    ) -> None:
        if session.store.path == ":memory:":
            raise ValueError("the web table needs a store in a file: the streams read it on their own connections")
        self.token = token or secrets.token_urlsafe(16)
        self.hub = hub or Hub()
        self.sensors: Sensors = sensors or (lambda: {"grid": "none", "camera": "none"})
        self._board = board
        self.camera = camera  # None: no camera at this table
        self.grid_map = grid_map  # site -> reed switch, from the grid profile in use (None: no grid)
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

    def new_game(self, game: str, players: Sequence[str], options: Mapping[str, Any], seed: int | None) -> Session:
        """Start a game on the same log (its own connection: the old session may still be writing)."""
        with self._lock:
            store = Store(self.session.store.path)
            seed = seed if seed is not None else secrets.randbelow(2**31)  # the companion shuffles for the table
            session = Session.start(store, game, players, options, seed)
            loop = self._make_loop(session)
            self.session, self.loop = session, loop
            self._attach(session, loop)
            # The game's opening note was committed by Session.start, before anyone listened: announce it now.
            for entry in store.entries(session.record.id):
                self.hub.announce(entry.id, entry_json(entry))
            for listener in list(self._games):
                listener(session, loop)
        self._publish_state()
        return session

    def use_loop(self, loop: TableLoop | None) -> None:
        """Watch the board through another loop (another sensor set-up or calibration) for the same game."""
        with self._lock:
            self.loop = loop
            self._attach(self.session, loop, subscribe=False)

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
    return {"text": warning.text, "advice": list(warning.advice), "sites": list(warning.sites)}
