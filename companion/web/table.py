"""The table as the web sees it: the game in play and its loop, and the hub that tells every phone what happens.

The Table holds no Flask state; the app keeps it on `app.extensions["orrery"]`. It is the one place that turns the
session's committed entries and the loop's questions and warnings into stream messages. Its concerns live apart,
each behind a small interface: who sits at the table (seats.py), the log as the phones read it (logbook.py), the
games of the log (pastgames.py), and the walks and guides (guiding.py).
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.boards import Board, default_board
from companion.errors import UserError
from companion.listeners import Listeners
from companion.rules import Action, SetupError
from companion.rules.words import verdict
from companion.sensing.pushed import PushedFrames
from companion.table.datasets import DataSets
from companion.table.game_board import board_in_play
from companion.table.grid_walk import TableGrid
from companion.table.loop import Question, TableLoop, Warning
from companion.table.probe_walk import TableProbe
from companion.table.session import Session
from companion.table.setup_guide import SetupGuide
from companion.table.steps import NotNow
from companion.table.store import Entry, Store, StoreError
from companion.web.asks import Asks
from companion.web.books import books
from companion.web.calibration import CameraFeed
from companion.web.guiding import Guides
from companion.web.hub import Hub
from companion.web.logbook import LogBook
from companion.web.pastgames import PastGames
from companion.web.seats import Seats
from companion.web.words import Words, named

LoopFactory = Callable[[Session], TableLoop | None]
Sensors = Callable[[], dict[str, Any]]


@dataclass(frozen=True)
class NewGame:
    """A game a phone started: its session, and its loop when sensors watch the board."""

    session: Session
    loop: TableLoop | None


class Table:
    """One table: `session` (and its `loop` when sensors watch the board) may be replaced by a new game."""

    def __init__(
        self,
        session: Session,
        loop: TableLoop | None = None,
        *,
        token: str | None = None,
        token_path: Path | None = None,
        make_loop: LoopFactory | None = None,
        sensors: Sensors | None = None,
        board: Callable[[str], Board] = default_board,
        hub: Hub | None = None,
        camera: CameraFeed | None = None,
        grid: TableGrid | None = None,
        beside: Sequence[TableGrid] = (),
        probe: TableProbe | None = None,
        datasets: DataSets | None = None,
        phone: PushedFrames | None = None,
    ) -> None:
        if session.store.path == ":memory:":
            raise ValueError("the web table needs a store in a file: the streams read it on their own connections")
        self.session = session
        self.loop = loop
        self.seats = Seats(token, token_path)  # the token: given (tests), kept beside the log (serve), or made now
        self.asks = Asks()  # what one phone asks of another's seat
        self.datasets = datasets or DataSets(None)  # what a phone may name in a file option (never a path)
        self.hub = hub or Hub()
        self.sensors: Sensors = sensors or (lambda: {"grid": "none", "camera": "none"})
        self._board = board
        self.camera = camera  # None: no camera at this table
        self.phone = phone  # the camera page's frames, when a phone is the table's camera
        _pin_versions(session, self.datasets)
        self.logbook = LogBook(str(session.store.path), lambda: self.session.record, board, self.board)
        self.past = PastGames(str(session.store.path), self.logbook.words)
        self.guides = Guides(self, self.hub, grid, beside, probe)
        self._make_loop = make_loop or (lambda session: None)
        self._lock = threading.RLock()
        self._states = itertools.count()  # each state published, numbered in the order it was made
        self.games: Listeners[NewGame] = Listeners()  # each game a phone starts, once the table has taken it up
        self._attach(session, loop)

    @property
    def log(self) -> str:
        """The log's identity: in every announcement's id, so a phone's position names its log."""
        return self.logbook.identity

    def name_seat(self, seat: str, name: str) -> None:
        """The player's name beside a seat's colour, kept with the token (so across restarts) where there is a file."""
        self.seats.name(seat, name)
        self.publish_state()

    # Reading.
    def board(self) -> Board:
        session = self.session
        return board_in_play(session.game, session.state, session.record.options, self._board)

    def words(self, game_id: int | None = None) -> Words:
        return self.logbook.words(game_id)

    def state(self) -> dict[str, Any]:
        """What every phone shows: the session's snapshot, the seats, the open question and the warning."""
        loop = self.loop
        snapshot = self._snapshot()
        snapshot["question"] = self._question(loop.question if loop else None)
        snapshot["warning"] = self._warning(loop.warning if loop else None)
        return snapshot

    def _snapshot(self) -> dict[str, Any]:
        """The state without the question and the warning (the stream sends those as messages of their own)."""
        # One reference read, without the table's lock: a move announced on another thread (holding its session's
        # lock) must never wait for a new game being taken up, which may wait for that session (a guide resuming it).
        session = self.session
        snapshot = session.snapshot()
        snapshot["title"] = session.game.title
        snapshot["log"] = self.log  # the log's identity: the page names it when it opens a stream (?after=LOG-N)
        snapshot["players"] = list(session.record.players)
        words = self.words()
        snapshot["books"] = books(session.record.game, snapshot["ledger"], words)
        snapshot["seat_names"] = {seat: name for seat, name in self.seats.names.items()
                                  if seat in snapshot["players"]}  # fmt: skip
        snapshot["holders"] = self.seats.holders(session.record.players)  # seat -> the phone that plays it
        snapshot["asks"] = self.asks.listed()
        snapshot["names"] = {piece: words.piece(piece) for stack in snapshot["layout"].values() for piece in stack}
        names = snapshot["seat_names"]  # the prompt and the end name a player as the header does
        snapshot["phase"] = {**snapshot["phase"], "prompt": named(words.text(snapshot["phase"]["prompt"]), names)}
        if snapshot.get("outcome"):
            outcome = snapshot["outcome"]
            said = named(words.text(verdict(outcome["result"], outcome["winners"], outcome["reason"])), names)
            snapshot["outcome"] = {**outcome, "reason": words.text(outcome["reason"]), "sentence": said}
        return snapshot

    # Acting (the API has checked the token).
    def choose(self, question_id: int, index: int, actor: str | None, phone: str | None = None) -> Entry:
        loop = self.loop
        if loop is None:
            raise LookupError("no sensors watch this board, so there is no question to answer")
        entry = loop.choose(question_id, index, actor, phone)  # (the loop tells the phones the question is closed)
        self.publish_state()
        return entry

    def declare(self, action: Action, actor: str | None, phone: str | None = None) -> Entry:
        """An action a phone declares. Not while the setup is being guided on a table whose senses watch the board:
        the referee is held back then, so a game played on would go unrefereed; the board is set out first (or the
        guide stopped). Where no sense watches the board the guide is only help in setting out: a move declared
        means the group has set out and is playing, so it ends the guide."""
        guide = self.guides.guide
        if guide is not None and guide.running and self.loop is not None:
            status = guide.status()
            left = status["total"] - status["placed"]
            raise NotNow(f"set out the board first: {left} {'piece' if left == 1 else 'pieces'} still to place "
                         "(or stop the guide)")  # fmt: skip
        entry = self.session.submit(action, "phone", actor, phone)
        if guide is not None and guide.running:  # (only once the move is booked: a refused one changes nothing)
            self.guides.guide_command("stop")
        return entry

    def override(self, action: Action, actor: str | None, phone: str | None = None) -> Entry:
        loop = self.loop
        return loop.override(action, actor, phone) if loop else self.session.submit(action, "override", actor, phone)

    def new_game(
        self,
        game: str,
        players: Sequence[str],
        options: Mapping[str, Any],
        seed: int | None,
        guide: bool = True,
        phone: str | None = None,
    ) -> Session:
        """Start a game on the same log (its own connection: the old session may still be writing); with `guide`,
        the table is then guided through setting the pieces out (unless the grid is being calibrated); on a board
        the grid has not learnt, the phones lead with the grid's walk-through and the guide follows it. Without a
        seed the companion shuffles for the table from the system's entropy."""
        with self._lock:
            store = Store(self.session.store.path)
            try:
                options = self.datasets.resolve(game, options)
            except SetupError as error:
                raise UserError(f"cannot start {game}: {error}") from None
            session = Session.start(store, game, players, options, seed, phone)
            try:
                loop = self._make_loop(session)
            except Exception as error:
                self._not_taken_up(session, error)
                raise
            if loop is not None and (guide or self.guides.walking):
                loop.pause()  # before the table listens to it: the pieces about to be set out are not moves
            replaced = self.guides.replace()
            self.session, self.loop = session, loop
            self.seats.keep_seats(session.record.players)
            self.asks.clear()
            self._attach(session, loop)
            # The game's opening note was committed by Session.start, before anyone listened: announce it now.
            for entry in store.entries(session.record.id):
                self.hub.announce(entry.id, self.entry_json(entry), self.log)
            self.games.tell(NewGame(session, loop))
            # (after the listeners: the demo lays the new board on its grid there)
            lead = self.guides.lead(guide)
        self.publish_state()
        if isinstance(lead, SetupGuide):
            lead.start()
        elif lead is not None:
            self.hub.transient("setup", lead.status())
        elif replaced is not None:
            self.hub.transient("setup", replaced.status())
        return session

    def _not_taken_up(self, session: Session, error: Exception) -> None:
        """The table failed to take a new game up: it is ended with why (no restart resumes it in place of the game
        being played), and the senses go back to the game being played."""
        with contextlib.suppress(StoreError):
            session.abandon(str(error) or type(error).__name__)
        session.store.close()
        with contextlib.suppress(Exception):  # (the table's senses as they were, as far as they can be)
            loop = self._make_loop(self.session)
            if loop is not None:
                self.loop = loop
                self._attach(self.session, loop, subscribe=False)

    def use_loop(self, loop: TableLoop | None) -> None:
        """Watch the board through another loop (another sensor set-up or calibration) for the same game."""
        with self._lock:
            self.loop = loop
            self._attach(self.session, loop, subscribe=False)
        self.guides.hold_loop()

    def publish_sensors(self) -> None:
        self.hub.transient("sensors", self.sensors())

    # Wiring the session and the loop to the hub.
    def _attach(self, session: Session, loop: TableLoop | None, subscribe: bool = True) -> None:
        if subscribe:
            session.entries.subscribe(self._on_entry)
            session.store.failures.subscribe(self._on_storage)
        if loop is not None:
            loop.questions.subscribe(lambda question: self.hub.transient("question", self._question(question)))
            loop.warnings.subscribe(lambda warning: self.hub.transient("warning", self._warning(warning)))
        self.hub.transient("question", self._question(loop.question if loop else None))
        self.hub.transient("warning", self._warning(loop.warning if loop else None))
        self.publish_state()

    def entry_json(self, entry: Entry) -> dict[str, Any]:
        return self.logbook.entry_json(entry)

    def _on_entry(self, entry: Entry) -> None:
        # Called by the session after the commit, in the thread that made the change. The announcement leaves at
        # once; the state after it (books, names, the layout: a millisecond or more to make) follows.
        self.hub.announce(entry.id, self.entry_json(entry), self.log)
        self.publish_state()

    def _on_storage(self, failure: str | None) -> None:
        """The log could not be saved (or can be again): every phone is told at once, as a warning."""
        if failure is None:
            loop = self.loop
            self.hub.transient("warning", self._warning(loop.warning if loop else None))
        else:
            self.hub.transient(
                "warning",
                {
                    "text": "The table cannot save: moves are paused.",
                    "headline": "The table cannot save: moves are paused.",
                    "advice": [
                        f"The game's log cannot be written: {failure}. Moves wait "
                        "until it can be; nothing announced is lost."
                    ],
                    "sites": [],
                },
            )
        self.publish_state()

    def _question(self, question: Question | None) -> dict[str, Any] | None:
        if question is None:
            return None
        words = self.words()
        return {
            "id": question.id,
            "choices": [words.text(text) for text in question.texts],
            "headline": words.text(question.headline),
            "in_hand": question.in_hand,
        }

    def _warning(self, warning: Warning | None) -> dict[str, Any] | None:
        if warning is None:
            return None
        words = self.words()
        return {
            "text": words.text(warning.text),
            "headline": warning.headline,
            "advice": [words.text(text) for text in warning.advice],
            "sites": list(warning.sites),
            "progress": warning.progress,
        }

    def publish_state(self) -> None:
        """The state to every phone. Without the question and the warning: a state made before the loop asked (or
        withdrew) a question may go out after it, and would take it back. Numbered before it is made, so that of
        two made at once on two threads the older never follows the newer (every change is published after it is
        made, so the newer holds it)."""
        made = next(self._states)
        self.hub.transient("state", self._snapshot(), made)


def _pin_versions(session: Session, sets: DataSets) -> None:
    """Games logged before data sets had versions are pinned to the versions of their sets as they are now, so that
    no later save changes what they replay on (once: a pinned game names versions)."""
    store = session.store
    for record in store.games():
        pinned = sets.pin(record.game, record.options)
        if pinned is not None:
            store.set_options(record.id, pinned)
            if record.id == session.record.id:
                session.record = store.game(record.id)
