"""Whole games played at the twin's table by the scripted players with natural hands (hands.py), and what the
table made of every move: the measuring instrument of `companion bench messy` and of the whole-game tests.

The players choose an action; the hands carry it out frame by frame over the simulated grid (and the rendered
camera, where the twin has one); a declared action is tapped on a phone where a person would tap it: after setting
its pieces down, or first when the companion itself must roll or draw for it (the hand cannot know the result
before). A board move the table has not booked by the time the hand is done is settled on a phone too: the
question's choice if the table asked, else the declaration. Nothing here reads the referee's workings: only its
rulings, the session's log and the loop's question, as a phone would see them.

Counted per game: wrong bookings (the table booked an action that is not the one the hand made), advice to undo
(a warning telling to put back what the hand's legal move has already done), board moves settled without a tap
among those the board alone tells apart, and taps.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from companion.rules import Action, Game
from companion.rules.engine import points_to, unpointed
from companion.rules.rng import Rng
from companion.sim.goal_players import TABLE_CHANCE
from companion.sim.hands import ORDERS, Footprint, Frame, Habits, Layout, footprint, plan
from companion.sim.players import scripted_action
from companion.sim.twin import Twin
from companion.table.referee import Ruling

PASSING = 0.04  # seconds a sliding piece stays over a site: well under any settle window
ORDER_WEIGHTS = (6, 3, 1)  # move then remove, remove then place, place first
SAME_SIDE = 45.0  # degrees: ways from a site whose next sites lie closer than this leave it along one line


@dataclass
class HandStats:
    actions: int = 0
    board_changes: int = 0  # actions that change what the sensors see
    frames: int = 0  # boards the hands held long enough to settle
    wrong_bookings: int = 0  # must be 0
    undo_advice: int = 0  # actions during which the table advised to undo them: must be 0
    tellable: int = 0  # board changes the board alone tells apart from every other legal action's
    tellable_untapped: int = 0  # ... of which the table booked with no tap
    taps: int = 0  # declarations and answers on the phones, all actions
    board_taps: int = 0  # ... on actions that change the board
    declared: int = 0  # actions a phone must declare whatever the table senses (no board change, or chance)
    in_progress: int = 0  # boards a move is part way through: nothing booked, what is still to do shown
    illegal_tried: int = 0  # a piece set on a site no rule allows, then put back
    illegal_caught: int = 0  # ... that the table warned about
    judge_seconds: list[float] = dataclasses.field(default_factory=list)  # the referee's time per settled board
    corrections: int = 0  # bookings the table put right itself, in one announced entry
    held: int = 0  # actions during which the table waited for a piece that may be in the hand (an in-hand question)
    booked_after: list[float] = dataclasses.field(default_factory=list)  # seconds from a hand's last movement to
    # the table's own booking of its move (hands in time only; a move settled by a tap is counted in taps)
    booked_after_arm: list[float] = dataclasses.field(default_factory=list)  # ... from the arm leaving the board
    # after the last touch (with the camera, which waits for a frame with no arm in it)
    frame_seconds: list[float] = dataclasses.field(default_factory=list)  # the table's CPU time over each camera frame

    def add(self, other: HandStats) -> None:
        for key, value in vars(other).items():
            setattr(self, key, getattr(self, key) + value)


def sensed(layout: Layout, sites: frozenset[str]) -> Layout:
    return {s: p for s, p in layout.items() if s in sites and p}


def chancy(game: Game, state: Any, action: Action) -> bool:
    """Does where the pieces go depend on the companion's own roll or draw (so the hand must wait for the tap)?"""
    if not hasattr(state, "rng"):
        return False
    after = game.layout(game.apply(state, action)[0])
    for seed in (7, 1234567):
        other = dataclasses.replace(state, rng=Rng.seeded(state.rng.state ^ seed))
        if game.layout(game.apply(other, action)[0]) != after:
            return True
    return False


def undoes(site: str, expected: tuple[str, ...], frame: Frame, before: Layout, foot: Footprint) -> bool:
    """Is advice that `site` should hold `expected` a call to put back what the hand's move has already done there
    (a site of the move's footprint, changed by the hand, and `expected` is how it was before the move)?"""
    if site not in foot.sites or site in frame.knocked:
        return False
    was = tuple(before.get(site, ()))
    return tuple(frame.layout.get(site, ())) != was and expected == was


class HandTable:
    """A twin played by the scripted players with natural hands."""

    def __init__(self, twin: Twin, seed: int, habits: Habits | None = None, illegal: float = 0.05) -> None:
        """`illegal`: the chance that a player first sets a piece where no rule allows, then puts it right."""
        self.twin = twin
        self.illegal = illegal
        self.rng = random.Random(seed * 7919 + 1)
        self.habits = habits or Habits()
        self.stats = HandStats()
        self.sites = twin.sensed  # the grids' sites and the camera's
        self.camera = twin.camera is not None
        self.findings: list[str] = []  # what went wrong, one line each, for a person to read
        self._doing: Action | None = None
        self._advised = False  # the table has already advised undoing the action in hand
        self._ruled = "none"  # the table's last ruling on a board of the action in hand, in words
        self._held = False  # the table has waited for a piece of the action that may be in the hand
        self.tapped: Counter[str] = Counter()  # action types settled on a phone although they change the board
        self.unseen: Counter[str] = Counter()  # board moves that change nothing the sensors see: a phone says them

    # What the sensors could tell apart: the grid's occupied sites, and with the camera the pieces on each.
    def _seen(self, game: Game, layout: Layout) -> Any:
        board = sensed(layout, self.sites)
        if not self.camera:
            return frozenset(board)
        camera = self.twin.camera
        covered = camera is not None and camera.registry.stacking == "on top"
        # Only the pieces the camera tells apart (a stickered kind): an Orbital Battle factory is a piece to it.
        known = None if camera is None else camera.pieces

        def shown(site: str, pieces: tuple[str, ...]) -> Counter[str]:
            names = [self._arrow(site, game.physical_piece(p)) for p in pieces]
            if known is not None:
                names = [p if unpointed(p) in known else "piece" for p in names]
            # Pieces stacked on top hide what they stand on (a transport its cargo): the top alone is read.
            return Counter(names[-1:] if covered else names)

        # A map the camera cannot see (one left in the box) is the grid's alone; a site with no grid under it (a
        # planet map the camera alone reads) shows the pieces the camera names, and nothing of the others.
        away = camera.out_of_view(layout) if camera is not None else frozenset()
        seen = {s: frozenset() if s in away else frozenset(shown(s, p).items()) for s, p in board.items()}
        return frozenset(
            (s, v) for s, v in seen.items() if s in self.twin.sites or any(name != "piece" for name, _ in v)
        )

    def _from_under(self, game: Game, before: Layout, after: Layout) -> bool:
        """Does a piece leave from under another that stays on top of its stack (an Orbital Battle unload: cargo
        from under its transport), on a site the camera reads only the top of? The camera cannot see it go: the stack
        looks as it did, so the piece seen arriving elsewhere may as well be another one from the box."""
        camera = self.twin.camera
        if camera is None or camera.registry.stacking != "on top":
            return False
        away = camera.out_of_view(before)
        for site, stack in before.items():
            kept = tuple(after.get(site, ()))
            if site in away or len(stack) < 2 or not kept or kept[-1] != stack[-1]:
                continue
            if Counter(stack[:-1]) - Counter(kept[:-1]):
                return True
        return False

    def _arrow(self, site: str, name: str) -> str:
        """A piece as its arrow shows it on `site`: an arrow laid along the lines printed on the board tells the
        way ahead from the way back, never one way from another that leaves beside it (the branches of an ORBIT
        fork leave the orbit almost along one line, a few degrees apart), so there the piece shows no way."""
        way = points_to(name)
        board = self.twin.camera.board if self.twin.camera is not None else None
        if not way or board is None or not board.has_site(site) or not board.has_site(way):
            return name
        ahead = board.bearing(site, way)
        beside = [
            link.b
            for link in board.links_from(site)
            if link.kind.startswith("orbit")
            and link.b != way
            and abs((board.bearing(site, link.b) - ahead + 180.0) % 360.0 - 180.0) < SAME_SIDE
        ]
        return unpointed(name) if beside else name

    def tellable(self, game: Game, state: Any, action: Action, result: Any) -> bool:
        """True when no other legal action that the table might mean leaves the same sensed board with other
        books, and (to a grid without a camera) the action is a board move, not a declared one (the referee's own
        reckoning is not consulted: this is the rules' answer)."""
        if action.type not in game.board_moves and not self.camera:
            # A piece set down that only a declaration explains: to a grid alone it is any piece put there (one
            # knocked onto the board as well), so the table asks; only the camera can name it.
            return False
        if self._from_under(game, game.layout(state), game.layout(result)):
            return False
        seen = self._seen(game, game.layout(result))
        wanted = game.state_to_json(result)
        for other in game.legal_actions(state):
            if other == action or any(k in dict(other.args) for k in TABLE_CHANCE):
                continue
            if other.type not in game.board_moves and other.type != action.type:
                continue
            after = game.apply(state, other)[0]
            if self._seen(game, game.layout(after)) == seen and game.state_to_json(after) != wanted:
                return False
        return True

    def play(self, max_actions: int = 5000) -> HandStats:
        session = self.twin.session
        for _ in range(max_actions):
            if session.game.outcome(session.state) is not None:
                break
            self.act()
        else:
            raise RuntimeError(f"{session.game.title}: no end within {max_actions} actions")
        return self.stats

    def begin(self) -> tuple[Game, Any, Action, Any, Layout, Layout]:
        """The next action the players choose: the game, the state, the action, the state it leads to, and the
        layouts before and after it."""
        session = self.twin.session
        game, state = session.game, session.state
        action = scripted_action(game, state, self.rng)
        self._doing, self._advised, self._ruled, self._held = action, False, "none", False
        result = game.apply(state, action)[0]
        self.stats.actions += 1
        return game, state, action, result, game.layout(state), game.layout(result)

    def unseen_first(self, game: Game, action: Action, result: Any, before: Layout, after: Layout) -> bool:
        """An action that changes nothing the sensors see (a ship onto a planet's space, to a grid that feels only
        that a space is taken) is said on a phone first (True: said; the hands then set out the change)."""
        if self._seen(game, before) != self._seen(game, after):
            return False
        self.stats.declared += 1
        if action.type in game.board_moves:
            self.unseen[action.type] += 1
        self._tap(action, result, board=False)
        return True

    def act(self) -> None:
        session = self.twin.session
        game, state, action, result, before, after = self.begin()
        seen_before, seen_after = sensed(before, self.sites), sensed(after, self.sites)
        declared = action.type not in game.board_moves
        if self.unseen_first(game, action, result, before, after):
            if after != before:
                self.twin.show(after)
            return
        self.stats.board_changes += 1
        foot = footprint(seen_before, seen_after)
        tap_first = declared and chancy(game, state, action)
        tellable = not tap_first and self.tellable(game, state, action, result)
        self.stats.tellable += tellable
        order = self.rng.choices(ORDERS, ORDER_WEIGHTS)[0]
        frames = plan(before, after, order, self.rng, self.habits, sorted(self.sites))
        if self.rng.random() < self.illegal:
            self._illegal_first(before)
        count = len(session.actions)
        taps_before = self.stats.taps
        if tap_first:
            self.stats.declared += 1
            self._tap(action, result, board=True)
        for frame in frames:
            self._frame(frame, before, foot, count, result)
        if session.state != result:
            # The board shows the whole move and the table has not booked it: a phone settles it.
            self._tap(action, result, board=True)
        if tellable and self.stats.taps == taps_before:
            self.stats.tellable_untapped += 1
        elif tellable and not tap_first:
            self._found(f"tapped although the board alone tells it: the table's last ruling was {self._ruled}")

    def _illegal_first(self, before: Layout) -> None:
        twin = self.twin
        tried, caught, wrong = twin.stats.illegal_tried, twin.stats.illegal_caught, twin.stats.wrong_accepted
        twin.try_illegal(before)
        self.stats.illegal_tried += twin.stats.illegal_tried - tried
        self.stats.illegal_caught += twin.stats.illegal_caught - caught
        if twin.stats.wrong_accepted > wrong:
            self.stats.wrong_bookings += 1
            self._found("wrong booking: an illegal placement was accepted")

    def _frame(self, frame: Frame, before: Layout, foot: Footprint, count: int, result: Any) -> None:
        twin, session = self.twin, self.twin.session
        if not frame.settles:
            twin.flash(frame.layout, PASSING)
            return
        self.stats.frames += 1
        ruling = twin.show(frame.layout)
        if ruling is None:
            return
        self._judged(ruling, frame, before, foot)
        if len(session.actions) > count and session.state != result:
            # The table booked something that is not what the hand is doing: take it back so the game goes on.
            self.stats.wrong_bookings += 1
            self._found(f"wrong booking, hand {frame.note}: booked {session.actions[-1]}")
            while len(session.actions) > count and session.state != result:
                session.undo("phone")

    def _judged(self, ruling: Ruling, frame: Frame, before: Layout, foot: Footprint) -> None:
        """What the table said of a board the hands left: counted, and advice to undo found."""
        self.stats.judge_seconds.append(self.twin.loop.judged_in)
        self._ruled = f"{ruling.verdict} {' '.join(ruling.todo)}".strip()
        if ruling.verdict == "ambiguous":
            self._ruled += f" ({len(ruling.actions)} choices)"
        if ruling.verdict == "in_hand" and not self._held:
            self._held = True
            self.stats.held += 1
        if ruling.verdict == "in_progress":
            # Nothing booked and nothing to put back: the hand goes on; an unbooked end is settled on a phone.
            self.stats.in_progress += 1
        elif ruling.verdict == "mismatch":
            undoing = [f.advice for f in ruling.fixes if undoes(f.site, tuple(f.expected), frame, before, foot)]
            if undoing and not self._advised:
                self._advised = True
                self.stats.undo_advice += 1
                self._found(f"advice to undo, hand {frame.note}: {' '.join(undoing)}")

    def _found(self, text: str) -> None:
        game = self.twin.session.game
        self.findings.append(f"{game.name} {self._doing}: {text}")

    def _tap(self, action: Action, result: Any, board: bool) -> None:
        """A player settles the action on a phone: the table's question if it asks one that offers it, else the
        declaration."""
        self.stats.taps += 1
        self.stats.board_taps += board
        if board:
            self.tapped[action.type] += 1
        self.twin.settle_on_phone(action, result)
