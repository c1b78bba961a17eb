"""Rendered scenes for the camera tests: 720p (small enough to be quick, the size the time goal is set for)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.boards import default_board
from companion.sensing.pieces import default_registry
from companion.sim.render import Renderer
from companion.sim.render_camera import overhead_camera
from companion.sim.render_truth import match_sightings

UNMARKED = ("red", "blue", "yellow", "green")  # the scouts without stickers, one per colour


@pytest.fixture(scope="session")
def board():
    return default_board("trajectory")


@pytest.fixture(scope="session")
def registry():
    return default_registry("trajectory")


@pytest.fixture(scope="session")
def renderer(board, registry):
    return Renderer(board, registry.dictionary)


@pytest.fixture(scope="session")
def camera(board):
    return overhead_camera(board.width, board.height, 1280, 720)


@pytest.fixture(scope="session")
def unmarked_registry(tmp_path_factory):
    """The game's registry plus one sticker-less scout per colour."""
    from importlib import resources

    data = json.loads(resources.files("companion.sensing").joinpath("pieces_trajectory.json").read_text())
    data["pieces"] += [
        {
            "id": f"scout-{c}",
            "piece": f"scout-{c}",
            "colour": c,
            "height": 10.0,
            "sticker": None,
            "shape": "disc",
            "radius": 12.0,
            "layer": 3,
        }
        for c in UNMARKED
    ]
    path = tmp_path_factory.mktemp("registry") / "registry.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture(scope="session")
def match():
    return match_sightings


@pytest.fixture(scope="session")
def cover_marker():
    return _cover_marker


def _cover_marker(image: np.ndarray, camera, fid, colour=(150, 175, 215)) -> np.ndarray:
    """The image with a corner marker covered (as by a thumb), a little beyond its quiet zone."""
    from companion.sensing.vision_pose import fiducial_corners

    corners = fiducial_corners(fid)
    centre = corners.mean(axis=0)
    px = camera.project(centre + (corners - centre) * 1.6)
    out = image.copy()
    cv2.fillConvexPoly(out, px.round().astype(np.int32), colour)
    return out
