"""Scenes for the rendered camera: where each piece stands, stacks, a hand over the board; random but seeded.

A scene is either random (`random_scene`: pieces scattered over the sites, for the camera's own tests and bench) or
a game's layout set out on the table (`layout_scene`: what the twin's camera photographs).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from companion.boards.model import Board
from companion.rules.engine import points_to, unpointed
from companion.sensing.pieces import PieceEntry, Registry
from companion.sim.lying import Lying
from companion.sim.render_camera import NORMAL, Conditions, SimCamera, jittered
from companion.table.observation import same_piece

DOCK_ALONG_MM = 16.0  # docked pieces sit towards the base's top side, away from its sticker
DOCK_ACROSS_MM = 14.0
ON_TOP_SLOP_MM = 1.5  # how far off the middle a hand sets a piece on top of another
SITE_SLOP_MM = 2.5  # how far off its site a hand sets a piece


@dataclass(frozen=True)
class Placed:
    """A piece on the table: centre (mm), turn (radians), the height it stands on, its site (None when off any)."""

    entry: PieceEntry
    x: float
    y: float
    angle: float
    z0: float = 0.0
    site: str | None = None
    level: int = 0


@dataclass(frozen=True)
class Hand:
    """A hand and forearm over the board: polygons in board mm at height `z`."""

    polygons: tuple[tuple[tuple[float, float], ...], ...]
    z: float = 70.0


@dataclass(frozen=True)
class Scene:
    board: Board
    camera: SimCamera
    pieces: tuple[Placed, ...]
    conditions: Conditions = NORMAL
    hand: Hand | None = None
    seed: int = 0


def local_axes(angle: float) -> tuple[np.ndarray, np.ndarray]:
    """The piece's (and its sticker's) x and y directions on the board."""
    return np.array([math.cos(angle), math.sin(angle)]), np.array([-math.sin(angle), math.cos(angle)])


def docked(base: Placed, pieces: list[PieceEntry], rng: np.random.Generator, stacking: str = "beside") -> list[Placed]:
    """Pieces standing on a base: clear of the base's sticker, side by side ("beside"), or on its middle, one on
    another ("on top"; see pieces.STACKING)."""
    if stacking == "on top":
        out, z = [], base.z0 + base.entry.height
        for entry in pieces:
            dx, dy = rng.uniform(-ON_TOP_SLOP_MM, ON_TOP_SLOP_MM, 2)
            out.append(Placed(entry, base.x + dx, base.y + dy, float(rng.uniform(0, 2 * math.pi)), z, base.site, 1))
            z += entry.height
        return out
    ax, ay = local_axes(base.angle)
    centre = np.array([base.x, base.y])
    across = [0.0] if len(pieces) == 1 else [-DOCK_ACROSS_MM, DOCK_ACROSS_MM]
    out = []
    for entry, offset in zip(pieces, across, strict=False):
        x, y = centre + DOCK_ALONG_MM * ay + offset * ax
        # Square to the base, so a rider's flat side (not a corner) faces the base's sticker.
        angle = base.angle + rng.uniform(-0.15, 0.15) + int(rng.integers(4)) * math.pi / 2
        out.append(Placed(entry, float(x), float(y), float(angle), base.entry.height, base.site, 1))
    return out


def random_scene(
    board: Board,
    registry: Registry,
    camera: SimCamera,
    seed: int,
    conditions: Conditions = NORMAL,
    pieces: int = 20,
    stacks: int = 3,
    off_site: int = 2,
    hand: bool = False,
    jitter: bool = True,
) -> Scene:
    """A table mid-game: `stacks` bases carrying one or two pieces, single pieces near sites, a few off any site."""
    rng = np.random.default_rng(seed)
    marked = [e for e in registry.entries if e.sticker is not None]
    bases = [e for e in marked if e.is_base]
    others = [e for e in marked if not e.is_base]
    rng.shuffle(bases)
    rng.shuffle(others)
    sites = list(board.sites)
    order = rng.permutation(len(sites))
    free_sites = [sites[i] for i in order]
    placed: list[Placed] = []
    for base_entry in bases[:stacks]:
        site = free_sites.pop()
        while any(math.hypot(site.x - p.x, site.y - p.y) < 2 * base_entry.radius + 6 for p in placed):
            site = free_sites.pop(0)  # bases never overlap: take another site
        base = Placed(base_entry, site.x, site.y, float(rng.uniform(0, 2 * math.pi)), 0.0, site.id, 0)
        riders = [others.pop() for _ in range(int(rng.integers(1, 3)))]
        placed.append(base)
        placed.extend(docked(base, riders, rng, registry.stacking))
    pool = bases[stacks:] + others
    rng.shuffle(pool)
    singles = max(0, pieces - len(placed) - off_site)
    for entry in pool[:singles]:
        site = free_sites.pop()
        while any(math.hypot(site.x - p.x, site.y - p.y) < entry.radius + p.entry.radius + 8 for p in placed):
            site = free_sites.pop(0)  # pieces on neighbouring sites never overlap
        dx, dy = rng.uniform(-3, 3, 2)
        placed.append(Placed(entry, site.x + dx, site.y + dy, float(rng.uniform(0, 2 * math.pi)), 0.0, site.id, 0))
    for entry in [e for e in pool[singles:] if not e.is_base][:off_site]:
        spot = _free_spot(board, placed, entry, rng)
        if spot is not None:
            placed.append(Placed(entry, spot[0], spot[1], float(rng.uniform(0, 2 * math.pi))))
    cam = jittered(camera, rng) if jitter else camera
    return Scene(board, cam, tuple(placed), conditions, random_hand(board, rng) if hand else None, seed)


def layout_scene(
    board: Board,
    registry: Registry,
    camera: SimCamera,
    layout: Mapping[str, tuple[str, ...]],
    rng: np.random.Generator,
    conditions: Conditions = NORMAL,
    physical: Callable[[str], str] = same_piece,
    lying: Lying | None = None,
) -> tuple[Scene, frozenset[str]]:
    """A game's layout set out on the table, and the sites the scene cannot show whole.

    Each piece is a distinct physical piece of the registry's box (pieces of one kind are interchangeable; `physical`
    turns a layout name into the box's, Game.physical_piece), set on its site with a little slop and a random turn;
    a stack's bottom piece carries the others. Sites the scene cannot show whole: pieces the box has none of, and
    more riders than dock beside a base (two). `lying`: the stacks as the last frame left them, kept where no hand
    touched them (Lying)."""
    kept = lying.untouched(layout) if lying is not None else {}
    box = _box_pieces({s: p for s, p in layout.items() if s not in kept}, registry, physical,
                      {piece.entry.id for stack in kept.values() for piece in stack})  # fmt: skip
    sites = {site.id for site in board.sites}
    on_top = registry.stacking == "on top"
    placed: list[Placed] = [piece for stack in kept.values() for piece in stack]
    stacks: dict[str, tuple[Placed, ...]] = dict(kept)
    hidden = set()
    for site_id, pieces in layout.items():
        if not pieces or site_id not in sites:
            continue
        chosen = tuple(p.entry for p in kept[site_id]) if site_id in kept else box.get(site_id, ())
        if len(chosen) < len(pieces) or (not on_top and len(pieces) > 3):
            hidden.add(site_id)
        if not chosen or site_id in kept:
            continue
        site = board.site(site_id)
        dx, dy = rng.uniform(-SITE_SLOP_MM, SITE_SLOP_MM, 2)
        heading = points_to(physical(pieces[0]))
        if heading and board.has_site(heading):  # a hand points the arrow at the site, give or take a little
            turn = math.radians(board.bearing(site_id, heading)) + float(rng.uniform(-0.12, 0.12))
        else:
            turn = float(rng.uniform(0, 2 * math.pi))
        base = Placed(chosen[0], site.x + dx, site.y + dy, turn, 0.0, site_id, 0)
        stack = [base, *docked(base, list(chosen[1:] if on_top else chosen[1:3]), rng, registry.stacking)]
        placed.extend(stack)
        stacks[site_id] = tuple(stack)
    if lying is not None:
        lying.left(layout, stacks)
    scene = Scene(board, camera, tuple(placed), conditions, None, int(rng.integers(1 << 30)))
    return scene, frozenset(hidden)


def _box_pieces(
    layout: Mapping[str, tuple[str, ...]],
    registry: Registry,
    physical: Callable[[str], str],
    used: frozenset[str] | set[str] = frozenset(),
) -> dict[str, tuple[PieceEntry, ...]]:
    """A distinct physical piece for each piece of the layout, per site bottom to top, while the box has one (and
    none of the pieces `used`, by id, that lie elsewhere)."""
    free: dict[str, list[PieceEntry]] = {}
    for entry in registry.entries:
        if entry.id not in used:
            free.setdefault(entry.piece, []).append(entry)
    box = [(site, [unpointed(physical(p)) for p in pieces]) for site, pieces in layout.items()]
    return {site: tuple(free[p].pop() for p in pieces if free.get(p)) for site, pieces in box}


def _free_spot(board: Board, placed: list[Placed], entry: PieceEntry, rng: np.random.Generator) -> tuple | None:
    """A spot well away from every site, piece and corner marker (a piece set down beside the orbits)."""
    for _ in range(500):
        x, y = rng.uniform(45, board.width - 45), rng.uniform(45, board.height - 45)
        if any(math.hypot(x - s.x, y - s.y) < 35 for s in board.sites):
            continue
        if any(math.hypot(x - p.x, y - p.y) < p.entry.radius + entry.radius + 4 for p in placed):
            continue
        if any(math.hypot(x - f.x, y - f.y) < f.size + entry.radius for f in board.fiducials):
            continue
        return float(x), float(y)
    return None


def random_hand(board: Board, rng: np.random.Generator, over: tuple[float, float] | None = None) -> Hand:
    """A forearm reaching in from one side, palm and fingers over the board (the palm over `over`, in board mm, when
    given: a hand about to take or set down a piece there)."""
    wrist = rng.uniform(0.3, 0.7, 2) * np.array([board.width, board.height]) if over is None else np.array(over)
    side = int(rng.integers(4))
    outside = {
        0: (wrist[0], -300.0),
        1: (board.width + 300.0, wrist[1]),
        2: (wrist[0], board.height + 300.0),
        3: (-300.0, wrist[1]),
    }[side]
    direction = wrist - np.array(outside)
    direction /= np.linalg.norm(direction)
    if over is not None:
        wrist = wrist - 45 * direction  # the palm's centre over the spot
    across = np.array([-direction[1], direction[0]])

    def quad(a: np.ndarray, b: np.ndarray, width: float) -> tuple[tuple[float, float], ...]:
        half = across * width / 2
        return tuple((float(p[0]), float(p[1])) for p in (a - half, b - half, b + half, a + half))

    arm = quad(np.array(outside), wrist, 80.0)
    palm_centre = wrist + 45 * direction
    palm = tuple(
        (float(p[0]), float(p[1]))
        for t in np.linspace(0, 2 * math.pi, 24, endpoint=False)
        for p in [palm_centre + 46 * math.cos(t) * across + 50 * math.sin(t) * direction]
    )
    fingers = []
    for k in range(4):
        base = palm_centre + (k - 1.5) * 20 * across + 40 * direction
        fingers.append(quad(base, base + (45 + 10 * (k in (1, 2))) * direction, 17.0))
    return Hand((arm, palm, *fingers), float(rng.uniform(50, 90)))
