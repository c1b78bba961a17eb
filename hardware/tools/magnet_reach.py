"""How far a disc magnet closes a reed switch, and how near it may come to the next site's reed: an estimate from a
model, not a measurement.

The magnet: an axially magnetised disc (diameter D, thickness T, remanence Br: N35 1.18 T, N42 1.30 T), axis
vertical, integrated as a grid of point dipoles so that the near field is not a single dipole's.

The reed: a horizontal glass switch (companion/printables/reed_part.py: the Littelfuse MACD-14, 14 mm of glass) whose
two blades span L_BLADES = 12 mm along its axis. Makers rate a reed in ampere-turns (AT): the current times the turns
of a test coil, the reed centred in it, at which it closes. So the model calibrates its threshold the same way: a reed
closes when the field along its axis, averaged over its blades, reaches what its rating coil puts there at the rated
AT. The coil assumed here is a winding 10 mm long, 5 mm across inside and 12 mm outside; at 1 AT it puts 0.62 x mu0 /
10 mm along the blades (a long thin coil's mu0 x AT / length is not what a short coil makes). Makers use coils of
their own (each datasheet names it), which is one reason the figures are estimates.

Each reed lies along the board's x axis with one end of its glass under its site's centre, every reed the same way
(reed_part.py). The ghost columns put the next site's reed at a game's real site spacing, in the worst direction
round the magnet (along the glass, where the next reed's glass runs towards this magnet), and give the largest gap at
which the magnet closes it too.

Run it to print the tables hardware/MAGNETS.md carries (tests/sensing/test_hardware_docs.py checks they agree):
    .venv/bin/python hardware/tools/magnet_reach.py
"""

from __future__ import annotations

import functools
import itertools
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout's companion package
from companion.printables.reed_part import GLASS_DIAMETER, GLASS_LENGTH, GLASS_START

MU0 = 4e-7 * math.pi
L_BLADES = 12.0  # mm, the blades' span along the glass
COIL = (10.0, 2.5, 6.0)  # mm: the rating coil's length, inner and outer radius
REED_RADIUS = GLASS_DIAMETER / 2  # its axis lies this far below whatever the glass rests against
GRADES = {"N35": 1.18, "N42": 1.30}
SIZES = ((5, 2), (6, 2), (6, 3), (8, 2), (8, 3), (10, 3))  # diameter x thickness, mm
BINS = ((10, 15), (15, 20), (20, 25))  # ampere-turns: the sensitivity bins reeds are sold in
# Each game's board and its closest two sites (mm), as companion/boards builds them.
GAMES = (
    ("Periorbis", "periorbis"),
    ("Orbital Battle", "orbital_battle"),
    ("ORBIT", "orbit"),
    ("planet maps", "orbital_battle:planet1"),
    ("Trajectory", "trajectory"),
    ("Dakalio", "dakalio"),
)
GAPS = np.arange(0, 30.25, 0.25)  # mm, magnet face to the glass's surface
END_UNDER = GLASS_START + GLASS_LENGTH / 2  # the reed's centre from the site's: one end of the glass under it


def coil_field(ampere_turns: float) -> float:
    """The field along the axis of the rating coil at `ampere_turns`, averaged over the blades (tesla)."""
    length, inner, outer = (v / 1000 for v in COIL)

    def f(u: float) -> float:
        return u * math.log((outer + math.hypot(outer, u)) / (inner + math.hypot(inner, u)))

    zs = [(-L_BLADES / 2 + L_BLADES * (i + 0.5) / 120) / 1000 for i in range(120)]
    field = [MU0 * ampere_turns / (2 * length * (outer - inner)) * (f(z + length / 2) - f(z - length / 2)) for z in zs]
    return sum(field) / len(field)


def _dipoles(diameter: float, thickness: float, br: float, n: int = 9, layers: int = 3):
    """Point dipoles (x, y, z in mm, as an (N, 3) array) filling the disc, z = 0 its bottom face, and the moment of
    each (A m^2)."""
    r = diameter / 2
    cell = diameter / n
    grid = [(-r + (i + 0.5) * cell, -r + (j + 0.5) * cell) for i in range(n) for j in range(n)]
    inside = [(x, y) for x, y in grid if x * x + y * y <= r * r]
    points = np.array([(x, y, (k + 0.5) * thickness / layers) for x, y in inside for k in range(layers)])
    volume = math.pi * r * r * thickness * 1e-9  # m^3
    return points, br / MU0 * volume / len(points)


def drive(points, moment: float, dx: float, dy: float, depths: np.ndarray, samples: int = 13) -> np.ndarray:
    """The field along the reed's axis (tesla), averaged over its blades, for each depth: the reed's centre (dx, dy)
    mm from the magnet's axis, its axis `depth` mm below the magnet's bottom face."""
    xs = dx - L_BLADES / 2 + L_BLADES * (np.arange(samples) + 0.5) / samples
    ddx = (xs[None, :, None] - points[None, None, :, 0]) / 1000
    ddy = (dy - points[None, None, :, 1]) / 1000
    ddz = (-np.asarray(depths)[:, None, None] - points[None, None, :, 2]) / 1000
    r2 = ddx * ddx + ddy * ddy + ddz * ddz
    bx = MU0 / (4 * math.pi) * (3 * moment * ddz * ddx / r2**2.5).sum(axis=2)
    return np.abs(bx.mean(axis=1))


@functools.cache
def _drive_at_every_gap(diameter: float, thickness: float, br: float, dx: float, dy: float) -> np.ndarray:
    """drive() at each of GAPS for one magnet and one place of the reed: the table asks for it once per reed bin."""
    points, moment = _dipoles(diameter, thickness, br)
    return drive(points, moment, dx, dy, GAPS + REED_RADIUS)


def _largest_gap(closes: np.ndarray) -> float:
    """The largest gap at which the reed closes, counting up from 0 only while it keeps closing (0: not even there)."""
    if not closes[0]:
        return 0.0
    stop = int(np.argmin(closes)) if not closes.all() else len(closes)
    return float(GAPS[stop - 1])


def reach(diameter: float, thickness: float, br: float, ampere_turns: float, offset: float) -> float:
    """The largest gap (mm, magnet face to the glass's surface, in 0.25 mm steps) at which the reed still closes."""
    return _largest_gap(_drive_at_every_gap(diameter, thickness, br, offset, 0.0) >= coil_field(ampere_turns))


def neighbour_reach(
    diameter: float,
    thickness: float,
    br: float,
    ampere_turns: float,
    spacing: float,
    angles: range = range(135, 240, 15),
) -> float:
    """The largest gap at which this magnet still closes the reed of a site `spacing` mm away, in the worst of the
    directions `angles` (degrees from +x; 0: never). That reed's centre lies END_UNDER mm along x from its own site,
    so the worst is the site at 180 degrees, whose glass runs towards this magnet (the test checks it over all)."""
    need = coil_field(ampere_turns)
    worst = 0.0
    for angle in angles:
        dx = round(spacing * math.cos(math.radians(angle)) + END_UNDER, 6)
        dy = round(spacing * math.sin(math.radians(angle)), 6)
        closes = _drive_at_every_gap(diameter, thickness, br, dx, dy) >= need
        worst = max(worst, float(GAPS[closes].max()) if closes.any() else 0.0)
    return worst


def game_spacings() -> list[tuple[str, float]]:
    from companion.boards import default_board

    out = []
    for name, game in GAMES:
        sites = default_board(game).sites
        out.append((name, min(math.dist((a.x, a.y), (b.x, b.y)) for a, b in itertools.combinations(sites, 2))))
    return out


def reach_table() -> str:
    spacings = game_spacings()
    lines = [
        "| Magnet | Grade | Reed bin | reed centred | 2.5 mm off centre | glass end under the site | "
        + " | ".join(f"{name} ({spacing:.1f} mm)" for name, spacing in spacings)
        + " |",
        "|---|---|---|---|---|---|" + "---|" * len(spacings),
    ]
    for (diameter, thickness), (grade, br), (low, high) in itertools.product(SIZES, GRADES.items(), BINS):
        # The bin's least sensitive reed sets how far it reaches, its most sensitive how near the next one may come.
        cells = [f"{reach(diameter, thickness, br, high, off):.1f} mm" for off in (0.0, 2.5, END_UNDER)]
        ghosts = [neighbour_reach(diameter, thickness, br, low, spacing) for _, spacing in spacings]
        lines.append(
            f"| {diameter} x {thickness} mm | {grade} | {low}-{high} AT | "
            + " | ".join(cells)
            + " | "
            + " | ".join(f"{g:.1f} mm" if g else "never" for g in ghosts)
            + " |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(f"rating coil at 1 AT along the blades: {coil_field(1.0) / (MU0 / 0.010):.2f} x mu0 / 10 mm")
    print(reach_table(), end="")
