"""`companion vision detect` and `companion print` end to end, and bad input giving one clear line."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import cv2
import pytest

from companion.cli import main
from companion.sensing.vision import Vision
from companion.sensing.vision_profile import load_profile, save_profile
from companion.sim.render_camera import overhead_camera, sim_profile
from companion.sim.render_scene import random_scene


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    out = tmp_path_factory.mktemp("scenes")
    assert main(["vision", "render", "--size", "1280x720", "--seed", "40", "--count", "2", "--out", str(out)]) == 0
    return out


def test_detect_turns_images_and_a_profile_into_sightings(rendered, capsys):
    capsys.readouterr()
    images = [str(rendered / "scene-40.png"), str(rendered / "scene-41.png")]
    assert (
        main(
            [
                "vision",
                "detect",
                "--board",
                "trajectory",
                "--profile",
                str(rendered / "profile.json"),
                *images,
                "--json",
            ]
        )
        == 0
    )
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    for line, seed in zip(lines, (40, 41), strict=True):
        report = json.loads(line)
        truth = json.loads((rendered / f"scene-{seed}.json").read_text())["pieces"]
        assert report["reliable"] and report["image"].endswith(f"scene-{seed}.png")
        assert len(report["sightings"]) >= len(truth) - 2
        for s in report["sightings"]:  # a sighting names a kind: one piece of that kind stands there
            assert any(
                p["piece"] == s["piece"]
                and p["site"] == s["site"]
                and abs(s["x"] - p["x"]) < 3
                and abs(s["y"] - p["y"]) < 3
                for p in truth
            ), s


def _error_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    return err


def test_unreadable_image(rendered, tmp_path, capsys):
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"this is not a picture")
    assert main(["vision", "detect", "--profile", str(rendered / "profile.json"), str(bad)]) == 2
    assert "broken.png" in _error_line(capsys)


def test_wrong_board(rendered, capsys):
    assert (
        main(
            [
                "vision",
                "detect",
                "--board",
                "nowhere",
                "--profile",
                str(rendered / "profile.json"),
                str(rendered / "scene-40.png"),
            ]
        )
        == 2
    )
    assert "nowhere" in _error_line(capsys)


def test_profile_for_another_frame_size(rendered, tmp_path, capsys):
    other = tmp_path / "other.json"
    save_profile(sim_profile(overhead_camera(600, 600, 1920, 1080), "trajectory"), other)
    assert main(["vision", "detect", "--profile", str(other), str(rendered / "scene-40.png")]) == 2
    line = _error_line(capsys)
    assert "scene-40.png" in line and "1920x1080" in line and "1280x720" in line


def test_bad_and_missing_profiles(rendered, tmp_path, capsys):
    assert main(["vision", "detect", "--profile", str(tmp_path / "none.json"), str(rendered / "scene-40.png")]) == 2
    assert "none.json" in _error_line(capsys)
    data = json.loads((rendered / "profile.json").read_text())
    del data["distortion"]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(data))
    assert main(["vision", "detect", "--profile", str(broken), str(rendered / "scene-40.png")]) == 2
    assert re.search(r"broken\.json: distortion", _error_line(capsys))


def test_profile_of_another_camera_with_the_same_frame_size(board, registry, renderer, camera):
    """Another lens (stronger distortion, other focal length): the corner fit says so instead of guessing."""
    profile = sim_profile(camera, board.name)
    wrong = replace(
        profile,
        matrix=((camera.fx * 0.8, 0, camera.cx), (0, camera.fy * 0.8, camera.cy), (0, 0, 1)),
        distortion=(0.25, 0.0, 0.0, 0.0, 0.0),
        pose=None,
    )
    image = renderer.render(random_scene(board, registry, camera, 50)).image
    report = Vision(board, registry, wrong).process(image)
    assert not report.reliable and "does not fit" in report.reason
    assert Vision(board, registry, profile).process(image).reliable


def test_print_board_is_true_scale(tmp_path, capsys, board):
    out = tmp_path / "board.svg"
    assert main(["print", "board", "trajectory", "--out", str(out)]) == 0
    svg = out.read_text()
    assert 'width="600mm" height="600mm" viewBox="0 0 600 600"' in svg
    # The SVG, rasterised at 2 px/mm, shows the corner fiducials where the board data puts them.
    from companion.printables.overlay import board_drawing
    from companion.printables.shapes import rasterise

    image = cv2.cvtColor(rasterise(board_drawing(board), 2.0), cv2.COLOR_BGR2GRAY)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = detector.detectMarkers(image)
    for c, marker_id in zip(corners, ids.ravel(), strict=True):
        fid = board.fiducials[int(marker_id)]
        cx, cy = c.reshape(4, 2).mean(axis=0) / 2
        assert abs(cx - fid.x) < 0.5 and abs((board.height - cy) - fid.y) < 0.5
        side = abs(c[0, 1, 0] - c[0, 0, 0]) / 2
        assert abs(side - fid.size) < 0.5


def test_print_stickers_and_charuco(tmp_path, registry):
    assert main(["print", "stickers", "--out", str(tmp_path / "s.svg")]) == 0
    # Trajectory's infestors' round labels leave room for fewer stickers a sheet: the box takes two sheets.
    text = "".join(path.read_text() for path in sorted(tmp_path.glob("s*.svg")))
    assert 'width="210mm" height="297mm"' in text
    # One sticker for every stickered piece in the box, labelled with its kind (a kind's pieces share one).
    for entry in registry.entries:
        assert text.count(f"{entry.piece} #{entry.sticker}<") == registry.count(entry.piece)
    assert main(["print", "charuco", "--out", str(tmp_path / "c.svg")]) == 0
    assert 'width="250mm" height="190mm"' in (tmp_path / "c.svg").read_text()


def test_print_orbit_stickers_with_round_labels_for_the_planets(tmp_path, capsys):
    from companion.sensing.pieces import default_registry

    registry = default_registry("orbit")
    assert main(["print", "stickers", "--game", "orbit", "--out", str(tmp_path / "o.svg")]) == 0
    text = (tmp_path / "o.svg").read_text()
    marked = [e for e in registry.entries if e.sticker is not None]
    assert len(marked) == 16 and all(f"{e.piece} #{e.sticker}" in text for e in marked)
    assert "station-hand-1" not in text and "nebula-1" not in text  # no stickers for tiles and chips
    assert text.count('r="13.000" fill="none"') == 8  # a 26 mm round label's cut line for each planet
    assert "DICT_APRILTAG_16h5, 14.3 and 14.8 mm" in text
    assert main(["print", "stickers", "--game", "chess"]) == 2
    assert "no default piece registry for game 'chess'" in capsys.readouterr().err


def test_saved_profile_round_trips(tmp_path, camera):
    profile = sim_profile(camera, "trajectory")
    save_profile(profile, tmp_path / "p.json")
    assert load_profile(tmp_path / "p.json") == profile
