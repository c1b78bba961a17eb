"""`companion print board GAME --tiles a4`: a 700 mm overlay on home-printer pages that line up."""

from __future__ import annotations

from companion.cli import main
from companion.printables.overlay import board_drawing
from companion.printables.shapes import Circle, Line
from companion.printables.tiles import MARGIN, OVERLAP, PAPERS, tile_layout, tiles
from companion.sensing.vision_setup import resolve_board


def test_pages_cover_the_board_and_neighbours_share_their_crosses():
    drawing = board_drawing(resolve_board("orbit"))
    pw, ph, cols, rows = tile_layout(drawing.width, drawing.height, "a4")
    assert {pw, ph} == set(PAPERS["a4"])
    assert cols * (pw - 2 * MARGIN - OVERLAP) + OVERLAP >= drawing.width
    assert rows * (ph - 2 * MARGIN - OVERLAP) + OVERLAP >= drawing.height
    pages = tiles(drawing, "a4")
    assert len(pages) == cols * rows
    step_x = pw - 2 * MARGIN - OVERLAP

    def crosses(index: int, dx: float) -> set[tuple[float, float]]:
        page = pages[index][1]
        return {(round(s.cx - dx, 1), round(s.cy, 1)) for s in page.shapes if isinstance(s, Circle) and s.r == 2.0}

    # The first two pages of the bottom row: the crosses of their shared seam sit at the same board positions.
    seam = round(step_x + OVERLAP / 2, 1)
    left = {c for c in crosses(0, MARGIN) if c[0] == seam}
    right = {c for c in crosses(1, MARGIN - step_x) if c[0] == seam}
    assert len(left) >= 3 and left == right
    assert all(isinstance(s, Line) for s in pages[0][1].shapes if getattr(s, "width", 0) == 0.2)


def test_the_command_writes_one_svg_per_page(tmp_path, capsys):
    assert main(["print", "board", "orbit", "--tiles", "letter", "--out", str(tmp_path / "overlay.svg")]) == 0
    pages = sorted(tmp_path.glob("overlay-*.svg"))
    err = capsys.readouterr().err
    assert pages and f"{len(pages)} LETTER pages for a 700 x 700 mm board" in err
    assert 'width="215.9mm"' in pages[0].read_text() or 'width="279.4mm"' in pages[0].read_text()


def test_tiles_need_a_directory_that_exists(tmp_path, capsys):
    assert main(["print", "board", "orbit", "--tiles", "a4", "--out", str(tmp_path / "no" / "x")]) == 2
    assert capsys.readouterr().err.strip().startswith("companion: print board --tiles: no directory")
