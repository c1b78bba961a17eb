"""Hands in time: how people carry out one action on the board, touch by touch, with the times of shared/WORLD.md.

A model of people, written from the world's ranges and never from the table's: no settle time, hold window or rule
of the referee is read here. An action's footprint (hands.py: pieces that move, are taken off, are set down) is
carried out as timed touches (a piece taken from a site, a piece set down on one) by one hand or two, and the arm
that makes them is over the board from its reach to its withdrawal (the camera sees it there):

- a carry: lift, carry and set down in 0.3-1.5 s; the first carry of an action is held in the air for the hold
  time under test (a thinking player holds it 2-10 s), hovering over the board or drawn back;
- a stack is lifted whole, or piece by piece (the top ones first, set down again bottom first);
- a piece slid across the board closes each site it passes for 50-300 ms;
- a piece set down is nudged within 0.5 s (lifted for an instant and set down again), sometimes first set on the
  site beside its target and nudged across;
- a piece dropped on the way lies on a site for a moment and is picked up again;
- a neighbour knocked off its site is put back 0.2-5 s later on its site, or on the next one and then moved home;
- a capture's victim is taken off before, during (by the other hand) or up to 5 s after the capturing move;
- two hands at once: the steps of one action shared between two hands that overlap in time.

`timeline` gives the touches and arms of one action; `boards` plays them into the boards the sensors see.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from companion.rules.engine import unpointed
from companion.sim.hands import ORDERS, Layout, footprint

Span = tuple[float, float]


@dataclass(frozen=True)
class People:
    """The ranges of shared/WORLD.md's hands, and how often each habit shows (a share of the actions or carries)."""

    carry: Span = (0.3, 1.5)  # lift, carry and set down
    hover: float = 0.5  # a hold spent with the arm over the board (hovering over candidate sites), else drawn back
    slide: float = 0.25  # carries made by sliding the piece across the board
    slide_over: Span = (0.05, 0.3)  # a site passed stays closed this long
    nudge: float = 0.3  # set-downs nudged
    nudge_within: float = 0.5
    nudge_off: Span = (0.03, 0.15)  # the piece off its switch while nudged
    beside_first: float = 0.25  # of nudges: set down on the site beside the target first
    drop: float = 0.05  # carries in which the piece is dropped and picked up again
    dropped_for: Span = (0.3, 2.0)
    knock: float = 0.06  # actions during which a neighbour is knocked off
    knocked_for: Span = (0.2, 5.0)
    knocked_next: float = 0.3  # of knocks: put back on the next site, then moved home
    capture_after: float = 5.0  # a victim is taken off up to this long after the capturing move
    by_piece: float = 0.5  # stacks carried piece by piece
    two_hands: float = 0.3  # actions of several steps made with two hands at once
    any_order: float = 0.25  # actions whose steps come in any order, not one of the usual ones
    reach: Span = (0.15, 0.5)  # the arm over the board before its first touch
    withdraw: Span = (0.1, 0.4)  # the arm over the board after its last touch
    between: Span = (0.1, 0.8)  # one step to the next of one hand
    look: Span = (1.0, 5.0)  # a player looks at the phones once the hands are done
    tap_within: float = 30.0  # a piece set down before the phone is tapped: tapped up to this long after
    tap_first: float = 0.3  # declared actions tapped before their pieces are set down


@dataclass(frozen=True)
class Touch:
    """A piece taken from a site (`take`) or set down on it, at `at` seconds into the action."""

    at: float
    take: bool
    piece: str
    site: str
    note: str = ""


@dataclass(frozen=True)
class Arm:
    """An arm over the board from `start` to `end`, its hand over `site`."""

    start: float
    end: float
    site: str


@dataclass
class Timeline:
    touches: list[Touch] = field(default_factory=list)
    arms: list[Arm] = field(default_factory=list)
    knocked: set[str] = field(default_factory=set)  # sites whose piece the hands knocked off (not the action's)
    notes: list[str] = field(default_factory=list)

    @property
    def end(self) -> float:
        return max([t.at for t in self.touches] + [a.end for a in self.arms] + [0.0])

    def arm_at(self, t: float) -> str | None:
        """The site a hand is over at `t` (None: no arm over the board)."""
        return next((a.site for a in self.arms if a.start <= t < a.end), None)

    def last_touch(self) -> float:
        return max((t.at for t in self.touches), default=0.0)


class Geometry:
    """Where the sites lie: the game's board and the boards beside it (each apart: a hand does not slide between
    boards)."""

    def __init__(self, places: Mapping[str, tuple[int, float, float]]) -> None:
        self.places = dict(places)  # site -> (board, x mm, y mm)

    def near(self, site: str, count: int = 6) -> list[str]:
        """The sites of the same board nearest to `site`, nearest first."""
        if site not in self.places:
            return []
        board, x, y = self.places[site]
        others = [(math.hypot(px - x, py - y), s) for s, (b, px, py) in self.places.items() if b == board and s != site]
        return [s for _, s in sorted(others)[:count]]

    def on_the_way(self, a: str, b: str) -> list[str]:
        """Sites a piece slid from `a` to `b` passes over, in order (within a hand's breadth of the straight line)."""
        if a not in self.places or b not in self.places or self.places[a][0] != self.places[b][0]:
            return []
        board, ax, ay = self.places[a]
        _, bx, by = self.places[b]
        length = math.hypot(bx - ax, by - ay) or 1.0
        passed = []
        for s, (o, x, y) in self.places.items():
            if o != board or s in (a, b):
                continue
            along = ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / length
            across = abs((x - ax) * (by - ay) - (y - ay) * (bx - ax)) / length
            if 0 < along < length and across < 15.0:
                passed.append((along, s))
        return [s for _, s in sorted(passed)]


def _u(rng: random.Random, span: Span) -> float:
    return rng.uniform(*span)


def _as_set_down(piece: str, target: str, after: Layout) -> str:
    return next((name for name in after.get(target, ()) if unpointed(name) == unpointed(piece)), piece)


class _Hand:
    """One hand's touches, in its own time; its arm is over the board from its reach to its withdrawal."""

    def __init__(self, line: Timeline, rng: random.Random, people: People, start: float) -> None:
        self.line, self.rng, self.people = line, rng, people
        self.t = start
        self.arm_from: float | None = None
        self.arm_site = ""

    def reach(self, site: str) -> None:
        """The arm comes over `site` (if it is not over the board already) and the hand is there a moment later."""
        if self.arm_from is None:
            self.arm_from, self.arm_site = self.t, site
            self.t += _u(self.rng, self.people.reach)

    def withdraw(self) -> None:
        """The arm leaves the board a moment after the hand's last touch."""
        if self.arm_from is not None:
            self.t += _u(self.rng, self.people.withdraw)
            self.line.arms.append(Arm(self.arm_from, self.t, self.arm_site))
            self.arm_from = None

    def touch(self, take: bool, piece: str, site: str, note: str = "") -> None:
        self.line.touches.append(Touch(self.t, take, piece, site, note))


def timeline(
    before: Layout,
    after: Layout,
    rng: random.Random,
    people: People,
    hold: float,
    geometry: Geometry,
    homeless: Callable[[str, str], bool] = lambda site, to: True,
) -> Timeline:
    """The touches of one action carried out by hand, from `before` to `after`: the first carry held in the air for
    `hold` seconds. `homeless(site, to)`: may a knocked piece from `site` be put down on `to` without the board
    looking like a legal move (else it goes back on its own site)?"""
    foot = footprint(before, after)
    stacks: dict[tuple[str, str], list[str]] = {}
    for piece, origin, target in foot.moved:
        stacks.setdefault((origin, target), []).append(piece)
    moves = [
        ("move", (tuple(sorted(pieces, key=lambda p, t=target: _height(p, t, after))), origin, target))
        for (origin, target), pieces in stacks.items()
    ]
    removes = [("remove", r) for r in foot.removed]
    adds = [("add", a) for a in foot.added]
    if len(moves) + len(removes) + len(adds) > 1 and rng.random() < people.any_order:
        steps = moves + removes + adds
        rng.shuffle(steps)
        order = "any order"
    else:
        order = rng.choices(ORDERS, (6, 3, 1))[0]
        steps = {"remove then place": removes + moves + adds, "place first": adds + moves + removes}.get(
            order, moves + removes + adds
        )
    line = Timeline(notes=[order])
    hands = [_Hand(line, rng, people, 0.0)]
    if len(steps) > 1 and rng.random() < people.two_hands:
        hands.append(_Hand(line, rng, people, rng.uniform(0.0, 1.0)))
        line.notes.append("two hands")
    held = False
    occupied = {s for s, p in before.items() if p}
    for index, (kind, what) in enumerate(steps):
        hand = hands[index % len(hands)]
        if index >= len(hands):
            # The next step of this hand: a victim taken off up to 5 s after the capturing move.
            gap = people.capture_after if kind == "remove" and steps[index - 1][0] == "move" else people.between[1]
            hand.t += rng.uniform(people.between[0], gap)
        if kind == "move":
            pieces, origin, target = what
            _carry(hand, pieces, origin, target, after, hold if not held else None, geometry, occupied)
            held = True
        elif kind == "remove":
            piece, site = what
            hand.reach(site)
            hand.touch(True, piece, site, f"takes {piece} off")
        else:
            piece, site = what
            hand.reach(site)
            hand.touch(False, piece, site, f"sets {piece} down")
        if index + len(hands) >= len(steps):
            hand.withdraw()
    if rng.random() < people.knock:
        _knock(line, before, foot.sites, rng, people, geometry, homeless)
    return line


def _height(piece: str, target: str, after: Layout) -> int:
    return list(after.get(target, ())).index(_as_set_down(piece, target, after))


def _carry(
    hand: _Hand,
    pieces: tuple[str, ...],
    origin: str,
    target: str,
    after: Layout,
    hold: float | None,
    geometry: Geometry,
    occupied: set[str],
) -> None:
    """One stack carried from `origin` to `target` (held `hold` seconds when given, else a carry's time)."""
    rng, people = hand.rng, hand.people
    hand.reach(origin)
    landed = tuple(_as_set_down(p, target, after) for p in pieces)
    by_piece = len(pieces) > 1 and rng.random() < people.by_piece
    # Lifted: top first, one by one, or the whole stack at once.
    for piece in reversed(pieces):
        hand.touch(True, piece, origin, f"lifts {piece}")
        if by_piece:
            hand.t += rng.uniform(0.2, 0.6)
    air = hold if hold is not None else _u(rng, people.carry)
    lifted = hand.t
    drawn_back = hold is not None and hold >= 1.0 and rng.random() >= people.hover
    if drawn_back:
        # Thinking with the piece drawn back: the arm leaves the board, and comes back to set it down.
        hand.withdraw()
        hand.t = max(hand.t, lifted + air - _u(rng, people.reach))
        hand.reach(target)
        air = max(air, hand.t - lifted)
        hand.line.notes.append(f"holds {'+'.join(pieces)} {hold:g} s, drawn back")
    elif hold is not None:
        hand.line.notes.append(f"holds {'+'.join(pieces)} {hold:g} s over the board")
    hand.t = lifted
    if not drawn_back and rng.random() < people.drop:  # (over the board: a piece dropped there lands on it)
        hand.t += rng.uniform(0.0, air)
        spot = rng.choice(geometry.near(origin, 4) or [origin])
        hand.touch(False, pieces[0], spot, f"drops {pieces[0]}")
        hand.t += _u(rng, people.dropped_for)
        hand.touch(True, pieces[0], spot, f"picks {pieces[0]} up")
        air = max(air - (hand.t - lifted), 0.1)
        lifted = hand.t
    if rng.random() < people.slide:
        way = [s for s in geometry.on_the_way(origin, target) if s not in occupied][:3]
        passing = sum(_u(rng, people.slide_over) for _ in way)
        hand.t = lifted + max(air - passing, 0.0)
        for site in way:
            hand.touch(False, pieces[0], site, f"slides {pieces[0]} over")
            hand.t += _u(rng, people.slide_over)
            hand.touch(True, pieces[0], site)
    else:
        hand.t = lifted + air
    where = target
    if rng.random() < people.nudge and rng.random() < people.beside_first:
        free = [s for s in geometry.near(target, 4) if s not in occupied and s != origin]
        where = free[0] if free else target
    for piece in landed:
        hand.touch(False, piece, where, f"sets {piece} down")
        if by_piece:
            hand.t += rng.uniform(0.2, 0.6)
    if where != target or rng.random() < people.nudge:
        hand.t += rng.uniform(0.05, people.nudge_within)
        for piece in reversed(landed):
            hand.touch(True, piece, where, f"nudges {piece}")
        hand.t += _u(rng, people.nudge_off)
        for piece in landed:
            hand.touch(False, piece, target)
    occupied.discard(origin)
    occupied.add(target)


def _knock(
    line: Timeline,
    before: Layout,
    footprint_sites: frozenset[str],
    rng: random.Random,
    people: People,
    geometry: Geometry,
    homeless: Callable[[str, str], bool],
) -> None:
    """A neighbour of the action's sites knocked off at some moment, and put back."""
    near = {s for site in footprint_sites for s in geometry.near(site, 4)}
    candidates = sorted(s for s in near if before.get(s) and s not in footprint_sites)
    if not candidates:
        return
    site = rng.choice(candidates)
    piece = before[site][-1]
    at = rng.uniform(0.0, max(line.end, 0.5))
    back = at + _u(rng, people.knocked_for)
    line.knocked.add(site)
    line.touches.append(Touch(at, True, piece, site, f"knocks {piece} off"))
    free = [s for s in geometry.near(site, 2) if not before.get(s) and s not in footprint_sites]
    if free and rng.random() < people.knocked_next and homeless(site, free[0]):
        line.knocked.add(free[0])
        line.touches.append(Touch(back, False, piece, free[0], f"puts {piece} back beside its site"))
        back += _u(rng, people.look)
        line.touches.append(Touch(back, True, piece, free[0]))
    line.touches.append(Touch(back, False, piece, site, f"puts {piece} back"))


def boards(before: Layout, after: Layout, line: Timeline) -> list[tuple[float, Layout, str]]:
    """The boards the touches make, each with the moment it begins and what the hand did: touches at one moment make
    one board; the last board is `after` exactly (a stack's order straightened)."""
    board = {s: tuple(p) for s, p in before.items() if p}
    out: list[tuple[float, Layout, str]] = []
    for touch in sorted(line.touches, key=lambda t: t.at):
        stack = list(board.get(touch.site, ()))
        if touch.take:
            if touch.piece in stack:
                del stack[len(stack) - 1 - stack[::-1].index(touch.piece)]
        else:
            stack.append(touch.piece)
        if stack:
            board[touch.site] = tuple(stack)
        else:
            board.pop(touch.site, None)
        if out and out[-1][0] == touch.at:
            out[-1] = (touch.at, dict(board), out[-1][2] or touch.note)
        else:
            out.append((touch.at, dict(board), touch.note))
    final = {s: p for s, p in after.items() if p}
    if not out or out[-1][1] != final:
        at = (out[-1][0] if out else 0.0) + 0.2
        out.append((at, final, "straightens the stacks"))
    return out
