"""What stands on the table for the mounted camera's frames: pieces of the box set on sites, stacked as the game
stacks them, a few beside the orbits, and the arm that reaches in. Footprints never overlap, riders never cover
their base's sticker where the game docks beside it; all of it drawn from the registry's outlines and the board file.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import cv2
import numpy as np

from companion.boards.model import Board, Site
from companion.sensing.pieces import PieceEntry, Registry
from companion.sim.lying import Lying

STANDS_WITHIN = 0.7  # a rider's centre stays within this share of its base's radius, or it tips off


@dataclass(frozen=True)
class Piece:
    """A piece on the table: centre (mm), turn (radians; its sticker's top points along the turned +y), the height
    it stands on, and its site (None when off every site)."""

    entry: PieceEntry
    x: float
    y: float
    turn: float
    z0: float
    site: str | None

    @property
    def top(self) -> float:
        return self.z0 + self.entry.height

    def axes(self) -> tuple[np.ndarray, np.ndarray]:
        return (
            np.array([math.cos(self.turn), math.sin(self.turn)]),
            np.array([-math.sin(self.turn), math.cos(self.turn)]),
        )

    def outline(self) -> np.ndarray:
        """The footprint's corners (mm), as the registry's shape and circumradius give them."""
        n = self.entry.sides
        angles = self.turn + math.pi / n + np.arange(n) * 2 * math.pi / n
        r = self.entry.radius
        return np.column_stack([self.x + r * np.cos(angles), self.y + r * np.sin(angles)])

    def sticker_centre(self) -> np.ndarray:
        _, ay = self.axes()
        return np.array([self.x, self.y]) - self.entry.sticker_offset * ay

    def sticker_square(self, side: float) -> np.ndarray:
        """The sticker's corners (mm) at `side`: top-left, top-right, bottom-right, bottom-left as printed."""
        ax, ay = self.axes()
        c, h = self.sticker_centre(), side / 2
        return np.array([c + u * ax + v * ay for u, v in ((-h, h), (h, h), (h, -h), (-h, -h))])


@dataclass(frozen=True)
class Arm:
    """A forearm and hand over the board: (polygon in mm, height in mm) pieces, and the skin's BGR."""

    parts: tuple[tuple[np.ndarray, float], ...]
    skin: tuple[int, int, int]
    sleeve: tuple[int, int, int]


@dataclass(frozen=True)
class Table:
    pieces: tuple[Piece, ...]
    arm: Arm | None


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return area > 0.5


def random_table(board: Board, registry: Registry, rng: np.random.Generator, count: int, arm: bool) -> Table:
    """Up to `count` pieces with stickers and a quarter as many without, from the box: some bases carry riders
    (the stickered pieces left over), a few pieces stand off every site."""
    marked = [e for e in registry.entries if e.sticker is not None]
    plain = [e for e in registry.entries if e.sticker is None]
    rng.shuffle(marked)
    rng.shuffle(plain)
    box = marked[:count] + plain[: count // 4]
    rng.shuffle(box)
    free_sites = [board.sites[i] for i in rng.permutation(len(board.sites))]
    pieces: list[Piece] = []
    riders = [e for e in box if not e.is_base]
    for entry in box:
        if entry in riders and rng.random() < 0.1:
            spot = _off_site(board, pieces, entry, rng)
            if spot is not None:
                pieces.append(spot)
            continue
        for _ in range(len(free_sites)):
            site = free_sites.pop()
            dx, dy = rng.normal(0, 1.5, 2)
            piece = Piece(entry, site.x + dx, site.y + dy, float(rng.uniform(0, 2 * math.pi)), 0.0, site.id)
            if not any(_overlap(piece.outline(), p.outline()) for p in pieces if p.z0 == 0):
                pieces.append(piece)
                break
        else:
            break
    used = {p.entry.id for p in pieces}
    spare = [e for e in riders if e.id not in used and e.sticker is not None]
    for base in [p for p in pieces if p.entry.is_base and p.entry.sticker is not None]:
        if not spare or rng.random() > 0.45:
            continue
        pieces.extend(_ride(base, spare, registry, rng))
    return Table(tuple(pieces), random_arm(board, rng) if arm else None)


def tables_from_one_box(
    boards: list[Board], registries: list[Registry], rng: np.random.Generator, counts: list[int], arms: list[bool]
) -> tuple[Table, ...]:
    """Each board's table (as `random_table` draws it, with its own registry, count and arm) from one box: a piece
    laid on one board is not in the box for the next, so no kind is on the table more often than the box holds it."""
    used: set[str] = set()
    tables = []
    for board, registry, count, arm in zip(boards, registries, counts, arms, strict=True):
        left = replace(registry, entries=tuple(e for e in registry.entries if e.id not in used))
        table = random_table(board, left, rng, count, arm)
        used |= {p.entry.id for p in table.pieces}
        tables.append(table)
    return tuple(tables)


def _ride(base: Piece, spare: list[PieceEntry], registry: Registry, rng: np.random.Generator) -> list[Piece]:
    """One to three riders on a base: stacked on its middle ('on top') or docked clear of its sticker ('beside')."""
    out: list[Piece] = []
    z = base.top
    if registry.stacking == "on top":
        for _ in range(int(rng.integers(1, 3))):
            if not spare:
                break
            entry = spare.pop()
            dx, dy = rng.normal(0, 1.0, 2)
            out.append(Piece(entry, base.x + dx, base.y + dy, float(rng.uniform(0, 2 * math.pi)), z, base.site))
            z += entry.height
        return out
    for _ in range(int(rng.integers(1, 3))):
        if not spare:
            break
        rider = docked(base, spare[-1], out, rng)
        if rider is not None:
            out.append(rider)
            spare.pop()
    return out


def docked(base: Piece, entry: PieceEntry, riders: list[Piece], rng: np.random.Generator) -> Piece | None:
    """A rider set on a base beside the riders already there, clear of the base's sticker ('beside'), as a hand
    docks it; None when it finds no room."""
    label = base.sticker_square(base.entry.sticker_mm * 4 / 3)  # the sticker and its white margin
    for _ in range(60):
        r = STANDS_WITHIN * base.entry.radius * math.sqrt(rng.uniform(0, 1))
        t = rng.uniform(0, 2 * math.pi)
        turn = base.turn + int(rng.integers(4)) * math.pi / 2 + rng.normal(0, 0.08)
        rider = Piece(entry, base.x + r * math.cos(t), base.y + r * math.sin(t), turn, base.top, base.site)
        if not _overlap(rider.outline(), label) and not any(_overlap(rider.outline(), o.outline()) for o in riders):
            return rider
    return None


def set_on(top: Piece, entry: PieceEntry, rng: np.random.Generator) -> Piece:
    """A piece set onto a stack's top piece ('on top') as a hand leaves it: a little off and turned any way."""
    dx, dy = rng.normal(0, 0.8, 2)
    return Piece(entry, top.x + dx, top.y + dy, float(rng.uniform(0, 2 * math.pi)), top.top, top.site)


def _off_site(board: Board, pieces: list[Piece], entry: PieceEntry, rng: np.random.Generator) -> Piece | None:
    """A piece set down on the board away from every site, piece and corner marker."""
    for _ in range(300):
        x, y = (
            rng.uniform(entry.radius, board.width - entry.radius),
            rng.uniform(entry.radius, board.height - entry.radius),
        )
        if min(math.hypot(x - s.x, y - s.y) for s in board.sites) < 40 + entry.radius:
            continue
        if any(abs(x - f.x) < f.size + entry.radius and abs(y - f.y) < f.size + entry.radius for f in board.fiducials):
            continue
        piece = Piece(entry, float(x), float(y), float(rng.uniform(0, 2 * math.pi)), 0.0, None)
        if not any(_overlap(piece.outline(), p.outline()) for p in pieces):
            return piece
    return None


def random_arm(board: Board, rng: np.random.Generator, over: tuple[float, float] | None = None) -> Arm:
    """A forearm reaching in over an edge towards a point on the board (`over`, in table mm, where the hand takes or
    sets down a piece; else anywhere on it), the hand hovering 40-140 mm up, the forearm rising towards the elbow."""
    reach = rng.uniform(0.2, 0.8, 2) * (board.width, board.height) if over is None else np.array(over, np.float64)
    side = rng.uniform(0, 2 * math.pi)
    direction = -np.array([math.cos(side), math.sin(side)])  # from the elbow towards the hand
    elbow = reach - direction * (max(board.width, board.height) * 0.5 + 250)
    across = np.array([-direction[1], direction[0]])
    z = float(rng.uniform(40, 140))
    wrist = reach - direction * 60
    width = float(rng.uniform(60, 85))
    parts = []
    for a, b, w0, w1, za in (
        (elbow, wrist, width * 1.2, width, z + 120),
        (wrist - direction * 10, wrist, width, width, z),
    ):
        poly = np.array([a - across * w0 / 2, b - across * w1 / 2, b + across * w1 / 2, a + across * w0 / 2])
        parts.append((poly, (za + z) / 2))
    t = np.linspace(0, 2 * math.pi, 28, endpoint=False)
    palm = reach - direction * 20 + np.outer(np.cos(t), across * 45) + np.outer(np.sin(t), direction * 50)
    parts.append((palm, z))
    for k in range(4):
        root = reach - direction * 5 + (k - 1.5) * 19 * across
        tip = root + direction * float(rng.uniform(40, 60))
        parts.append((np.array([root - across * 8, tip - across * 7, tip + across * 7, root + across * 8]), z - 10))
    thumb_root = reach - direction * 30 + across * 40 * (1 if rng.random() < 0.5 else -1)
    thumb_tip = thumb_root + (direction + across * np.sign(np.dot(thumb_root - reach, across))) * 30
    parts.append(
        (
            np.array(
                [
                    thumb_root - direction * 9,
                    thumb_tip - direction * 8,
                    thumb_tip + direction * 8,
                    thumb_root + direction * 9,
                ]
            ),
            z - 5,
        )
    )
    tone = float(rng.uniform(0, 1))
    skin = tuple(int(v) for v in np.array([70, 95, 140]) * (1 - tone) + np.array([170, 195, 235]) * tone)
    sleeve = tuple(int(v) for v in rng.integers(20, 200, 3))
    return Arm(tuple(parts), skin, sleeve)


@dataclass(frozen=True)
class Placement:
    """A board lying on the table: its origin at (x, y) in table mm, turned `turn` radians counter-clockwise."""

    board: Board
    x: float
    y: float
    turn: float

    def matrix(self) -> np.ndarray:
        """Board mm to table mm (a 3 x 3 rigid transform of the plane)."""
        c, s = math.cos(self.turn), math.sin(self.turn)
        return np.array([[c, -s, self.x], [s, c, self.y], [0.0, 0.0, 1.0]])

    def to_table(self, piece: Piece) -> Piece:
        """The piece as it stands on the table."""
        x, y, _ = self.matrix() @ (piece.x, piece.y, 1.0)
        return Piece(piece.entry, float(x), float(y), piece.turn + self.turn, piece.z0, piece.site)

    def outline(self) -> np.ndarray:
        """The board's corners in table mm."""
        b = self.board
        corners = np.array([(0, 0, 1), (b.width, 0, 1), (b.width, b.height, 1), (0, b.height, 1)], np.float64)
        return (corners @ self.matrix().T)[:, :2]


@dataclass(frozen=True)
class Spread:
    """Boards lying side by side on a table (Orbital Battle's solar map and planet maps), the table's origin at the
    bottom-left of the box round them all; `width` and `height` are that box's."""

    placements: tuple[Placement, ...]

    @property
    def width(self) -> float:
        return float(max(p.outline()[:, 0].max() for p in self.placements))

    @property
    def height(self) -> float:
        return float(max(p.outline()[:, 1].max() for p in self.placements))


def random_spread(
    boards: list[Board], rng: np.random.Generator, gap: tuple[float, float] = (0.0, 60.0), skew_deg: float = 6.0
) -> Spread:
    """The first board, and the others laid beside it as people lay them: in a column along its right side, each
    a little turned and apart from the last."""
    main = boards[0]
    placements = []
    x0 = main.width + float(rng.uniform(*gap))
    y = apart = 0.0
    for board in boards[1:]:
        turn = math.radians(float(rng.uniform(-skew_deg, skew_deg)))
        c, s = math.cos(turn), math.sin(turn)
        # The turned board's box starts at (x0, y): shift its origin so that no corner lies left of x0 or below y.
        corners = np.array([(0, 0), (board.width, 0), (board.width, board.height), (0, board.height)])
        turned = corners @ np.array([[c, s], [-s, c]])
        placements.append(Placement(board, x0 - float(turned[:, 0].min()), y - float(turned[:, 1].min()), turn))
        apart = float(rng.uniform(*gap))
        y += float(np.ptp(turned[:, 1])) + apart
    column = y - apart if placements else 0.0
    # The first board beside the middle of the column; then everything moved so the box starts at the origin.
    placed = [Placement(main, 0.0, (column - main.height) / 2, 0.0), *placements]
    low = min(float(p.outline()[:, 1].min()) for p in placed)
    return Spread(tuple(Placement(p.board, p.x, p.y - low, p.turn) for p in placed))


def layout_table(
    board: Board,
    box: Registry,
    layout: Mapping[str, tuple[str, ...]],
    rng: np.random.Generator,
    physical: Callable[[str], str],
    lying: Lying | None = None,
) -> tuple[Table, frozenset[str]]:
    """A game's layout (the board's own site ids) set out with pieces of the box, and the sites it cannot show whole
    (pieces the box has too few of). `physical`: the box's piece a layout name stands for. Each stack stands on its
    site as a hand leaves it, a little off and turned any way, its pieces one on another ('on top': counters).
    `lying`: the stacks as the last frame of this table left them, kept where no hand touched them (Lying)."""
    if box.stacking != "on top":
        raise ValueError("layout_table stacks pieces on top of each other; this box docks them beside")
    kept = lying.untouched(layout) if lying is not None else {}
    free: dict[str, list[PieceEntry]] = {}
    used = {piece.entry.id for stack in kept.values() for piece in stack}
    for entry in box.entries:
        if entry.id not in used:
            free.setdefault(entry.piece, []).append(entry)
    pieces: list[Piece] = [piece for stack in kept.values() for piece in stack]
    stacks: dict[str, tuple[Piece, ...]] = dict(kept)
    for site_id, names in layout.items():
        if not names or not board.has_site(site_id) or site_id in kept:
            continue
        chosen = [free[p].pop() for p in map(physical, names) if free.get(p)]
        stack: list[Piece] = []
        for _ in range(PLACING_TRIES):
            stack = _stack(board.site(site_id), chosen, rng)
            # A hand sets a counter down flat beside its neighbours, never riding on the edge of one.
            if not any(_overlap(a.outline(), b.outline()) for a in stack for b in pieces):
                break
        pieces.extend(stack)
        stacks[site_id] = tuple(stack)
    if lying is not None:
        lying.left(layout, stacks)
    hidden = {site for site, names in layout.items() if site in stacks and len(stacks[site]) < len(names)}
    return Table(tuple(pieces), None), frozenset(hidden)


PLACING_TRIES = 20  # a hand's tries at setting a stack clear of its neighbours before it leaves it as it lies


def _stack(site: Site, chosen: list[PieceEntry], rng: np.random.Generator) -> list[Piece]:
    """A stack on its site as a hand leaves it: a little off and turned any way, each piece on the one below."""
    x, y = site.x + rng.normal(0, 1.5), site.y + rng.normal(0, 1.5)
    z, out = 0.0, []
    for entry in chosen:
        dx, dy = rng.normal(0, 0.8, 2) if z else (0.0, 0.0)
        out.append(Piece(entry, float(x + dx), float(y + dy), float(rng.uniform(0, 2 * math.pi)), z, site.id))
        z += entry.height
    return out
