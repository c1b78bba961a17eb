"""Where something big (a hand, an arm, a box lid) hides the board: compare the board as seen with the overlay.

The printed overlay is known (it comes from the board data), so the board as seen, sampled every 4 mm, should be
the overlay times a smooth lighting field. Pixels that are not are foreign; pieces are foreign too, but small, so
only foreign areas too wide for any piece (and whatever touches them, such as fingers) that reach in over the
board's edge or the frame's, as an arm does, count as occluders.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from companion.boards.model import Board
from companion.printables.overlay import board_drawing
from companion.printables.shapes import rasterise
from companion.sensing.vision_pose import Pose

CELL_MM = 4.0
FOREIGN = 0.18  # relative difference from the expected board that marks a cell foreign
RIM = 3  # cells along the board's and the frame's edge an occluder reaches in over
MARGIN_MM = 12.0  # grown around an occluder: its blurred edge hides stickers too


class OcclusionFinder:
    def __init__(self, board: Board, widest_piece_mm: float) -> None:
        self.board = board
        self.cols = math.ceil(board.width / CELL_MM)
        self.rows = math.ceil(board.height / CELL_MM)
        raster = rasterise(board_drawing(board, labels=False), 2.0)
        ref = cv2.resize(raster, (self.cols, self.rows), interpolation=cv2.INTER_AREA).astype(np.float32)
        self.reference = cv2.GaussianBlur(ref, (3, 3), 0)
        self.ref_gray = cv2.cvtColor(self.reference, cv2.COLOR_BGR2GRAY)
        self.paper = self.ref_gray > 0.8 * float(np.percentile(self.ref_gray, 90))
        xs = (np.arange(self.cols) + 0.5) * CELL_MM
        ys = board.height - (np.arange(self.rows) + 0.5) * CELL_MM
        gx, gy = np.meshgrid(xs, ys)
        self.points = np.column_stack([gx.ravel(), gy.ravel(), np.zeros(gx.size)])
        # A coarse grid spanning the same extent, and where each fine cell falls in it (for interpolation).
        nx, ny = math.ceil(self.cols / 4) + 1, math.ceil(self.rows / 4) + 1
        ccx, ccy = np.meshgrid(np.linspace(xs[0], xs[-1], nx), np.linspace(ys[0], ys[-1], ny))
        self.coarse = np.column_stack([ccx.ravel(), ccy.ravel(), np.zeros(ccx.size)])
        self.coarse_shape = ccx.shape
        ux, uy = np.meshgrid(
            np.arange(self.cols) * (nx - 1) / (self.cols - 1), np.arange(self.rows) * (ny - 1) / (self.rows - 1)
        )
        cu, cv = ccx.ravel() / board.width - 0.5, ccy.ravel() / board.height - 0.5
        self.coarse_design = np.column_stack([np.ones_like(cu), cu, cv, cu * cu, cu * cv, cv * cv]).astype(np.float32)
        self.upsample = (ux.astype(np.float32), uy.astype(np.float32))
        u, v = gx.ravel() / board.width - 0.5, gy.ravel() / board.height - 0.5
        self.design = np.column_stack([np.ones_like(u), u, v, u * u, u * v, v * v]).astype(np.float32)
        # A fifth of the cells is plenty to fit six coefficients.
        self.sample = np.flatnonzero((np.arange(gx.size) % 5) == 0)
        self.sample_design = np.ascontiguousarray(self.design[self.sample])
        self.sample_reference = np.maximum(self.reference, 1.0).reshape(-1, 3)[self.sample]
        self.sample_gray = np.maximum(self.ref_gray, 1.0).reshape(-1, 1)[self.sample]
        self.sample_paper = self.paper.ravel()[self.sample]
        size = math.ceil((widest_piece_mm + 14) / CELL_MM) | 1
        self._last: tuple[np.ndarray, np.ndarray] | None = None
        self.kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
        self.close = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
        grow = math.ceil(MARGIN_MM / CELL_MM) * 2 + 1
        self.grow = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (grow, grow))

    def find(
        self, small: np.ndarray, scale: float, pose: Pose, matrix: np.ndarray, dist: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(occluded, out_of_view): boolean grids over the board, one cell per CELL_MM.

        `small` is the frame shrunk by `scale` (the corner search already made it).
        """
        pixels = self._project(pose, matrix, dist) * scale
        h, w = small.shape[:2]
        map_xy = pixels.reshape(self.rows, self.cols, 2).astype(np.float32)
        out_of_view = (map_xy[..., 0] < 1) | (map_xy[..., 1] < 1) | (map_xy[..., 0] > w - 2) | (map_xy[..., 1] > h - 2)
        seen = cv2.remap(small, map_xy, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        seen = cv2.GaussianBlur(seen.astype(np.float32), (3, 3), 0)
        # A gray frame (a Pi camera's luma plane) is compared with the overlay's gray.
        gray = seen.ndim == 2
        seen = seen[..., None] if gray else seen
        reference = self.ref_gray[..., None] if gray else self.reference
        # Each colour channel gets its own light: a warm or cool white balance scales the channels apart, so one
        # grey gain would leave the paper looking foreign in two of them.
        gains = self._lighting(seen, ~out_of_view)
        paper_level = np.maximum(gains * 230.0, 20.0)
        residual = (np.abs(seen - reference * gains) / paper_level).max(axis=2)
        foreign = ((residual > FOREIGN) & ~out_of_view).astype(np.uint8)
        # Close small gaps first (a hand's colour can come near the paper's under the lines), then keep only what
        # is too wide to be a piece. Beyond the grid is not foreign: a zero border, or strips along the board's
        # edge would grow into "hands".
        edge = {"borderType": cv2.BORDER_CONSTANT, "borderValue": 0}
        foreign = cv2.morphologyEx(foreign, cv2.MORPH_CLOSE, self.close, **edge)
        # The opening in two steps: with nothing left after the erosion (no hand, the usual settled frame) there is
        # nothing to dilate back.
        core = cv2.erode(foreign, self.kernel, **edge)
        if not core.any():
            return np.zeros_like(out_of_view), out_of_view
        core = cv2.dilate(core, self.kernel, **edge)
        _, labels = cv2.connectedComponents(foreign, connectivity=8)
        hit = np.unique(labels[core > 0])
        hit = np.intersect1d(hit[hit > 0], self._reaching_in(labels, out_of_view))
        if not hit.size:
            return np.zeros_like(out_of_view), out_of_view
        occluders = np.isin(labels, hit).astype(np.uint8)
        occluded = cv2.dilate(occluders, self.grow) > 0
        return occluded, out_of_view

    @staticmethod
    def _reaching_in(labels: np.ndarray, out_of_view: np.ndarray) -> np.ndarray:
        """The foreign areas that cross the board's edge or the frame's: a hand is at the end of an arm, which
        comes from beyond the board, whereas a crowd of pieces round a planet disc, however wide, lies on it."""
        # The closing's zero border wears the outer two cells off every area, so the rim is three cells deep.
        rim = np.ones(labels.shape, np.uint8)
        rim[RIM:-RIM, RIM:-RIM] = 0
        rim |= out_of_view.astype(np.uint8)
        rim = cv2.dilate(rim, np.ones((2 * RIM + 1, 2 * RIM + 1), np.uint8)) > 0 if out_of_view.any() else rim > 0
        found = np.unique(labels[rim])
        return found[found > 0]

    def _project(self, pose: Pose, matrix: np.ndarray, dist: np.ndarray) -> np.ndarray:
        """The grid's pixels; a still camera gives nearly the same pose every frame, so reuse the last when so."""
        key = np.concatenate([pose.rvec, pose.tvec / 1000])
        if self._last is not None and np.max(np.abs(self._last[0] - key)) < 1e-4:
            return self._last[1]
        # The map is smooth: project every fourth cell and interpolate the rest.
        coarse = pose.project(self.coarse, matrix, dist).reshape(*self.coarse_shape, 2).astype(np.float32)
        pixels = cv2.remap(coarse, self.upsample[0], self.upsample[1], cv2.INTER_LINEAR).reshape(-1, 2)
        self._last = (key, pixels)
        return pixels

    def _lighting(self, seen: np.ndarray, valid: np.ndarray) -> np.ndarray:
        """A smooth gain field per colour channel (quadratic over the board), fitted to the paper, ignoring whatever
        covers it. The three channels are fitted together, on the paper cells that fit in all three: one solve with
        three right-hand sides instead of three (a cast scales the channels apart, but covers the same cells)."""
        channels = seen.shape[2]
        ratio = seen.reshape(-1, channels)[self.sample] / (self.sample_gray if channels == 1 else self.sample_reference)
        use = self.sample_paper & valid.ravel()[self.sample]
        design = self.sample_design
        coef = np.zeros((6, channels), np.float32)
        coef[0] = np.median(ratio[use], axis=0) if use.any() else 1.0
        # Every product in numpy's own loops and the solve in OpenCV's, never BLAS or LAPACK: on an Arm processor with
        # SME (and under qemu, which emulates one) OpenBLAS's kernels switch to streaming mode, which raises every
        # floating-point flag, so numpy warns of a divide by zero and an overflow in matmul that never happened, and
        # np.linalg.solve reads the raised invalid flag as a singular matrix and gives up the fit.
        for _ in range(3):
            fit = np.einsum("ij,jk->ik", design, coef)
            keep = use & (np.abs(ratio - fit) < 0.15 * np.maximum(fit, 0.05)).all(axis=1)
            if keep.sum() < 50:
                break
            # Normal equations: six unknowns, so a 6x6 solve (lstsq's SVD costs about a millisecond more a frame).
            a = design[keep]
            normal = np.einsum("ij,ik->jk", a, a).astype(np.float64)
            solved, coef_64 = cv2.solve(
                normal, np.einsum("ij,ik->jk", a, ratio[keep]).astype(np.float64), flags=cv2.DECOMP_CHOLESKY
            )
            if not solved:  # too few distinct cells to fix six coefficients
                break
            coef = coef_64.astype(np.float32)
        coarse = np.einsum("ij,jk->ik", self.coarse_design, coef).reshape(*self.coarse_shape, channels)
        gains = cv2.remap(coarse.astype(np.float32), self.upsample[0], self.upsample[1], cv2.INTER_LINEAR)
        return gains.reshape(*gains.shape[:2], channels)

    def cell_of(self, x: float, y: float) -> tuple[int, int]:
        col = min(self.cols - 1, max(0, int(x // CELL_MM)))
        row = min(self.rows - 1, max(0, int((self.board.height - y) // CELL_MM)))
        return row, col

    def regions(self, mask: np.ndarray) -> list[tuple[tuple[tuple[float, float], ...], tuple[str, ...]]]:
        """Each connected area of a grid mask: its outline in board mm and the sites inside it."""
        contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        out = []
        for contour in contours:
            area = np.zeros(mask.shape, np.uint8)
            cv2.drawContours(area, [contour], -1, 1, -1)
            sites = tuple(s.id for s in self.board.sites if area[self.cell_of(s.x, s.y)])
            approx = cv2.approxPolyDP(contour, 1.0, True).reshape(-1, 2)
            outline = tuple(
                (round(float(c) * CELL_MM, 1), round(self.board.height - float(r) * CELL_MM, 1)) for c, r in approx
            )
            out.append((outline, sites))
        return out
