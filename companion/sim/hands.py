"""Scripted hands: how people carry out one action on the board, piece by piece, in the order people do.

A model of hands, not of the referee: what a hand does is worked out from the two layouts alone (the board before
the action and the board after it), as a footprint of pieces that move, are taken off and are set down, and then
played in an order a person would choose: the capturing ship first and the captured one taken off after it (move
then remove), the dead taken off before the survivors move on (remove then place), a new station or ship set down
before anyone taps a phone (place then tap). On the way a hand may slide a piece across other sites, hold a piece
in the air while it thinks (a lift), or nudge a neighbour off its site and put it back (a knock).

Each action becomes a list of frames: boards the table sees, each either held long enough for the sensors to settle
on it or only passing (a slide), and the point where the player taps a phone, if the action is declared.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from companion.rules.engine import unpointed

Layout = dict[str, tuple[str, ...]]


@dataclass(frozen=True)
class Footprint:
    """The board changes an action implies: pieces that move (piece, from, to), are taken off (piece, site) and are
    set down (piece, site)."""

    moved: tuple[tuple[str, str, str], ...] = ()
    removed: tuple[tuple[str, str], ...] = ()
    added: tuple[tuple[str, str], ...] = ()

    @property
    def sites(self) -> frozenset[str]:
        return frozenset(
            [s for _, a, b in self.moved for s in (a, b)] + [s for _, s in self.removed] + [s for _, s in self.added]
        )

    def __bool__(self) -> bool:
        return bool(self.moved or self.removed or self.added)


def footprint(before: Layout, after: Layout, sites: Iterable[str] | None = None) -> Footprint:
    """The footprint of the change from `before` to `after`, over `sites` (all sites when None). A piece that
    leaves one site and a piece of the same name that arrives at another are one piece moving; what is left over
    was taken off or set down."""
    keep = None if sites is None else frozenset(sites)
    # Keyed by the piece itself: a planet that moves and points a new way (`planet-red>r1s1`, then `planet-red>r1s2`
    # elsewhere) is one piece carried and turned; turned where it stands, it is lifted and set down again.
    leaving: dict[str, list[tuple[str, str]]] = {}
    arriving: dict[str, list[tuple[str, str]]] = {}
    for site in sorted(set(before) | set(after)):
        if keep is not None and site not in keep:
            continue
        was, now = Counter(before.get(site, ())), Counter(after.get(site, ()))
        for piece in sorted((was - now).elements()):
            leaving.setdefault(unpointed(piece), []).append((piece, site))
        for piece in sorted((now - was).elements()):
            arriving.setdefault(unpointed(piece), []).append((piece, site))
    moved, removed, added = [], [], []
    for piece in sorted(set(leaving) | set(arriving)):
        out, into = leaving.get(piece, []), arriving.get(piece, [])
        pairs = min(len(out), len(into))
        moved += [(name, a, b) for (name, a), (_, b) in zip(out[:pairs], into[:pairs], strict=True)]
        removed += out[pairs:]
        added += into[pairs:]
    return Footprint(tuple(moved), tuple(removed), tuple(added))


def _as_set_down(piece: str, target: str, after: Layout) -> str:
    """The name the piece has where it is set down (it may point a new way there)."""
    return next((name for name in after.get(target, ()) if unpointed(name) == unpointed(piece)), piece)


def _height(piece: str, target: str, after: Layout) -> int:
    """Where in the target's stack the piece stands once set down (0: the bottom)."""
    return list(after.get(target, ())).index(_as_set_down(piece, target, after))


@dataclass(frozen=True)
class Frame:
    """A board the hands leave on the table: `settles` if it stays long enough for the sensors to settle on it;
    `tap` marks the moment the player taps the phone (before this frame is shown); `knocked` is a piece of someone
    else's that the hand has nudged off its site (the frame's change that is no part of the action)."""

    layout: Layout
    settles: bool = True
    note: str = ""
    knocked: frozenset[str] = field(default_factory=frozenset)


ORDERS = ("move then remove", "remove then place", "place first")


@dataclass
class Habits:
    """How untidy the hands are: the chance per action of a slide, a lift and a knock."""

    slide: float = 0.3
    lift: float = 0.15
    knock: float = 0.05


def _without(layout: Layout, piece: str, site: str) -> Layout:
    stack = list(layout.get(site, ()))
    if piece in stack:
        # The topmost copy: a hand takes what is on top.
        del stack[len(stack) - 1 - stack[::-1].index(piece)]
    out = dict(layout)
    if stack:
        out[site] = tuple(stack)
    else:
        out.pop(site, None)
    return out


def _with(layout: Layout, piece: str, site: str) -> Layout:
    out = dict(layout)
    out[site] = (*layout.get(site, ()), piece)
    return out


def plan(
    before: Layout,
    after: Layout,
    order: str,
    rng: random.Random,
    habits: Habits,
    sites: Sequence[str],
) -> list[Frame]:
    """The frames of one action carried out by hand, from `before` to `after` (the last frame shows `after`
    exactly, stacking order included). `sites` are the sites a piece may pass over or be knocked from."""
    foot = footprint(before, after)
    steps: list[tuple[str, tuple]] = []
    # Pieces going from one site to the same other site travel as one stack (a ship with its cargo).
    stacks: dict[tuple[str, str], list[str]] = {}
    for piece, origin, target in foot.moved:
        stacks.setdefault((origin, target), []).append(piece)
    # ... set down bottom first, as they stand after the move.
    moves = [
        ("move", (tuple(sorted(pieces, key=lambda p, t=target: _height(p, t, after))), origin, target))
        for (origin, target), pieces in stacks.items()
    ]
    removes = [("remove", r) for r in foot.removed]
    adds = [("add", a) for a in foot.added]
    if order == "remove then place":
        steps = removes + moves + adds
    elif order == "place first":
        steps = adds + moves + removes
    else:
        steps = moves + removes + adds
    frames: list[Frame] = []
    board = dict(before)
    knock_at = rng.randrange(len(steps) + 1) if steps and rng.random() < habits.knock else None
    for index, (kind, what) in enumerate(steps):
        if index == knock_at:
            frames += _knock(board, foot, rng, sites)
        if kind == "move":
            pieces, origin, target = what
            piece = "+".join(pieces)
            for one in pieces:
                board = _without(board, one, origin)
            if rng.random() < habits.lift:
                frames.append(Frame(dict(board), True, f"holds {piece} in the air"))
            if rng.random() < habits.slide:
                passing = [s for s in sites if not board.get(s) and s not in (origin, target)]
                if passing:
                    frames.append(Frame(_with(board, pieces[0], rng.choice(passing)), False, f"slides {piece}"))
            for one in pieces:
                board = _with(board, _as_set_down(one, target, after), target)
            what = (piece,)
        elif kind == "remove":
            board = _without(board, *what)
        else:
            board = _with(board, *what)
        frames.append(Frame(dict(board), True, f"{kind} {what[0]}"))
    if knock_at == len(steps):
        frames += _knock(board, foot, rng, sites)
    if not frames or frames[-1].layout != after:
        frames.append(Frame(dict(after), True, "straightens the stacks"))
    return frames


def _knock(board: Layout, foot: Footprint, rng: random.Random, sites: Sequence[str]) -> list[Frame]:
    """A neighbour nudged off its site (it settles there, off the board), then put back."""
    others = [s for s in sites if board.get(s) and s not in foot.sites]
    if not others:
        return []
    site = rng.choice(others)
    piece = board[site][-1]
    return [
        Frame(_without(board, piece, site), True, f"knocks {piece} off", frozenset({site})),
        Frame(dict(board), True, f"puts {piece} back"),
    ]
