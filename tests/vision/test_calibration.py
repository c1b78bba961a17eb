"""`companion calibrate camera | board | colours` end to end on rendered photos, and the profiles they make in use."""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.cli.calibrate_camera import register_calibrate
from companion.errors import UserError
from companion.sensing.vision_profile import load_profile, save_profile
from companion.sim.render_scene import random_scene
from companion.sim.render_target import render_target, target_view


def calibrate(argv: list[str]) -> int:
    """The `calibrate` group as the CLI builds it (its own module is not part of this package's tests)."""
    parser = argparse.ArgumentParser(prog="companion")
    group = parser.add_subparsers(dest="command", required=True).add_parser("calibrate")
    register_calibrate(group.add_subparsers(dest="calibrate", required=True))
    args = parser.parse_args(["calibrate", *argv])
    try:
        return args.run(args)
    except UserError as error:
        print(f"companion: {error}", file=sys.stderr)
        return 2


def error_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err and "\n" not in err and "Traceback" not in err
    return err


@pytest.fixture(scope="module")
def target_photos(tmp_path_factory, camera):
    folder = tmp_path_factory.mktemp("charuco")
    for seed in range(10):
        cv2.imwrite(str(folder / f"view-{seed:02}.png"), render_target(target_view(camera, seed), seed))
    return folder


@pytest.fixture(scope="module")
def intrinsics(target_photos, tmp_path_factory):
    out = tmp_path_factory.mktemp("profiles") / "camera.json"
    assert calibrate(["camera", "--images", str(target_photos), "--out", str(out)]) == 0
    return out


def test_calibrate_camera_recovers_focal_length_and_distortion(intrinsics, camera):
    profile = load_profile(intrinsics)
    assert profile.image_size == (1280, 720)
    (fx, _, cx), (_, fy, cy), _ = profile.matrix
    assert abs(fx / camera.fx - 1) < 0.01 and abs(fy / camera.fy - 1) < 0.01
    assert abs(cx - camera.cx) < 5 and abs(cy - camera.cy) < 5
    assert abs(profile.distortion[0] - camera.dist[0]) < 0.01
    assert abs(profile.distortion[1] - camera.dist[1]) < 0.02
    assert 0 < profile.intrinsics_rms_px < 0.5
    # The whole lens model, not just its coefficients: the same pixels undistort to nearly the same rays (within
    # what a 0.5% focal length difference allows at the frame's corners; without the k1 barrel it is 30 px).
    xs, ys = np.meshgrid(np.linspace(20, 1260, 12), np.linspace(20, 700, 8))
    pixels = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2)
    truth = cv2.undistortPoints(pixels, camera.matrix, camera.distortion).reshape(-1, 2)
    found = cv2.undistortPoints(pixels, profile.camera_matrix, profile.dist_coeffs).reshape(-1, 2)
    assert float(np.max(np.linalg.norm(truth - found, axis=1))) * camera.fx < 8


def test_calibrate_camera_measures_the_lens_blur_on_the_target(intrinsics, target_photos, tmp_path, capsys):
    """The target's markers give the lens's blur, kept in the profile; the same photos through a softer lens (1.5 px
    more) give about the two blurs together, and a warning to focus."""
    sharp = load_profile(intrinsics).sharpness
    assert sharp is not None and sharp.photos >= 6 and 0.5 < sharp.sharpest_px <= sharp.blur_px < 1.2
    soft_photos = tmp_path / "soft"
    soft_photos.mkdir()
    for photo in sorted(target_photos.iterdir())[:6]:
        cv2.imwrite(str(soft_photos / photo.name), cv2.GaussianBlur(cv2.imread(str(photo)), (0, 0), 1.5))
    capsys.readouterr()
    assert calibrate(["camera", "--images", str(soft_photos), "--out", str(tmp_path / "soft.json")]) == 0
    soft = load_profile(tmp_path / "soft.json").sharpness
    assert soft is not None and soft.blur_px == pytest.approx(math.hypot(1.5, sharp.blur_px), abs=0.2)
    out = capsys.readouterr().out
    assert f"the lens blurs by {soft.blur_px:.2f} px" in out and "focus the lens" in out


def test_calibrate_camera_refuses_too_few_views(target_photos, tmp_path, capsys):
    few = sorted(target_photos.iterdir())[:3]
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((720, 1280, 3), 128, np.uint8))
    out = tmp_path / "p.json"
    assert calibrate(["camera", "--images", *map(str, few), str(blank), "--out", str(out)]) == 2
    assert "only 3 of 4 images" in error_line(capsys)
    assert not out.exists()


@pytest.fixture(scope="module")
def posed(intrinsics, board, registry, renderer, camera, tmp_path_factory):
    """A profile with intrinsics and pose, from a rendered photo of the board (the camera a little off-centre)."""
    folder = tmp_path_factory.mktemp("posed")
    scene = random_scene(board, registry, camera, 70)
    cv2.imwrite(str(folder / "board.png"), renderer.render(scene).image)
    out = folder / "profile.json"
    assert (
        calibrate(
            [
                "board",
                "--board",
                "trajectory",
                "--image",
                str(folder / "board.png"),
                "--profile",
                str(intrinsics),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    return scene, out


def test_calibrate_board_recovers_the_pose(posed):
    scene, out = posed
    pose = load_profile(out).pose
    assert pose is not None and pose.board == "trajectory" and pose.reprojection_px < 1.0
    rot_true, _ = cv2.Rodrigues(np.array(scene.camera.rvec))
    rot, _ = cv2.Rodrigues(np.array(pose.rvec))
    angle = math.degrees(math.acos(min(1.0, (np.trace(rot.T @ rot_true) - 1) / 2)))
    assert angle < 0.3
    centre_true = -rot_true.T @ np.array(scene.camera.tvec)
    centre = -rot.T @ np.array(pose.tvec)
    assert np.linalg.norm(centre[:2] - centre_true[:2]) < 3 and abs(centre[2] - centre_true[2]) < 10


def test_detect_uses_the_calibrated_profile(posed, board, registry, renderer, camera, tmp_path, capsys):
    _, profile = posed
    scene = random_scene(board, registry, camera, 71)
    cv2.imwrite(str(tmp_path / "frame.png"), renderer.render(scene).image)
    capsys.readouterr()
    assert main(["vision", "detect", "--profile", str(profile), str(tmp_path / "frame.png"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["reliable"] and len(report["sightings"]) >= len(scene.pieces) - 1
    for s in report["sightings"]:  # a sighting names a kind: a piece of that kind stands there
        assert any(
            p.entry.piece == s["piece"] and p.site == s["site"] and math.dist((s["x"], s["y"]), (p.x, p.y)) < 3
            for p in scene.pieces
        ), s


def test_calibrate_board_refuses_a_profile_of_another_camera(posed, tmp_path, capsys):
    _, good = posed
    profile = load_profile(good)
    (fx, _, cx), (_, fy, cy), last = profile.matrix
    save_profile(replace(profile, matrix=((fx * 1.25, 0, cx), (0, fy * 0.8, cy), last)), tmp_path / "wrong.json")
    image = good.parent / "board.png"
    assert (
        calibrate(
            [
                "board",
                "--image",
                str(image),
                "--profile",
                str(tmp_path / "wrong.json"),
                "--out",
                str(tmp_path / "out.json"),
            ]
        )
        == 2
    )
    assert "px error" in error_line(capsys)
    assert (
        calibrate(
            [
                "board",
                "--image",
                str(image),
                "--profile",
                str(tmp_path / "none.json"),
                "--out",
                str(tmp_path / "out.json"),
            ]
        )
        == 2
    )
    assert "none.json" in error_line(capsys)
    bad = json.loads(good.read_text())
    bad["distortion"] = "barrel"
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    assert (
        calibrate(
            [
                "board",
                "--image",
                str(image),
                "--profile",
                str(tmp_path / "bad.json"),
                "--out",
                str(tmp_path / "out.json"),
            ]
        )
        == 2
    )
    assert "bad.json: distortion" in error_line(capsys)


def test_calibrate_board_says_whether_the_stickers_are_big_and_sharp_enough(posed, tmp_path, capsys):
    """720p over Trajectory's board: about 19 px stickers, enough for the lens's blur measured on the board's
    markers; the same photo with the registry's stickers halved is not, and the command says what to change."""
    profile = posed[1]
    image = profile.parent / "board.png"
    capsys.readouterr()
    assert (
        calibrate(
            [
                "board",
                "--board",
                "trajectory",
                "--image",
                str(image),
                "--profile",
                str(profile),
                "--out",
                str(tmp_path / "p.json"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "this mounting reaches the goal" in out and "the lens blurs by" in out
    written = load_profile(tmp_path / "p.json")
    assert written.pose is not None and written.blur_px == written.pose.blur_px and 0.5 < written.blur_px < 1.5
    assert written.sharpness == load_profile(profile).sharpness  # the target's measure is kept beside it
    registry = json.loads((Path(__file__).parents[2] / "companion/sensing/pieces_trajectory.json").read_text())
    for piece in registry["pieces"]:
        piece["sticker_mm"] /= 2
    small = tmp_path / "small.json"
    small.write_text(json.dumps(registry))
    assert (
        calibrate(
            [
                "board",
                "--board",
                "trajectory",
                "--image",
                str(image),
                "--profile",
                str(profile),
                "--out",
                str(tmp_path / "p.json"),
                "--registry",
                str(small),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "does not reach the goal: 60 of 60 sites" in out
    assert "bring the camera closer" in out and "frames of at least" in out
