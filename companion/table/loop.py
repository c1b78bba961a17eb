"""The table's loop: each settled board goes to the referee, and the ruling to the session or to the phones.

- explained: the action is submitted as coming from the board;
- ambiguous: a question for the phones, one choice per possible action, answered with `choose`. A question belongs
  to the state it was asked in: once anything else moves the game on (a phone declares an action, an undo, an
  override), it is withdrawn, the phones are told, and the board is judged afresh against the new state;
- in_progress: a move is part way done: a note saying what is still to do (through the warning channel, headed
  as a move under way, not as a wrong board); nothing is booked;
- mismatch: a warning saying what to put right, repeated only when the board changes; the game waits;
- in_hand: a lifted piece may still land where the sensors would feel it, though the board already shows a whole
  move (the piece set on a site a piece already takes, or off the board): the phones show what is in the hand with
  one tap per move the board cannot show ("It landed on b4."); a landing decides it, and once the hold window has
  passed with the board as it was, the one move it shows is booked by itself;
- unchanged: nothing (a piece lifted and put back, a hovering hand).
A booking from the board is followed until anything else moves the game on: a later board that, from the state
before it, is another legal move of the same lifted piece (the piece landed elsewhere after all, or was nudged on
from where it was set down) corrects it in one announced entry (`Session.correct`), never with advice to take it
back; while such a move is under way the table says so instead of calling the board wrong.
Automatic phases need nothing special: their one legal action is what the board must come to show, and the phase's
prompt (already announced) says what to move.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from companion.listeners import Listeners
from companion.rules import Action, IllegalAction
from companion.table.config import HOLD
from companion.table.observation import Observation
from companion.table.observe import Observer
from companion.table.referee import Referee, Ruling
from companion.table.session import Session
from companion.table.store import CannotSave, Entry
from companion.table.words import listing, piece_words

ASKED = "Which move did the table make?"
OWN_MOVE = (
    "explained",
    "ambiguous",
    "in_hand",
)  # verdicts that read the board as a move from the state it is judged in


@dataclass(frozen=True)
class Question:
    """A board the sensors cannot settle: which of these actions did the table make?"""

    id: int
    choices: tuple[Action, ...]
    texts: tuple[str, ...]
    state: Any = field(default=None, compare=False, repr=False)  # the state the choices are legal in
    headline: str = ASKED
    in_hand: bool = False  # a piece that may still be in the hand: a landing decides, or the hold window passes


@dataclass(frozen=True)
class Booked:
    """The loop's last booking from the board: the state it was judged in and the entry that logged it."""

    state: Any = field(compare=False, repr=False)
    action: Action
    entry: int
    lifted: bool  # booked from a lift alone (the hold window passed): no sensor felt the piece land
    at: float  # when


@dataclass(frozen=True)
class Warning:
    """The board does not match the game: what to put right; or a move is part way done: what is still to do."""

    advice: tuple[str, ...]
    sites: tuple[str, ...] = ()  # the sites to put right, for a map that highlights them
    progress: bool = False  # a legal move under way, not a wrong board

    @property
    def headline(self) -> str:
        if self.progress:
            return "A move is under way." if len(self.advice) == 1 else "A move is under way; it could be one of these."
        return "The board does not match the game."

    @property
    def text(self) -> str:
        if self.progress and len(self.advice) > 1:
            return f"{self.headline} " + " Or: ".join(self.advice)
        lead = "Still to do:" if self.progress else self.headline
        return f"{lead} " + " ".join(self.advice)


@dataclass(frozen=True)
class Look:
    """One look at the board (`TableLoop.tick`): when, whether the board was settled then, and the ruling on it if it
    was judged anew (None: not settled, held back, or the very board judged before)."""

    at: float
    settled: bool
    ruling: Ruling | None = None


class TableLoop:
    def __init__(
        self, session: Session, observer: Observer, site_name: Callable[[str], str] | None = None, hold: float = HOLD
    ) -> None:
        """`hold`: seconds a piece that may still be in the hand is waited for before the one move the board shows
        is booked by itself (TableConfig.hold)."""
        self.session = session
        self.observer = observer
        self.site_name = site_name or (lambda site: site)
        self.question: Question | None = None
        self.referee = Referee(session.game)
        self._earlier = Referee(session.game)  # judges boards against the state before the last booking
        self._booked: Booked | None = None
        self._hand_since = 0.0  # when the open in-hand question was asked
        self.warning: Warning | None = None
        self._questions = 0
        self.hold = hold
        self.judged_in = 0.0  # seconds the referee took over the last settled board (for the benchmarks)
        self._last_seen: Observation | None = None
        self._judged: Any = None  # the state the last settled board was judged against
        # The session's own (re-entrant) lock: the loop's bookings reach `_on_entry` through the session while it is
        # held, and another thread's change reaches `_on_entry` holding it, so a lock of the loop's own would be
        # taken in opposite orders by the referee and by that thread.
        self._lock = session.lock
        self._held = False
        self._booking = False  # the loop itself is submitting: the board it judged is the new state's
        self._layout = session.game.layout(session.state)
        # The sites an action declared on a phone changed (a fight's losses, a unit bought): until hands have set
        # them out, putting them right is what is still to do, not a wrong board.
        self._declared: frozenset[str] = frozenset()
        self.questions: Listeners[Question | None] = Listeners()  # a question asked, or None: withdrawn
        self.warnings: Listeners[Warning | None] = Listeners()  # what to put right or still to do, or None: all is well
        self.looks: Listeners[Look] = Listeners()  # every look at the board, in the thread that looks
        session.entries.subscribe(self._on_entry)

    @property
    def paused(self) -> bool:
        return self._held

    def pause(self) -> None:
        """Stop judging the board (a calibration or a guided setup is using it: pieces set down then are not moves).
        An open question or warning is withdrawn: it was about a board that is about to change."""
        with self._lock:
            self._held = True
            self._withdraw()
            self._warn(None)

    def resume(self) -> None:
        """Judge the board again; the first settled board after this is judged whatever it shows."""
        with self._lock:
            self._held = False
            self._last_seen = None

    def tick(self, now: float) -> Ruling | None:
        """Look at the board once; returns the referee's ruling when there was a new settled board to judge. Every
        look is told to `looks` (after the ruling has been acted on)."""
        look = self._look(now)
        self.looks.tell(look)
        return look.ruling

    def _look(self, now: float) -> Look:
        with self._lock:
            if self._held:
                return Look(now, self.observer.settled_at(now) is not None)
            game, state = self.session.game, self.session.state
            if self.referee.game is not game:
                self.referee, self._earlier = Referee(game), Referee(game)
            observation = self.observer.observation(now)
            last = self._last_seen
            if observation is None or (last is not None and (observation is last or observation.sites == last.sites)):
                # While hands move, work out what this state's actions do to the board, so that the settled board
                # is judged from the sites that changed.
                self.referee.prepare(state)
                if observation is not None:  # a hand still moving, or an arm over the board, holds the booking too
                    self._hold_out(now)
                return Look(now, observation is not None)
            self._last_seen = observation
            if game.outcome(state) is not None or self.session.record.status != "playing":
                return Look(now, True)
            self._judged = state
            started = time.perf_counter()
            ruling = self.referee.judge(state, observation, self.site_name)
            self.judged_in = time.perf_counter() - started
            try:
                ruling = self._after_booking(ruling, observation, now)
                if ruling is not None:
                    self._act(ruling, now)
            except CannotSave:
                self._last_seen = None  # not kept: the same board is judged again once the table can save
                raise
            return Look(now, True, ruling)

    def _hold_out(self, now: float) -> None:
        """The hold window has passed with the board as it was: the one board move an in-hand question offers is
        booked by itself (several, or a declared action, stay a question for the phones)."""
        question = self.question
        if question is None or not question.in_hand or now < self._hand_since + self.hold:
            return
        if len(question.choices) == 1 and question.choices[0].type in self.session.game.board_moves:
            self._withdraw()
            state = self.session.state
            entry = self._submit(question.choices[0], "board")
            self._booked = Booked(state, question.choices[0], entry.id, lifted=True, at=now)
        else:
            self.question = replace(question, headline=ASKED, in_hand=False)
            self.questions.tell(self.question)

    def _after_booking(self, ruling: Ruling, observation: Observation, now: float) -> Ruling | None:
        """A board judged after the loop's own booking, also against the state that booking was made in: another
        legal move of the same lifted piece corrects it (when the booking came from a lift alone, even where the new
        state also explains the board: a landing is never booked as the next player's move); a move still under
        way is said, not called a wrong board; and while a piece the booking lifted with no sensor feeling it land
        may still be in the hand, a piece set down from nowhere waits as in hand (it may be that piece, set down
        beside its site before it is nudged over), not booked as the next player's. None: the correction is
        made."""
        booked = self._booked
        # A booking a sensor confirmed stands when the new state offers the board as a move of its own (the piece
        # moved on from where it was seen land): that move is booked or asked about, never read as a correction.
        if booked is None or ruling.verdict == "unchanged" or (ruling.verdict in OWN_MOVE and not booked.lifted):
            return ruling
        earlier = self._earlier.judge(booked.state, observation, self.site_name)
        lifted = _lifted(self._earlier, booked.state, booked.action)
        if earlier.verdict == "explained" and earlier.actions[0] != booked.action and \
                lifted & _lifted(self._earlier, booked.state, earlier.actions[0]):  # fmt: skip
            self._withdraw()
            entry = self._correct(earlier.actions[0], booked.entry)
            self._booked = replace(booked, action=earlier.actions[0], entry=entry.id, lifted=False, at=now)
            self._warn(None)
            return None
        if (
            ruling.verdict == "mismatch"
            and earlier.verdict in ("in_progress", "in_hand")
            and any(lifted & _lifted(self._earlier, booked.state, action) for action in earlier.actions)
        ):
            return Ruling("in_progress", earlier.actions, todo=earlier.todo, sites=earlier.sites)
        if (
            booked.lifted
            and lifted  # a booking that took no piece off a site leaves nothing in the hand
            and ruling.verdict == "explained"
            and now < booked.at + self.hold
            and not _lifted(self.referee, self.session.state, ruling.actions[0])
        ):
            # A piece set down from nowhere while the piece the booking lifted may still be in the hand (set down
            # beside its site, about to be nudged over): not booked as the next move until the hold window passes.
            pieces = listing(
                [
                    f"the {piece_words(self.session.game.physical_piece(piece))} from {self.site_name(site)}"
                    for piece, site in sorted(lifted)
                ]
            )
            return Ruling(
                "in_hand",
                ruling.actions,
                todo=(f"Still in the hand: {pieces}?",),
                sites=(),
                landings=("Not the piece in the hand:",),
            )
        return ruling

    def _act(self, ruling: Ruling, now: float) -> None:
        self._withdraw()
        if ruling.verdict == "explained":
            state = self.session.state
            entry = self._submit(ruling.actions[0], "board")
            self._booked = Booked(state, ruling.actions[0], entry.id, lifted=ruling.unfelt, at=now)
            self._warn(None)
        elif ruling.verdict in ("ambiguous", "in_hand"):
            self._questions += 1
            texts = tuple(self._describe(action) for action in ruling.actions)
            if ruling.verdict == "in_hand":
                texts = tuple(f"{landing} {text}" for landing, text in zip(ruling.landings, texts, strict=True))
                self._hand_since = now
            headline = ruling.todo[0] if ruling.verdict == "in_hand" else ASKED
            self.question = Question(
                self._questions,
                ruling.actions,
                texts,
                self.session.state,
                headline,
                in_hand=ruling.verdict == "in_hand",
            )
            self._warn(None)
            self.questions.tell(self.question)
        elif ruling.verdict == "in_progress":
            self._warn(Warning(ruling.todo, ruling.sites, progress=True))
        elif ruling.verdict == "mismatch" and ruling.fixes and not ruling.todo and \
                {fix.site for fix in ruling.fixes} <= self._declared:  # fmt: skip
            self._warn(Warning(tuple(fix.advice for fix in ruling.fixes), tuple(fix.site for fix in ruling.fixes),
                               progress=True))  # fmt: skip
        elif ruling.verdict == "mismatch":
            self._warn(
                Warning(
                    (*(fix.advice for fix in ruling.fixes), *ruling.todo),
                    (*(fix.site for fix in ruling.fixes), *ruling.sites),
                )
            )
        else:
            self._warn(None)

    def _describe(self, action: Action) -> str:
        _, events = self.session.game.apply(self.session.state, action)
        return " ".join(e.text for e in events) or str(action)

    def _submit(self, action: Action, source: str, actor: str | None = None, phone: str | None = None) -> Entry:
        self._booking = True
        try:
            entry = self.session.submit(action, source, actor, phone)
        finally:
            self._booking = False
        self._judged = self.session.state  # the board just judged shows this state
        return entry

    def _correct(self, action: Action, entry: int) -> Entry:
        self._booking = True
        try:
            corrected = self.session.correct(action, entry, "board")
        finally:
            self._booking = False
        self._judged = self.session.state
        return corrected

    def _withdraw(self) -> None:
        """Close the open question, if any, and tell the phones."""
        if self.question is not None:
            self.question = None
            self.questions.tell(None)

    def _on_entry(self, entry: Entry) -> None:
        """The session moved on (a phone, an undo, an override, or the loop's own booking). A question asked in
        another state is withdrawn: its choices may no longer be legal. A change the loop did not make itself
        leaves the board to be judged again against the new state, even if the sensors see nothing new; except an
        undo, whose board still shows the move taken back until hands put it back (judging it would book it again)."""
        with self._lock:
            state = self.session.state
            layout = self.session.game.layout(state)
            if not self._booking:
                self._booked = None  # the game moved on by other hands: the loop's booking is theirs to answer for
            declared = entry.kind == "action" and not self._booking
            changed = frozenset(
                site
                for site in set(layout) | set(self._layout)
                if tuple(layout.get(site, ())) != tuple(self._layout.get(site, ()))
            )
            self._declared = changed if declared else frozenset()
            self._layout = layout
            # The camera reads again where the game changed: a stack may change with no switch changing under it (a
            # piece set onto another, a whole orbit moving on), and its last reading there is the old game's.
            self.observer.reread(changed)
            question = self.question
            if question is not None and not _same(question.state, state):
                self._withdraw()
            if entry.kind == "undo":
                self._judged = state
            elif not self._booking and not _same(self._judged, state):
                self._last_seen = None

    def _warn(self, warning: Warning | None) -> None:
        if warning != self.warning:
            self.warning = warning
            self.warnings.tell(warning)

    def choose(self, question_id: int, index: int, actor: str | None, phone: str | None = None) -> Entry:
        """A phone answers a question: the chosen action is submitted, logged as the phone's decision."""
        with self._lock:
            question = self.question
            if question is None or question.id != question_id:
                raise IllegalAction("that question has already been settled")
            if not 0 <= index < len(question.choices):
                raise IllegalAction(f"choose one of 1 to {len(question.choices)}")
            entry = self._submit(question.choices[index], "phone", actor, phone)
            self._withdraw()
            return entry

    def override(self, action: Action, actor: str | None, phone: str | None = None) -> Entry:
        """A player's phone accepts an action the board does not show; logged as an override."""
        with self._lock:
            entry = self.session.submit(action, "override", actor, phone)
            self._warn(None)
            return entry

    def status(self) -> dict[str, Any]:
        return {
            "question": None
            if self.question is None
            else {"id": self.question.id, "choices": list(self.question.texts)},
            "warning": None if self.warning is None else self.warning.text,
            "lifted": sorted(self.observer.lifted()),
        }


def _same(state: Any, other: Any) -> bool:
    return state is other or state == other


def _lifted(referee: Referee, state: Any, action: Action) -> frozenset[tuple[str, str]]:
    """(piece, site) for each piece the action takes off a site (to move it, or off the board)."""
    physical = referee.game.physical_piece
    for candidate in referee.prepare(state).candidates:
        if candidate.action == action:
            moved, removed, _, _ = candidate.footprint.pairs(physical)
            return frozenset([(piece, source) for piece, source, _ in moved] + list(removed))
    return frozenset()
