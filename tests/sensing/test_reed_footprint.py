"""The reed the grid is built for (companion/printables/reed_part.py, from its datasheet) fits its footprint, its jig
and the drilling template: leads bent where the makers allow, no copper under the glass, holes where a site's reed
goes and clear of every other site's reed."""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import pytest

from companion.boards import default_board
from companion.boards.orbital_battle import PLANET_NUMBERS
from companion.cli import main
from companion.printables import reed_part as reed
from companion.printables.overlay import board_drawing, reed_holes

HARDWARE = Path(__file__).resolve().parents[2] / "hardware"
FOOTPRINT = HARDWARE / "reed_grid.pretty" / "Reed_MACD-14_P22.86mm_Horizontal.kicad_mod"
BOARDS = ["orbit", "dakalio", "trajectory", "orbital_battle", "periorbis"] + [
    f"orbital_battle:planet{n}" for n in PLANET_NUMBERS
]


def test_the_leads_bend_where_the_makers_allow_and_reach_through_the_base():
    assert reed.PITCH >= reed.least_pitch() == pytest.approx(21.53, abs=0.01)
    assert pytest.approx(9 * 2.54) == reed.PITCH  # perfboard makes the jig
    # Each lead's run from the glass to the middle of its bent leg: the bend itself starts 3 mm or more out.
    run = (reed.PITCH - reed.GLASS_LENGTH) / 2
    assert run - reed.BEND_RADIUS - reed.LEAD_DIAMETER / 2 >= reed.BEND_FROM_GLASS
    # Down through a 6 mm base with 3 mm left for the diode's or the wire's joint, 3 mm or more from the glass.
    assert reed.lead_below_bend() >= 6 + 3
    assert reed.HOLE_DRILL > reed.LEAD_DIAMETER + 0.5


def test_the_footprint_holds_the_reed_with_no_copper_under_its_glass():
    from kiutils.footprint import Footprint

    footprint = Footprint.from_file(str(FOOTPRINT))
    pads = sorted(footprint.pads, key=lambda p: p.position.X)
    assert [p.number for p in pads] == ["1", "2"]
    assert pytest.approx(reed.PITCH) == pads[1].position.X - pads[0].position.X
    assert {p.drill.diameter for p in pads} == {reed.HOLE_DRILL}
    glass = [item for item in footprint.graphicItems if type(item).__name__ == "FpRect" and item.layer == "F.Fab"]
    (outline,) = glass
    assert pytest.approx(reed.GLASS_LENGTH) == outline.end.X - outline.start.X
    assert pytest.approx(reed.GLASS_DIAMETER) == outline.end.Y - outline.start.Y
    for pad in pads:
        copper = (pad.position.X - pad.size.X / 2, pad.position.X + pad.size.X / 2)
        assert copper[1] < outline.start.X or copper[0] > outline.end.X  # no pad under the glass
    # The glass's near end, where the site's centre goes, is HOLES[0] from the first hole.
    assert pytest.approx(reed.GLASS_START - reed.HOLES[0]) == outline.start.X - pads[0].position.X
    netlist = (HARDWARE / "reed-grid-mega.net").read_text()
    assert len(re.findall(r'\(footprint "reed_grid:Reed_MACD-14_P22\.86mm_Horizontal"\)', netlist)) == 256


@pytest.mark.parametrize("game", BOARDS)
def test_each_sites_holes_are_clear_of_every_other_sites_reed(game):
    """On every board, a site's two holes are 1.5 mm or more from the glass and the holes of every other site: the
    drilling template can be drilled as printed."""
    board = default_board(game)
    radius = reed.GLASS_DIAMETER / 2

    def glass_distance(px: float, py: float, x: float, y: float) -> float:
        x0, x1 = x + reed.GLASS_START, x + reed.GLASS_START + reed.GLASS_LENGTH
        dx = max(x0 - px, 0.0, px - x1)
        return math.hypot(dx, max(abs(py - y) - radius, 0.0))

    for a, b in itertools.permutations(board.sites, 2):
        if math.dist((a.x, a.y), (b.x, b.y)) > reed.PITCH + reed.GLASS_LENGTH + 10:
            continue
        for hole in reed_holes(a.x, a.y):
            assert glass_distance(*hole, b.x, b.y) >= 1.5, (a.id, b.id)
            assert min(math.dist(hole, other) for other in reed_holes(b.x, b.y)) >= 1.5 + reed.HOLE_DRILL, (a.id, b.id)


def test_the_drilling_template_marks_each_sites_holes(tmp_path):
    board = default_board("periorbis")
    drawing = board_drawing(board, reeds=True)
    holes = {
        (round(s.cx, 2), round(s.cy, 2))
        for s in drawing.shapes
        if type(s).__name__ == "Circle" and s.r == reed.HOLE_DRILL / 2
    }
    expected = {(round(x, 2), round(y, 2)) for site in board.sites for x, y in reed_holes(site.x, site.y)}
    assert holes == expected and len(holes) == 2 * len(board.sites)
    assert main(["print", "board", "periorbis", "--reeds", "--out", str(tmp_path / "drill.svg")]) == 0
    assert (tmp_path / "drill.svg").read_text().count(f'r="{reed.HOLE_DRILL / 2:.3f}"') == 2 * len(board.sites)
