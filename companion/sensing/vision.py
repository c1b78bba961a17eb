"""From a camera frame to sightings: which piece stands where, how sure we are, and what the camera cannot see.

1. The board's corner fiducials (ids and mm positions from the board data) give the camera's pose over the board.
   The last good pose is kept while markers are hidden; visible markers that disagree with it mean the board or
   camera moved.
2. Piece stickers (AprilTag 16h5 by default) are decoded and looked up in the piece registry; pieces without
   stickers are found by the profile's colour ranges (vision_colour.py), with a lower confidence.
3. Each sticker's corners are traced back to the plane at the top of its piece (height correction), which gives the
   piece's centre; pieces standing on a base (a ship docked on a planet) are traced at the stacked height.
4. Pieces go to the nearest site within a tolerance; areas hidden by a hand, out of view or around a hidden corner
   marker are reported as unreliable, never guessed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.boards.model import Board
from companion.errors import UserError
from companion.sensing.pieces import PieceEntry, Registry
from companion.sensing.vision_colour import COLOUR_CONFIDENCE, ColourFinder
from companion.sensing.vision_occlusion import OcclusionFinder
from companion.sensing.vision_pose import Pose, fiducial_corners, solve_pose
from companion.sensing.vision_profile import CameraProfile

MIN_FRESH_MARKERS = 3  # corner markers needed to trust a new pose without the kept one
MAX_REPROJECTION_PX_720P = 2.5  # corner fit worse than this (scaled to the frame) means a profile of another camera
SIZE_TOLERANCE = 0.3  # a sticker whose traced size is off by more than this is not the piece it claims to be


@dataclass(frozen=True)
class Sighting:
    """A piece seen: its registry entry, its site (None when off every site) or position, and its stack level."""

    piece: str
    entry: str
    sticker: int | None
    site: str | None
    level: int
    x: float
    y: float
    confidence: float
    time: float

    def to_json(self) -> dict:
        return {"piece": self.piece, "entry": self.entry, "sticker": self.sticker, "site": self.site,
                "level": self.level, "x": round(self.x, 1), "y": round(self.y, 1),
                "confidence": round(self.confidence, 3), "time": self.time}


@dataclass(frozen=True)
class Region:
    """Part of the board the frame says nothing about, and why."""

    reason: str
    polygon: tuple[tuple[float, float], ...]
    sites: tuple[str, ...]

    def to_json(self) -> dict:
        return {"reason": self.reason, "sites": list(self.sites), "polygon": [list(p) for p in self.polygon]}


@dataclass(frozen=True)
class FrameReport:
    time: float
    reliable: bool  # False: nothing in this frame may be trusted (see `reason`)
    reason: str
    sightings: tuple[Sighting, ...] = ()
    unreliable: tuple[Region, ...] = ()
    moved: bool = False
    markers: tuple[int, ...] = ()
    reprojection_px: float | None = None
    stickers_rejected: int = 0
    timings: dict[str, float] = field(default_factory=dict)

    def unreliable_sites(self) -> set[str]:
        return {s for region in self.unreliable for s in region.sites}

    def stacks(self) -> dict[str, tuple[str, ...]]:
        """Site -> piece names bottom to top, as the rules engine's layout names them."""
        out: dict[str, list[Sighting]] = {}
        for s in self.sightings:
            if s.site is not None:
                out.setdefault(s.site, []).append(s)
        return {site: tuple(s.piece for s in sorted(group, key=_stack_key)) for site, group in out.items()}

    def to_json(self) -> dict:
        return {
            "time": self.time, "reliable": self.reliable, "reason": self.reason, "moved": self.moved,
            "markers": list(self.markers),
            "reprojection_px": None if self.reprojection_px is None else round(self.reprojection_px, 3),
            "sightings": [s.to_json() for s in self.sightings],
            "stacks": {site: list(pieces) for site, pieces in sorted(self.stacks().items())},
            "unreliable": [r.to_json() for r in self.unreliable],
            "stickers_rejected": self.stickers_rejected,
        }


def _stack_key(s: Sighting) -> tuple:
    return (s.level, s.entry)


def _detector(dictionary: str, tuned: bool) -> cv2.aruco.ArucoDetector:
    if not hasattr(cv2.aruco, dictionary):
        raise UserError(f"unknown marker dictionary {dictionary!r}")
    params = cv2.aruco.DetectorParameters()
    if tuned:
        # Small stickers (about 20 px at 720p): accept small perimeters, sample cells finely, and threshold with
        # two window sizes that suit them (measured: as good as three windows, a third faster).
        params.minMarkerPerimeterRate = 0.01
        params.maxMarkerPerimeterRate = 0.25
        params.perspectiveRemovePixelPerCell = 8
        params.adaptiveThreshWinSizeMin = 5
        params.adaptiveThreshWinSizeMax = 15
        params.adaptiveThreshWinSizeStep = 10
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)), params)


class Vision:
    """The camera pipeline for one board, piece registry and camera profile; keeps the last good pose."""

    def __init__(self, board: Board, registry: Registry, profile: CameraProfile, move_tolerance_mm: float = 3.0):
        if not board.fiducials:
            raise UserError(f"board {board.name!r} has no fiducials: the camera cannot find it")
        if profile.pose is not None and profile.pose.board != board.name:
            raise UserError(f"camera profile {profile.camera!r} was calibrated over board "
                            f"{profile.pose.board!r}, not {board.name!r}")
        self.board = board
        self.registry = registry
        self.profile = profile
        self.matrix = profile.camera_matrix
        self.dist = profile.dist_coeffs
        self.move_tolerance_mm = move_tolerance_mm
        self._stickers = registry.by_sticker()
        self._fiducials = {(f.dictionary, f.id): f for f in board.fiducials}
        self._corner_detectors = {d: _detector(d, False) for d in {f.dictionary for f in board.fiducials}}
        self._sticker_detector = _detector(registry.dictionary, True)
        self._colour = ColourFinder(board, registry, profile)
        self._occlusion = OcclusionFinder(board, 2 * max(e.radius for e in registry.entries))
        self._tolerance = _site_tolerance(board)
        self._site_xy = np.array([(s.x, s.y) for s in board.sites])
        self._tallest = max(e.height for e in registry.entries) * 2
        self._pose: Pose | None = None
        if profile.pose is not None:
            self._pose = Pose(np.array(profile.pose.rvec, np.float64), np.array(profile.pose.tvec, np.float64))
        self._max_reprojection = MAX_REPROJECTION_PX_720P * profile.image_size[1] / 720

    @property
    def pose(self) -> Pose | None:
        return self._pose

    def process(self, image: np.ndarray, time: float = 0.0) -> FrameReport:
        if image is None or image.ndim not in (2, 3) or image.size == 0:
            raise UserError("the frame is empty or not an image")
        height, width = image.shape[:2]
        if (width, height) != tuple(self.profile.image_size):
            w, h = self.profile.image_size
            raise UserError(f"the frame is {width}x{height} but camera profile {self.profile.camera!r} is for "
                            f"{w}x{h} frames")
        colour = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        gray = cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY)
        corners = self._find_corners(gray)
        seen = tuple(sorted(f.id for f in corners))
        pose, moved, reprojection, problem = self._update_pose(corners)
        if problem:
            return FrameReport(time, False, problem, moved=moved, markers=seen, reprojection_px=reprojection,
                               unreliable=(self._whole_board(problem),))
        assert pose is not None
        sightings, rejected = self._find_pieces(gray, pose, time)
        if self._colour:
            sightings = sightings + self._find_by_colour(colour, pose, sightings, time)
        # A quarter-size frame is plenty for the occlusion check's 4 mm cells.
        small = cv2.resize(colour, (width // 4, height // 4), interpolation=cv2.INTER_AREA)
        regions = self._unreliable_regions(small, pose, corners)
        hidden = {s for r in regions for s in r.sites}
        sightings = tuple(
            s if s.site not in hidden else _replace_confidence(s, s.confidence * 0.8) for s in sightings
        )
        return FrameReport(time, True, "", sightings, tuple(regions), moved, seen, reprojection, rejected)

    # -- the board
    def _find_corners(self, gray: np.ndarray) -> dict:
        """Visible corner fiducials -> their four corners in full-frame pixels.

        With a kept pose, each marker is looked for only near where it was; the whole (half-size) frame is searched
        when fewer than three turn up there (the board moved, or no pose yet).
        """
        found = {}
        if self._pose is not None:
            for fid in self.board.fiducials:
                px = self._pose.project(fiducial_corners(fid), self.matrix, self.dist)
                pad = 0.75 * float(np.max(np.ptp(px, axis=0)))
                x0, y0 = np.maximum(np.floor(px.min(axis=0) - pad).astype(int), 0)
                x1, y1 = np.ceil(px.max(axis=0) + pad).astype(int)
                roi = gray[y0:y1, x0:x1]
                if roi.size == 0:
                    continue
                for f, c in self._detect_fiducials(roi, fid.dictionary):
                    if f == fid:
                        found[fid] = c + np.array([x0, y0], np.float64)
        if len(found) < MIN_FRESH_MARKERS:
            found = {}
            small_gray = cv2.resize(gray, (gray.shape[1] // 2, gray.shape[0] // 2), interpolation=cv2.INTER_AREA)
            for dictionary in self._corner_detectors:
                for fid, c in self._detect_fiducials(small_gray, dictionary):
                    found.setdefault(fid, (c + 0.5) * 2 - 0.5)
        return {
            fid: cv2.cornerSubPix(gray, c.astype(np.float32).reshape(-1, 1, 2), (5, 5), (-1, -1),
                                  (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 20, 0.01)).reshape(4, 2)
            for fid, c in found.items()
        }

    def _detect_fiducials(self, gray: np.ndarray, dictionary: str) -> list:
        marker_corners, ids, _ = self._corner_detectors[dictionary].detectMarkers(gray)
        if ids is None:
            return []
        out = []
        for c, marker_id in zip(marker_corners, ids.ravel(), strict=True):
            fid = self._fiducials.get((dictionary, int(marker_id)))
            if fid is not None:
                out.append((fid, c.reshape(4, 2).astype(np.float64)))
        return out

    def _update_pose(self, corners: dict) -> tuple[Pose | None, bool, float | None, str]:
        """(pose, moved, reprojection error, problem); a problem makes the whole frame unreliable."""
        kept = self._pose
        if len(corners) >= MIN_FRESH_MARKERS:
            obj = np.concatenate([fiducial_corners(f) for f in corners])
            img = np.concatenate(list(corners.values()))
            pose, error = solve_pose(obj, img, self.matrix, self.dist)
            if error > self._max_reprojection:
                return None, False, error, (
                    f"camera profile {self.profile.camera!r} does not fit this camera "
                    f"(corner reprojection error {error:.1f} px)")
            moved = kept is not None and self._shift_mm(kept, pose) > self.move_tolerance_mm
            self._pose = pose
            return pose, moved, error, ""
        if not corners:
            return None, False, None, f"no corner markers of board {self.board.name!r} visible"
        if kept is None:
            return None, False, None, (
                f"only {len(corners)} corner marker(s) visible and no earlier pose to check them against")
        obj = np.concatenate([fiducial_corners(f) for f in corners])
        img = np.concatenate(list(corners.values()))
        traced = kept.to_board(img, 0.0, self.matrix, self.dist)
        if float(np.max(np.linalg.norm(traced - obj[:, :2], axis=1))) > self.move_tolerance_mm:
            return None, True, None, (
                f"the board or camera moved and only {len(corners)} corner marker(s) are visible")
        return kept, False, None, ""

    def _shift_mm(self, old: Pose, new: Pose) -> float:
        """How far board points seen through the old pose land from where the new pose puts them."""
        corners = np.array([(0, 0, 0), (self.board.width, 0, 0), (self.board.width, self.board.height, 0),
                            (0, self.board.height, 0)], np.float64)
        pixels = old.project(corners, self.matrix, self.dist)
        return float(np.max(np.linalg.norm(new.to_board(pixels, 0.0, self.matrix, self.dist) - corners[:, :2],
                                           axis=1)))

    # -- the pieces
    def _find_pieces(self, gray: np.ndarray, pose: Pose, time: float) -> tuple[tuple[Sighting, ...], int]:
        x0, y0, x1, y1 = self._board_box(pose, gray.shape)
        marker_corners, ids, _ = self._sticker_detector.detectMarkers(gray[y0:y1, x0:x1])
        if ids is None:
            return (), 0
        found: list[tuple[PieceEntry, np.ndarray]] = []
        for c, marker_id in zip(marker_corners, ids.ravel(), strict=True):
            entry = self._stickers.get(int(marker_id))
            if entry is not None:
                found.append((entry, c.reshape(4, 2) + np.array([x0, y0], np.float64)))
        if not found:
            return (), 0
        # First pass: every piece standing on the board.
        heights = np.repeat([e.height for e, _ in found], 4)
        pixels = np.concatenate([c for _, c in found])
        traced = pose.to_board(pixels, heights, self.matrix, self.dist).reshape(-1, 4, 2)
        centres = [self._piece_centre(e, t) for (e, _), t in zip(found, traced, strict=True)]
        # Second pass: pieces on a base (a ship docked on a planet) are traced again at the stacked height.
        bases = [i for i, (e, _) in enumerate(found) if e.is_base]
        carrier: dict[int, int] = {}
        for i, (entry, corners_px) in enumerate(found):
            if entry.is_base:
                continue
            for b in bases:
                base_entry = found[b][0]
                if math.dist(centres[i][0], centres[b][0]) < base_entry.radius + 2:
                    carrier[i] = b
                    t = pose.to_board(corners_px, base_entry.height + entry.height, self.matrix, self.dist)
                    traced[i] = t
                    centres[i] = self._piece_centre(entry, t)
                    break
        counts: dict[int, int] = {}
        for entry, _ in found:
            counts[entry.sticker] = counts.get(entry.sticker, 0) + 1
        sightings, rejected = [], 0
        sites: dict[int, tuple[str | None, float]] = {}
        for i, (entry, _) in enumerate(found):
            (cx, cy), side = centres[i]
            size_error = abs(side / self.registry.sticker_mm - 1)
            if size_error > SIZE_TOLERANCE:
                rejected += 1  # a sticker at the wrong height or a misread: not this piece
                continue
            if i in carrier:
                site, distance = sites.get(carrier[i]) or self._nearest_site(*centres[carrier[i]][0])
                level = 1
            else:
                site, distance = self._nearest_site(cx, cy)
                level = 0
            sites[i] = (site, distance)
            confidence = (1 - size_error) * (1 - 0.3 * min(1.0, distance / self._tolerance) if site else 1.0)
            if counts[entry.sticker] > 1:
                confidence *= 0.5  # one sticker seen twice: at least one is a misread
            sightings.append(Sighting(entry.piece, entry.id, entry.sticker, site, level, float(cx), float(cy),
                                      float(confidence), time))
        return tuple(sorted(sightings, key=lambda s: (s.site or "~", s.level, s.entry))), rejected

    def _find_by_colour(self, image: np.ndarray, pose: Pose, stickered: tuple[Sighting, ...],
                        time: float) -> tuple[Sighting, ...]:
        """Unmarked pieces by colour; a blob where a stickered piece was seen is that piece, not another."""
        taken = [(s.x, s.y, self.registry.entry(s.entry).radius) for s in stickered]
        by_colour: dict[str, list[tuple[str | None, float, float, float, float]]] = {}
        for blob in self._colour.blobs(image, pose, self.matrix, self.dist):
            if any(math.dist((blob.x, blob.y), (x, y)) < r for x, y, r in taken):
                continue
            site, distance = self._nearest_site(blob.x, blob.y)
            by_colour.setdefault(blob.colour, []).append((site, distance, blob.x, blob.y, blob.area_ratio))
        out = []
        for colour, blobs in by_colour.items():
            # Pieces of one colour look alike: entries are handed out in registry order, sites in name order.
            blobs.sort(key=lambda b: (b[0] or "~", b[2], b[3]))
            for entry, (site, distance, x, y, ratio) in zip(self._colour.groups[colour], blobs, strict=False):
                confidence = COLOUR_CONFIDENCE * max(0.3, 1 - abs(ratio - 1))
                if site:
                    confidence *= 1 - 0.3 * min(1.0, distance / self._tolerance)
                out.append(Sighting(entry.piece, entry.id, None, site, 0, float(x), float(y), float(confidence),
                                    time))
        return tuple(out)

    @staticmethod
    def _piece_centre(entry: PieceEntry, traced: np.ndarray) -> tuple[tuple[float, float], float]:
        """The piece's centre from its sticker's corners in mm (the sticker may sit off-centre), and the side."""
        up = (traced[0] - traced[3]) + (traced[1] - traced[2])
        up /= max(float(np.linalg.norm(up)), 1e-9)
        centre = traced.mean(axis=0) + entry.sticker_offset * up
        side = float(np.mean(np.linalg.norm(traced - np.roll(traced, 1, axis=0), axis=1)))
        return (float(centre[0]), float(centre[1])), side

    def _nearest_site(self, x: float, y: float) -> tuple[str | None, float]:
        distances = np.hypot(self._site_xy[:, 0] - x, self._site_xy[:, 1] - y)
        index = int(np.argmin(distances))
        if distances[index] > self._tolerance:
            return None, float(distances[index])
        return self.board.sites[index].id, float(distances[index])

    def _board_box(self, pose: Pose, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
        """The pixel box holding the board and anything standing on it."""
        w, h = self.board.width, self.board.height
        pts = np.array([(x, y, z) for x in (0, w) for y in (0, h) for z in (0, self._tallest)], np.float64)
        px = pose.project(pts, self.matrix, self.dist)
        x0, y0 = np.floor(px.min(axis=0)).astype(int) - 8
        x1, y1 = np.ceil(px.max(axis=0)).astype(int) + 8
        return max(0, x0), max(0, y0), min(shape[1], x1), min(shape[0], y1)

    # -- what the frame cannot tell
    def _unreliable_regions(self, small: np.ndarray, pose: Pose, corners: dict) -> list[Region]:
        occluded, out_of_view = self._occlusion.find(small, 0.25, pose, self.matrix, self.dist)
        regions = [
            Region(reason, outline, sites)
            for reason, mask in (("occluded", occluded), ("out of view", out_of_view & ~occluded))
            for outline, sites in self._occlusion.regions(mask)
        ]
        for fid in self.board.fiducials:
            if fid not in corners:
                r = fid.size
                square = ((fid.x - r, fid.y - r), (fid.x + r, fid.y - r), (fid.x + r, fid.y + r),
                          (fid.x - r, fid.y + r))
                sites = tuple(s.id for s in self.board.sites if abs(s.x - fid.x) <= r and abs(s.y - fid.y) <= r)
                regions.append(Region("corner marker hidden", square, sites))
        return regions

    def _whole_board(self, reason: str) -> Region:
        b = self.board
        return Region(reason, ((0, 0), (b.width, 0), (b.width, b.height), (0, b.height)),
                      tuple(s.id for s in b.sites))


def _replace_confidence(s: Sighting, confidence: float) -> Sighting:
    return Sighting(s.piece, s.entry, s.sticker, s.site, s.level, s.x, s.y, confidence, s.time)


def _site_tolerance(board: Board) -> float:
    """How far a piece may stand from a site and still be on it: under half the closest two sites' distance."""
    xy = np.array([(s.x, s.y) for s in board.sites])
    if len(xy) < 2:
        return 25.0
    d = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    np.fill_diagonal(d, np.inf)
    return float(min(25.0, 0.45 * d.min()))
