"""The table as the web sees it: the game in play, its loop, the token that lets a phone act, and the hub.

The Table holds no Flask state; the app keeps it on `app.extensions["orrery"]`. It is the one place that turns the
session's committed entries and the loop's questions and warnings into stream messages.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.atomic import write_atomically
from companion.boards import Board, default_board
from companion.calibration.grid_probe import board_title
from companion.errors import UserError
from companion.listeners import Listeners
from companion.rules import Action, SetupError
from companion.rules.words import verdict
from companion.sensing.pushed import PushedFrames
from companion.table.datasets import DataSets
from companion.table.game_board import board_in_play, board_of, board_set, board_words
from companion.table.grid_first import GridFirst
from companion.table.grid_walk import GridWalk, TableGrid
from companion.table.loop import Question, TableLoop, Warning
from companion.table.probe_walk import ProbeWalk, TableProbe
from companion.table.session import Session
from companion.table.setup_guide import SetupGuide
from companion.table.steps import NotNow
from companion.table.store import Entry, Store, StoreError
from companion.table.token import KeptToken
from companion.web import sse
from companion.web.books import books
from companion.web.calibration import CameraFeed
from companion.web.hub import Hub
from companion.web.words import Words, named

NAMES_FILE = "seat-names.json"  # beside the table token: the players' names by seat
LoopFactory = Callable[[Session], TableLoop | None]
Sensors = Callable[[], dict[str, Any]]


@dataclass(frozen=True)
class NewGame:
    """A game a phone started: its session, and its loop when sensors watch the board."""

    session: Session
    loop: TableLoop | None


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


def _stored_entry_json(row: tuple) -> str:
    """A stored entry as entry_json gives it, assembled from the JSON texts as stored (parsing and writing them
    again for every replayed entry would cost ten times as much)."""
    entry_id, game_id, kind, action, source, actor, events, created = row
    return (f'{{"id":{entry_id},"game_id":{game_id},"kind":{json.dumps(kind)},"action":{action or "null"},'
            f'"source":{json.dumps(source)},"actor":{json.dumps(actor)},"events":{events},"created":{created!r}}}')


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
        # The token: given (tests), kept in a file of the table's data folder (serve, demo), or made for this run.
        self._kept = KeptToken(token_path) if token is None and token_path is not None else None
        self._token = token or secrets.token_urlsafe(16)
        self.seat_names: dict[str, str] = _read_names(token_path) if self._kept is not None and token_path else {}
        self.datasets = datasets or DataSets(None)  # what a phone may name in a file option (never a path)
        self.log = session.store.identity  # in every announcement's id: a phone's position names its log
        self.hub = hub or Hub()
        self.sensors: Sensors = sensors or (lambda: {"grid": "none", "camera": "none"})
        self._board = board
        self.camera = camera  # None: no camera at this table
        self.phone = phone  # the camera page's frames, when a phone is the table's camera
        self.grid = grid  # the reed grid, its profile file and the observer that reads it (None: no grid)
        self.beside = list(beside)  # the grids under boards beside the game's own (Orbital Battle's planet maps)
        self.probe = probe  # which grid lies under which board, found from the phones (None: one grid)
        self.walk: GridWalk | ProbeWalk | None = None  # the grid's latest calibration walk-through
        self.guide: SetupGuide | None = None  # the latest guided setup
        self.first: GridFirst | None = None  # a new game's wait for the grid to learn its board, before the guide
        self._make_loop = make_loop or (lambda session: None)
        self._lock = threading.RLock()
        self._words: dict[int, Words] = {}
        self.games: Listeners[NewGame] = Listeners()  # each game a phone starts, once the table has taken it up
        self.session = session
        self.loop = loop
        self._attach(session, loop)

    @property
    def token(self) -> str:
        return self._kept.value if self._kept is not None else self._token

    @token.setter
    def token(self, value: str) -> None:
        self._kept, self._token = None, value

    def name_seat(self, seat: str, name: str) -> None:
        """The player's name beside a seat's colour, kept with the token (so across restarts) where there is a file."""
        with self._lock:
            names = {**self.seat_names, seat: name} if name else {k: v for k, v in self.seat_names.items() if k != seat}
            self.seat_names = names
            if self._kept is not None:
                write_atomically(self._kept.path.with_name(NAMES_FILE), json.dumps(names).encode())
        self._publish_state()

    def rotate_token(self) -> str:
        """A new token: every phone must scan the new QR code to act again."""
        if self._kept is not None:
            return self._kept.rotate()
        self._token = secrets.token_urlsafe(16)
        return self._token

    # Reading.
    def board(self) -> Board:
        session = self.session
        return board_in_play(session.game, session.state, session.record.options, self._board)

    def state(self) -> dict[str, Any]:
        """What every phone shows: the session's snapshot, the seats, the open question and the warning."""
        with self._lock:
            session, loop = self.session, self.loop
        snapshot = session.snapshot()
        snapshot["title"] = session.game.title
        snapshot["log"] = self.log  # the log's identity: the page names it when it opens a stream (?after=LOG-N)
        snapshot["players"] = list(session.record.players)
        words = self.words()
        snapshot["books"] = books(session.record.game, snapshot["ledger"], words)
        snapshot["seat_names"] = {seat: name for seat, name in self.seat_names.items() if seat in snapshot["players"]}
        snapshot["names"] = {piece: words.piece(piece) for stack in snapshot["layout"].values() for piece in stack}
        names = snapshot["seat_names"]  # the prompt and the end name a player as the header does
        snapshot["phase"] = {**snapshot["phase"], "prompt": named(words.text(snapshot["phase"]["prompt"]), names)}
        if snapshot.get("outcome"):
            outcome = snapshot["outcome"]
            said = named(words.text(verdict(outcome["result"], outcome["winners"], outcome["reason"])), names)
            snapshot["outcome"] = {**outcome, "reason": words.text(outcome["reason"]), "sentence": said}
        snapshot["question"] = self._question(loop.question if loop else None)
        snapshot["warning"] = self._warning(loop.warning if loop else None)
        return snapshot

    def words(self, game_id: int | None = None) -> Words:
        """The names of the game in play, or of an earlier game of the log (made once per game: a board takes some
        milliseconds to build)."""
        record = self.session.record
        if game_id is not None and game_id != record.id:
            with self.reader() as store:
                record = store.game(game_id)
        if record.id not in self._words:
            if len(self._words) > 8:
                self._words.clear()
            board = self.board() if record.id == self.session.record.id else board_of(record.game, record.options,
                                                                                      self._board)
            self._words[record.id] = Words(board, record.players)
        return self._words[record.id]

    def entry_json(self, entry: Entry) -> dict[str, Any]:
        """A log entry as the phones get it: its sentences in the words of its game."""
        words = self.words(entry.game_id)
        shown = entry_json(entry)
        shown["events"] = [{**event, "text": words.text(event.get("text", ""))} for event in entry.events]
        return shown

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
            return [self.entry_json(e) for e in store.entries(game_id, after)]

    def past_game(self, game_id: int) -> Session:
        """A game of this table's log as its log left it (on a connection of its own; StoreError: no such game)."""
        store = Store(self.session.store.path)
        try:
            session = Session.resume(store, game_id)
        except StoreError:
            store.close()
            raise
        assert session is not None
        return session

    def history(self, limit: int = 12) -> list[dict[str, Any]]:
        """The latest games of the log, newest first: who played, how it ended, and each seat's books at the end."""
        with self.reader() as store:
            records = store.games()[-limit:][::-1]
        return [self.game_summary(record.id) for record in records]

    def game_summary(self, game_id: int) -> dict[str, Any]:
        """One game of the log as it stands (or ended): its game, when it began, its players, the result, the
        winners and each seat's books (StoreError: no such game)."""
        session = self.past_game(game_id)
        try:
            record, outcome, words = session.record, session.game.outcome(session.state), self.words(game_id)
            return {
                "id": record.id, "game": record.game, "title": session.game.title, "players": list(record.players),
                "status": record.status, "created": record.created,
                "result": words.text(verdict(outcome.result, outcome.winners, outcome.reason)) if outcome else None,
                "winners": list(outcome.winners) if outcome else [],
                "books": books(record.game, session.game.ledger(session.state), words),
            }  # fmt: skip
        finally:
            session.store.close()

    def log_position(self) -> tuple[str, int]:
        """This log's identity and its last entry's id."""
        with self.reader() as store:
            return self.log, store.last_entry_id()

    def first_entry(self) -> int:
        """The first entry of the game in play."""
        with self.reader() as store:
            return store.first_entry_id(self.session.record.id)

    def replay_page(self, after: int, limit: int) -> tuple[int, int, bytes]:
        """At most `limit` entries after `after` (of every game) as stream messages in one piece: how many, the
        last one's id, the messages."""
        with self.reader() as store:
            rows = store.page(after, limit)
        messages = b"".join(sse.raw_message("entry", self._shown(row), sse.event_id(self.log, row[0]))
                            for row in rows)  # fmt: skip
        return len(rows), rows[-1][0] if rows else after, messages

    def _shown(self, row: tuple) -> str:
        """A stored entry for the stream, its sentences in words: written again only when the words pass changes a
        sentence (most entries go out as stored)."""
        events = row[6]
        words = self.words(row[1])
        stored = json.loads(events)
        shown = [{**event, "text": words.text(event.get("text", ""))} for event in stored]
        if shown != stored:
            events = json.dumps(shown)
        return _stored_entry_json((*row[:6], events, row[7]))

    # Acting (the API has checked the token).
    def choose(self, question_id: int, index: int, actor: str | None) -> Entry:
        loop = self.loop
        if loop is None:
            raise LookupError("no sensors watch this board, so there is no question to answer")
        entry = loop.choose(question_id, index, actor)
        self.hub.transient("question", None)
        self._publish_state()
        return entry

    def declare(self, action: Action, actor: str | None) -> Entry:
        """An action a phone declares. Not while the setup is being guided: the referee is held back then, so a game
        played on would go unrefereed; the board is set out first (or the guide stopped)."""
        guide = self.guide
        if guide is not None and guide.running:
            status = guide.status()
            left = status["total"] - status["placed"]
            raise NotNow(f"set out the board first: {left} {'piece' if left == 1 else 'pieces'} still to place "
                         "(or stop the guide)")  # fmt: skip
        return self.session.submit(action, "phone", actor)

    def override(self, action: Action, actor: str | None) -> Entry:
        loop = self.loop
        return loop.override(action, actor) if loop else self.session.submit(action, "override", actor)

    def new_game(
        self, game: str, players: Sequence[str], options: Mapping[str, Any], seed: int | None, guide: bool = True
    ) -> Session:
        """Start a game on the same log (its own connection: the old session may still be writing); with `guide`,
        the table is then guided through setting the pieces out (unless the grid is being calibrated); on a board
        the grid has not learnt, the phones lead with the grid's walk-through and the guide follows it."""
        with self._lock:
            store = Store(self.session.store.path)
            seed = seed if seed is not None else secrets.randbelow(2**31)  # the companion shuffles for the table
            try:
                options = self.datasets.resolve(game, options)
            except SetupError as error:
                raise UserError(f"cannot start {game}: {error}") from None
            session = Session.start(store, game, players, options, seed)
            try:
                loop = self._make_loop(session)
            except Exception as error:
                self._not_taken_up(session, error)
                raise
            walking = self.walk is not None and self.walk.running
            if loop is not None and (guide or walking):
                loop.pause()  # before the table listens to it: the pieces about to be set out are not moves
            replaced = next((g for g in (self.guide, self.first) if g is not None and g.running), None)
            if isinstance(replaced, SetupGuide):
                replaced.cancel()
            elif replaced is not None:
                replaced.stop("A new game has begun.")
            self.first = None
            self.session, self.loop = session, loop
            walk = self.walk
            if walking and isinstance(walk, GridWalk) and walk.grid.profile != walk.profile:
                walk.command("stop")  # it walked the old game's board: the new game's is walked afresh
                walking = False
            self._attach(session, loop)
            # The game's opening note was committed by Session.start, before anyone listened: announce it now.
            for entry in store.entries(session.record.id):
                self.hub.announce(entry.id, self.entry_json(entry), self.log)
            self.games.tell(NewGame(session, loop))
            # (after the listeners: the demo lays the new board on its grid there)
            first = self._grid_first() if guide else None  # (a walk of this board under way: the guide follows it)
            guiding = self._make_guide() if guide and not walking and first is None else None
        self._publish_state()
        if guiding is not None:
            guiding.start()
        elif first is not None:
            self.hub.transient("setup", first.status())
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

    def _grid_first(self) -> GridFirst | None:
        """The walk-through before the guide, when the new game's board has no switch on the grid (no profile yet,
        or one that cannot be read): the grid could not feel the pieces set out."""
        grid = self.grid
        if grid is None or grid.mapping():
            return None
        self.first = GridFirst(len(grid.board.sites))
        return self.first

    def setup_status(self) -> dict[str, Any] | None:
        """The setup's step as the phones were last told it: the wait for the grid, or the guide."""
        first = self.first
        if first is not None and first.state != "guided":  # (guided: the guide took over from it)
            return first.status()
        return None if self.guide is None else self.guide.status()

    def use_loop(self, loop: TableLoop | None) -> None:
        """Watch the board through another loop (another sensor set-up or calibration) for the same game."""
        with self._lock:
            self.loop = loop
            self._attach(self.session, loop, subscribe=False)
        self._hold_loop()

    # The guides: the grid's calibration walk-through and the guided setup. The referee is held back while either
    # runs (pieces set down for them are not moves), and one runs at a time.
    def grid_status(self, board: str | None = None) -> dict[str, Any]:
        """A grid at this table (the game board's, or the one under `board`): its size, the profile file, site ->
        switch as the table reads it, the walk; and every grid's board, for a table of several."""
        grid, walk = self._grid(board), self.walk
        boards = [{"board": g.board.name, "title": board_title(g.board)} for g in (self.grid, *self.beside)
                  if g is not None]  # fmt: skip
        if grid is None:
            return {"board": self.board().name, "grid": False, "rows": None, "cols": None, "profile": None,
                    "mapped": None, "walk": None, "boards": boards, "probe": False}  # fmt: skip
        rows, cols = grid.size() or (None, None)
        record = self.session.record
        title = board_words(record.game, board_set(record.game, record.options), self.session.game.title)
        return {"board": grid.board.name, "title": title if grid is self.grid else None, "grid": True,
                "rows": rows, "cols": cols, "profile": str(grid.profile),
                "mapped": {grid.prefix + site: list(switch) for site, switch in grid.mapping().items()},
                "walk": None if walk is None else walk.status(), "boards": boards,
                "probe": self.probe is not None}  # fmt: skip

    def _grid(self, board: str | None) -> TableGrid | None:
        if board is None or (self.grid is not None and board == self.grid.board.name):
            return self.grid
        found = next((g for g in self.beside if g.board.name == board), None)
        if found is None:
            raise ValueError(f"board: no grid at this table lies under {board!r}")
        return found

    def start_walk(self, sites: Sequence[str] | None = None, board: str | None = None) -> dict[str, Any]:
        """Start calibrating a grid from the phones (the game board's, or the one under `board`): every site of its
        board, or just `sites` (the others keep their switches)."""
        with self._lock:
            grid = self._grid(board)
            if grid is None:
                raise NotNow("there is no reed grid at this table")
            self._one_at_a_time()
            walk = GridWalk(grid, sites, lambda status: self.hub.transient("calibration", status),
                            self._walk_ended)  # fmt: skip
            self.walk = walk
        self._hold_loop()
        return walk.start()

    def _walk_ended(self) -> None:
        """A walk-through saved while a new game waits for it: the guided setup follows at once (the referee stays
        held). Stopped: the wait is told again, so every phone sees the step it left."""
        guiding = None
        with self._lock:
            first, walk = self.first, self.walk
            waiting = first is not None and first.running and isinstance(walk, GridWalk) and walk.grid is self.grid
            if waiting:
                assert first is not None and walk is not None
                first.walk_ended(walk.state == "saved")
                if not first.running:
                    guiding = self._make_guide()
        if waiting:
            assert first is not None
            if guiding is not None:
                guiding.start()
            else:
                self.hub.transient("setup", first.status())
        self._hold_loop()

    def start_probe(self) -> dict[str, Any]:
        """Find which grid lies under which board: a piece on each board's marked hex in turn."""
        with self._lock:
            if self.probe is None:
                raise NotNow("this table has one grid: there is nothing to tell apart")
            self._one_at_a_time()
            walk = ProbeWalk(self.probe, lambda status: self.hub.transient("calibration", status), self._hold_loop)
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
            if self.first is not None and self.first.running:
                self.first.state = "guided"  # the group sets out without the grid: each piece a tap
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
        first = self.first
        if first is not None and first.running:
            if do != "stop":
                raise NotNow("the grid is learning the board first: walk it, or start the guide without it")
            first.stop("The guide has stopped. Declare moves on a phone until the grid is walked from Calibrate.")
            status = first.status()
            self.hub.transient("setup", status)
            self._hold_loop()
            return status
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
            held = any(g is not None and g.running for g in (self.walk, self.guide, self.first))
        if loop is None or loop.paused == held:
            return
        if held:
            loop.pause()
            self.hub.transient("question", None)
        else:
            loop.resume()
        self._publish_state()

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
        self._publish_state()

    def _on_entry(self, entry: Entry) -> None:
        # Called by the session after the commit, in the thread that made the change. The announcement leaves at
        # once; the state after it (books, names, the layout: a millisecond or more to make) follows.
        self.hub.announce(entry.id, self.entry_json(entry), self.log)
        self._publish_state()

    def _on_storage(self, failure: str | None) -> None:
        """The log could not be saved (or can be again): every phone is told at once, as a warning."""
        if failure is None:
            loop = self.loop
            self.hub.transient("warning", self._warning(loop.warning if loop else None))
        else:
            self.hub.transient("warning", {"text": "The table cannot save: moves are paused.",
                                           "headline": "The table cannot save: moves are paused.",
                                           "advice": [f"The game's log cannot be written: {failure}. Moves wait "
                                                      "until it can be; nothing announced is lost."], "sites": []})
        self._publish_state()

    def _question(self, question: Question | None) -> dict[str, Any] | None:
        if question is None:
            return None
        words = self.words()
        return {"id": question.id, "choices": [words.text(text) for text in question.texts],
                "headline": words.text(question.headline), "in_hand": question.in_hand}

    def _warning(self, warning: Warning | None) -> dict[str, Any] | None:
        if warning is None:
            return None
        words = self.words()
        return {"text": words.text(warning.text), "headline": warning.headline,
                "advice": [words.text(text) for text in warning.advice], "sites": list(warning.sites),
                "progress": warning.progress}

    def _publish_state(self) -> None:
        self.hub.transient("state", self.state())


def _read_names(token_path: Path) -> dict[str, str]:
    try:
        names = json.loads(token_path.with_name(NAMES_FILE).read_text())
    except (OSError, ValueError):
        return {}  # none yet, or a damaged file: the players give their names again
    return {str(k): str(v) for k, v in names.items()} if isinstance(names, dict) else {}



