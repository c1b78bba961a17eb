"""The rendered camera: a board and its pieces as a camera over the table sees them, deterministic by seed.

The ideal (undistorted) picture is drawn at twice the resolution and shrunk, then bent by the lens, lit unevenly,
blurred, made noisy and JPEG-compressed. The board itself is the printable overlay, rasterised.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from companion.boards.model import Board
from companion.printables.overlay import board_drawing
from companion.printables.shapes import marker_cells, rasterise
from companion.sim.render_camera import Conditions, SimCamera
from companion.sim.render_scene import Placed, Scene, local_axes

SUPERSAMPLE = 2
SKIN = (150, 175, 215)  # BGR
PALETTE = {  # BGR of each registry colour name
    "red": (40, 40, 200),
    "green": (60, 160, 50),
    "blue": (190, 90, 30),
    "yellow": (40, 210, 230),
    "orange": (30, 130, 240),
    "purple": (150, 50, 130),
    "grey": (120, 120, 120),
    "teal": (150, 140, 40),
    "amber": (40, 160, 220),
    "white": (225, 225, 215),
    "black": (45, 40, 40),
    "silver": (185, 185, 180),
    "brown": (40, 75, 125),
    "gray": (135, 135, 130),
    "pink": (175, 90, 235),
    "light-grey": (200, 200, 195),
    "dark-grey": (85, 80, 80),
}
LABEL = (245, 245, 245)  # the white of a sticker's label


@dataclass(frozen=True)
class Rendered:
    image: np.ndarray  # BGR uint8 as the camera delivers it
    hand_mask: np.ndarray | None  # bool, True where the hand hides the board


class Renderer:
    """Renders scenes of one board; keeps the rasterised board and lens maps it has made (per instance)."""

    def __init__(self, board: Board, dictionary: str = "DICT_APRILTAG_16h5") -> None:
        self.board = board
        self.dictionary = dictionary
        self._drawing = board_drawing(board, labels=False)
        self._textures: dict[int, np.ndarray] = {}
        self._lens: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self._cells: dict[int, np.ndarray] = {}

    def render(self, scene: Scene) -> Rendered:
        cam = scene.camera
        rng = np.random.default_rng(scene.seed + 7919)
        big = self._ideal_matrix(cam)
        size = (cam.width * SUPERSAMPLE, cam.height * SUPERSAMPLE)
        image = self._table(size, rng)
        self._draw_board(image, cam, big)
        for piece in sorted(scene.pieces, key=lambda p: (p.z0, -self._nadir_distance(cam, p))):
            self._draw_piece(image, cam, big, piece)
        mask = None
        if scene.hand is not None:
            mask = np.zeros(image.shape[:2], np.uint8)
            for poly in scene.hand.polygons:
                pts = np.array([(x, y, scene.hand.z) for x, y in poly])
                px = self._px(cam, big, pts)
                cv2.fillPoly(image, [px], SKIN, cv2.LINE_AA, 4)
                cv2.fillPoly(mask, [px], 255, cv2.LINE_8, 4)
        image = cv2.resize(image, (cam.width, cam.height), interpolation=cv2.INTER_AREA)
        map_x, map_y = self._lens_maps(cam)
        image = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        if mask is not None:
            mask = cv2.resize(mask, (cam.width, cam.height), interpolation=cv2.INTER_AREA)
            mask = cv2.remap(mask, map_x, map_y, cv2.INTER_LINEAR) > 127
        return Rendered(spoil(image, scene.conditions, rng), mask)

    # -- geometry
    @staticmethod
    def _ideal_matrix(cam: SimCamera) -> np.ndarray:
        k = cam.matrix.copy()
        k[0, 0] *= SUPERSAMPLE
        k[1, 1] *= SUPERSAMPLE
        k[0, 2] = (cam.cx + 0.5) * SUPERSAMPLE - 0.5
        k[1, 2] = (cam.cy + 0.5) * SUPERSAMPLE - 0.5
        return k

    @staticmethod
    def _px(cam: SimCamera, k: np.ndarray, points: np.ndarray) -> np.ndarray:
        """Fixed-point (4 fractional bits) ideal pixels of board points, for cv2's anti-aliased fills."""
        pixels, _ = cv2.projectPoints(
            points.reshape(-1, 1, 3).astype(np.float64), np.array(cam.rvec), np.array(cam.tvec), k, np.zeros(5)
        )
        return np.round(pixels.reshape(-1, 2) * 16).astype(np.int32)

    @staticmethod
    def _nadir_distance(cam: SimCamera, piece: Placed) -> float:
        rot, _ = cv2.Rodrigues(np.array(cam.rvec))
        centre = -rot.T @ np.array(cam.tvec)
        return math.hypot(piece.x - centre[0], piece.y - centre[1])

    def _lens_maps(self, cam: SimCamera) -> tuple[np.ndarray, np.ndarray]:
        """For every distorted pixel, the ideal pixel it shows (the inverse of undistortion)."""
        key = (cam.width, cam.height, cam.fx, cam.fy, cam.cx, cam.cy, cam.dist)
        if key not in self._lens:
            xs, ys = np.meshgrid(np.arange(cam.width, dtype=np.float32), np.arange(cam.height, dtype=np.float32))
            pts = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2)
            ideal = cv2.undistortPoints(
                pts,
                cam.matrix,
                cam.distortion,
                None,
                None,
                cam.matrix,
                (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 20, 1e-4),
            ).reshape(cam.height, cam.width, 2)
            self._lens[key] = (ideal[..., 0].astype(np.float32), ideal[..., 1].astype(np.float32))
        return self._lens[key]

    # -- drawing
    @staticmethod
    def _table(size: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
        base = np.array([60, 90, 120], np.float32) * rng.uniform(0.8, 1.2)
        grain = base + rng.normal(0, 12, (9, 16, 1)).astype(np.float32)
        return cv2.resize(np.clip(grain, 0, 255).astype(np.uint8), size, interpolation=cv2.INTER_CUBIC)

    def _draw_board(self, image: np.ndarray, cam: SimCamera, k: np.ndarray) -> None:
        ppm = max(2, math.ceil(k[0, 0] / 900.0 * 1.2))
        if ppm not in self._textures:
            texture = rasterise(self._drawing, ppm)
            self._textures[ppm] = cv2.GaussianBlur(texture, (0, 0), 0.5)
        texture = self._textures[ppm]
        rot, _ = cv2.Rodrigues(np.array(cam.rvec))
        plane = k @ np.column_stack([rot[:, 0], rot[:, 1], np.array(cam.tvec)])
        tex_to_board = np.array([[1 / ppm, 0, 0.5 / ppm], [0, -1 / ppm, self.board.height - 0.5 / ppm], [0, 0, 1]])
        homography = plane @ tex_to_board
        cv2.warpPerspective(
            texture, homography, (image.shape[1], image.shape[0]), image, cv2.INTER_LINEAR, cv2.BORDER_TRANSPARENT
        )

    def _draw_piece(self, image: np.ndarray, cam: SimCamera, k: np.ndarray, piece: Placed) -> None:
        entry = piece.entry
        colour = np.array(PALETTE.get(entry.colour, (128, 128, 128)), np.float64)
        n = entry.sides
        angles = piece.angle + math.pi / n + np.arange(n) * 2 * math.pi / n
        ring = np.stack([piece.x + entry.radius * np.cos(angles), piece.y + entry.radius * np.sin(angles)], axis=1)
        bottom = self._px(cam, k, np.column_stack([ring, np.full(n, piece.z0)]))
        top_z = piece.z0 + entry.height
        top = self._px(cam, k, np.column_stack([ring, np.full(n, top_z)]))
        hull = cv2.convexHull(np.concatenate([bottom, top]))
        cv2.fillConvexPoly(image, hull, (colour * 0.55).tolist(), cv2.LINE_AA, 4)
        cv2.fillConvexPoly(image, top, colour.tolist(), cv2.LINE_AA, 4)
        if entry.sticker is not None:
            self._draw_sticker(image, cam, k, piece, top_z)

    def _draw_sticker(self, image: np.ndarray, cam: SimCamera, k: np.ndarray, piece: Placed, z: float) -> None:
        ax, ay = local_axes(piece.angle)
        centre = np.array([piece.x, piece.y]) - piece.entry.sticker_offset * ay
        side = piece.entry.sticker_mm
        half = side / 2 + side / 6  # a white margin one cell wide

        def quad(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
            # (x, y) in the sticker's own frame, y up; returns fixed-point pixels
            pts = [centre + u * ax + v * ay for u, v in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]
            return self._px(cam, k, np.array([(p[0], p[1], z) for p in pts]))

        if piece.entry.label_mm:  # a round label, wider than the tag's own margin
            turn = np.linspace(0, 2 * math.pi, 48, endpoint=False)
            rim = centre + piece.entry.label_mm / 2 * np.column_stack([np.cos(turn), np.sin(turn)])
            cv2.fillConvexPoly(
                image, self._px(cam, k, np.column_stack([rim, np.full(len(rim), z)])), LABEL, cv2.LINE_AA, 4
            )
        cv2.fillConvexPoly(image, quad(-half, -half, half, half), LABEL, cv2.LINE_AA, 4)
        sticker = piece.entry.sticker
        if sticker not in self._cells:
            self._cells[sticker] = marker_cells(self.dictionary, sticker)
        cells = self._cells[sticker]
        count = cells.shape[0]
        cell = side / count
        for row in range(count):
            for col in range(count):
                if not cells[row, col]:
                    x0 = -side / 2 + col * cell
                    y1 = side / 2 - row * cell
                    cv2.fillConvexPoly(image, quad(x0, y1 - cell, x0 + cell, y1), (20, 20, 20), cv2.LINE_AA, 4)


@functools.lru_cache(maxsize=4)
def _noise_field(h: int, w: int) -> np.ndarray:
    return np.random.default_rng(0).standard_normal((2 * h, 2 * w, 3), dtype=np.float32)


def spoil(image: np.ndarray, cond: Conditions, rng: np.random.Generator) -> np.ndarray:
    """Uneven light, glare, optics blur, sensor noise and JPEG, in the order a camera suffers them."""
    h, w = image.shape[:2]
    # The light varies slowly: work it out on a coarse grid and stretch it over the frame.
    gh, gw = h // 8, w // 8
    ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float32) * 8
    theta = rng.uniform(0, 2 * math.pi)
    ramp = ((xs - w / 2) * math.cos(theta) + (ys - h / 2) * math.sin(theta)) / math.hypot(w, h) + 0.5
    gain = cond.gain_low + (cond.gain_high - cond.gain_low) * ramp
    gain *= 1 - cond.vignette * (((xs - w / 2) ** 2 + (ys - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2))
    glare = np.zeros_like(gain)
    if cond.glare > 0:
        gx, gy = rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.75) * h
        radius = rng.uniform(0.04, 0.08) * w
        glare = cond.glare * np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * radius**2))
    gain = cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)
    glare = cv2.resize(glare, (w, h), interpolation=cv2.INTER_LINEAR)
    out = cv2.multiply(image, cv2.merge([gain, gain, gain]), dtype=cv2.CV_32F)
    if cond.glare > 0:
        out = cv2.add(out, cv2.merge([glare, glare, glare]))
    if cond.blur_sigma > 0:
        out = cv2.GaussianBlur(out, (0, 0), cond.blur_sigma)
    # Sensor noise: a crop of a noise field twice the frame's size (cheaper than fresh normals for every pixel).
    field = _noise_field(h, w)
    oy, ox = int(rng.integers(h)), int(rng.integers(w))
    out = cv2.scaleAdd(field[oy : oy + h, ox : ox + w], cond.noise_sigma, out)
    np.maximum(out, 0, out=out)
    out = cv2.convertScaleAbs(out)  # saturates at 255
    _, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, cond.jpeg_quality])
    return cv2.imdecode(data, cv2.IMREAD_COLOR)
