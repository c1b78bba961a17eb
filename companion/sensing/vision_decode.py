"""Reading a sticker's code by matching what the camera saw against every code as that camera would show it.

OpenCV's detector thresholds each cell and calls it black or white; a small sticker behind a webcam's lens blur loses
its lone cells to the threshold and the code is lost (or, past the correction, read as another). Here a square the
detector found (decoded or not) is sampled on a fine grid over its cells and white margin, and compared with each
code of the dictionary in each of its four turns, drawn with the same blur (the lens's sigma measured on the board's
own markers, `edge_blur`, scaled to the sticker's cells). The best match names the code; its lead over the next
best code is the decode margin, and the sampled patch's edge contrast its sharpness: both go into the sighting's
confidence, and a square that matches no code clearly is a sticker the camera saw but could not read.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

SAMPLES = 5  # samples a cell a side on the canonical grid
CELLS = 8  # the marker's 6 cells (border included) and one white cell of margin each side
COMPARED = slice(SAMPLES // 2, CELLS * SAMPLES - SAMPLES // 2)  # half the margin: beyond it lies the piece's top
SHIFTS = (-0.35, 0.0, 0.35)  # cells the square is moved by, each way, to find where the code lies best


@dataclass(frozen=True)
class Match:
    """A square's best code: its id, the square's corners turned so that the first is the code's top-left, the
    correlation of the patch with that code (1 is perfect), its lead over the best other code (`margin`), that lead
    as a share of the lead a perfect picture would give (`quality`, 0-1), and how well the square's white margin
    and black border alone match a sticker's (`ring`: a sticker seen, whether or not its code can be read)."""

    marker_id: int
    corners: np.ndarray
    score: float
    margin: float
    quality: float
    ring: float


class CodeBook:
    """Every code of a dictionary in its four turns, drawn on the canonical grid, blurred as asked (kept per blur)."""

    def __init__(self, dictionary: cv2.aruco.Dictionary) -> None:
        bits = dictionary.markerSize + 2
        patterns = []
        for marker_id in range(dictionary.bytesList.shape[0]):
            cells = np.ones((CELLS, CELLS), np.float32)
            cells[1:-1, 1:-1] = dictionary.generateImageMarker(marker_id, bits).astype(np.float32) / 255
            for turn in range(4):
                patterns.append((marker_id, turn, np.rot90(cells, -turn)))
        self._codes = [(m, t) for m, t, _ in patterns]
        self._ids = np.array([m for m, _ in self._codes])
        self._allowed: dict[frozenset[int] | None, np.ndarray] = {}
        self._rings: dict[int, np.ndarray] = {}  # the codes' mean ring, per blur
        size = CELLS * SAMPLES
        self._sharp = np.stack([cv2.resize(p, (size, size), interpolation=cv2.INTER_NEAREST) for _, _, p in patterns])
        self._blurred: dict[int, np.ndarray] = {}
        ring = np.zeros((CELLS, CELLS), bool)
        ring[:2, :] = ring[-2:, :] = ring[:, :2] = ring[:, -2:] = True
        self._ring = (
            cv2.resize(ring.astype(np.uint8), (size, size), interpolation=cv2.INTER_NEAREST)[COMPARED, COMPARED]
            .ravel()
            .astype(bool)
        )
        compared = np.arange(size)[COMPARED].astype(np.float64)
        xs, ys = np.meshgrid(compared, compared)
        self._ring_points = np.column_stack([xs.ravel(), ys.ravel()])[self._ring]  # canonical (x, y) of the ring

    def templates(self, sigma_cells: float) -> np.ndarray:
        """(codes x turns, compared pixels): each template zero mean, unit length, at this blur (in cells)."""
        key = round(min(sigma_cells, 1.5) * 20)
        if key not in self._blurred:
            s = key / 20 * SAMPLES
            out = []
            for image in self._sharp:
                blurred = cv2.GaussianBlur(image, (0, 0), s) if s > 0.3 else image
                v = blurred[COMPARED, COMPARED].ravel().astype(np.float32)
                v = v - v.mean()
                out.append(v / max(float(np.linalg.norm(v)), 1e-6))
            self._blurred[key] = np.stack(out)
        return self._blurred[key]

    def match(
        self,
        gray: np.ndarray,
        corners: np.ndarray,
        sigma_px: float,
        allowed: frozenset[int] | None = None,
        refine: bool = True,
    ) -> Match | None:
        """The best code for the square whose outer corners (the black border's) are `corners` in `gray`; None when
        the square leaves the image. `allowed`: the codes that may be there (the registry's: no other is printed),
        which are the only rivals; a code outside them that matches better makes the square no sticker of ours
        (its quality 0)."""
        corners = np.asarray(corners, np.float64).reshape(4, 2)
        cell_px = _side(corners) / (CELLS - 2)
        if cell_px < 1.0:
            return None
        templates = self.templates(sigma_px / cell_px)
        ours = self._ours(allowed)
        shifts = [(dx, dy) for dx in SHIFTS for dy in SHIFTS] if refine else [(0.0, 0.0)]
        # The square moved by a few tenths of a cell is the same square shifted in the picture: every shift's patch
        # is the unshifted one moved, so their homographies differ by a translation, and all are scored in one
        # product.
        patches, kept = _samples(gray, corners, shifts)
        if not kept:
            return None
        v = patches[:, COMPARED, COMPARED].reshape(len(kept), -1)
        v = v - v.mean(axis=1, keepdims=True)
        norms = np.linalg.norm(v, axis=1)
        flat = norms >= 1e-3
        if not flat.any():
            return None
        v, kept, norms = v[flat], [k for k, f in zip(kept, flat, strict=True) if f], norms[flat]
        scores = (templates @ (v / norms[:, None]).T).T  # (shifts, codes x turns)
        mine = np.where(ours, scores, -np.inf)
        tops = np.argmax(mine, axis=1)
        best = int(np.argmax(mine[np.arange(len(kept)), tops]))  # the first shift of the highest score
        row, top = scores[best], int(tops[best])
        marker_id, turn = self._codes[top]
        rivals = np.where(ours & (self._ids != marker_id), row, -np.inf)
        other = int(np.argmax(rivals))
        margin = float(row[top] - row[other]) if np.isfinite(rivals[other]) else float(row[top])
        perfect = 1.0 - float(templates[top] @ templates[other])
        quality = float(np.clip(margin / max(perfect, 1e-6), 0.0, 1.0))
        if float(np.max(np.where(ours, -np.inf, row), initial=-np.inf)) > row[top]:
            quality = 0.0  # a code that is printed on nothing of ours fits better
        dx, dy = shifts[kept[best]]
        turned = np.roll(_shifted(corners, dx, dy), -turn, axis=0)
        return Match(marker_id, turned, float(row[top]), margin, quality, self._ring_score(v[best], templates[top]))

    def _ours(self, allowed: frozenset[int] | None) -> np.ndarray:
        """For each code and turn, whether it is one of `allowed` (kept per set: a pipeline asks with one)."""
        if allowed not in self._allowed:
            self._allowed[allowed] = np.array([allowed is None or m in allowed for m, _ in self._codes])
        return self._allowed[allowed]

    def rings(self, gray: np.ndarray, quads: np.ndarray, sigma_px: float) -> np.ndarray:
        """How well each square's white margin and black border alone match a sticker's, where the square lies (as
        `Match.ring`, unshifted and against every code's ring at once, their mean): a few hundred samples a square
        and a handful of array operations for all of them, where a match samples nine patches and the whole code
        book, to tell squares that are no sticker at a glance. `quads`: (squares, 4, 2) outer corners; NaN where a
        square leaves the image or is too small to sample."""
        quads = np.asarray(quads, np.float64).reshape(-1, 4, 2)
        out = np.full(len(quads), np.nan)
        if not len(quads):
            return out
        cells = np.mean(side_lengths(quads), axis=1) / (CELLS - 2)
        homographies = np.stack([cv2.getPerspectiveTransform(_INNER, q.astype(np.float32)) for q in quads])
        outlines = _project(homographies, _OUTLINE[0])
        high = np.array([gray.shape[1] - 1, gray.shape[0] - 1])
        ok = (cells >= 1.0) & (outlines.min(axis=(1, 2)) >= 0) & np.all(outlines.max(axis=1) <= high, axis=1)
        if not ok.any():
            return out
        points = _project(homographies[ok], self._ring_points).astype(np.float32)  # (squares, ring pixels, 2)
        samples = cv2.remap(gray, points, None, cv2.INTER_LINEAR).astype(np.float32)
        a = samples - samples.mean(axis=1, keepdims=True)
        b = np.stack([self._mean_ring(sigma_px / c) for c in cells[ok]])
        out[ok] = np.sum(a * b, axis=1) / np.maximum(np.linalg.norm(a, axis=1), 1e-6)
        return out

    def _mean_ring(self, sigma_cells: float) -> np.ndarray:
        """Every code's ring at this blur, their mean: zero mean, unit length (kept per blur, as the templates)."""
        key = round(min(sigma_cells, 1.5) * 20)
        if key not in self._rings:
            b = self.templates(sigma_cells)[:, self._ring].mean(axis=0)
            b = b - b.mean()
            self._rings[key] = b / max(float(np.linalg.norm(b)), 1e-6)
        return self._rings[key]

    def _ring_score(self, v: np.ndarray, template: np.ndarray) -> float:
        """Correlation over the white margin and black border alone, where every sticker looks the same."""
        a, b = v[self._ring], template[self._ring]
        a, b = a - a.mean(), b - b.mean()
        return float(a @ b / max(float(np.linalg.norm(a) * np.linalg.norm(b)), 1e-6))


def read_square(
    book: CodeBook,
    gray: np.ndarray,
    outline: np.ndarray,
    sigma_px: float,
    allowed: frozenset[int] | None,
    rival: tuple[float, float],
) -> Match | None:
    """A square the detector could not decode, read twice: from its outline as found and from its edges fitted
    (`fit_edges`). Either may be the clearer: on a small tilted sticker whose white margin lies against the piece's
    dark side, edges fitted a fraction of a pixel truer can still take in more of that side than the outline found.
    The clearer reading stands, its ring the better of the two (a sticker seen by either); but where the other
    names another code with a lead and a score of its own (`rival`: quality, score), one square read two ways says
    its code is not known: its quality is nil (doubtful, never a piece). None where neither can be sampled."""
    readings = [
        m
        for m in (
            book.match(gray, outline, sigma_px, allowed),
            book.match(gray, fit_edges(gray, outline), sigma_px, allowed),
        )
        if m is not None
    ]
    if not readings:
        return None
    best = max(readings, key=lambda m: m.quality)
    torn = any(m.marker_id != best.marker_id and m.quality >= rival[0] and m.score >= rival[1] for m in readings)
    return replace(best, ring=max(m.ring for m in readings), quality=0.0 if torn else best.quality)


def fit_edges(gray: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """A square's outer corners fitted to its four edges: along each side the point where the picture crosses
    halfway from the black border to the white margin (a blurred edge keeps its middle where it was), a line through
    those points, and the corners where the lines meet. The corners as given where an edge cannot be found (the
    square leaves the picture, or shows no step)."""
    corners = np.asarray(corners, np.float64).reshape(4, 2)
    cell = _side(corners) / (CELLS - 2)
    centre = corners.mean(axis=0)
    steps = np.linspace(-0.8, 0.8, 17) * cell
    ts = np.linspace(0.2, 0.8, 7)
    # The four sides' profiles, sampled in one remap: along each side, across it from inside to outside.
    ends = np.roll(corners, -1, axis=0)
    along = (ends - corners) / np.maximum(np.linalg.norm(ends - corners, axis=1, keepdims=True), 1e-9)
    normals = np.column_stack([along[:, 1], -along[:, 0]])
    normals[np.sum(normals * ((corners + ends) / 2 - centre), axis=1) < 0] *= -1
    bases = corners[:, None, :] + ts[None, :, None] * (ends - corners)[:, None, :]  # (sides, points, 2)
    grid = bases[:, :, None, :] + steps[None, None, :, None] * normals[:, None, None, :]
    xs, ys = grid[..., 0].astype(np.float32), grid[..., 1].astype(np.float32)
    if xs.min() < 0 or ys.min() < 0 or xs.max() > gray.shape[1] - 1 or ys.max() > gray.shape[0] - 1:
        return corners
    profiles = cv2.remap(gray, xs.reshape(-1, len(steps)), ys.reshape(-1, len(steps)), cv2.INTER_LINEAR)
    profiles = profiles.astype(np.float32)
    lo, hi = profiles[:, :4].mean(axis=1), profiles[:, -4:].mean(axis=1)
    rise = (profiles - lo[:, None]) / np.maximum(hi - lo, 1e-6)[:, None]
    above = rise >= 0.5
    first = np.argmax(above, axis=1)  # where each profile first crosses halfway (0: it starts above, or never does)
    found = (hi - lo >= 8) & (first > 0)
    i = np.maximum(first, 1)
    rows = np.arange(len(profiles))
    t = (0.5 - rise[rows, i - 1]) / np.maximum(rise[rows, i] - rise[rows, i - 1], 1e-6)
    offsets = steps[i - 1] + t * (steps[i] - steps[i - 1])
    points = bases.reshape(-1, 2) + offsets[:, None] * np.repeat(normals, len(ts), axis=0)
    lines = []
    for k in range(4):
        pts = points[k * len(ts) : (k + 1) * len(ts)][found[k * len(ts) : (k + 1) * len(ts)]]
        if len(pts) < 4:
            return corners
        mean = pts.mean(axis=0)
        direction = np.linalg.svd(pts - mean)[2][0]
        lines.append((mean, direction))
    out = []
    for k in range(4):  # corner k lies where the side before it (k-1 -> k) meets the side after it (k -> k+1)
        (p1, d1), (p2, d2) = lines[(k - 1) % 4], lines[k]
        m = np.column_stack([d1, -d2])
        if abs(np.linalg.det(m)) < 1e-6:
            return corners
        s1, _ = np.linalg.solve(m, p2 - p1)
        out.append(p1 + s1 * d1)
    fitted = np.array(out)
    # An edge that wandered off (a neighbour's edge, a shadow) makes a shape far from the square: keep the given one.
    if not np.all(np.isfinite(fitted)) or np.max(np.linalg.norm(fitted - corners, axis=1)) > cell:
        return corners
    return fitted


def _side(corners: np.ndarray) -> float:
    return float(side_lengths(corners).mean())


_BEFORE = [3, 0, 1, 2]  # each corner's one before it (a roll by one, as an index: a fraction of its cost)


def side_lengths(quads: np.ndarray) -> np.ndarray:
    """Each outline's (..., 4, 2) four sides' lengths, each from the corner before to its own."""
    step = quads - quads[..., _BEFORE, :]
    return np.sqrt(np.add.reduce(step * step, axis=-1))


def _axes(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One cell along the square's own sides: across (its top edge's way) and down."""
    across = (corners[1] - corners[0] + corners[2] - corners[3]) / 2 / (CELLS - 2)
    down = (corners[3] - corners[0] + corners[2] - corners[1]) / 2 / (CELLS - 2)
    return across, down


def _shifted(corners: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """The square moved by (dx, dy) of its cells along its own sides."""
    across, down = _axes(corners)
    return corners + dx * across + dy * down


_CANONICAL = CELLS * SAMPLES
# The marker's outer corners lie one cell in from the canonical grid's edge.
_INNER = (
    np.array(
        [
            (SAMPLES, SAMPLES),
            (_CANONICAL - SAMPLES, SAMPLES),
            (_CANONICAL - SAMPLES, _CANONICAL - SAMPLES),
            (SAMPLES, _CANONICAL - SAMPLES),
        ],
        np.float32,
    )
    - 0.5
)
_OUTLINE = np.array([[(-0.5, -0.5), (_CANONICAL, -0.5), (_CANONICAL, _CANONICAL), (-0.5, _CANONICAL)]], np.float32)


def _samples(gray: np.ndarray, corners: np.ndarray, shifts: list[tuple[float, float]]) -> tuple[np.ndarray, list[int]]:
    """The square and its margin on the canonical grid (CELLS x SAMPLES a side), moved by each (dx, dy) cells: the
    patches of the shifts whose grid stays in the picture, and those shifts' indices."""
    h = cv2.getPerspectiveTransform(_INNER, corners.astype(np.float32))
    outline = cv2.perspectiveTransform(_OUTLINE, h)[0]
    across, down = _axes(corners)
    steps = np.array(shifts, np.float64)
    moves = steps[:, :1] * across + steps[:, 1:] * down  # (shifts, 2): each shift moves every corner alike
    high = np.array([gray.shape[1] - 1, gray.shape[0] - 1])
    inside = ((outline.min(axis=0) + moves).min(axis=1) >= 0) & np.all(outline.max(axis=0) + moves <= high, axis=1)
    kept = [int(i) for i in np.flatnonzero(inside)]
    out = np.empty((len(kept), _CANONICAL, _CANONICAL), np.float32)
    for k, i in enumerate(kept):
        moved = np.array([[1.0, 0.0, moves[i, 0]], [0.0, 1.0, moves[i, 1]], [0.0, 0.0, 1.0]]) @ h
        out[k] = cv2.warpPerspective(
            gray, moved, (_CANONICAL, _CANONICAL), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
        )
    return out, kept


def _project(homographies: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Points (n, 2) through each of the homographies (squares, 3, 3): (squares, n, 2)."""
    out = homographies @ np.column_stack([points, np.ones(len(points))]).T  # (squares, 3, n)
    return np.swapaxes(out[:, :2] / out[:, 2:], 1, 2)


def edge_blur(gray: np.ndarray, corners: np.ndarray, cells: int = CELLS - 2, quiet: float = 1.0) -> float | None:
    """The lens's blur (a Gaussian's sigma, px) at a marker `cells` cells wide (border included: 6 for 4x4 and 16h5
    codes, 7 for 5x5) in a white quiet zone `quiet` cells wide: the median of its four edges' sigmas
    (`edge_sigmas`). None when the marker is too small or fewer than two edges show a clean step."""
    widths = [w for w in edge_sigmas(gray, corners, cells, quiet) if w is not None]
    return float(np.median(widths)) if len(widths) >= 2 else None


def worst_blur(gray: np.ndarray, corners: np.ndarray, lens_px: float, cells: int = CELLS - 2) -> float | None:
    """The blur (sigma, px) along the direction a marker is most blurred in, the camera's sway included: a smear of
    length L during the exposure adds L^2 / 12 to the variance along its own direction only, so it widens two
    opposite edges alike and leaves the other two as the lens made them, and the median of the four understates it.
    Each pair of opposite edges gives the variance across it (the smaller of the two: whatever lies beside one edge
    alone, the board's own edge or a neighbouring map, widens that edge and not its opposite); a smear at an angle
    to the edges shows in both pairs, as much as its own direction's excess over the lens's variance (`lens_px`, the
    lens alone) in their sum. None where neither pair shows a clean step."""
    return worst_blurs([(gray, corners)], lens_px, cells)[0]


def worst_blurs(
    markers: Sequence[tuple[np.ndarray, np.ndarray]], lens_px: float, cells: int = CELLS - 2
) -> list[float | None]:
    """`worst_blur` of each marker (its gray image and its corners in it), their edges' fits made in one product."""
    out: list[float | None] = []
    for widths in _edge_sigmas(markers, cells, 1.0):
        pairs = [[w * w for w in (widths[k], widths[k + 2]) if w is not None] for k in (0, 1)]
        across = [min(p) for p in pairs if p]
        out.append(
            None
            if not across
            else math.sqrt(max(max(across), sum(across) - lens_px * lens_px) if len(across) == 2 else across[0])
        )
    return out


def edge_sigmas(
    gray: np.ndarray, corners: np.ndarray, cells: int = CELLS - 2, quiet: float = 1.0
) -> list[float | None]:
    """Each of a marker's four outer edges' blur (a Gaussian's sigma, px; None where the edge shows no clean step
    or leaves the image), in the order of its corners: from the profile across the edge, inside the black border
    cell the code's cells (whose mean along the edge is some level between black and white), outside the quiet zone
    whatever it lies on. The three blurred steps are fitted to each profile (`_step_fits`). None for every edge
    when the marker is under 24 px a side."""
    return _edge_sigmas([(gray, corners)], cells, quiet)[0]


def _edge_sigmas(
    markers: Sequence[tuple[np.ndarray, np.ndarray]], cells: int, quiet: float
) -> list[list[float | None]]:
    """`edge_sigmas` of each marker (its gray image and its corners in it): every edge's profile fitted at once
    (each profile's fit is its own: the same as alone)."""
    fits = _step_fits(round(quiet, 3))
    profiles, edges = [], []  # each profile, and its marker, edge and cell (px)
    for m, (gray, given) in enumerate(markers):
        corners = np.asarray(given, np.float64).reshape(4, 2)
        side = _side(corners)
        if side < 24:
            continue
        centre = corners.mean(axis=0)
        cell = side / cells
        steps = fits.steps * cell
        for k in range(4):
            a, b = corners[k], corners[(k + 1) % 4]
            along = (b - a) / np.linalg.norm(b - a)
            normal = np.array([along[1], -along[0]])
            if np.dot(normal, (a + b) / 2 - centre) < 0:
                normal = -normal
            ts = np.linspace(0.25, 0.75, 24)
            points = a + np.outer(ts, b - a)
            grid = points[:, None, :] + steps[None, :, None] * normal
            xs, ys = grid[..., 0].astype(np.float32), grid[..., 1].astype(np.float32)
            if xs.min() < 0 or ys.min() < 0 or xs.max() > gray.shape[1] - 1 or ys.max() > gray.shape[0] - 1:
                continue
            profiles.append(cv2.remap(gray, xs, ys, cv2.INTER_LINEAR).astype(np.float64).mean(axis=0))
            edges.append((m, k, cell))
    out: list[list[float | None]] = [[None] * 4 for _ in markers]
    if profiles:
        sigmas = fits.sigmas_of(np.array(profiles).reshape(-1, len(fits.steps)))
        for (m, k, cell), w in zip(edges, sigmas, strict=True):
            out[m][k] = None if w is None else w * cell
    return out


def _phi(x: np.ndarray) -> np.ndarray:
    """The standard normal distribution function (Abramowitz and Stegun 7.1.26 for erf: within 1.5e-7)."""
    z = np.abs(x) / math.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = 1.0 - poly * np.exp(-z * z)
    return 0.5 * (1.0 + np.copysign(erf, x))


MIN_STEP = 20.0  # gray levels from the black border to the white margin below which an edge says nothing


class _StepFits:
    """Least-squares fits of a marker's edge profile, in units of its cells: the white margin rising from the black
    border at some place near 0, the code's mean level a cell further in and whatever lies beyond the margin
    `quiet` cells out, every step blurred by one Gaussian, the four levels free. Where the blur is wide against a
    cell the border never reaches its black nor the margin its white, so reading the rise between the profile's ends
    would take the blur for less. Every (sigma, place) of a fine grid is solved once here; a profile then costs one
    product."""

    def __init__(self, quiet: float) -> None:
        self.steps = np.linspace(-1.5, quiet + 0.5, 41)  # one and a half cells in (short of the code's second row)
        self.sigmas = np.geomspace(0.03, 1.5, 60)
        places = np.linspace(-0.35, 0.35, 15)
        x = (self.steps[None, None, :] - places[None, :, None]) / self.sigmas[:, None, None]
        s = self.sigmas[:, None, None]
        basis = np.stack([np.ones_like(x), _phi(x), _phi(x + 1 / s), _phi(x - quiet / s)], axis=-1)
        basis = basis.reshape(-1, len(self.steps), 4)  # (sigma x place, samples, levels)
        normal = np.swapaxes(basis, 1, 2) @ basis + np.eye(4) * 1e-9
        # Per grid point, the levels that fit a profile best are `solve @ profile`, and the fit's residual is the
        # profile's square less `across @ profile` dotted with them.
        self.across = np.ascontiguousarray(np.swapaxes(basis, 1, 2)).reshape(-1, len(self.steps))
        self.solve = np.linalg.solve(normal, np.swapaxes(basis, 1, 2)).reshape(-1, len(self.steps))
        self.places = len(places)

    def sigmas_of(self, profiles: np.ndarray) -> list[float | None]:
        """Each profile's best fit's sigma (cells), refined between grid steps; None where the step is under
        MIN_STEP."""
        grid = len(self.sigmas) * self.places
        # (einsum, not a BLAS product: BLAS's own threads cost far more than these small products on a busy core)
        levels = np.einsum("gs,ps->gp", self.solve, profiles).reshape(grid, 4, -1)
        projected = np.einsum("gs,ps->gp", self.across, profiles).reshape(grid, 4, -1)
        residuals = np.sum(profiles**2, axis=1) - np.sum(levels * projected, axis=1)  # (grid, profiles)
        residuals[levels[:, 1, :] < MIN_STEP] = np.inf  # the margin must be lighter than the border by a step
        out: list[float | None] = []
        for residual in residuals.T:
            best = int(np.argmin(residual))
            if not np.isfinite(residual[best]):
                out.append(None)
                continue
            i, j = divmod(best, self.places)
            sigma = float(self.sigmas[i])
            if 0 < i < len(self.sigmas) - 1:  # a parabola through the best place's three nearest sigmas (log scale)
                r = residual.reshape(len(self.sigmas), self.places)[i - 1 : i + 2, j]
                if np.all(np.isfinite(r)) and (curve := r[0] - 2 * r[1] + r[2]) > 0:
                    shift = float(np.clip(0.5 * (r[0] - r[2]) / curve, -0.5, 0.5))
                    sigma *= float((self.sigmas[1] / self.sigmas[0]) ** shift)
            out.append(sigma)
        return out


@functools.lru_cache(maxsize=4)
def _step_fits(quiet: float) -> _StepFits:
    return _StepFits(quiet)
