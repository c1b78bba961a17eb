"""Pieces without stickers: `companion calibrate colours` from a laid-out photo, then found by colour."""

from __future__ import annotations

import json
import math

import cv2
import numpy as np

from companion.sensing.pieces import load_registry
from companion.sensing.vision import Vision
from companion.sensing.vision_profile import load_profile, save_profile
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
    assert calibrate(["colours", "--image", str(tmp_path / "layout.png"), "--layout", str(tmp_path / "layout.json"),
                      "--registry", str(unmarked_registry), "--profile", str(tmp_path / "profile.json"),
                      "--out", str(tmp_path / "colours.json")]) == 0
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
    for layout, message in (({"nowhere": "scout-red"}, "nowhere: board"),
                            ({"o1s0": "ship-red"}, "carries a sticker"),
                            ({"o1s0": "scout-mauve"}, "scout-mauve")):
        (tmp_path / "layout.json").write_text(json.dumps(layout))
        assert calibrate(["colours", "--image", str(tmp_path / "img.png"), "--layout", str(tmp_path / "layout.json"),
                          "--registry", str(unmarked_registry), "--profile", str(tmp_path / "profile.json"),
                          "--out", str(tmp_path / "out.json")]) == 2
        err = error_line(capsys)
        assert "layout.json" in err and message in err
