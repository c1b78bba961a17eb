"""The wiring plan: every board's sites on rows and columns laid out as a builder's wires run, printed by `companion
print wiring`, and the grid as built checked against it."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.boards import default_board
from companion.boards.orbital_battle import PLANET_NUMBERS
from companion.calibration.grid_plan import check_against_plan, plan_report, plan_wiring
from companion.cli import main
from companion.sim.simavr_grid import virtual_grid

ROOT = Path(__file__).parent.parent.parent
BOARDS = ["orbit", "dakalio", "trajectory", "orbital_battle", "periorbis"] + [
    f"orbital_battle:planet{n}" for n in PLANET_NUMBERS
]


@pytest.mark.parametrize("game", BOARDS)
def test_every_site_gets_its_own_crossing_and_neighbours_share_lines(game):
    board = default_board(game)
    plan = plan_wiring(board)
    assert plan.arduino == ("uno" if len(board.sites) <= 64 else "mega")
    assert set(plan.sites) == {site.id for site in board.sites}
    assert len(set(plan.sites.values())) == len(board.sites)
    assert all(0 <= r < plan.rows and 0 <= c < plan.cols for r, c in plan.sites.values())
    # A row line runs left to right through a band; the bands go down the board; a column line runs down it.
    for row in range(plan.rows):
        xs = [board.site(s).x for s in plan.row_sites(row)]
        assert xs == sorted(xs)
    bands = [[board.site(s).y for s in plan.row_sites(row)] for row in range(plan.rows) if plan.row_sites(row)]
    assert all(min(upper) >= max(lower) for upper, lower in itertools.pairwise(bands))
    for col in range(plan.cols):
        ys = [board.site(s).y for s in plan.column_sites(col)]
        assert ys == sorted(ys, reverse=True)
    # Nearest neighbours: a hex has six and can share a line with four of them, a square grid's site with all four.
    spacing = min(math.dist((a.x, a.y), (b.x, b.y)) for a, b in itertools.combinations(board.sites, 2))
    pairs = [
        (a.id, b.id)
        for a, b in itertools.combinations(board.sites, 2)
        if math.dist((a.x, a.y), (b.x, b.y)) < 1.15 * spacing
    ]
    sharing = [(a, b) for a, b in pairs if plan.sites[a][0] == plan.sites[b][0] or plan.sites[a][1] == plan.sites[b][1]]
    assert len(sharing) >= 0.55 * len(pairs), f"{len(sharing)} of {len(pairs)} neighbour pairs share a line"


@pytest.mark.parametrize("game", ["orbit", "orbital_battle", "orbital_battle:planet3", "trajectory"])
def test_print_wiring_names_each_site_once_with_its_pins(game, capsys):
    assert main(["print", "wiring", game]) == 0
    out = capsys.readouterr().out
    board = default_board(game)
    plan = plan_wiring(board)
    listed = [line for line in out.splitlines() if line.startswith("  column ")]
    assert len(listed) == len(board.sites)
    first = board.sites[0]
    assert f"  {first.name}  at {first.x:.1f}, {first.y:.1f}" in "\n".join(listed)
    assert ("Row 0 (pin D22):" if plan.arduino == "mega" else "Row 0 (pin D4):") in out
    assert f"{len(board.sites)} sites on an Arduino" in out


def test_print_wiring_refuses_an_arduino_too_small_for_the_board(capsys):
    assert main(["print", "wiring", "orbit", "--arduino", "uno"]) == 2
    assert capsys.readouterr().err.strip() == (
        "companion: --arduino: board 'orbit' has 217 sites, more than the 8 x 8 switches of an Arduino Uno or Nano"
    )


def test_the_check_names_a_swapped_pair_of_wires_and_a_single_crossed_site():
    board = default_board("orbit")
    plan = plan_wiring(board)
    assert check_against_plan(plan, plan.sites) == []
    swapped = {s: ({2: 3, 3: 2}.get(r, r), c) for s, (r, c) in plan.sites.items()}
    assert check_against_plan(plan, swapped) == [
        f"the plan's row 2 reads as row 3: its line goes to row 3's pin (all {len(plan.row_sites(2))} of its sites)",
        f"the plan's row 3 reads as row 2: its line goes to row 2's pin (all {len(plan.row_sites(3))} of its sites)",
    ]
    site = plan.row_sites(5)[0]
    r, c = plan.sites[site]
    one_off = {**plan.sites, site: (15, c)}  # row 15 is spare: 217 sites fill 14 rows
    assert check_against_plan(plan, one_off) == [f"{site}: planned row {r} column {c}, built row 15 column {c}"]
    assert plan_report(board, 8, 8, {}) == ["No wiring plan for a 8 x 8 grid under orbit."]


def test_calibrate_grid_says_whether_the_built_grid_follows_the_plan(tmp_path):
    """A walk of two of Trajectory's sites on the plan's switches, then one site on another switch."""
    plan = plan_wiring(default_board("trajectory"))
    sites = list(plan.sites)[:2]
    for closes, expect in (
        (plan.sites, "The grid follows the wiring plan"),
        ({sites[0]: plan.sites[sites[0]], sites[1]: (7, 7)}, f"  {sites[1]}: planned row"),
    ):
        with virtual_grid(8, 8) as grid:
            grid.go()
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "companion",
                    "calibrate",
                    "grid",
                    "--port",
                    grid.port,
                    "--sites",
                    ",".join(sites),
                    "--out",
                    str(tmp_path / "grid.json"),
                    "--wait",
                    "5",
                ],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            out = []
            for line in proc.stdout:
                out.append(line.rstrip())
                if line.startswith("["):
                    switch = closes[line.split("(")[-1].split(")")[0]]
                    time.sleep(0.05)
                    grid.close_switch(*switch)
            assert proc.wait(10) == 0, proc.stderr.read()
        assert any(line.startswith(expect) for line in out), out
