"""The mounted camera's frames (see mounted_camera.py): the printed board and stickers, rasterised from the
printables, seen through a pinhole (supersampled), bent by the lens, lit, blurred, made noisy and JPEG-compressed.

The truth comes with each frame: which stickers the camera can see whole (none of them hidden under another piece,
an arm or the frame's edge, found by drawing an id mask alongside the picture) and how many pixels each spans.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from companion.boards.model import Board
from companion.printables.overlay import board_drawing
from companion.printables.shapes import Drawing, marker_shapes, rasterise
from companion.sim.mounted_camera import Mounting, Shot
from companion.sim.mounted_scene import Piece, Placement, Spread, Table

COLOURS = {  # BGR of the paints a box's pieces come in (what the registry's colour names mean on a real piece)
    "red": (35, 35, 190),
    "green": (55, 150, 45),
    "blue": (180, 85, 25),
    "yellow": (35, 200, 225),
    "orange": (25, 120, 235),
    "purple": (140, 45, 120),
    "grey": (115, 115, 115),
    "gray": (130, 130, 125),
    "teal": (140, 135, 35),
    "amber": (35, 150, 215),
    "white": (220, 222, 212),
    "black": (40, 36, 36),
    "silver": (180, 180, 175),
    "brown": (35, 70, 120),
    "pink": (170, 85, 230),
    "light-grey": (195, 195, 190),
    "dark-grey": (80, 76, 76),
}
STICKER_WHITE = (240, 240, 238)
VISIBLE_SHARE = 0.995  # of a sticker's pixels (its white margin included) that must show for it to count as seen


@dataclass(frozen=True)
class Truth:
    """A sticker on the table: its piece, whether the frame shows it whole, and its side in pixels."""

    piece: Piece  # where it stands on its board
    visible: bool
    side_px: float
    board: str = ""  # the board's name


@dataclass(frozen=True)
class Frame:
    image: np.ndarray  # BGR uint8, as the camera delivers it
    truth: tuple[Truth, ...]
    more: tuple[np.ndarray, ...] = ()  # the frames that follow it of the same still table (other noise, sway, drift)


class MountedRenderer:
    """Draws frames of one board, or of boards spread side by side, from one mounting; keeps the lens map and the
    textures it made."""

    def __init__(self, board: Board | Spread, dictionary: str, mounting: Mounting) -> None:
        self.spread = board if isinstance(board, Spread) else Spread((Placement(board, 0.0, 0.0, 0.0),))
        self.board = self.spread.placements[0].board
        self.dictionary = dictionary
        self.cam = mounting
        self.scale = 2 if mounting.height <= 1200 else 1  # supersampling of the ideal picture
        self._textures: dict[tuple, np.ndarray] = {}
        self._top: np.ndarray | None = None  # the table around the board: the same wood all session
        self._prepare_lens()

    # -- geometry
    def _prepare_lens(self) -> None:
        """Where each frame pixel looks in the ideal (pinhole) canvas; the canvas spans what the frame sees."""
        cam, s, step = self.cam, self.scale, 8
        # The lens inverted on a coarse grid reaching a cell past the frame, centred so that resizing it by `step`
        # lands each grid point on its pixel (cv2.resize weighs in floats; remap's fixed point would ripple).
        nx, ny = math.ceil(cam.width / step) + 2, math.ceil(cam.height / step) + 2
        mx, my = np.meshgrid((np.arange(nx) - 0.5) * step - 0.5, (np.arange(ny) - 0.5) * step - 0.5)
        xy = cam.undistort(np.column_stack([mx.ravel(), my.ravel()]))
        ideal = (xy * cam.f + (cam.cx, cam.cy)).reshape(ny, nx, 2)
        lo = np.floor(ideal.reshape(-1, 2).min(axis=0)) - 4
        hi = np.ceil(ideal.reshape(-1, 2).max(axis=0)) + 4
        self.origin = lo  # canvas (1x) pixel (0, 0) is ideal pixel `lo`
        self.canvas_size = (int((hi[0] - lo[0]) * s), int((hi[1] - lo[1]) * s))
        full = cv2.resize((ideal - lo).astype(np.float32), (nx * step, ny * step), interpolation=cv2.INTER_LINEAR)
        full = full[step : step + cam.height, step : step + cam.width]
        self.map_x, self.map_y = np.ascontiguousarray(full[..., 0]), np.ascontiguousarray(full[..., 1])
        self.to_canvas = np.array(
            [
                [s * cam.f, 0, s * (cam.cx - lo[0]) + (s - 1) / 2],
                [0, s * cam.f, s * (cam.cy - lo[1]) + (s - 1) / 2],
                [0, 0, 1],
            ]
        )

    def _plane(self, z: float) -> np.ndarray:
        """Homography from board (x, y) at height z to canvas pixels."""
        rot, centre = self.cam.rot, np.array(self.cam.centre)
        m = np.column_stack([rot[:, 0], rot[:, 1], rot[:, 2] * z - rot @ centre])
        return self.to_canvas @ m

    def _canvas(self, points: np.ndarray) -> np.ndarray:
        """Canvas pixels of (n, 3) board points, fixed point with 4 fractional bits (for cv2's fills)."""
        xy = self.cam.normalised(points)
        px = xy @ self.to_canvas[:2, :2].T + self.to_canvas[:2, 2]
        return np.round(px * 16).astype(np.int32)

    # -- textures from the printables
    def _texture(self, key: tuple, drawing: Drawing, px_per_mm: float) -> tuple[np.ndarray, float]:
        ppm = 2.0 ** max(1, math.ceil(math.log2(max(px_per_mm, 1.0))))
        full = (*key, ppm)
        if full not in self._textures:
            self._textures[full] = rasterise(drawing, ppm)
        return self._textures[full], ppm

    def _canvas_ppm(self, x: float, y: float, z: float) -> float:
        return self.cam.px_per_mm(x, y, z) / (1 + self.cam.k1 * 0.5) * self.scale

    # -- drawing
    def render(self, table: Table, shot: Shot, rng: np.random.Generator, more: tuple[Shot, ...] = ()) -> Frame:
        return self.render_spread((table,), shot, rng, more=more)

    def render_spread(
        self,
        tables: tuple[Table, ...],
        shot: Shot,
        rng: np.random.Generator,
        spread: Spread | None = None,
        more: tuple[Shot, ...] = (),
    ) -> Frame:
        """A frame of each board with its table of pieces (`tables` in the spread's order; an arm is the first
        table's, in table mm); `spread`: the boards where they lie now, when they were moved since the mounting;
        `more`: the sensor's side of the frames that follow of the same still scene."""
        spread = spread or self.spread
        w, h = self.canvas_size
        if self._top is None:
            self._top = self._table_top((w, h), rng)
        image = self._top.copy()
        ids = np.zeros((h, w), np.uint16)
        # Boards carried off the table (out of sight) are not drawn, nor the pieces they carry.
        sight = [
            (placement, table)
            for placement, table in zip(spread.placements, tables, strict=True)
            if self._in_sight(placement.outline())
        ]
        for placement, _ in sight:
            self._draw_board(image, placement)
        # Each piece where it stands on the table, beside the board it stands on and its place there.
        standing = [
            (placement.to_table(piece), piece, placement.board.name)
            for placement, table in sight
            for piece in table.pieces
        ]
        arm = tables[0].arm
        shadow = np.zeros((h, w), np.float32)
        away = -np.array([math.cos(shot.light_azimuth), math.sin(shot.light_azimuth)]) / math.tan(shot.light_elevation)
        for piece, _, _ in standing:
            if piece.z0 == 0:
                foot = piece.outline()
                hull = cv2.convexHull(np.concatenate([foot, foot + away * piece.top]).astype(np.float32))
                self._fill(shadow, hull.reshape(-1, 2), 0.0, 1.0)
        _darken(image, shadow, 0.35, 2.0 * self.scale)
        order = sorted(standing, key=lambda p: -float(self.cam.depth(np.array([(p[0].x, p[0].y, p[0].top)]))[0]))
        start: dict[int, tuple] = {}  # sticker index -> its pixels when drawn, and their box
        for index, (piece, _, _) in enumerate(order):
            self._draw_piece(image, ids, piece, index + 1, shot, start)
        if arm is not None:
            shadow[:] = 0
            for poly, z in arm.parts:
                self._fill(shadow, poly + away * z, 0.0, 1.0)
            _darken(image, shadow, 0.45, 6.0 * self.scale)
            for k, (poly, z) in enumerate(arm.parts):
                colour = arm.sleeve if k == 0 else arm.skin
                self._fill(image, poly, z, colour)
                self._fill(ids, poly, z, 0)
        small = (
            cv2.resize(image, (w // self.scale, h // self.scale), interpolation=cv2.INTER_AREA)
            if self.scale > 1
            else image
        )
        frame = cv2.remap(small, self.map_x, self.map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        truth = tuple(
            self._truth(piece, local, name, ids, start.get(index + 1, (0, (0, 0, 0, 0))), index + 1)
            for index, (piece, local, name) in enumerate(order)
            if piece.entry.sticker is not None
        )
        return Frame(spoil(frame, shot, rng), truth, tuple(spoil(frame, other, rng) for other in more))

    def _in_sight(self, outline: np.ndarray) -> bool:
        """Whether any of a board's outline (table mm) lies in front of the lens and within the canvas (pinhole
        coordinates: the lens's bending, which folds back far outside the frame, is not applied)."""
        pts = np.column_stack([outline, np.zeros(len(outline))])
        if np.any(self.cam.depth(pts) < 10):
            return False
        ideal = (self.cam.normalised(pts) * self.cam.f + (self.cam.cx, self.cam.cy)).astype(np.float32)
        w, h = self.canvas_size[0] / self.scale, self.canvas_size[1] / self.scale
        frame = np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float32) + self.origin.astype(np.float32)
        hull = cv2.convexHull(ideal)
        area, _ = cv2.intersectConvexConvex(hull, frame)
        return area > 0

    def _fill(self, image: np.ndarray, poly: np.ndarray, z: float, value) -> None:
        pts = np.column_stack([poly, np.full(len(poly), z)])
        if np.any(self.cam.depth(pts) < 10):
            return
        px = self._canvas(pts)
        if isinstance(value, tuple | list):
            cv2.fillPoly(image, [px], value, cv2.LINE_AA, 4)
        else:
            cv2.fillPoly(image, [px], value, cv2.LINE_8, 4)

    @staticmethod
    def _table_top(size: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
        tone = np.array([50, 85, 125], np.float32) * rng.uniform(0.6, 1.4, 3).astype(np.float32)
        grain = tone + rng.normal(0, 10, (12, 20, 3)).astype(np.float32)
        return cv2.resize(np.clip(grain, 0, 255).astype(np.uint8), size, interpolation=cv2.INTER_LINEAR)

    def _draw_board(self, image: np.ndarray, placement: Placement) -> None:
        b = placement.board
        ppm_need = max(self._canvas_ppm(x, y, 0) for x, y in placement.outline())
        texture, ppm = self._texture(("board", b.name), board_drawing(b, labels=True), ppm_need)
        tex_to_board = np.array([[1 / ppm, 0, 0.5 / ppm], [0, -1 / ppm, b.height - 0.5 / ppm], [0, 0, 1]])
        cv2.warpPerspective(
            texture,
            self._plane(0.0) @ placement.matrix() @ tex_to_board,
            (image.shape[1], image.shape[0]),
            image,
            cv2.INTER_LINEAR,
            cv2.BORDER_TRANSPARENT,
        )

    def _draw_piece(
        self, image: np.ndarray, ids: np.ndarray, piece: Piece, index: int, shot: Shot, start: dict[int, tuple]
    ) -> None:
        entry = piece.entry
        colour = np.array(COLOURS.get(entry.colour, (128, 128, 128)), np.float64)
        foot = piece.outline()
        n = len(foot)
        bottom = np.column_stack([foot, np.full(n, piece.z0)])
        top = np.column_stack([foot, np.full(n, piece.top)])
        light = np.array(
            [
                math.cos(shot.light_azimuth) * math.cos(shot.light_elevation),
                math.sin(shot.light_azimuth) * math.cos(shot.light_elevation),
                math.sin(shot.light_elevation),
            ]
        )
        faces = []
        for i in range(n):
            j = (i + 1) % n
            quad = np.array([bottom[i], bottom[j], top[j], top[i]])
            normal = np.array([foot[j][1] - foot[i][1], foot[i][0] - foot[j][0], 0.0])
            normal /= np.linalg.norm(normal) + 1e-9
            faces.append((float(self.cam.depth(quad.mean(axis=0, keepdims=True))[0]), quad, normal))
        for _, quad, normal in sorted(faces, key=lambda f: -f[0]):
            shade = 0.35 + 0.45 * max(0.0, float(normal @ light))
            px = self._canvas(quad)
            cv2.fillConvexPoly(image, px, (colour * shade).tolist(), cv2.LINE_AA, 4)
            cv2.fillConvexPoly(ids, px, 0, cv2.LINE_8, 4)
        px = self._canvas(top)
        cv2.fillConvexPoly(image, px, (colour * (0.75 + 0.25 * light[2])).tolist(), cv2.LINE_AA, 4)
        cv2.fillConvexPoly(ids, px, 0, cv2.LINE_8, 4)
        if entry.sticker is None:
            return
        if entry.label_mm:
            t = np.linspace(0, 2 * math.pi, 48, endpoint=False)
            c = piece.sticker_centre()
            rim = c + entry.label_mm / 2 * np.column_stack([np.cos(t), np.sin(t)])
            cv2.fillConvexPoly(
                image, self._canvas(np.column_stack([rim, np.full(48, piece.top)])), STICKER_WHITE, cv2.LINE_AA, 4
            )
        self._draw_sticker(image, piece)
        margin = piece.sticker_square(entry.sticker_mm * 4 / 3)
        px = self._canvas(np.column_stack([margin, np.full(4, piece.top)]))
        cv2.fillConvexPoly(ids, px, index, cv2.LINE_8, 4)
        x0, y0 = np.maximum(px.min(axis=0) // 16 - 1, 0)
        x1, y1 = px.max(axis=0) // 16 + 2
        start[index] = (int(np.count_nonzero(ids[y0:y1, x0:x1] == index)), (x0, y0, x1, y1))

    def _draw_sticker(self, image: np.ndarray, piece: Piece) -> None:
        """The printed sticker (the printables' marker with its one-cell margin) laid on the piece's top."""
        side = piece.entry.sticker_mm
        outer = side * 4 / 3
        drawing = Drawing(
            outer,
            outer,
            tuple(marker_shapes(self.dictionary, piece.entry.sticker, outer / 2, outer / 2, side, side / 6)),
        )
        c = piece.sticker_centre()
        texture, ppm = self._texture(
            ("sticker", piece.entry.sticker), drawing, self._canvas_ppm(c[0], c[1], piece.top) * 1.2
        )
        ax, ay = piece.axes()
        tex_to_local = np.array([[1 / ppm, 0, 0.5 / ppm - outer / 2], [0, -1 / ppm, outer / 2 - 0.5 / ppm], [0, 0, 1]])
        local_to_board = np.array([[ax[0], ay[0], c[0]], [ax[1], ay[1], c[1]], [0, 0, 1]])
        homography = self._plane(piece.top) @ local_to_board @ tex_to_local
        corners = piece.sticker_square(outer)
        px = self._canvas(np.column_stack([corners, np.full(4, piece.top)])) / 16
        x0, y0 = np.maximum(np.floor(px.min(axis=0)).astype(int) - 2, 0)
        x1, y1 = np.minimum(np.ceil(px.max(axis=0)).astype(int) + 3, (image.shape[1], image.shape[0]))
        if x1 <= x0 or y1 <= y0:
            return
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
        roi = image[y0:y1, x0:x1].copy()
        cv2.warpPerspective(
            texture, shift @ homography, (x1 - x0, y1 - y0), roi, cv2.INTER_LINEAR, cv2.BORDER_TRANSPARENT
        )
        image[y0:y1, x0:x1] = roi

    def _truth(self, piece: Piece, local: Piece, board: str, ids: np.ndarray, drawn: tuple, index: int) -> Truth:
        code = piece.sticker_square(piece.entry.sticker_mm)
        margin = piece.sticker_square(piece.entry.sticker_mm * 4 / 3)
        z = np.full(4, piece.top)
        px = self.cam.project(np.column_stack([code, z]))
        side = float(np.mean(np.linalg.norm(px - np.roll(px, 1, axis=0), axis=1)))
        edge = self.cam.project(np.column_stack([margin, z]))
        inside = bool(np.all(edge >= 2) and np.all(edge <= (self.cam.width - 3, self.cam.height - 3)))
        count, (x0, y0, x1, y1) = drawn
        visible = inside and count > 0 and np.count_nonzero(ids[y0:y1, x0:x1] == index) >= VISIBLE_SHARE * count
        return Truth(local, visible, side, board)


def _darken(image: np.ndarray, mask: np.ndarray, depth: float, blur_px: float) -> None:
    """Shade where `mask` is set, with a soft edge (worked out at a quarter size: a penumbra is smooth), only
    within the box around it."""
    x, y, w, h = cv2.boundingRect((mask > 0).astype(np.uint8))
    if w == 0:
        return
    pad = math.ceil(3 * blur_px) + 4
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(mask.shape[1], x + w + pad), min(mask.shape[0], y + h + pad)
    part = mask[y0:y1, x0:x1]
    small = cv2.resize(part, (max(1, (x1 - x0) // 4), max(1, (y1 - y0) // 4)), interpolation=cv2.INTER_AREA)
    soft = cv2.resize(
        cv2.GaussianBlur(small, (0, 0), max(0.5, blur_px / 4)), (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR
    )
    gain = cv2.cvtColor(1.0 - depth * soft, cv2.COLOR_GRAY2BGR)
    image[y0:y1, x0:x1] = cv2.multiply(image[y0:y1, x0:x1], gain, dtype=cv2.CV_8U)


def spoil(image: np.ndarray, shot: Shot, rng: np.random.Generator) -> np.ndarray:
    """The sensor's side: lens blur and smear, uneven light, glare, white balance and exposure, noise, JPEG."""
    h, w = image.shape[:2]
    k = min(h, w) / 1080
    out = image.astype(np.float32)
    if shot.lens_sigma > 0.05:
        out = cv2.GaussianBlur(out, (0, 0), shot.lens_sigma, borderType=cv2.BORDER_REPLICATE)
    kernel = _blur_kernel(shot.defocus_px * k, shot.motion_px * k, shot.motion_angle)
    if kernel is not None:
        out = cv2.filter2D(out, -1, kernel, borderType=cv2.BORDER_REPLICATE)
    gh, gw = 34, 60
    ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float32)
    u, v = xs / (gw - 1) - 0.5, ys / (gh - 1) - 0.5
    theta = rng.uniform(0, 2 * math.pi)
    gain = 1 - shot.light_slope * (0.5 + u * math.cos(theta) + v * math.sin(theta))
    gain *= 1 - shot.vignette * (u * u + v * v) * 2
    glare = np.zeros_like(gain)
    if shot.glare:  # a lamp's reflection: a bright patch added on top
        gx, gy = rng.uniform(-0.3, 0.3, 2)
        glare = shot.glare * np.exp(-((u - gx) ** 2 + (v - gy) ** 2) / (2 * rng.uniform(0.03, 0.07) ** 2))
    gain = cv2.resize(gain.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    glare = cv2.resize(glare.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    wb = np.array(shot.white_balance, np.float32) * shot.exposure
    out = cv2.multiply(out, cv2.cvtColor(gain, cv2.COLOR_GRAY2BGR) * wb)
    if shot.glare:
        out = cv2.add(out, cv2.cvtColor(glare, cv2.COLOR_GRAY2BGR))
    if shot.mosaic:  # one colour per photosite (the sensor's Bayer filter), noisy, then interpolated back
        out = _mosaic(out)
    sigma = cv2.sqrt(cv2.add(cv2.max(out, 0.0) * shot.shot_noise, shot.read_noise**2))
    noise = _noise(h, w)
    oy, ox = int(rng.integers(noise.shape[0] - h)), int(rng.integers(noise.shape[1] - w))
    if shot.mosaic:
        out = cv2.scaleAdd(cv2.multiply(noise[oy : oy + h, ox : ox + w, 0], sigma), 1.0, out)
        out = cv2.cvtColor(cv2.convertScaleAbs(cv2.max(out, 0.0)), cv2.COLOR_BayerBG2BGR)
    else:
        out = cv2.scaleAdd(cv2.multiply(noise[oy : oy + h, ox : ox + w], sigma), 1.0, out)
        out = cv2.convertScaleAbs(cv2.max(out, 0.0))
    if shot.sharpen > 0:  # the camera's own sharpening, which lifts the noise with the edges
        out = cv2.addWeighted(out, 1 + shot.sharpen, cv2.GaussianBlur(out, (0, 0), 1.0), -shot.sharpen, 0)
    if not shot.jpeg:  # raw frames (a Pi camera's YUV): nothing lost to compression
        return out
    _, data = cv2.imencode(
        ".jpg",
        out,
        [cv2.IMWRITE_JPEG_QUALITY, shot.jpeg, cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_420],
    )
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


def _mosaic(image: np.ndarray) -> np.ndarray:
    """The single-channel Bayer image a colour sensor records: red at even rows and columns (RGGB; OpenCV names this
    layout BayerBG, after the second row)."""
    out = np.empty(image.shape[:2], np.float32)
    out[0::2, 0::2] = image[0::2, 0::2, 2]
    out[0::2, 1::2] = image[0::2, 1::2, 1]
    out[1::2, 0::2] = image[1::2, 0::2, 1]
    out[1::2, 1::2] = image[1::2, 1::2, 0]
    return out


@functools.lru_cache(maxsize=2)
def _noise(h: int, w: int) -> np.ndarray:
    """Unit normal noise for a frame, with room to crop it anywhere (cheaper than fresh draws each frame)."""
    return np.random.default_rng(h * 7 + w).standard_normal((h + 97, w + 101, 3), dtype=np.float32)


def _blur_kernel(defocus: float, motion: float, angle: float) -> np.ndarray | None:
    """A disc (defocus) convolved with a line (motion); None when both are under a third of a pixel."""
    if defocus < 0.33 and motion < 0.33:
        return None
    size = 2 * math.ceil(defocus + motion / 2 + 1) + 1
    c = size // 2
    disc = np.zeros((size * 4, size * 4), np.float32)
    cv2.circle(disc, (c * 4 + 2, c * 4 + 2), max(1, round(max(defocus, 0.33) * 4)), 1.0, -1, cv2.LINE_AA)
    disc = cv2.resize(disc, (size, size), interpolation=cv2.INTER_AREA)
    line = np.zeros((size * 4, size * 4), np.float32)
    dx, dy = math.cos(angle) * motion * 2, math.sin(angle) * motion * 2
    cv2.line(
        line,
        (round(c * 4 + 2 - dx), round(c * 4 + 2 - dy)),
        (round(c * 4 + 2 + dx), round(c * 4 + 2 + dy)),
        1.0,
        2,
        cv2.LINE_AA,
    )
    line = cv2.resize(line, (size, size), interpolation=cv2.INTER_AREA)
    kernel = cv2.filter2D(disc, -1, line, borderType=cv2.BORDER_CONSTANT)
    return kernel / kernel.sum()
