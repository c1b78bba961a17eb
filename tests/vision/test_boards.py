"""One camera over several boards: Orbital Battle's solar map with a planet map beside it, each found and followed by
its own corner markers, its pieces read on its own sites, a board out of view said so (the mounted camera's frames,
companion/sim/mounted_*.py)."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from importlib import resources

import numpy as np
import pytest

from companion.bench.vision_mounted import calibrated, score
from companion.bench.vision_spread import box_registry
from companion.boards import default_board
from companion.errors import UserError
from companion.sensing.vision_profile import CameraProfile
from companion.sensing.vision_table import BoardInView, TableVision
from companion.sim.mounted_camera import mount, random_shot
from companion.sim.mounted_render import MountedRenderer
from companion.sim.mounted_scene import Piece, Placement, Spread, Table, random_spread, random_table


@pytest.fixture(scope="module")
def table():
    """The solar map and planet 3's map beside it, under a camera at 1080p, with pieces on both."""
    registry = box_registry()
    counters = replace(registry, entries=tuple(e for e in registry.entries if not e.piece.startswith("planet-")))
    boards = [default_board("orbital_battle"), default_board("orbital_battle:planet3")]
    rng = np.random.default_rng(5)
    spread = random_spread(boards, rng)
    mounting = mount(spread, (1920, 1080), 0.92, 0.05, math.radians(12), 1.0, 65, -0.08, 0.01)
    renderer = MountedRenderer(spread, registry.dictionary, mounting)
    profile = calibrated(mounting, rng, CameraProfile)
    tables = (random_table(boards[0], registry, rng, 14, False), random_table(boards[1], counters, rng, 10, False))
    return registry, boards, spread, renderer, profile, tables


def _vision(table) -> TableVision:
    registry, boards, _, _, profile, _ = table
    return TableVision([BoardInView(boards[0]), BoardInView(boards[1], "p3:")], registry, profile)


def _read_whole(report, frame, boards) -> None:
    """Every sticker in view on each board read on its own site, nothing invented."""
    for board in boards:
        truth = [t for t in frame.truth if t.board == board.name]
        results, false = score(report.report(board.name), truth, {s.id for s in board.sites})
        assert len(results) >= 8 and false == 0, board.name
        assert all(o == "read" for _, o in results), (board.name, results)


def test_pieces_on_two_boards_are_read_each_on_its_board(table):
    _, boards, _, renderer, _, tables = table
    rng = np.random.default_rng(6)
    frame = renderer.render_spread(tables, random_shot("normal", rng), rng)
    report = _vision(table).process(frame.image, 0.0)
    assert report.out_of_view() == {}
    _read_whole(report, frame, boards)
    planet = report.report(boards[1].name)
    assert planet.markers == (12, 13, 14, 15)  # planet 3's own markers, 4N to 4N+3
    # The layout's names: planet 3's hexes with its prefix, the solar map's as they are.
    stacks = report.stacks()
    assert {f"p3:{site}": pieces for site, pieces in planet.stacks().items()}.items() <= stacks.items()
    assert all(s.startswith("p3:") or default_board("orbital_battle").has_site(s) for s in stacks)


def _planet_map_moved(table, seed: int, dx: float, dy: float, turn_deg: float):
    """A vision that has read the table as laid out, and a frame with the planet map moved by (dx, dy), turned."""
    _, _, spread, renderer, _, tables = table
    vision = _vision(table)
    rng = np.random.default_rng(seed)
    vision.process(renderer.render_spread(tables, random_shot("normal", rng), rng).image, 0.0)
    p = spread.placements[1]
    moved = Spread((spread.placements[0], Placement(p.board, p.x + dx, p.y + dy, p.turn + math.radians(turn_deg))))
    return vision, renderer.render_spread(tables, random_shot("normal", rng), rng, moved)


def test_a_planet_map_pushed_aside_is_found_again_while_the_solar_map_keeps_its_pose(table):
    boards = table[1]
    vision, frame = _planet_map_moved(table, 7, 30.0, -20.0, 4.0)
    pose = vision.visions[0].pose
    report = vision.process(frame.image, 1.0, set())  # the grids felt nothing: boards that stayed keep their reading
    solar, planet = report.report(boards[0].name), report.report(boards[1].name)
    assert vision.visions[0].pose is pose and solar.reliable and not solar.moved
    assert planet.moved and "stickers in crops" not in planet.timings
    _read_whole(report, frame, boards)


def test_a_board_none_of_whose_sites_changed_keeps_its_reading_while_its_markers_look_as_they_did(table):
    """A whole frame (a Pi camera's) with one solar map site changed: the solar map is read in crops round it, the
    planet map, its markers looking as they did, keeps its last reading and is not read again."""
    _, boards, _, renderer, _, tables = table
    vision = _vision(table)
    rng = np.random.default_rng(9)
    first = vision.process(renderer.render_spread(tables, random_shot("normal", rng), rng).image, 0.0)
    frame = renderer.render_spread(tables, random_shot("normal", rng), rng)
    report = vision.process(frame.image, 1.0, {boards[0].sites[0].id})
    solar, planet = report.report(boards[0].name), report.report(boards[1].name)
    assert "stickers in crops" in solar.timings
    before = first.report(boards[1].name)
    assert planet.time == 1.0 and planet.sightings == before.sightings and planet.timings == before.timings
    _read_whole(report, frame, boards)


def test_a_piece_off_every_site_where_a_planet_map_slid_over_the_solar_map_is_read_once(table):
    """Each board's search reaches past its edge, so a piece in the strip where the maps overlap is seen off every
    site by both: it is read once, on the board it lies deeper inside, never dropped by both."""
    registry, boards, spread, renderer, _, _ = table
    solar, planet = spread.placements
    over = Placement(planet.board, boards[0].width - 40.0, planet.y, planet.turn)  # 40 mm over the solar map
    to_solar = np.linalg.inv(solar.matrix()) @ over.matrix()
    entries = [e for e in registry.entries if e.sticker is not None and not e.piece.startswith("planet-")]
    x, y, _ = to_solar @ (10.0, 150.0, 1.0)  # 30 mm into the solar map, 10 into the planet map
    tables = (
        Table((Piece(entries[0], float(x), float(y), 0.3, 0.0, None),), None),
        Table((Piece(entries[1], 30.0, 300.0, 0.2, 0.0, None),), None),  # 30 mm into the planet map, 10 the other
    )
    rng = np.random.default_rng(12)
    frame = renderer.render_spread(tables, random_shot("normal", rng), rng, Spread((solar, over)))
    report = _vision(table).process(frame.image, 0.0)
    for board in boards:
        truth = [t for t in frame.truth if t.board == board.name]
        results, false = score(report.report(board.name), truth, {s.id for s in board.sites})
        assert [o for _, o in results] == ["read"] and false == 0, board.name


def test_a_planet_map_off_the_table_is_out_of_view_not_empty(table):
    boards = table[1]
    vision, frame = _planet_map_moved(table, 8, 5000.0, 0.0, 0.0)
    report = vision.process(frame.image, 1.0)
    assert list(report.out_of_view()) == [boards[1].name]
    assert "no corner markers" in report.out_of_view()[boards[1].name]
    assert not any(site.startswith("p3:") for site in report.stacks())
    assert {f"p3:{s.id}" for s in boards[1].sites} <= report.unreliable_sites()
    assert report.report(boards[0].name).reliable


def test_boards_the_camera_cannot_tell_apart_are_refused(table):
    registry, boards, _, _, profile, _ = table
    with pytest.raises(UserError, match="corner marker 0"):
        TableVision([BoardInView(boards[0]), BoardInView(boards[0], "p1:")], registry, profile)
    with pytest.raises(UserError, match="share the site prefix"):
        TableVision([BoardInView(boards[0]), BoardInView(boards[1])], registry, profile)


def test_the_bench_reports_each_board(capsys):
    from companion.cli import main

    assert (
        main(
            [
                "bench",
                "vision",
                "--game",
                "orbital_battle",
                "--scenes",
                "3",
                "--per-mounting",
                "3",
                "--sizes",
                "1920x1080",
                "--conditions",
                "normal",
                "--fill",
                "0.9-0.95",
                "--tilt",
                "10",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    for board in ("orbital_battle:", "orbital_battle:planet3:"):
        lines = out.splitlines()
        at = next(k for k, line in enumerate(lines) if line.strip().startswith(board))
        assert re.search(r"\d+ frames, \d+ refused whole; all correct [\d.]+%", lines[at])
        assert re.search(r"stickers in view \d+: not read [\d.]+% \(silent", lines[at + 1])
    assert "by lens blur sigma (px)" in out and "by the worst sticker's blur in its cells" in out
    assert "moved on the table in 1 frames" in out and "pipeline, every board  median" in out
    assert "baseline: plain detectMarkers" in out
    assert main(["bench", "vision", "--game", "orbital_battle", "--changes", "2", "--colours"]) == 2  # no colour


def test_vision_detect_reads_the_boards_beside_with_their_layout_names(table, tmp_path, capsys):
    import json

    import cv2

    from companion.cli import main
    from companion.sensing.vision_profile import save_profile

    _, boards, _, renderer, profile, tables = table
    rng = np.random.default_rng(9)
    frame = renderer.render_spread(tables, random_shot("normal", rng), rng)
    cv2.imwrite(str(tmp_path / "frame.png"), frame.image)
    save_profile(profile, tmp_path / "profile.json")
    registry = str(resources.files("companion.sim").joinpath("pieces_orbital_battle.json"))
    argv = [
        "vision",
        "detect",
        "--board",
        "orbital_battle",
        "--beside",
        "orbital_battle:planet3",
        "--registry",
        registry,
        "--profile",
        str(tmp_path / "profile.json"),
        str(tmp_path / "frame.png"),
    ]
    assert main([*argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    planet = report["boards"]["orbital_battle:planet3"]
    assert planet["prefix"] == "p3:" and planet["reliable"] and planet["markers"] == [12, 13, 14, 15]
    truth = {t.piece.site for t in frame.truth if t.board == boards[1].name and t.visible and t.piece.site}
    assert set(planet["stacks"]) == truth
    assert main(argv) == 0
    assert "frame.png [orbital_battle:planet3]:" in capsys.readouterr().out
    assert main([*argv[:5], "orbital_battle:planet9", *argv[6:]]) == 2
    assert "planet9" in capsys.readouterr().err


def _map_boxed_and_back(table):
    """The table's boards, a TableVision that has read a frame with the planet map in the box, and frames of the
    table with the map in the box and laid back."""
    _, boards, spread, renderer, _, tables = table
    vision = _vision(table)
    rng = np.random.default_rng(13)
    p = spread.placements[1]
    boxed = Spread((spread.placements[0], Placement(p.board, p.x + 5000.0, p.y, p.turn)))
    away = renderer.render_spread(tables, random_shot("normal", rng), rng, boxed).image
    back = renderer.render_spread(tables, random_shot("normal", rng), rng).image
    assert list(vision.process(away, 0.0).out_of_view()) == [boards[1].name]
    return boards, vision, away, back


def test_a_planet_map_out_of_view_is_looked_for_once_a_second_or_when_its_sites_change(table):
    """A map in the box costs a whole-frame marker search: it is looked for again once AWAY_SEARCH of frame time has
    passed, or at once when the grid says one of its sites changed, not in every frame of a settled table."""
    from companion.sensing.vision_table import AWAY_SEARCH

    boards, vision, away, back = _map_boxed_and_back(table)
    vision.process(away, 0.1, set())
    # Laid on the table: a frame soon after the last search leaves it out of view ...
    assert list(vision.process(back, 0.2, set()).out_of_view()) == [boards[1].name]
    # ... a frame once AWAY_SEARCH has passed finds it; and so does one whose grid felt a piece set on it.
    assert vision.process(back, AWAY_SEARCH + 0.05, set()).out_of_view() == {}
    vision = _vision(table)
    vision.process(away, 0.0)
    found = vision.process(back, 0.1, {f"p3:{boards[1].sites[0].id}"})
    assert found.out_of_view() == {}


def test_a_frame_read_for_a_change_on_the_board_in_view_leaves_the_search_for_a_map_out_of_view_to_a_later_one(table):
    """The first frame after an arm leaves is what a booking waits for, and every search fell due while the arm was
    over the board: a frame reading a change on a board in view searches for a map in the box only once
    AWAY_SEARCH_BUSY has passed; the next frame with nothing to read searches for it as before."""
    from companion.sensing.vision_table import AWAY_SEARCH, AWAY_SEARCH_BUSY

    boards, vision, away, back = _map_boxed_and_back(table)
    change = {boards[0].sites[0].id}  # (the game board's sites bear no prefix)
    assert list(vision.process(back, AWAY_SEARCH + 0.05, change).out_of_view()) == [boards[1].name]
    assert vision.process(back, AWAY_SEARCH + 0.1, set()).out_of_view() == {}
    vision = _vision(table)
    vision.process(away, 0.0)
    assert vision.process(back, AWAY_SEARCH_BUSY + 0.05, change).out_of_view() == {}
