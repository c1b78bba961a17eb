"""A wiring plan for a board's reed grid: which row line and which column line each site's reed is soldered to.

The sites are cut into bands across the board, top to bottom, one row line a band, and the row line runs along its
band from left to right; each band's sites then take the column lines in order of their x, each as near as it can
to the column's place across the board, so that a column line runs down the board through one site of each band.
Sites side by side in a band share a row, sites one above the other share a column: the wires run as straight as
the board's sites allow, for a square grid, a hexagon of hexes or rings of orbits alike.

`companion print wiring GAME` prints it for the builder; `companion calibrate grid` compares the grid as built
(what each site's magnet closed) against it and names the wires that differ.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from companion.boards import Board
from companion.errors import UserError
from companion.sensing.frames import Switch

# The two grids the firmware builds for (firmware/reed_grid/pins.h): the Mega's 16 x 16, the Uno's or Nano's 8 x 8.
MATRICES = {"mega": (16, 16), "uno": (8, 8)}
ARDUINO_NAMES = {"mega": "Arduino Mega 2560", "uno": "Arduino Uno or Nano"}


@dataclass(frozen=True)
class WiringPlan:
    board: str
    arduino: str  # "mega" or "uno"
    rows: int
    cols: int
    sites: dict[str, Switch]  # site id -> (row, column), in the board's order of sites

    def row_sites(self, row: int) -> list[str]:
        """The sites on a row line, in the order the line runs (by column)."""
        return sorted((s for s, (r, _) in self.sites.items() if r == row), key=lambda s: self.sites[s][1])

    def column_sites(self, col: int) -> list[str]:
        """The sites on a column line, in the order the line runs (by row)."""
        return sorted((s for s, (_, c) in self.sites.items() if c == col), key=lambda s: self.sites[s][0])


def arduino_for(board: Board, arduino: str | None = None) -> str:
    """The Arduino a board's grid needs: the one asked for if its matrix holds every site, else the Uno for up to 64
    sites and the Mega beyond."""
    if arduino is not None:
        if arduino not in MATRICES:
            raise UserError(f"--arduino: {arduino!r} is not one of {', '.join(MATRICES)}")
        rows, cols = MATRICES[arduino]
        if len(board.sites) > rows * cols:
            raise UserError(
                f"--arduino: board {board.name!r} has {len(board.sites)} sites, more than the "
                f"{rows} x {cols} switches of an {ARDUINO_NAMES[arduino]}"
            )
        return arduino
    for name in ("uno", "mega"):
        rows, cols = MATRICES[name]
        if len(board.sites) <= rows * cols:
            return name
    raise UserError(f"board {board.name!r} has {len(board.sites)} sites, more than one grid's 256 switches")


def plan_wiring(board: Board, arduino: str | None = None) -> WiringPlan:
    """The plan for a board: bands of sites by height, one row line each, and columns by place across the board."""
    name = arduino_for(board, arduino)
    rows, cols = MATRICES[name]
    bands_needed = math.ceil(len(board.sites) / cols)
    # Top to bottom (y up on the board), then left to right: cut into bands of as equal a size as can be.
    ordered = sorted(board.sites, key=lambda s: (-round(s.y, 3), s.x))
    xs = [s.x for s in board.sites]
    left, right = min(xs), max(xs)
    places = [left + (right - left) * (c + 0.5) / cols for c in range(cols)] if right > left else [left] * cols
    sites: dict[str, Switch] = {}
    start = 0
    for band in range(bands_needed):
        size = len(ordered) // bands_needed + (band < len(ordered) % bands_needed)
        members = sorted(ordered[start : start + size], key=lambda s: s.x)
        start += size
        for site, col in zip(members, _columns_in_order([s.x for s in members], places), strict=True):
            sites[site.id] = (band, col)
    order = {site.id: i for i, site in enumerate(board.sites)}
    return WiringPlan(board.name, name, rows, cols, dict(sorted(sites.items(), key=lambda kv: order[kv[0]])))


def _columns_in_order(xs: list[float], places: list[float]) -> list[int]:
    """Distinct columns for sites sorted by x, in the same order, each as near its column's place as can be (the least
    total distance; in one dimension an order-keeping choice is among the best)."""
    n, m = len(xs), len(places)
    inf = float("inf")
    # best[i][j]: least cost of the first i sites on the first j columns.
    best = [[inf] * (m + 1) for _ in range(n + 1)]
    best[0] = [0.0] * (m + 1)
    for i in range(1, n + 1):
        for j in range(i, m + 1):
            best[i][j] = min(best[i][j - 1], best[i - 1][j - 1] + abs(xs[i - 1] - places[j - 1]))
    out, j = [], m
    for i in range(n, 0, -1):
        while best[i][j] == best[i][j - 1] and j > i:
            j -= 1
        out.append(j - 1)
        j -= 1
    return out[::-1]


def plan_text(plan: WiringPlan, board: Board, row_pins: list[str], col_pins: list[str]) -> str:
    """The plan as the builder reads it at the bench: each row line with its sites in the order it runs, the column
    of each, and each column line the same way."""
    used_rows = sorted({r for r, _ in plan.sites.values()})
    lines = [
        f"Wiring plan for {board.name}: {len(plan.sites)} sites on an {ARDUINO_NAMES[plan.arduino]}'s "
        f"{plan.rows} x {plan.cols} grid, rows {used_rows[0]}-{used_rows[-1]} used, {len(used_rows)} row lines "
        f"and {len({c for _, c in plan.sites.values()})} column lines.",
        "Each row line runs left to right through its band of sites; each column line runs top to bottom. "
        "Positions are mm on the printed overlay (x right, y up from its bottom-left corner).",
        "",
    ]
    for row in used_rows:
        lines.append(f"Row {row} (pin {row_pins[row]}):")
        for site_id in plan.row_sites(row):
            site, col = board.site(site_id), plan.sites[site_id][1]
            lines.append(f"  column {col:>2} (pin {col_pins[col]:>3})  {site.name}  at {site.x:.1f}, {site.y:.1f}")
    lines.append("")
    for col in range(plan.cols):
        members = plan.column_sites(col)
        if members:
            lines.append(
                f"Column {col} (pin {col_pins[col]}), top to bottom: "
                + "; ".join(f"row {plan.sites[s][0]} {board.site(s).name}" for s in members)
            )
    return "\n".join(lines) + "\n"


def check_against_plan(plan: WiringPlan, built: Mapping[str, Switch]) -> list[str]:
    """What the grid as built (site -> the switch its magnet closed) says about the wiring, against the plan: empty
    when they agree; else one line per finding, a row or column line wired to another header pin as a whole first,
    then each site apart."""
    common = [s for s in built if s in plan.sites]
    findings: list[str] = []
    for axis, word in ((0, "row"), (1, "column")):
        moved = Counter((plan.sites[s][axis], built[s][axis]) for s in common if plan.sites[s][axis] != built[s][axis])
        for (planned, found), count in sorted(moved.items()):
            on_line = sum(1 for s in common if plan.sites[s][axis] == planned)
            if count == on_line and count > 1:
                findings.append(
                    f"the plan's {word} {planned} reads as {word} {found}: its line goes to "
                    f"{word} {found}'s pin (all {count} of its sites)"
                )
    whole = set(findings)
    for site in common:
        (pr, pc), (br, bc) = plan.sites[site], built[site]
        if (pr, pc) == (br, bc):
            continue
        row_line = any(f"the plan's row {pr} reads as row {br}:" in f for f in whole)
        col_line = any(f"the plan's column {pc} reads as column {bc}:" in f for f in whole)
        if (pr == br or row_line) and (pc == bc or col_line):
            continue  # explained by a whole line above
        findings.append(f"{site}: planned row {pr} column {pc}, built row {br} column {bc}")
    return findings


def plan_report(board: Board, rows: int, cols: int, built: Mapping[str, Switch]) -> list[str]:
    """What `companion calibrate grid` says after a walk: whether the grid as built follows the board's wiring plan
    for a grid of this size, and where it does not. A grid wired to another plan of one's own is fine: the profile
    records it either way."""
    arduino = next((name for name, size in MATRICES.items() if size == (rows, cols)), None)
    if arduino is None or len(board.sites) > rows * cols:
        return [f"No wiring plan for a {rows} x {cols} grid under {board.name}."]
    findings = check_against_plan(plan_wiring(board, arduino), built)
    if not findings:
        return [f"The grid follows the wiring plan (companion print wiring {board.name}) at all {len(built)} sites."]
    return [
        f"Against the wiring plan (companion print wiring {board.name}; the profile records the grid as built "
        f"either way):"
    ] + [f"  {finding}" for finding in findings]
