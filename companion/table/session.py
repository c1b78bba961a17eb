"""One game at a table: actions from the board or the phones are checked, logged, then announced.

The order is the promise: check with the rules, commit to the store, and only then tell the listeners (the
phones). A crash at any moment leaves a log from which `Session.resume` rebuilds exactly the last announced state.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.errors import UserError
from companion.listeners import Listeners
from companion.rules import Action, Event, Game, IllegalAction, SetupError, load
from companion.rules.engine import read_seed
from companion.rules.rng import KEYED_BELOW, KEYED_FROM
from companion.table.store import Entry, GameRecord, Snapshot, Store, StoreError

SEAT = re.compile(r"[a-z][a-z0-9_-]{0,15}")  # a seat's id: a colour or a short name (no spaces, controls or marks)
SNAPSHOT_EVERY = 25  # actions between state snapshots: bounds the replay work of a resume
SOURCES = ("board", "phone", "override", "companion")


class CannotResume(StoreError):
    """A logged game that cannot be rebuilt (its data gone or changed under it); the message says which and why."""


@dataclass(frozen=True)
class Stack:
    """The actions in force after a log: each action pushes, each undo pops the last one."""

    actions: tuple[Action, ...]
    texts: tuple[str, ...]
    actors: tuple[str | None, ...]  # the seat that made each (None: the board, the companion, the table as a whole)


class Session:
    """The game in play at one table. Thread-safe: the board, the phones and the timers may all call it."""

    def __init__(self, store: Store, record: GameRecord, state: Any, stack: Stack, opening: Any) -> None:
        self.store = store
        self.record = record
        self.game: Game = load(record.game)
        self._state = state
        self._opening = opening  # the first state: undo replays from it, never from the files set up from
        self._stack = stack
        # The log entry that made the state (its id): what a phone's list of moves names, so that the phone can
        # tell a list made from the state it shows from one made before or after it.
        self._made_by = store.last_entry_id()
        # Every change is made and announced under this lock; whoever listens and locks as it hears (the referee's
        # loop) shares it rather than taking a second lock, as two locks taken in opposite orders by two threads
        # (a phone's move or a sense's note against the referee's booking) would stop the table.
        self.lock = threading.RLock()
        self.entries: Listeners[Entry] = Listeners()  # each entry once committed, in the thread that made it

    @classmethod
    def start(
        cls,
        store: Store,
        game: str,
        players: Sequence[str],
        options: Mapping[str, Any],
        seed: int | None = None,
        phone: str | None = None,
    ) -> Session:
        """A new game (begun by `phone`, whose id its opening entry names; None: the console or the config); its
        chance from the system's entropy unless a seed is given (tests and the demo only)."""
        try:
            engine = load(game)
            check_seats(players)
            seed = entropy_seed() if seed is None else read_seed(seed)
            state = engine.setup(players, options, seed)
        except (KeyError, SetupError) as error:
            raise UserError(f"cannot start {game}: {error.args[0] if isinstance(error, KeyError) else error}") from None
        opening = [
            Event(
                "game-started", f"{engine.title} begins. {engine.phase(state).prompt}", {"players": list(players)}
            ).to_json()
        ]
        # The first snapshot holds the whole material (the board and data as read now): the game's one copy of it.
        record = store.create_game(
            game, list(players), dict(options), seed, opening, engine.state_to_json(state, whole=True), phone
        )
        return cls(store, record, state, Stack((), (), ()), state)

    @classmethod
    def resume(cls, store: Store, game_id: int | None = None) -> Session | None:
        """The given game, or the latest unfinished one, exactly as its log left it; None if there is none."""
        if game_id is None:
            unfinished = store.unfinished()
            if not unfinished:
                return None
            game_id = unfinished[-1].id
        record = store.game(game_id)
        try:
            state, stack, opening = _rebuild(store, record)
            game = load(record.game)  # what the table asks of it at once: a game that cannot answer is not resumed
            game.layout(state), game.phase(state), next(iter(game.legal_actions(state)), None)
        except (SetupError, IllegalAction, LookupError, ValueError, TypeError, AttributeError, OSError) as error:
            # (a log damaged by hand or by a disk gives data of any shape: the game is named, never a traceback)
            reason = error.args[0] if error.args else type(error).__name__
            raise CannotResume(f"game {record.id} ({record.game}) cannot be replayed: {reason}") from None
        return cls(store, record, state, stack, opening)

    # What the table and the phones read.
    @property
    def state(self) -> Any:
        return self._state

    @property
    def made_by(self) -> int:
        """The id of the log entry that made the state in play (a game resumed: the log's last entry then)."""
        return self._made_by

    @property
    def actions(self) -> tuple[Action, ...]:
        return self._stack.actions

    @property
    def last_actor(self) -> str | None:
        """The seat that made the last action in force (None: nobody's, or no action)."""
        return self._stack.actors[-1] if self._stack.actors else None

    def snapshot(self) -> dict[str, Any]:
        """Everything a phone shows, in JSON form (the phase with `count`: where the game stands, as its banner says
        it)."""
        with self.lock:
            outcome = self.game.outcome(self._state)
            phase = self.game.phase(self._state)
            return {
                "game": self.record.game,
                "game_id": self.record.id,
                "status": self.record.status,
                "phase": {**phase.to_json(), "count": self.game.counted(self._state, phase)},
                "ledger": self.game.ledger(self._state),
                "layout": {site: list(pieces) for site, pieces in self.game.layout(self._state).items()},
                "outcome": outcome.to_json() if outcome else None,
                "last_entry": self.store.last_entry_id(),
                "made_by": self._made_by,
            }

    # What changes the game.
    def submit(self, action: Action, source: str, actor: str | None = None, phone: str | None = None) -> Entry:
        """Apply an action: IllegalAction (state unchanged) or the committed, then announced, entry (naming the seat
        and the phone that sent it)."""
        if source not in SOURCES:
            raise ValueError(f"unknown source {source!r}")
        with self.lock:
            if self.record.status == "paused":
                raise IllegalAction("the game is paused; resume it first")
            state, events = self.game.apply(self._state, action)
            stack = Stack(
                (*self._stack.actions, action), (*self._stack.texts, _summary(events)), (*self._stack.actors, actor)
            )
            over = self.game.outcome(state) is not None
            snapshot = None
            if len(stack.actions) % SNAPSHOT_EVERY == 0 or over:
                snapshot = (len(stack.actions), self.game.state_to_json(state))
            entry = self.store.append(
                self.record.id,
                "action",
                action.to_json(),
                source,
                actor,
                [e.to_json() for e in events],
                snapshot=snapshot,
                status="over" if over else None,
                phone=phone,
            )
            self._state, self._stack, self._made_by = state, stack, entry.id
            if over:
                self.record = self.store.game(self.record.id)
            self._announce(entry)
            return entry

    def submit_all(
        self, actions: Sequence[Action], source: str, actor: str | None = None, phone: str | None = None
    ) -> list[Entry]:
        """Apply several actions in order (a force bought by numbers), all or none: every one is checked against the
        state the ones before it leave before the first is committed; then each is committed and announced."""
        with self.lock:
            state = self._state
            for action in actions:
                state, _ = self.game.apply(state, action)
            return [self.submit(action, source, actor, phone) for action in actions]

    def undo(self, source: str, actor: str | None = None, phone: str | None = None) -> Entry:
        """Take back the last action; the table must put the pieces back as the announcement says."""
        with self.lock:
            if not self._stack.actions:
                raise IllegalAction("there is nothing to undo")
            stack = Stack(self._stack.actions[:-1], self._stack.texts[:-1], self._stack.actors[:-1])
            state, _ = self.game.replay_from(self._opening, stack.actions)
            text = f"Undone: {self._stack.texts[-1]} Put the pieces back as they were."
            event = Event("undone", text, {"action": self._stack.actions[-1].to_json()})
            entry = self.store.append(
                self.record.id,
                "undo",
                None,
                source,
                actor,
                [event.to_json()],
                status="playing" if self.record.status == "over" else None,
                phone=phone,
            )
            self.record = self.store.game(self.record.id)
            self._state, self._stack, self._made_by = state, stack, entry.id
            self._announce(entry)
            return entry

    def correct(
        self, action: Action, entry: int, source: str, actor: str | None = None, phone: str | None = None
    ) -> Entry:
        """Replace the last action (logged as entry `entry`) with `action`, legal in the state before it: one new
        entry that says what is corrected, so that nothing a phone was told is lost."""
        with self.lock:
            if not self._stack.actions:
                raise IllegalAction("there is nothing to correct")
            if self.record.status == "paused":
                raise IllegalAction("the game is paused; resume it first")
            kept = Stack(self._stack.actions[:-1], self._stack.texts[:-1], self._stack.actors[:-1])
            before, _ = self.game.replay_from(self._opening, kept.actions)
            state, events = self.game.apply(before, action)
            stack = Stack((*kept.actions, action), (*kept.texts, _summary(events)), (*kept.actors, actor))
            text = f"Correction: {_summary(events)} Not: {self._stack.texts[-1]}"
            data = {
                "corrects": entry,
                "action": action.to_json(),
                "instead_of": self._stack.actions[-1].to_json(),
                "summary": _summary(events),
            }
            over = self.game.outcome(state) is not None
            status = "over" if over else "playing" if self.record.status == "over" else None
            snapshot = (len(stack.actions), self.game.state_to_json(state)) if over else None
            logged = self.store.append(
                self.record.id,
                "correction",
                action.to_json(),
                source,
                actor,
                [Event("corrected", text, data).to_json()],
                snapshot=snapshot,
                status=status,
                phone=phone,
            )
            if status is not None:
                self.record = self.store.game(self.record.id)
            self._state, self._stack, self._made_by = state, stack, logged.id
            self._announce(logged)
            return logged

    def set_paused(self, paused: bool, source: str, actor: str | None = None, phone: str | None = None) -> Entry:
        with self.lock:
            if self.record.status == "over":
                raise IllegalAction("the game is over")
            status = "paused" if paused else "playing"
            text = "The game is paused." if paused else f"The game resumes. {self.game.phase(self._state).prompt}"
            entry = self.store.append(
                self.record.id,
                "note",
                None,
                source,
                actor,
                [Event(status, text).to_json()],
                status=status,
                phone=phone,
            )
            self.record = self.store.game(self.record.id)
            self._announce(entry)
            return entry

    def abandon(self, why: str) -> Entry:
        """End a game the table could not take up (it failed as it began): noted with why and over, so that no
        restart resumes it in place of the game being played. The phones were never told of it."""
        with self.lock:
            event = Event("abandoned", f"This game could not begin: {why}.")
            entry = self.store.append(self.record.id, "note", None, "companion", None, [event.to_json()], status="over")
            self.record = self.store.game(self.record.id)
            return entry

    def close(self) -> None:
        """Close the log once no call of this session is under way: a sense's thread may be announcing through it
        as the table stops, and SQLite must not be closed under a statement in another thread."""
        with self.lock:
            self.store.close()

    def note(
        self, event: Event, source: str = "companion", actor: str | None = None, phone: str | None = None
    ) -> Entry:
        """Log and announce something the table must know that changes no rule state (a sensor lost or back, a
        seat played on another phone: `actor` the seat, `phone` the phone that made the change)."""
        with self.lock:
            entry = self.store.append(self.record.id, "note", None, source, actor, [event.to_json()], phone=phone)
            self._announce(entry)
            return entry

    def export(self) -> dict[str, Any]:
        """The whole game as JSON: its setup, every log entry, the actions in force and the state they give (with
        the material it was set up on, so that it reads again without any file)."""
        with self.lock:
            return {
                "game": self.record.game,
                "players": list(self.record.players),
                "options": self.record.options,
                "seed": self.record.seed,
                "status": self.record.status,
                "entries": [vars(entry) for entry in self.store.entries(self.record.id)],
                "actions": [a.to_json() for a in self._stack.actions],
                "state": self.game.state_to_json(self._state, whole=True),
            }

    def _announce(self, entry: Entry) -> None:
        self.entries.tell(entry)


def check_seats(players: Sequence[str]) -> None:
    """Seat ids, for every game: each 1 to 16 lower-case letters, digits, - and _ beginning with a letter (the page,
    the log and the console print them; a newline, an escape code or a right-to-left mark must never be one)."""
    for index, seat in enumerate(players):
        if not isinstance(seat, str) or not SEAT.fullmatch(seat):
            shown = repr(seat)[:30] if isinstance(seat, str) else type(seat).__name__
            raise SetupError(f"players[{index}]: {shown} is not a seat id (1 to 16 lower-case letters, digits, - and _,"
                             " beginning with a letter)")  # fmt: skip


def entropy_seed() -> int:
    """A seed from the system's entropy: a key of the keyed generator (rules/rng.py), which no phone can work out
    from the rolls and draws it sees."""
    return KEYED_FROM + secrets.randbelow(KEYED_BELOW - KEYED_FROM)


def _summary(events: list[Event]) -> str:
    return " ".join(e.text for e in events)


def _corrected(events: list[dict[str, Any]]) -> str:
    """The text of the action a correction put in place, from its event."""
    return " ".join(str(e.get("data", {}).get("summary", e["text"])) for e in events)


def _rebuild(store: Store, record: GameRecord) -> tuple[Any, Stack, Any]:
    """The actions in force, the state they give (from the newest snapshot still inside them) and the first
    state."""
    game = load(record.game)
    entries = list(store.entries(record.id))
    actions: list[Action] = []
    texts: list[str] = []
    actors: list[str | None] = []
    lowest_after: dict[int, int] = {}  # entry id -> the fewest actions in force at or after it
    for entry in entries:
        low = None
        if entry.kind == "action" and entry.action is not None:
            actions.append(Action.from_json(entry.action))
            texts.append(" ".join(e["text"] for e in entry.events))
            actors.append(entry.actor)
        elif entry.kind == "undo":
            actions.pop()
            texts.pop()
            actors.pop()
        elif entry.kind == "correction" and entry.action is not None:
            actions.pop()
            texts.pop()
            actors.pop()
            low = len(actions)  # a snapshot at the corrected action or after it no longer holds
            actions.append(Action.from_json(entry.action))
            texts.append(_corrected(entry.events))
            actors.append(entry.actor)
        lowest_after[entry.id] = len(actions) if low is None else low
    floor = len(actions)
    for entry in reversed(entries):
        floor = min(floor, lowest_after[entry.id])
        lowest_after[entry.id] = floor
    # The newest snapshot that no later undo reached below: the actions it holds are still in force.
    snapshots = store.snapshots(record.id)
    opening = _opening(game, record, snapshots[0] if snapshots else None)
    usable = (s for s in reversed(snapshots) if lowest_after.get(s.entry_id, -1) >= s.actions)
    snapshot = next(usable, None)
    if snapshot is not None and snapshot.actions > 0:
        state, done = game.state_from_json(snapshot.state, game.material(opening)), snapshot.actions
    else:
        state, done = opening, 0
    for action in actions[done:]:
        state, _ = game.apply(state, action)
    return state, Stack(tuple(actions), tuple(texts), tuple(actors)), opening


def _opening(game: Game, record: GameRecord, first: Snapshot | None) -> Any:
    """A game's first state: its first snapshot, which holds the material it was set up on; a game logged before
    snapshots held it is set up again (from the files as they are now: all such a log allows)."""
    if first is not None and first.actions == 0 and isinstance(first.state.get("material"), dict):
        return game.state_from_json(first.state)
    return game.setup(record.players, record.options, record.seed)
