"""How far a disc magnet closes a reed switch: a model, not a measurement.

The magnet: an axially magnetised disc (diameter D, thickness T, remanence Br: N35 1.18 T, N42 1.30 T), axis
vertical, integrated as a grid of point dipoles so that the near field is not a single dipole's. The reed: a
horizontal glass switch whose two blades span L_BLADES = 12 mm along its axis (a 14 mm glass body); it closes when
the field along its axis, averaged over the blades, reaches the field of its rating coil, H = AT / L_COIL with
L_COIL = 10 mm (the usual test coil), i.e. B = mu0 * AT / L_COIL: 1.26 mT at 10 AT, 1.88 mT at 15 AT.

What the model shows: under the magnet's centre the axial field is odd about the axis, so a reed centred under the
magnet averages to nothing (its dead zone); the pull is best with one end of the glass under the magnet.

Run it to print the tables hardware/MAGNETS.md carries (tests/sensing/test_hardware_docs.py checks they agree):
    python3 hardware/tools/magnet_reach.py
"""

from __future__ import annotations

import math

import numpy as np

MU0 = 4e-7 * math.pi
L_BLADES = 12.0  # mm, the blades' span along the glass
L_COIL = 10.0  # mm, the rating coil's length
REED_RADIUS = 1.0  # mm, the glass is 2 mm thick: its axis lies 1 mm below whatever it rests against
GRADES = {"N35": 1.18, "N42": 1.30}
SIZES = ((5, 2), (6, 2), (6, 3), (8, 2), (8, 3), (10, 3))  # diameter x thickness, mm
RATINGS = (10, 15)  # ampere-turns
PITCH = 20.0  # mm, the closest two sites of the five games' boards


def threshold_tesla(ampere_turns: float) -> float:
    return MU0 * ampere_turns / (L_COIL / 1000)


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


def drive(points, moment: float, offset: float, depth: float, samples: int = 13) -> float:
    """The field along the reed's axis (tesla), averaged over its blades: the reed's centre `offset` mm from the
    magnet's axis, its axis `depth` mm below the magnet's bottom face."""
    xs = offset - L_BLADES / 2 + L_BLADES * (np.arange(samples) + 0.5) / samples
    dx = (xs[:, None] - points[None, :, 0]) / 1000
    dy = -points[None, :, 1] / 1000
    dz = (-depth - points[None, :, 2]) / 1000
    r2 = dx * dx + dy * dy + dz * dz
    bx = MU0 / (4 * math.pi) * (3 * moment * dz * dx / r2**2.5).sum(axis=1)
    return float(abs(bx.mean()))


def reach(diameter: float, thickness: float, br: float, ampere_turns: float, offset: float) -> float:
    """The largest gap (mm, magnet face to the glass's surface, in 0.25 mm steps) at which the reed still closes."""
    points, moment = _dipoles(diameter, thickness, br)
    need = threshold_tesla(ampere_turns)
    gap = 0.0
    while gap < 40 and drive(points, moment, offset, gap + 0.25 + REED_RADIUS) >= need:
        gap += 0.25
    return gap if drive(points, moment, offset, REED_RADIUS) >= need else 0.0


def neighbour_reach(diameter: float, thickness: float, br: float, ampere_turns: float) -> float:
    """The largest gap at which this magnet still closes the next site's reed (0: never). Every reed lies the same
    way, one end under its own site, so the next site's reed along the glass's direction reaches to within
    PITCH - L_BLADES of this magnet's axis."""
    points, moment = _dipoles(diameter, thickness, br)
    need = threshold_tesla(ampere_turns)
    gaps = np.arange(0, 30.25, 0.25)
    closing = [g for g in gaps if drive(points, moment, -(PITCH - L_BLADES / 2), g + REED_RADIUS) >= need]
    return float(max(closing, default=0.0))


def reach_table() -> str:
    lines = [
        "| Magnet | Grade | Reed | reed centred | 2.5 mm off centre | one end under the magnet | next site's reed "
        "closes up to |",
        "|---|---|---|---|---|---|---|",
    ]
    for diameter, thickness in SIZES:
        for grade, br in GRADES.items():
            for at in RATINGS:
                cells = [f"{reach(diameter, thickness, br, at, off):.1f} mm" for off in (0.0, 2.5, L_BLADES / 2)]
                ghost = neighbour_reach(diameter, thickness, br, at)
                lines.append(f"| {diameter} x {thickness} mm | {grade} | {at} AT | " + " | ".join(cells)
                             + (f" | {ghost:.1f} mm |" if ghost else " | never |"))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(reach_table(), end="")
