"""Pieces without stickers: `companion calibrate colours` from a laid-out photo, then found by colour."""

from __future__ import annotations

import json
import math

import cv2
import numpy as np

from companion.sensing.pieces import load_registry
from companion.sensing.vision import Vision
from companion.sensing.vision_profile import ColourRange, load_profile, save_profile
from companion.sim.render_camera import sim_profile
from companion.sim.render_scene import Placed, Scene, random_scene

from .conftest import UNMARKED
from .test_calibration import calibrate, error_line


def scene_with_scouts(board, registry, camera, seed: int) -> Scene:
    """A game scene with the scouts added on free sites well clear of other pieces."""
    scene = random_scene(board, registry, camera, seed, pieces=14)
    placed = list(scene.pieces)
    scouts = []
    for site in sorted(board.sites, key=lambda s: (s.id * (seed % 7 + 1))[::-1]):
        if len(scouts) == len(UNMARKED):
            break
        if all(math.dist((site.x, site.y), (p.x, p.y)) > p.entry.radius + 22 for p in placed + scouts):
            entry = registry.entry(f"scout-{UNMARKED[len(scouts)]}")
            scouts.append(Placed(entry, site.x, site.y, 0.0, 0.0, site.id, 0))
    return Scene(board, scene.camera, tuple(placed + scouts), scene.conditions, None, seed)


def test_calibrated_colours_find_unmarked_pieces(board, renderer, camera, unmarked_registry, tmp_path):
    registry = load_registry(unmarked_registry)
    layout_scene = scene_with_scouts(board, registry, camera, 80)
    cv2.imwrite(str(tmp_path / "layout.png"), renderer.render(layout_scene).image)
    layout = {p.site: p.entry.id for p in layout_scene.pieces if p.entry.sticker is None}
    assert len(layout) == len(UNMARKED)
    (tmp_path / "layout.json").write_text(json.dumps(layout))
    save_profile(sim_profile(camera, board.name), tmp_path / "profile.json")
    assert (
        calibrate(
            [
                "colours",
                "--image",
                str(tmp_path / "layout.png"),
                "--layout",
                str(tmp_path / "layout.json"),
                "--registry",
                str(unmarked_registry),
                "--profile",
                str(tmp_path / "profile.json"),
                "--out",
                str(tmp_path / "colours.json"),
            ]
        )
        == 0
    )
    profile = load_profile(tmp_path / "colours.json")
    assert set(profile.colours) == set(UNMARKED)
    assert profile.colours["red"].low[0] > profile.colours["red"].high[0]  # red wraps around hue 0

    vision = Vision(board, registry, profile)
    for seed in (81, 82, 83):
        scene = scene_with_scouts(board, registry, camera, seed)
        report = vision.process(renderer.render(scene).image)
        assert report.reliable
        truth = {p.entry.piece: p for p in scene.pieces if p.entry.sticker is None}
        found = {s.piece: s for s in report.sightings if s.sticker is None}
        assert set(found) == set(truth), seed
        for piece, s in found.items():
            assert s.site == truth[piece].site and math.dist((s.x, s.y), (truth[piece].x, truth[piece].y)) < 3
        stickered = [s.confidence for s in report.sightings if s.sticker is not None]
        assert max(s.confidence for s in found.values()) < min(stickered)


def test_without_colour_ranges_no_piece_is_guessed(board, renderer, camera, unmarked_registry):
    registry = load_registry(unmarked_registry)
    scene = scene_with_scouts(board, registry, camera, 84)
    report = Vision(board, registry, sim_profile(camera, board.name)).process(renderer.render(scene).image)
    assert report.reliable and all(s.sticker is not None for s in report.sightings)


def test_bad_layout_gives_one_line(board, camera, unmarked_registry, tmp_path, capsys):
    save_profile(sim_profile(camera, board.name), tmp_path / "profile.json")
    cv2.imwrite(str(tmp_path / "img.png"), np.full((720, 1280, 3), 128, np.uint8))
    for layout, message in (
        ({"nowhere": "scout-red"}, "nowhere: board"),
        ({"o1s0": "ship-red"}, "carries a sticker"),
        ({"o1s0": "scout-mauve"}, "scout-mauve"),
    ):
        (tmp_path / "layout.json").write_text(json.dumps(layout))
        assert (
            calibrate(
                [
                    "colours",
                    "--image",
                    str(tmp_path / "img.png"),
                    "--layout",
                    str(tmp_path / "layout.json"),
                    "--registry",
                    str(unmarked_registry),
                    "--profile",
                    str(tmp_path / "profile.json"),
                    "--out",
                    str(tmp_path / "out.json"),
                ]
            )
            == 2
        )
        err = error_line(capsys)
        assert "layout.json" in err and message in err


def test_calibrating_colours_says_where_the_board_shows_a_pieces_colour(
    board, renderer, camera, unmarked_registry, tmp_path, capsys
):
    """The photo read back with the ranges just sampled: a patch of the red scouts' colour printed on the board
    (a flat disc where no piece was laid out) is named with the site it is near, since the table would read a red
    scout there; a range that misses a laid-out piece is named too; a clean photo gives no warning."""
    from dataclasses import replace

    from companion.calibration.board_pose import calibrate_pose
    from companion.calibration.colours import check_colours, load_layout, sample_colours

    registry = load_registry(unmarked_registry)
    scene = scene_with_scouts(board, registry, camera, 80)
    layout = {p.site: p.entry.id for p in scene.pieces if p.entry.sticker is None}
    (tmp_path / "layout.json").write_text(json.dumps(layout))
    profile = sim_profile(camera, board.name)
    clear = next(
        s
        for s in sorted(board.sites, key=lambda s: s.id)
        if all(math.dist((s.x, s.y), (p.x, p.y)) > p.entry.radius + 30 for p in scene.pieces)
    )
    printed = Placed(replace(registry.entry("scout-red"), id="print-red", height=0.3), clear.x, clear.y, 0.0)
    lines = {}
    for name, pieces in (("clean", scene.pieces), ("printed", (*scene.pieces, printed))):
        image = renderer.render(replace(scene, pieces=tuple(pieces))).image
        pose = calibrate_pose(image, board, profile)
        laid = load_layout(tmp_path / "layout.json", board, registry)
        sampled = profile.with_colours(sample_colours(image, board, registry, profile, pose, laid))
        lines[name] = check_colours(image, board, registry, sampled, pose, laid)
    assert lines["clean"] == []
    assert len(lines["printed"]) == 1 and lines["printed"][0].startswith("red is also seen where no piece was laid out")
    assert f"near {clear.label or clear.id} " in lines["printed"][0]

    # A range that cannot find the red scout (grey, not red): the scout is named where it was laid out.
    red_site = next(site for site, entry in layout.items() if entry == "scout-red")
    grey = profile.with_colours({**sampled.colours, "red": ColourRange((0, 0, 0), (179, 10, 255))})
    missed = check_colours(renderer.render(scene).image, board, registry, grey, pose, laid)
    label = next(s.label or s.id for s in board.sites if s.id == red_site)
    assert any(line.startswith(f"scout-red on {label} is not found") for line in missed), missed

    # The command prints them as warnings after writing the profile.
    cv2.imwrite(str(tmp_path / "printed.png"), renderer.render(replace(scene, pieces=(*scene.pieces, printed))).image)
    save_profile(profile, tmp_path / "profile.json")
    assert (
        calibrate(
            [
                "colours",
                "--image",
                str(tmp_path / "printed.png"),
                "--layout",
                str(tmp_path / "layout.json"),
                "--registry",
                str(unmarked_registry),
                "--profile",
                str(tmp_path / "profile.json"),
                "--out",
                str(tmp_path / "colours.json"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "colour range(s) written" in out and "warning: red is also seen where no piece was laid out" in out
