"""`companion bench messy`: its rows, its table and its one-line errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from companion.bench.messy import default_benches

ROOT = Path(__file__).resolve().parents[2]


def companion(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, cwd=ROOT)


def test_the_default_rows_cover_all_five_games():
    rows = default_benches()
    assert {b.game for b in rows} == {"orbit", "dakalio", "orbital_battle", "trajectory", "periorbis"}
    assert sum(b.game == "orbit" for b in rows) == 4
    assert {dict(b.options).get("mode") for b in rows if b.game == "dakalio"} == {"simple", "supremacy"}
    assert any(dict(b.opening).get("portals") for b in rows)  # Dakalio with portals on the board


def test_a_sweep_prints_a_line_per_hold_time_with_no_wrong_booking_and_no_advice_to_undo():
    """Trajectory's ships lifted and held (a flight onto a planet's space is whole to the grid at the lift): before
    the table waited for the hand, holds of 0.5 s and more booked wrong flights and advised undoing the right ones."""
    result = companion("bench", "messy", "--game", "trajectory", "--moves", "4", "--holds", "0.1,2")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = [x.split() for x in result.stdout.splitlines() if x.strip()[:1].isdigit()]
    assert [float(x[0]) for x in lines] == [0.1, 2.0]
    for _, moves, wrong, _, undo, _, median, *_ in lines:
        assert int(moves) == 4 and int(wrong) == 0 and int(undo) == 0, result.stdout
        assert float(median.rstrip(",")) < 0.5  # from the landing to the booking


def test_with_the_camera_the_table_books_within_a_frames_journey_of_the_arm_leaving_the_board():
    """An arm over the board holds every booking: the time from the last touch is the arm's withdrawal, then the
    webcam's (the rest of a frame interval, the exposure, the transfer: under 0.3 s at 15 frames a second) and the
    table's reading of the first frame with no arm in it, charged to the clock; the table waits for nothing more (a
    second frame, or the settle window again, would take it over 0.4 s)."""
    result = companion(
        "bench", "messy", "--game", "periorbis", "--senses", "camera", "--moves", "4", "--holds", "0.3,1"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    summary = next(x for x in result.stdout.splitlines() if "booked after the arm left the board" in x)
    median = float(summary.split("median ")[1].split(" s")[0])
    assert 0.0 < median < 0.4, summary
    lines = [x.split() for x in result.stdout.splitlines() if x.strip()[:1].isdigit()]
    assert [float(x[0]) for x in lines] == [0.3, 1.0]
    for line in lines:  # each hold's median from the arm's leaving, beside the one from the last touch
        assert 0.0 < float(line[-2]) < 0.4, result.stdout


def test_the_bookings_are_told_by_the_webcams_speed_slowest_third_apart(capsys):
    """Each game draws its webcam from the world's range: the slowest third shows the goal at the slow end (the
    nearest-rank median of each third)."""
    from companion.bench.messy import print_webcams

    webcams = [(lag, [0.3 + lag] * 3, [lag + 0.02] * 3) for lag in (0.20, 0.08, 0.12, 0.16, 0.10, 0.18)]
    webcams.append((0.05, [], []))  # a game the table booked nothing of by itself (all tapped) is left out
    print_webcams(webcams)
    printed = capsys.readouterr().out
    assert "quickest third (0.08-0.10 s) 0.38, 0.10" in printed
    assert "middle third (0.12-0.16 s) 0.42, 0.14" in printed
    assert "slowest third (0.18-0.20 s) 0.48, 0.20" in printed
    print_webcams(webcams[:2])
    assert capsys.readouterr().out == ""  # too few webcams to tell apart


def test_the_hold_window_swept_prints_a_line_per_window_over_the_holds():
    result = companion(
        "bench", "messy", "--game", "trajectory", "--moves", "2", "--holds", "0.1,5", "--windows", "3,12"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = [x.split() for x in result.stdout.splitlines() if x.strip()[:1].isdigit()]
    assert [float(x[0]) for x in lines] == [3.0, 12.0]
    for _, moves, wrong, *_, wrong_at in lines:
        assert int(moves) == 4 and int(wrong) == 0 and wrong_at == "-", result.stdout  # two holds of two moves


def test_bad_arguments_are_one_line_errors():
    for args in (
        ["--games", "0"],
        ["--game", "chess"],
        ["--players", "3"],
        ["--holds", "0,1"],
        ["--holds", "x"],
        ["--senses", "smell"],
        ["--moves", "0"],
        ["--windows", "3,x"],
        ["--windows", "0"],
        ["--slower", "0.5"],
    ):
        result = companion("bench", "messy", *args)
        assert result.returncode == 2 and "bench messy" in result.stderr and "Traceback" not in result.stderr, args


def test_with_the_camera_an_arrow_tells_the_way_ahead_from_back_but_not_one_branch_of_a_fork_from_the_other():
    """The bench counts a move as one the board tells apart only if a sensor could: at an ORBIT fork the two
    branches leave along nearly one printed line, so a planet's arrow there does not say which it takes."""
    from companion.rules import load
    from companion.sim.game_layouts import ORBIT_MODULES
    from companion.sim.hand_play import HandTable
    from companion.sim.table_setup import make_twin

    game = load("orbit")
    twin = make_twin("orbit", 3, 1, "virtual", None, 0.0, 0.0, camera=None, options=ORBIT_MODULES)
    table = HandTable(twin, 1)
    board = twin.camera.board
    forks = [
        s.id
        for s in board.sites
        if len([x for x in board.links_from(s.id) if x.kind == "orbit-fork"]) == 1
        and len([x for x in board.links_from(s.id) if x.kind.startswith("orbit")]) == 3
    ]
    assert forks
    for fork in forks:
        ways = sorted(x.b for x in board.links_from(fork) if x.kind.startswith("orbit"))
        seen = {way: table._seen(game, {fork: (f"planet-red>{way}",)}) for way in ways}
        near = [(a, b) for a in ways for b in ways if a < b and seen[a] == seen[b]]
        assert len(near) == 1, (fork, near)  # the two branches look alike; the way back does not
        far = abs((board.bearing(fork, near[0][0]) - board.bearing(fork, near[0][1]) + 180) % 360 - 180)
        assert far < 25
    # Away from the forks every arrow is read (ring 8's half circle off the board included).
    for site in ("r8s0", "r2s1"):
        ways = [x.b for x in board.links_from(site) if x.kind.startswith("orbit")]
        assert len({table._seen(game, {site: (f"planet-red>{way}",)}) for way in ways}) == len(ways)


def test_the_webcam_at_either_end_of_the_range_is_the_slowest_or_quickest_one_drawn():
    import random

    from companion.sim.hand_clock import Webcam

    world = Webcam()
    drawn = [world.draw(random.Random(seed)) for seed in range(200)]
    slowest, quickest = world.end(True).draw(random.Random(0)), world.end(False).draw(random.Random(0))
    lag = [every / 2 + exposure + delay for every, exposure, delay in [*drawn, slowest, quickest]]
    assert lag[-2] == max(lag) and lag[-1] == min(lag)
    assert slowest == (1 / 15, 1 / 15, 2 / 15) and quickest == (1 / 30, 1 / 60, 1 / 30)
