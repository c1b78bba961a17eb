"""From a camera frame to sightings: which piece stands where, how sure we are, and what the camera cannot see.

1. The board's fiducials (ids and mm positions from the board data; any three will do) give the camera's pose over
   the board. The last good pose is kept while markers are hidden, and without decoding them again while three or
   more look as they did; visible markers that disagree with it mean the board or camera moved.
2. Piece stickers (AprilTag 16h5 by default) are decoded and looked up in the piece registry; pieces without
   stickers are found by the profile's colour ranges (vision_colour.py), with a lower confidence.
3. Each sticker's corners are traced back to the plane at the top of its piece (height correction), which gives the
   piece's centre; pieces standing on a base (a ship docked on a planet) are traced at the stacked height. Where
   riders stand on the middle of what carries them, hiding it (the registry's stacking "on top": ORBIT), a piece may
   top a stack the camera cannot see into: it is traced at the height, up to the tallest stack's, that puts it on a
   site.
4. Pieces go to the nearest site within a tolerance; areas hidden by a hand, out of view or around a hidden corner
   marker are reported as unreliable, never guessed.
"""

from __future__ import annotations

import functools
import math
import weakref
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any

import cv2
import numpy as np

from companion.boards.model import Board
from companion.errors import UserError
from companion.sensing.pieces import PieceEntry, Registry
from companion.sensing.vision_colour import COLOUR_CONFIDENCE, ColourFinder, window_pixels, windows_around
from companion.sensing.vision_crops import (
    PLAN_BYTES,
    Box,
    Cropped,
    CropPlan,
    blank_outside,
    distinct,
    merge_boxes,
    site_boxes,
)
from companion.sensing.vision_decode import CodeBook, edge_blur, fit_edges, read_square, side_lengths, worst_blurs
from companion.sensing.vision_legibility import legible, site_sides
from companion.sensing.vision_occlusion import OcclusionFinder
from companion.sensing.vision_pose import Pose, fiducial_corners, solve_pose
from companion.sensing.vision_profile import CameraProfile

MIN_FRESH_MARKERS = 3  # corner markers needed to trust a new pose without the kept one
MAX_REPROJECTION_PX_720P = 2.5  # corner fit worse than this (scaled to the frame) means a profile of another camera
CORNER_SEARCH_LINES = 1600  # a whole-frame search for the board's markers works on at most this many lines
UPSCALE_BELOW_PX = 22.0  # stickers expected smaller than this (a side, px) are decoded from an enlarged region
DOWNSCALE_ABOVE_PX = 30.0  # and those expected larger than this in a region halved
# A crop's smallest sticker: its sites' smallest (at the lowest piece's top, centred) less this share, for a piece
# within the site's tolerance of its centre, further from the lens
SITE_SIDE_SHARE = 0.95
SAME_LOOK = 0.97  # correlation of a marker's patch with its last look above which it has not moved
LOOK_CELLS = 24  # a marker's look: its bounding box sampled on this many cells a side
EDGE_PX = 3  # a sticker this close to the frame's edge cannot be read (its white margin is cut off)
SIZE_TOLERANCE = 0.3  # a sticker whose traced size is off by more than this is not the piece it claims to be
SWEEP_ROUNDS = 30  # frames read in crops go over every site in this many settled changes, besides the changed ones
FUSE_BLOCK = 4  # px: frames to fuse are compared with the one read in blocks of this side
FUSE_CHANGE = 30.0  # gray levels: a block whose mean differs by more shows something else (a piece set down, taken
# away or turned); two frames of a still table under WORLD.md's webcam at 100-400 lux (noise, sway, drifting white
# balance) differ by under 25 in 999 blocks of 1000
LOOK_SHRINK = 2  # a site's look: the frame round it at this fraction of a side
LOOK_CHANGE = 0.15  # a site whose look's detail correlates with its last under 1 - this has changed, or one whose
# detail differs by over LOOK_STEP in a patch of two by two cells beyond what the other shows within a cell of it either
# way (the stand's sway); the detail is the log of the look (plus LOOK_DARK gray levels, which keeps the noise of black
# print from counting) less its blur at LOOK_DETAIL cells, within the ring its stickers may lie in (the box's corners
# show other sites' pieces). Light brighter, dimmer or from elsewhere scales a look, which the log makes a shift,
# smooth but at a soft shadow's edge; a sticker set on, lifted off, turned or moved changes the detail it dominates.
# On the per-change bench's 12 MP frames (WORLD.md's optics, light from anywhere; docs/benchmarks.md), each of 125
# changes to a stack passed one bound by 1.7 times or more; unchanged sites decorrelate by 0.02-0.04 and differ by
# 0.06-0.09 at the median.
LOOK_STEP = 0.5
LOOK_DARK = 16.0
LOOK_DETAIL = 2.0
DETAIL_KERNEL = 9  # cells: the blur's kernel, to two sigmas either way
# Reading a square by matching codes (vision_decode.py); measured on the mounted bench's frames (WORLD.md's optics):
# a sticker's white margin and black border match a sticker's at 0.86 or more (1 in 100 lower), anything else on
# the board at under 0.76 (the board's corner markers aside, which are left out by place).
STICKER_RING = 0.8
# A candidate square whose margin and border, sampled where the detector put it (its edges not fitted, not moved
# about), match a sticker's at under this is read no further: on the mounted bench's approved 1080p frames (WORLD.md's
# optics, Trajectory and ORBIT) the 199 outlines of stickers that went on to match a sticker's ring at STICKER_RING or
# more glanced at 0.50 or more, while 83-94 % of the other squares (the board's print) glanced under it.
RING_AT_A_GLANCE = 0.3
# A piece's dark side under its sticker shows as a sliver seven or more times as long as it is wide, and its blur can
# decode as a code; a sticker's outline is never so thin: on the mounted bench's 12 MP frames tilted 35 degrees its
# black border and the piece's side merge into outlines about twice as long as wide (read right once their edges are
# fitted), none thinner than a quarter.
SQUARE_SIDES = 0.2
MATCH_SCORE = 0.75  # a code read from a square the detector could not decode must match at least this well
MATCH_QUALITY = 0.35  # ... and lead the next code by this share of a perfect picture's lead
AGREED_QUALITY = 0.2  # a code the detector decoded needs at least this lead from the match as well
MIN_CONFIDENCE = 0.4  # a sighting less sure than this (size, place, decode margin) is a sticker not read
DEFAULT_BLUR_PX = 1.0  # the lens's blur (sigma) until measured, where calibration did not measure it either
UNREAD = "unread"  # a region's reason: a sticker seen there whose code could not be read
MOVED_SINCE = "the board or the camera moved since the last picture: the next is read whole"


@dataclass(frozen=True)
class Sighting:
    """A piece seen: its kind (the registry's piece name: pieces of a kind share a sticker, so which of them it is
    the camera cannot say, and no game asks), its site (None when off every site) or position, its stack level."""

    piece: str
    sticker: int | None
    site: str | None
    level: int
    x: float
    y: float
    confidence: float
    time: float
    # Which way the sticker's top points: degrees counter-clockwise from the board's +y (the way ORBIT's planet
    # arrows point, when the sticker is stuck on square to the arrow); None for pieces found by colour.
    turn: float | None = None

    def to_json(self) -> dict:
        return {
            "piece": self.piece,
            "sticker": self.sticker,
            "site": self.site,
            "level": self.level,
            "x": round(self.x, 1),
            "y": round(self.y, 1),
            "confidence": round(self.confidence, 3),
            "time": self.time,
            "turn": None if self.turn is None else round(self.turn, 1),
        }


@dataclass(frozen=True)
class Region:
    """Part of the board the frame says nothing about, and why."""

    reason: str
    polygon: tuple[tuple[float, float], ...]
    sites: tuple[str, ...]

    def to_json(self) -> dict:
        return {"reason": self.reason, "sites": list(self.sites), "polygon": [list(p) for p in self.polygon]}


def _centre(region: Region) -> tuple[float, float]:
    x, y = np.mean(region.polygon, axis=0)
    return float(x), float(y)


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
    identifies: frozenset[str] | None = None  # the piece names this camera tells apart (None: every piece)

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
            "time": self.time,
            "reliable": self.reliable,
            "reason": self.reason,
            "moved": self.moved,
            "markers": list(self.markers),
            "reprojection_px": None if self.reprojection_px is None else round(self.reprojection_px, 3),
            "sightings": [s.to_json() for s in self.sightings],
            "stacks": {site: list(pieces) for site, pieces in sorted(self.stacks().items())},
            "unreliable": [r.to_json() for r in self.unreliable],
            "stickers_rejected": self.stickers_rejected,
        }


def _stack_key(s: Sighting) -> tuple:
    return (s.level, s.piece)


def _detector(dictionary: str, tuned: bool) -> cv2.aruco.ArucoDetector:
    if not hasattr(cv2.aruco, dictionary):
        raise UserError(f"unknown marker dictionary {dictionary!r}")
    params = cv2.aruco.DetectorParameters()
    if tuned:
        # Small stickers (about 20 px at 720p): accept small perimeters, sample cells finely, and threshold with
        # three window sizes (two found every sticker of a sharp camera; behind a webcam's blur a sticker whose
        # white margin runs into a neighbour's white label needs the widest).
        params.minMarkerPerimeterRate = 0.01
        params.maxMarkerPerimeterRate = 0.25
        params.perspectiveRemovePixelPerCell = 8
        params.adaptiveThreshWinSizeMin = 5
        params.adaptiveThreshWinSizeMax = 25
        params.adaptiveThreshWinSizeStep = 10
        # A lens's blur rounds a small sticker's corners: at the default 3 % of its perimeter the outline takes more
        # than four corners and the square is never looked at (measured on the mounted bench with WORLD.md's optics:
        # 11 of 440 stickers had no square at 3 %, 1 at 5 %).
        params.polygonalApproxAccuracyRate = 0.05
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)), params)


class Vision:
    """The camera pipeline for one board, piece registry and camera profile; keeps the last good pose."""

    def __init__(self, board: Board, registry: Registry, profile: CameraProfile, move_tolerance_mm: float = 3.0):
        if not board.fiducials:
            raise UserError(f"board {board.name!r} has no fiducials: the camera cannot find it")
        if profile.pose is not None and profile.pose.board != board.name:
            raise UserError(
                f"camera profile {profile.camera!r} was calibrated over board "
                f"{profile.pose.board!r}, not {board.name!r}"
            )
        self.board = board
        self.registry = registry
        self.profile = profile
        self.matrix = profile.camera_matrix
        self.dist = profile.dist_coeffs
        self.move_tolerance_mm = move_tolerance_mm
        self._stickers = registry.by_sticker()
        self._kind_count = {e.piece: registry.count(e.piece) for e in self._stickers.values()}
        self._fiducials = {(f.dictionary, f.id): f for f in board.fiducials}
        self._corner_detectors = {d: _detector(d, False) for d in {f.dictionary for f in board.fiducials}}
        self._sticker_detector = _detector(registry.dictionary, True)
        self._book = CodeBook(self._sticker_detector.getDictionary())
        self._codes = frozenset(self._stickers)
        # The lens's sigma: as calibration measured it, then on the corner markers each time they are found.
        self.blur_px = profile.blur_px or DEFAULT_BLUR_PX
        # This frame's blur along its worst direction (the lens's and the sway's smear while the shutter was open),
        # measured on the corner markers of every frame read: what decides which stickers it can read.
        self.frame_blur_px = self.blur_px
        self._sides: tuple[tuple, np.ndarray] | None = None  # (pose, each site's smallest sticker side in px)
        self._more: tuple[np.ndarray, ...] = ()  # the frames fused with the one being read
        self._looks: dict[str, _Look] = {}  # each site's look when it was last decoded
        self._sites_read: set[str] = set()  # the sites the last frame read in crops read
        self._fitted: tuple | None = None
        # For patches of about 2.2 sticker sides: any square from a third of the patch to all of it.
        self._patch_detector = _detector(registry.dictionary, True)
        patch_params = self._patch_detector.getDetectorParameters()
        patch_params.minMarkerPerimeterRate, patch_params.maxMarkerPerimeterRate = 1.2, 4.0
        self._patch_detector.setDetectorParameters(patch_params)
        self._colour = ColourFinder(board, registry, profile)
        self._occlusion = OcclusionFinder(board, 2 * max(e.radius for e in registry.entries))
        # The occlusion check `arm_over` made of a frame that showed no arm, for the reading of that frame that
        # follows it to use once (the frame and pose it was made for, and its cells).
        self._occluded_last: tuple[weakref.ref, Pose, tuple[np.ndarray, np.ndarray]] | None = None
        self._tolerance = _site_tolerance(board)
        self._site_xy = np.array([(s.x, s.y) for s in board.sites])
        self._tallest = registry.tallest
        self.identifies = registry.identifiable(profile.colours)
        # How far from a piece's centre its sticker (with its white margin) can reach; a piece on a site has its
        # centre within the site tolerance, one off every site stands on the board.
        self._sticker_reach = max(
            e.sticker_offset + math.sqrt(2) * e.sticker_mm * (0.5 + 1 / 6) for e in registry.entries
        )
        lo = np.minimum(self._site_xy.min(axis=0) - self._tolerance, 0.0) - self._sticker_reach
        hi = np.maximum(self._site_xy.max(axis=0) + self._tolerance, (board.width, board.height)) + self._sticker_reach
        self._reach_box = (lo, hi)
        # Around every site, where a sticker of a piece on it may be: a circle at board level and at the tallest
        # stack's height.
        reach = self._tolerance + self._sticker_reach
        angles = np.linspace(0, 2 * math.pi, 16, endpoint=False)
        circle = np.column_stack([reach * np.cos(angles), reach * np.sin(angles)])
        self._reach_ring = np.array(
            [[(s.x + dx, s.y + dy, z) for z in (0.0, self._tallest) for dx, dy in circle] for s in board.sites],
            np.float64,
        )
        # ... and where a sticker read afresh round a site may be: a piece off every site is read afresh when its
        # centre is within that reach of a site read, so its sticker reaches as far again.
        wider = circle * (reach + self._sticker_reach) / reach
        self._search_ring = np.array(
            [[(s.x + dx, s.y + dy, z) for z in (0.0, self._tallest) for dx, dy in wider] for s in board.sites],
            np.float64,
        )
        self._edge_cache: tuple[np.ndarray, list] | None = None
        self._site_index = {s.id: i for i, s in enumerate(board.sites)}
        # What a pose alone gives (the board's rings, centres and markers projected into the frame), kept while the
        # pose stays the same to the bit: a still camera reads change after change through its one kept pose.
        self._per_pose: tuple[tuple[bytes, bytes], dict[str, Any]] = ((b"", b""), {})
        self._pose: Pose | None = None
        self._marker_looks: dict = {}  # fiducial -> (its corners, its normalised look) where last decoded
        self._last: FrameReport | None = None  # the last reliable report, for frames read in crops
        self._sweep = 0  # the next site of the slow sweep
        if profile.pose is not None:
            self._pose = Pose(np.array(profile.pose.rvec, np.float64), np.array(profile.pose.tvec, np.float64))
        self._max_reprojection = MAX_REPROJECTION_PX_720P * profile.image_size[1] / 720

    @property
    def pose(self) -> Pose | None:
        return self._pose

    def process(
        self,
        image: np.ndarray,
        time: float = 0.0,
        changed: Collection[str] | None = None,
        markers: FrameMarkers | None = None,
        more: Sequence[np.ndarray] = (),
        by_look: bool = False,
        cropped: Cropped | None = None,
        held: Collection[str] = (),
    ) -> FrameReport:
        """What the frame shows. `changed`: the sites the reed grid says changed since the last frame read; the
        stickers are then decoded only in crops around them and a few more sites of a slow sweep (the rest as the
        last report had them), at the frame's full resolution, while the board has not moved. None: the whole
        frame. `markers`: the frame's whole-frame marker search, shared by the boards in one frame, and the checks
        `stands` and `unlike` made of it (not made again). `more`: frames
        taken just after this one of the same settled board: where stickers are decoded, the frames are averaged
        first (a sensor's noise falls with the square root of their number; dim light makes it the limit).
        `by_look`: the frames come one after another from a camera with no grid behind it: a big frame is read in
        crops round the sites that look changed since they were last read (without it, `changed` None reads the
        whole frame, as for frames of unrelated scenes). `cropped`: the frame holds only what `crop_plan` asked for
        (a phone's crops): its sites are read, or, when the board moved, nothing is, and the next plan is None (the
        whole picture is needed). `held`: sites with pieces on them none of whose switches changed (a piece set onto
        another, or lifted off a stack, changes no switch): read in crops with `changed` (or, `cropped`, of its plan's)
        only where they look different from when they were last decoded."""
        if image is None or image.ndim not in (2, 3) or image.size == 0:
            raise UserError("the frame is empty or not an image")
        for other in more:
            if other.shape != image.shape:
                raise UserError("the frames to fuse differ in size from the frame read")
        self._more = tuple(more)
        height, width = image.shape[:2]
        if (width, height) != tuple(self.profile.image_size):
            w, h = self.profile.image_size
            raise UserError(
                f"the frame is {width}x{height} but camera profile {self.profile.camera!r} is for {w}x{h} frames"
            )
        # A gray frame (a Pi camera's luma plane, which needs no decoding) is read as it is: stickers and the
        # occlusion check need no colour; pieces found by colour do.
        if image.ndim == 2 and self._colour:
            raise UserError(
                f"camera profile {self.profile.camera!r} finds pieces by colour, but the camera gives "
                f"gray frames: take colour frames from it"
            )
        colour = image if image.ndim == 2 or image.shape[2] == 3 else cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
        looked: dict[str, np.ndarray] = {}
        if by_look and changed is None and self._last is not None and height > CORNER_SEARCH_LINES:
            # No grid to say where the board changed, and a frame too big to decode whole at every frame (12 MP):
            # the sites that look different from when they were last read are the changed ones.
            looked = self._site_looks(colour, [s.id for s in self.board.sites])
            changed = self._changed_by_look(looked)
        held = set(held) - set(changed or ())
        if cropped is not None:
            report = None
            if self._last is not None:
                held &= cropped.plan.read
                start = perf_counter()
                unlike, looked = self._unlike(colour, held, markers)
                looking = perf_counter() - start
                report = self._process_sites(
                    colour, time, cropped.plan.read, self._last, cropped, held - unlike, markers
                )
                if report is not None:
                    start = perf_counter()
                    self._remember_looks(colour, self._sites_read, looked)
                    report.timings["looks"] = looking + perf_counter() - start
            self._last = report
            return report or FrameReport(
                time, False, MOVED_SINCE, unreliable=(self._whole_board(MOVED_SINCE),), identifies=self.identifies
            )
        if changed is not None and self._last is not None:
            start = perf_counter()
            unlike, taken = self._unlike(colour, held, markers)
            looking = perf_counter() - start
            report = self._process_sites(colour, time, set(changed) | unlike, self._last, markers=markers)
            if report is not None:
                self._last = report
                start = perf_counter()
                self._remember_looks(colour, self._sites_read, looked | taken)
                report.timings["looks"] = looking + perf_counter() - start  # (the sites' looks, taken and kept)
                return report
        report = self._process_frame(colour, time, markers or FrameMarkers(colour))
        self._last = report if report.reliable else None
        self._looks = {}
        if report.reliable:
            self._remember_looks(colour, [s.id for s in self.board.sites], looked)
        return report

    def stands(self, image: np.ndarray, markers: FrameMarkers | None = None) -> bool:
        """Whether the board read last stands where it stood in this frame (of the profile's size, gray or colour):
        enough of its corner markers look as they did. A frame with none of its sites changed need not read it.
        `markers`: the frame's own (FrameMarkers of this image), which keep the check for its reading."""
        height, width = image.shape[:2]
        if self._last is None or (width, height) != tuple(self.profile.image_size):
            return False
        if image.ndim == 3 and image.shape[2] != 3:
            return False
        return len(self._markers_now(image, markers)) >= MIN_FRESH_MARKERS

    def _markers_now(self, image: np.ndarray, markers: FrameMarkers | None) -> dict:
        """`_unchanged_markers` of a frame, made once for the frame's `markers` while the markers' looks stand."""
        if markers is None:
            return self._unchanged_markers(image)
        return markers.once((self, "markers"), (self._marker_looks,), lambda: self._unchanged_markers(image))

    def crop_plan(self, changed: Collection[str]) -> CropPlan | None:
        """What the next frame must hold for the sites `changed` to be read in crops (with the sweep's next few) while
        the board has not moved: None when it cannot be read so (no reading yet, the corner markers' looks not
        kept, or parts that would cost more to send than the whole picture's gray or PLAN_BYTES), and the whole frame
        is needed. Where pieces are found by colour, the frame's parts their windows round the same sites are warped
        from are asked for in colour."""
        pose, looks = self._pose, self._marker_looks  # (taken once: the camera's thread replaces them)
        if self._last is None or pose is None or len(looks) < MIN_FRESH_MARKERS:
            return None
        width, height = self.profile.image_size
        read, sweep = self._to_read(changed, self._sweep)
        boxes = site_boxes(self._site_pixels(pose, (height, width), read), (height, width))
        boxes += [_blur_box(corners, (height, width)) for corners, _ in looks.values()]
        colour: list[Box] = []
        if self._colour:
            heights = set(self._colour.heights.values())
            windows = self._colour_windows(read)
            pixels = [window_pixels(self.board, pose, self.matrix, self.dist, heights, w) for w in windows]
            colour = site_boxes(pixels, (height, width))
        plan = CropPlan(
            self.board.name, frozenset(read), sweep, (width, height), tuple(merge_boxes(boxes)), tuple(colour)
        )
        return plan if plan.nbytes() <= min(width * height, PLAN_BYTES) else None  # (else the whole still is less)

    def _to_read(self, changed: Collection[str], sweep_at: int) -> tuple[set[str], int]:
        """The sites a frame read in crops reads: the changed ones and the slow sweep's next few from `sweep_at`;
        and where the sweep goes on from after them."""
        ids = [s.id for s in self.board.sites]
        read = set(changed) & set(ids)
        sweep = max(1, math.ceil(len(ids) / SWEEP_ROUNDS))
        while sweep and len(read) < len(ids):
            site = ids[sweep_at % len(ids)]
            sweep_at += 1
            if site not in read:
                read.add(site)
                sweep -= 1
        return read, sweep_at

    def _site_looks(self, colour: np.ndarray, sites: Collection[str]) -> dict[str, np.ndarray]:
        """The looks of `sites`: the frame round each (as far as its stickers reach, the box its crop holds) shrunk
        LOOK_SHRINK times, some ten thousand pixels a site at 12 MP; a site whose box leaves the frame has none (it is
        read)."""
        pose = self._pose
        if pose is None or not sites:
            return {}
        height, width = colour.shape[:2]
        boxes = self._pose_value(pose, "look boxes", lambda: self._look_boxes(pose))
        out = {}
        for site in sorted(sites):
            x0, y0, w, h = boxes[self._site_index[site]]
            if x0 < 0 or y0 < 0 or x0 + w * LOOK_SHRINK > width or y0 + h * LOOK_SHRINK > height or min(w, h) < 2:
                continue
            patch = colour[y0 : y0 + h * LOOK_SHRINK, x0 : x0 + w * LOOK_SHRINK]
            gray = patch if patch.ndim == 2 else cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
            out[site] = cv2.resize(gray, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
        return out

    def _look_boxes(self, pose: Pose) -> list[tuple[int, int, int, int]]:
        """Each site's look (`_site_looks`): its top-left corner in the frame and its size in cells, in the board's
        site order."""
        out = []
        for ring in self._rings(pose):
            x0, y0 = np.floor(ring.min(axis=0)).astype(int)
            w, h = (np.ceil(ring.max(axis=0)).astype(int) - (x0, y0)) // LOOK_SHRINK  # (whole cells: a fast shrink)
            out.append((int(x0), int(y0), int(w), int(h)))
        return out

    def _look_rings(self, pose: Pose) -> list[np.ndarray]:
        """Each site's reach ring within its look (`_site_looks`), in the board's site order: the cells a sticker of
        a piece on it may lie in (the box's corners beyond it show other sites' pieces)."""
        boxes = self._pose_value(pose, "look boxes", lambda: self._look_boxes(pose))
        out = []
        for ring, (x0, y0, w, h) in zip(self._rings(pose), boxes, strict=True):
            inside = np.zeros((max(h, 0), max(w, 0)), np.uint8)
            hull = cv2.convexHull(((ring - (x0, y0)) / LOOK_SHRINK * 16).round().astype(np.int32))
            cv2.fillConvexPoly(inside, hull, 1, cv2.LINE_8, 4)
            out.append(inside.astype(bool))
        return out

    def _changed_by_look(self, looks: dict[str, np.ndarray]) -> set[str] | None:
        """The sites whose look differs from their look when last read (the frame's exposure drift allowed for);
        None when some site has no look yet (read the whole frame)."""
        if not looks or any(site not in self._looks for site in looks):
            return None
        return {site for site, look in looks.items() if self._looks[site].changed(look)}

    def _unlike(
        self, colour: np.ndarray, sites: set[str], markers: FrameMarkers | None = None
    ) -> tuple[set[str], dict[str, np.ndarray]]:
        """Of `sites`, those whose look differs from their look when last decoded, or that have no such look, or
        whose look this frame cannot give (a piece set onto another, or lifted off a stack, changes its look), and
        those whose stickers were last seen and not read (another frame may read them); and the looks taken (made
        once for the frame's `markers` and the same sites while the looks kept, the reading and the pose stand)."""
        if markers is None:
            return self._unlike_now(colour, sites)
        state = (self._looks, self._last, self._pose)
        return markers.once((self, "looks", frozenset(sites)), state, lambda: self._unlike_now(colour, sites))

    def _unlike_now(self, colour: np.ndarray, sites: set[str]) -> tuple[set[str], dict[str, np.ndarray]]:
        looks = self._site_looks(colour, sites)
        unread = (
            {site for r in self._last.unreliable if r.reason == UNREAD for site in r.sites} if self._last else set()
        )
        unlike = {
            site
            for site in sites
            if site in unread or site not in looks or site not in self._looks or self._looks[site].changed(looks[site])
        }
        return unlike, looks

    def unlike(self, image: np.ndarray, sites: Collection[str], markers: FrameMarkers | None = None) -> set[str]:
        """Of `sites` (this board's), those a frame of the profile's size shows changed since they were last decoded
        (`_unlike`): every one while there is no reading to compare with. `markers`: as for `stands`."""
        if self._last is None or self._pose is None:
            return set(sites)
        colour = image if image.ndim == 2 or image.shape[2] == 3 else cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
        return self._unlike(colour, set(sites), markers)[0]

    def _remember_looks(
        self, colour: np.ndarray, sites: Collection[str], taken: dict[str, np.ndarray] | None = None
    ) -> None:
        """The looks of the sites just decoded, what their next looks are compared with (`taken`: those already
        taken from this frame)."""
        taken = taken or {}
        looks = {s: taken[s] for s in sites if s in taken} | self._site_looks(colour, set(sites) - set(taken))
        # (a new dict: a copy of the pipeline, as the bench reads a change again with, keeps its own)
        kept = {s: look for s, look in self._looks.items() if s not in sites}
        pose = self._pose
        rings = self._pose_value(pose, "look rings", lambda: self._look_rings(pose)) if looks and pose else []
        self._looks = kept | {s: _Look(look, rings[self._site_index[s]]) for s, look in looks.items()}

    def _process_frame(self, colour: np.ndarray, time: float, markers: FrameMarkers) -> FrameReport:
        clock = _Clock()
        gray = markers.gray
        corners = self._find_corners(gray, markers)
        clock.lap("corners")
        seen = tuple(sorted(f.id for f in corners))
        pose, moved, reprojection, problem = self._update_pose(corners)
        clock.lap("pose")
        if problem:
            return FrameReport(
                time,
                False,
                problem,
                moved=moved,
                markers=seen,
                reprojection_px=reprojection,
                unreliable=(self._whole_board(problem),),
                identifies=self.identifies,
            )
        assert pose is not None
        sightings, rejected, unread, unread_off_site = self._find_pieces(gray, pose, time)
        unread |= self._illegible(pose, {s.id for s in self.board.sites}) - {s.site for s in sightings}
        clock.lap("stickers")
        if self._colour:
            sightings = sightings + self._find_by_colour(colour, pose, sightings, time)
            clock.lap("colour")
        regions = self._unreliable_regions(colour, pose, corners) + self._unread_regions(unread) + unread_off_site
        clock.lap("unreliable")
        hidden = {s for r in regions for s in r.sites}
        sightings = tuple(s if s.site not in hidden else _replace_confidence(s, s.confidence * 0.8) for s in sightings)
        return FrameReport(
            time, True, "", sightings, tuple(regions), moved, seen, reprojection, rejected, clock.laps, self.identifies
        )

    def _process_sites(
        self,
        colour: np.ndarray,
        time: float,
        changed: Collection[str],
        last: FrameReport,
        cropped: Cropped | None = None,
        quiet: Collection[str] = (),
        markers: FrameMarkers | None = None,
    ) -> FrameReport | None:
        """The frame read in crops around the changed sites and the sweep's next few (`cropped`: its plan's sites
        but the `quiet` ones, which look as when last decoded); None when the board or the camera moved (fewer than
        three corner markers look as they did), for the whole frame to be read."""
        clock = _Clock()
        corners = self._markers_now(colour, markers)
        if len(corners) < MIN_FRESH_MARKERS:
            return None
        self._measure_frame_blur(colour, corners)
        pose, reprojection = self._pose, None  # the markers stand where they stood: so does the board
        if pose is None:
            return None
        clock.lap("corners")
        ids = [s.id for s in self.board.sites]
        if cropped is not None:
            read, self._sweep = set(cropped.plan.read) - set(quiet), cropped.plan.sweep
        else:
            read, self._sweep = self._to_read(changed, self._sweep)
        self._sites_read = read
        found, doubtful = [], []
        # The detector searches each crop with what lies beyond the sites' wider rings blanked (the board's print
        # between the sites read, several dozen squares of a sticker's size in ORBIT's crops, cost its search most
        # of its time and read nothing); codes are matched in the crop as it is.
        # Sites whose stickers are searched at one scale share crops: a few far sites whose stickers need the
        # region enlarged do not enlarge the sweep's whole crop with them.
        for group in self._by_scale(pose, read):
            wider = self._site_pixels(pose, colour.shape, group, wider=True)
            for x0, y0, x1, y1 in site_boxes(self._site_pixels(pose, colour.shape, group), colour.shape):
                gray = self._fused(colour, None, (x0, y0, x1, y1))
                least = self._least_side(pose, group, (x0, y0, x1, y1))
                more, seen = self._decode(gray, (x0, y0), pose, least, blank_outside(gray, wider, (x0, y0)))
                found.extend(more)
                doubtful.extend(seen)
        sightings, dropped, doubted = self._trace(distinct(found), pose, time)
        rejected = len(dropped)
        # A site keeps the last reading's doubt until it is read again.
        doubtful_sites, unread_off_site = self._doubtful_sites(doubtful + dropped, pose)
        fresh_unread = doubtful_sites | doubted | (self._illegible(pose, read) - {s.site for s in sightings})
        unread = (fresh_unread & read) | {
            site for r in last.unreliable if r.reason == UNREAD for site in r.sites if site not in read
        }
        clock.lap("stickers in crops")
        near = self._site_xy[[i for i, site in enumerate(ids) if site in read]]
        reach = self._tolerance + self._sticker_reach
        if self._colour:  # in top-down windows round the same sites, as far out as a piece read afresh may stand
            sightings = sightings + self._find_by_colour(colour, pose, sightings, time, self._colour_windows(read))
            clock.lap("colour in crops")
        # Sites read now take what this frame shows; the others keep the last report's reading. A piece off every
        # site is read afresh within a sticker's reach of a site read, and kept from the last reading further out.

        def close_to(x: float, y: float) -> bool:
            return float(np.hypot(*(near - (x, y)).T).min(initial=np.inf)) <= reach

        def close(s: Sighting) -> bool:
            return close_to(s.x, s.y)

        kept = tuple(s for s in last.sightings if s.site not in read and (s.site is not None or not close(s)))
        fresh = tuple(s for s in sightings if s.site in read or (s.site is None and close(s)))
        # Stickers seen but not read off every site: likewise, afresh near the sites read, kept from the last further.
        unread_off_site = [r for r in unread_off_site if close_to(*_centre(r))] + [
            r for r in last.unreliable if r.reason == UNREAD and not r.sites and not close_to(*_centre(r))
        ]
        overview = None if cropped is None else cropped.overview
        regions = (
            self._unreliable_regions(colour, pose, corners, overview) + self._unread_regions(unread) + unread_off_site
        )
        clock.lap("unreliable")
        hidden = {s for r in regions for s in r.sites}
        out = tuple(s if s.site not in hidden else _replace_confidence(s, s.confidence * 0.8) for s in fresh + kept)
        return FrameReport(
            time,
            True,
            "",
            tuple(sorted(out, key=lambda s: (s.site or "~", s.level, s.piece))),
            tuple(regions),
            False,
            tuple(sorted(f.id for f in corners)),
            reprojection,
            rejected,
            clock.laps,
            self.identifies,
        )

    def _colour_windows(self, read: Collection[str]) -> list[tuple[int, int, int, int]]:
        """The top-down windows pieces are found by colour in round the sites read: as far out as a piece read
        afresh may stand."""
        near = [(s.x, s.y) for s in self.board.sites if s.id in read]
        return windows_around(self.board, near, self._tolerance + self._sticker_reach + self._colour.margin_mm())

    def _site_pixels(
        self, pose: Pose, shape: tuple[int, ...], sites: Collection[str], wider: bool = False
    ) -> list[np.ndarray]:
        """For each site in name order, the frame pixels of the ring within which a sticker of a piece on it may lie
        (at board level and at the tallest stack's height); `wider`: the ring a sticker read afresh round it may lie
        within (`_search_ring`)."""
        return list(self._rings(pose, wider)[[self._site_index[s] for s in sorted(sites)]])

    def _rings(self, pose: Pose, wider: bool = False) -> np.ndarray:
        """`_site_pixels` of every site, in the board's site order (kept while the pose stands)."""
        rings = self._search_ring if wider else self._reach_ring
        return self._pose_value(
            pose,
            "search rings" if wider else "reach rings",
            lambda: pose.project(rings.reshape(-1, 3), self.matrix, self.dist).reshape(len(rings), -1, 2),
        )

    def _pose_value(self, pose: Pose, name: str, make: Callable[[], Any]) -> Any:
        """`make()`, worked out from `pose` alone, kept while the pose stays the same to the bit (the same board
        points projected through it give the same pixels); a new pose drops every value kept."""
        key = (pose.rvec.tobytes(), pose.tvec.tobytes())
        kept_key, values = self._per_pose
        if kept_key != key:
            values = {}
        if name not in values:
            values = {**values, name: make()}  # (a new dict: a copy of the pipeline keeps its own)
        self._per_pose = (key, values)
        return values[name]

    # -- the board
    def _find_corners(self, gray: np.ndarray, markers: FrameMarkers) -> dict:
        """Visible board fiducials -> their four corners in full-frame pixels.

        With a kept pose, each marker is looked for only near where it was (cheap: the board has not moved while
        they turn up there); the whole frame is searched when fewer than three do (the board moved, or no pose
        yet). The whole-frame search keeps the frame's pixels (a shrunk frame shrinks the markers below what
        decodes at 720p or under tilt); only frames over CORNER_SEARCH_LINES high are shrunk to that.
        """
        unchanged = self._unchanged_markers(gray)
        if len(unchanged) >= MIN_FRESH_MARKERS:
            self._measure_frame_blur(gray, unchanged)
            return unchanged
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
            for dictionary, detector in self._corner_detectors.items():
                for marker_id, c in markers.whole(dictionary, detector):
                    fid = self._fiducials.get((dictionary, marker_id))
                    if fid is not None:
                        found.setdefault(fid, c)
        # A blurred marker's corner is rounded off: its four edges, fitted as lines through their halfway points,
        # meet where the corner was (a 4 x 4 marker's border is a sixth of its side, as a sticker's is).
        refined = {fid: fit_edges(gray, c) for fid, c in found.items()}
        self._marker_looks = {
            fid: (c, look) for fid, c in refined.items() if (look := _marker_look(gray, c)) is not None
        }
        blurs = [b for c in refined.values() if (b := edge_blur(gray, c)) is not None]
        if blurs:
            self.blur_px = float(np.median(blurs))
        self._measure_frame_blur(gray, refined)
        return refined

    def _measure_frame_blur(self, image: np.ndarray, corners: dict) -> None:
        """`frame_blur_px` from the markers this frame was placed by (a patch round each, made gray where the frame
        is in colour): the median of their worst directions' blur, never under the lens's. Three markers are enough
        (one spoiled by a hand still leaves the median right) and cost about 1 ms each."""
        patches = []
        for c in list(corners.values())[:3]:
            x0, y0, x1, y1 = _blur_box(c, image.shape[:2])
            patch = image[y0:y1, x0:x1]
            if patch.ndim == 3:
                patch = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
            if patch.size:
                patches.append((patch, c - (x0, y0)))
        blurs = [b for b in worst_blurs(patches, self.blur_px) if b is not None]
        self.frame_blur_px = max(self.blur_px, float(np.median(blurs))) if blurs else self.blur_px

    def _unchanged_markers(self, gray: np.ndarray) -> dict:
        """The markers that look as they did where they were last found (a small patch each, compared with a
        normalised correlation, which light and white balance do not change): the board has not moved, and their
        corners stand. Far cheaper than decoding them again."""
        out = {}
        for fid, (corners, look) in self._marker_looks.items():
            now = _marker_look(gray, corners)
            if now is not None and float(np.dot(now, look)) >= SAME_LOOK:
                out[fid] = corners
        return out

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
                return (
                    None,
                    False,
                    error,
                    (
                        f"camera profile {self.profile.camera!r} does not fit this camera "
                        f"(corner reprojection error {error:.1f} px)"
                    ),
                )
            moved = kept is not None and self._shift_mm(kept, pose) > self.move_tolerance_mm
            self._pose = pose
            return pose, moved, error, ""
        if not corners:
            return None, False, None, f"no corner markers of board {self.board.name!r} visible"
        if kept is None:
            return (
                None,
                False,
                None,
                (f"only {len(corners)} corner marker(s) visible and no earlier pose to check them against"),
            )
        obj = np.concatenate([fiducial_corners(f) for f in corners])
        img = np.concatenate(list(corners.values()))
        traced = kept.to_board(img, 0.0, self.matrix, self.dist)
        if float(np.max(np.linalg.norm(traced - obj[:, :2], axis=1))) > self.move_tolerance_mm:
            return None, True, None, (f"the board or camera moved and only {len(corners)} corner marker(s) are visible")
        return kept, False, None, ""

    def _shift_mm(self, old: Pose, new: Pose) -> float:
        """How far board points seen through the old pose land from where the new pose puts them."""
        corners = np.array(
            [(0, 0, 0), (self.board.width, 0, 0), (self.board.width, self.board.height, 0), (0, self.board.height, 0)],
            np.float64,
        )
        pixels = old.project(corners, self.matrix, self.dist)
        return float(np.max(np.linalg.norm(new.to_board(pixels, 0.0, self.matrix, self.dist) - corners[:, :2], axis=1)))

    # -- the pieces
    def _find_pieces(
        self, gray: np.ndarray, pose: Pose, time: float
    ) -> tuple[tuple[Sighting, ...], int, set[str], list[Region]]:
        """The board's pieces, how many stickers were rejected, the sites where a sticker was seen but not read, and
        an unread region for each such sticker off every site."""
        x0, y0, x1, y1 = self._board_box(pose, gray.shape)
        found, doubtful = self._decode(self._fused(None, gray, (x0, y0, x1, y1)), (x0, y0), pose)
        sightings, rejected, doubted = self._trace(found, pose, time)
        sites, off_site = self._doubtful_sites(doubtful + rejected, pose)
        return sightings, len(rejected), sites | doubted, off_site

    def _decode(
        self,
        roi: np.ndarray,
        origin: tuple[int, int],
        pose: Pose,
        least_px: float | None = None,
        searched: np.ndarray | None = None,
    ) -> tuple[list[tuple[PieceEntry, np.ndarray, float]], list[np.ndarray]]:
        """The registry's stickers in a gray region whose top-left is `origin` in the frame: (entry, corners in
        frame pixels, quality of the reading 0-1), and the squares that look like stickers but whose code could not
        be told (corners in frame pixels). `least_px`: the smallest sticker side (px) the region may show, where it
        is known (a crop round a few sites); None: the smallest anywhere on the board. `searched`: the region as the
        detector searches it (a crop with what lies beyond its sites blanked); None: as it is.

        Every square is read again by matching codes drawn with the lens's blur (vision_decode.py): a code the
        detector decoded stands when the match agrees (its lead over the next code is the reading's quality), and a
        sticker-sized square the detector could not decode is read when one code matches clearly. A square whose
        border and margin are a sticker's but whose code is not clear is a sticker seen and not read: doubtful."""
        x0, y0 = origin
        detector, (per_lo, per_hi) = self._fitted_detector(pose, roi.shape)
        # The squares are searched for at a scale that suits the detector's thresholds: stickers under about
        # UPSCALE_BELOW_PX a side lose cells to them, so the region is enlarged twice; stickers over
        # DOWNSCALE_ABOVE_PX (a 12 MP frame's) keep cells of several pixels in the region halved, a quarter of the
        # pixels to threshold (the perimeter limits are rates of the region's size, so one fitted detector serves
        # every scale). Codes are then matched in the region as it is, every pixel it has. The scale suits the
        # stickers the region holds: a crop near the lens of a tilted camera is not enlarged for the far corner's.
        up = _search_scale(per_lo / 4 / 0.6 if least_px is None else least_px)
        source = roi if searched is None else searched
        search = (
            source
            if up == 1
            else cv2.resize(source, None, fx=up, fy=up, interpolation=cv2.INTER_CUBIC if up > 1 else cv2.INTER_AREA)
        )
        marker_corners, ids, candidates = detector.detectMarkers(search)
        decoded = [
            (int(i), c.reshape(4, 2).astype(np.float64))
            for c, i in zip(marker_corners, [] if ids is None else ids.ravel(), strict=True)
        ]
        sigma = self.blur_px

        def in_roi(c: np.ndarray) -> np.ndarray:
            return (c.reshape(4, 2).astype(np.float64) + 0.5) / up - 0.5

        # Each candidate's outlines: the square the detector found or, where it kept only the outer one, the white
        # margin's edge (a third wider) taken in; those of a sticker's size are read, where their white margin and
        # black border look like a sticker's at a glance (`CodeBook.rings`; NaN: too near the region's edge to
        # tell, so read). Most squares a board's print makes (ORBIT's: several dozen in a crop of a few sites) end
        # here, all of them for a few array operations, where a reading takes two fits and the code book each.
        found = (np.array(candidates, np.float64).reshape(-1, 4, 2) + 0.5) / up - 0.5  # in the region's pixels
        centres = found.mean(axis=1, keepdims=True)
        tries = np.stack([found, centres + (found - centres) * 0.75], axis=1)  # (candidates, 2, 4, 2)
        sides = side_lengths(tries).mean(axis=2)
        sized = (per_lo <= 4 * sides) & (4 * sides <= per_hi) & _squarish(tries)
        glance = np.full(sides.shape, np.nan)
        glance[sized] = self._book.rings(roi, tries[sized], sigma)
        outlines: list[list[np.ndarray]] = [
            [tries[i, j] for j in range(2) if sized[i, j] and not glance[i, j] < RING_AT_A_GLANCE]
            for i in range(len(tries))
        ]
        decoded += self._second_look(search, candidates, decoded, per_lo * up, per_hi * up, outlines)

        read: list[tuple[int, np.ndarray, float]] = []
        doubtful: list[np.ndarray] = []
        taken: list[tuple[np.ndarray, float]] = []  # squares accounted for: centre and side
        for marker_id, found_at in decoded:
            c = in_roi(found_at)
            if not _squarish(c[None])[0]:  # a sliver (a piece's dark side under its sticker) the detector decoded
                continue
            # The detector's corners are good: look there first, and about them only when the codes disagree.
            match = self._book.match(roi, c, sigma, self._codes, refine=False)
            if match is not None and (match.marker_id != marker_id or match.quality < MATCH_QUALITY):
                match = self._book.match(roi, fit_edges(roi, c), sigma, self._codes)
            taken.append((c.mean(axis=0), _side(c)))
            if match is None:  # too near the region's edge to sample its margin: the detector's word alone
                read.append((marker_id, c, 0.5))
            elif match.marker_id == marker_id and match.quality >= AGREED_QUALITY:
                read.append((marker_id, c, match.quality))
            else:  # two readings of one square disagree, or barely agree: a sticker seen, its code not known
                doubtful.append(c)
        avoid = self._fiducial_outlines(pose, origin)
        matches = []
        for index, quad in enumerate(candidates):
            if not outlines[index]:  # (most: no sticker at a glance)
                continue
            centre = in_roi(quad).mean(axis=0)
            if any(
                cv2.pointPolygonTest(outline, (float(centre[0]), float(centre[1])), False) >= 0 for outline in avoid
            ):
                continue
            for q in outlines[index]:
                side = _side(q)
                if any(math.dist(centre, c) < max(side, s) / 2 for c, s in taken):
                    continue
                match = read_square(self._book, roi, q, sigma, self._codes, (AGREED_QUALITY, MATCH_SCORE))
                if match is not None and match.ring >= STICKER_RING:
                    matches.append((match, q))
                    break
        # One square often shows as several outlines (each threshold finds its own): the clearest reading of a place
        # stands for it.
        for match, q in sorted(matches, key=lambda m: -m[0].quality):
            centre, side = q.mean(axis=0), _side(q)
            if any(math.dist(centre, c) < max(side, s) / 2 for c, s in taken):
                continue
            taken.append((centre, side))
            if match.score >= MATCH_SCORE and match.quality >= MATCH_QUALITY:
                read.append((match.marker_id, match.corners, match.quality))
            else:
                doubtful.append(q)
        shift = np.array([x0, y0], np.float64)
        found = [
            (self._stickers[marker_id], c + shift, quality)
            for marker_id, c, quality in read
            if marker_id in self._stickers
        ]
        return found, [c + shift for c in doubtful]

    def _fused(self, colour: np.ndarray | None, gray: np.ndarray | None, box: tuple[int, int, int, int]) -> np.ndarray:
        """The gray region `box` of the frame (given as colour or already gray), averaged with the same region of
        the frames to fuse (`process`'s `more`)."""
        x0, y0, x1, y1 = box

        def gray_of(frame: np.ndarray) -> np.ndarray:
            crop = frame[y0:y1, x0:x1]
            return crop if crop.ndim == 2 else cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)

        first = gray[y0:y1, x0:x1] if gray is not None else gray_of(colour)
        if not self._more:
            return first
        base = first.astype(np.float32)
        total, count = base.copy(), np.ones_like(base)
        for other in self._more:
            crop = gray_of(other).astype(np.float32)
            # Only where the frame shows what this one does: a piece set down between them where no switch felt it
            # (a map on no grid, a counter onto another) or a grid's change between two frames read is not averaged in.
            alike = _alike(base, crop)
            total += crop * alike
            count += alike
        return cv2.convertScaleAbs(total / count)

    def _fiducial_outlines(self, pose: Pose, origin: tuple[int, int]) -> list[np.ndarray]:
        """The board's corner markers' outlines in a region's pixels: their cells make squares of a sticker's size
        and kind of code, never a piece's."""
        corners = self._pose_value(
            pose,
            "markers",
            lambda: [pose.project(fiducial_corners(fid), self.matrix, self.dist) for fid in self.board.fiducials],
        )
        return [(c - origin).astype(np.float32) for c in corners]

    def _doubtful_sites(self, doubtful: list[np.ndarray], pose: Pose) -> tuple[set[str], list[Region]]:
        """The sites a sticker seen but not read may stand on: its centre traced at every height a sticker may
        stand at (the lowest piece's top to the tallest stack's), each site within the tolerance of the trace; and
        for each such sticker that lies near no site at any height (a piece set down off every site), an unread
        region of no site where it lies on the lowest piece's top, so that its miss is said, not silent."""
        if not doubtful:
            return set(), []
        heights = np.linspace(min(e.height for e in self.registry.entries), max(self._tallest, 1.0), 4)
        out: set[str] = set()
        off_site = []
        for quad in doubtful:
            centre = np.repeat(quad.mean(axis=0, keepdims=True), len(heights), axis=0)
            near = {
                self._nearest_site(float(x), float(y))[0]
                for x, y in pose.to_board(centre, heights, self.matrix, self.dist)
            }
            out |= near - {None}
            if near == {None}:
                corners = pose.to_board(quad.reshape(4, 2), np.full(4, heights[0]), self.matrix, self.dist)
                off_site.append(Region(UNREAD, tuple((float(x), float(y)) for x, y in corners), ()))
        return out, off_site

    def _site_sides(self, pose: Pose) -> np.ndarray:
        """Each site's smallest sticker side in pixels, in the board's site order (vision_legibility.site_sides),
        kept while the pose stands."""
        key = tuple(np.round(np.concatenate([pose.rvec * 1000, pose.tvec]), 0))
        if self._sides is None or self._sides[0] != key:
            self._sides = (key, site_sides(self.board, self.registry, pose, self.matrix, self.dist))
        return self._sides[1]

    def _least_side(self, pose: Pose, read: Collection[str], box: Box) -> float | None:
        """The smallest sticker side (px) a crop `box` of the frame may show: that of the read sites it holds (their
        projected centres in it), less the few per cent a piece off its site's centre or turned may lose; None when
        it holds none of them."""
        x0, y0, x1, y1 = box
        index = [i for i, s in enumerate(self.board.sites) if s.id in read]
        board_level = np.column_stack([self._site_xy, np.zeros(len(self._site_xy))])
        centres = self._pose_value(pose, "centres", lambda: pose.project(board_level, self.matrix, self.dist))[index]
        inside = (centres[:, 0] >= x0) & (centres[:, 0] < x1) & (centres[:, 1] >= y0) & (centres[:, 1] < y1)
        if not inside.any():
            return None
        return SITE_SIDE_SHARE * float(self._site_sides(pose)[np.array(index)[inside]].min())

    def _by_scale(self, pose: Pose, read: Collection[str]) -> list[set[str]]:
        """The sites to read in two groups: those whose stickers are searched enlarged (`_search_scale` of each
        site's smallest sticker, as `_least_side` takes it), and the rest (a crop of sites at the frame's scale and
        halved is searched at the frame's: a crop more costs more than the halving saves)."""
        enlarged = SITE_SIDE_SHARE * self._site_sides(pose) < UPSCALE_BELOW_PX  # (`_search_scale` over 1)
        groups: dict[bool, set[str]] = {}
        for site in read:
            if (i := self._site_index.get(site)) is not None:
                groups.setdefault(bool(enlarged[i]), set()).add(site)
        return [groups[key] for key in sorted(groups)]

    def _illegible(self, pose: Pose, sites: Collection[str]) -> set[str]:
        """Of `sites`, those where this frame would not reliably read a sticker (too small for its blur, the sway's
        smear included: vision_legibility.py): a sticker missed there must not make the site read as empty."""
        wanted = set(sites)
        return {
            s.id
            for s, side in zip(self.board.sites, self._site_sides(pose), strict=True)
            if s.id in wanted and not legible(float(side), self.blur_px, self.frame_blur_px)
        }

    def _unread_regions(self, sites: set[str]) -> list[Region]:
        """A region for each site where a sticker was seen whose code could not be read: unknown, never empty."""
        out = []
        for site in sorted(sites):
            s = self.board.site(site)
            r = self._tolerance
            out.append(
                Region(
                    UNREAD, ((s.x - r, s.y - r), (s.x + r, s.y - r), (s.x + r, s.y + r), (s.x - r, s.y + r)), (site,)
                )
            )
        return out

    def _trace(
        self, found: list[tuple[PieceEntry, np.ndarray, float]], pose: Pose, time: float
    ) -> tuple[tuple[Sighting, ...], list[np.ndarray], set[str]]:
        """Decoded stickers traced to the board: the pieces' sightings, the stickers rejected (their corners): a
        sticker whose traced size is not its kind's, or whose reading is not confident enough, is a sticker seen
        whose piece is not known; and the sites whose reading a sticker leaves in doubt: a rider whose base was not
        read may stand docked on any site its sticker lies over (it is placed by its own sticker only where that is
        one site), and a piece off every site at its own height may be a stack's top on a site its trace passes
        over higher up."""
        if not found:
            return (), [], set()
        quality = [q for _, _, q in found]
        found = [(e, c) for e, c, _ in found]
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
        doubted: set[str] = set()
        docked: set[int] = set()  # riders that may be docked on a base not read, on more than one site
        if self.registry.stacking == "on top":
            # A piece whose sticker is read cannot be hidden under another: stacks are made of the box's others.
            seen = Counter(e.piece for e, _ in found)
            spare = []
            for e in self.registry.entries:
                seen[e.piece] -= 1
                if seen[e.piece] < 0:
                    spare.append(e.id)
            for i, (entry, corners_px) in enumerate(found):
                if not entry.is_base and i not in carrier:
                    traced[i], centres[i], under = self._on_a_stack(entry, corners_px, pose, spare)
                    doubted |= under
        else:
            for i, (entry, corners_px) in enumerate(found):
                if not entry.is_base and i not in carrier and (on := self._docked_on(entry, corners_px, pose)):
                    site, _ = self._nearest_site(*centres[i][0])
                    if on - {site}:
                        docked.add(i)
                        doubted |= on
        sightings, rejected = [], []
        sites: dict[int, tuple[str | None, float]] = {}
        illegible = functools.cache(lambda: self._illegible(pose, {s.id for s in self.board.sites}))
        for i, (entry, _) in enumerate(found):
            if i in docked:
                continue
            (cx, cy), side = centres[i]
            size_error = abs(side / entry.sticker_mm - 1)
            if size_error > SIZE_TOLERANCE:
                rejected.append(found[i][1])  # a sticker at the wrong height or a misread: not this piece
                continue
            if i in carrier:
                site, distance = sites.get(carrier[i]) or self._nearest_site(*centres[carrier[i]][0])
                level = 1
            else:
                site, distance = self._nearest_site(cx, cy)
                level = 0
            sites[i] = (site, distance)
            if quality[i] < MATCH_QUALITY and site is not None and site in illegible():
                rejected.append(found[i][1])  # a code barely told where this frame reads no sticker reliably
                continue
            confidence = (1 - size_error) * (1 - 0.3 * min(1.0, distance / self._tolerance) if site else 1.0)
            confidence *= 0.5 + 0.5 * quality[i]  # the code's lead over the next (the decode margin)
            if confidence < MIN_CONFIDENCE:
                rejected.append(found[i][1])
                continue
            sightings.append(
                (
                    i,
                    Sighting(
                        entry.piece,
                        entry.sticker,
                        site,
                        level,
                        float(cx),
                        float(cy),
                        float(confidence),
                        time,
                        _turn(traced[i]),
                    ),
                )
            )
        # More of a kind than the box holds: the surplus, least sure, are misreads (stickers seen, not known), and
        # the rest are less sure for it.
        kept = []
        for piece in {s.piece for _, s in sightings}:
            group = sorted((pair for pair in sightings if pair[1].piece == piece), key=lambda pair: -pair[1].confidence)
            box = self._kind_count[piece]
            rejected += [found[i][1] for i, _ in group[box:]]
            kept += [_replace_confidence(s, s.confidence * 0.5) if len(group) > box else s for _, s in group[:box]]
        return tuple(sorted(kept, key=lambda s: (s.site or "~", s.level, s.piece, s.x, s.y))), rejected, doubted

    def _docked_on(self, entry: PieceEntry, corners_px: np.ndarray, pose: Pose) -> set[str]:
        """The sites a rider (riders stacking beside) whose base was not read may stand docked on: the sites whose
        base, of any kind, would reach under it, traced at the height of a rider on the tallest base."""
        bases = [e for e in self.registry.entries if e.is_base]
        if not bases:
            return set()
        height = max(e.height for e in bases) + entry.height
        (x, y), _ = self._piece_centre(entry, pose.to_board(corners_px, height, self.matrix, self.dist))
        reach = max(e.radius for e in bases)
        return {self.board.sites[i].id for i in np.flatnonzero(np.hypot(*(self._site_xy - (x, y)).T) <= reach)}

    def _fitted_detector(
        self, pose: Pose, shape: tuple[int, ...]
    ) -> tuple[cv2.aruco.ArucoDetector, tuple[float, float]]:
        """The sticker detector with its perimeter limits set to the stickers' size in this view, and those limits.

        Most of detectMarkers' time goes on contours that cannot be stickers; from the pose the sticker's size in
        pixels is known (smallest at board level far out, largest on a stack under the lens), so contours far off
        it are dropped before they are examined (measured: 10.6 -> 4.8 ms at 720p, same stickers found).
        """
        key = tuple(np.round(np.concatenate([pose.rvec * 1000, pose.tvec]), 0))
        if self._fitted is None or self._fitted[0] != key:
            # The smallest sticker at board level far out, the largest on the tallest stack.
            low = min(e.height for e in self.registry.entries)
            spots = [
                (x, y)
                for x in (0, self.board.width / 2, self.board.width)
                for y in (0, self.board.height / 2, self.board.height)
            ]
            bounds = []
            for side, z in zip(self.registry.sticker_sizes(), (low, self._tallest), strict=True):
                h = side / 2
                pts = np.array(
                    [(x + dx, y + dy, z) for x, y in spots for dx, dy in ((-h, -h), (h, -h), (h, h), (-h, h))],
                    np.float64,
                )
                px = pose.project(pts, self.matrix, self.dist).reshape(-1, 4, 2)
                bounds.append(np.linalg.norm(px - np.roll(px, 1, axis=1), axis=2).sum(axis=1))
            self._fitted = (key, (0.6 * float(bounds[0].min()), 1.5 * float(bounds[1].max())), {})
        _, (per_lo, per_hi), detectors = self._fitted
        longest = max(shape[:2])
        if longest not in detectors:  # the limits are rates of the region's longest side
            params = self._sticker_detector.getDetectorParameters()
            params.minMarkerPerimeterRate = per_lo / longest
            params.maxMarkerPerimeterRate = min(4.0, per_hi / longest)
            detectors[longest] = cv2.aruco.ArucoDetector(self._sticker_detector.getDictionary(), params)
        return detectors[longest], (per_lo, per_hi)

    def _second_look(
        self,
        roi: np.ndarray,
        candidates: tuple,
        decoded: list[tuple[int, np.ndarray]],
        per_lo: float,
        per_hi: float,
        outlines: list[list[np.ndarray]],
    ) -> list[tuple[int, np.ndarray]]:
        """Sticker-sized squares that failed to decode, read again from a sharpened patch.

        A sticker only about 20 px wide loses its lone white cells to the lens blur (they read darker than the
        marker's threshold), and 16h5 may correct just one bit without misreads (at two, plain squares decode as
        stickers). Sharpening the patch restores those cells; only failed candidates that look like a sticker at a
        glance (have `outlines`, by the candidate's index) pay for it.
        """
        out: list[tuple[int, np.ndarray]] = []
        centres = [c.mean(axis=0) for _, c in decoded]
        side = per_lo / 4 / 0.6
        half = math.ceil(side * 1.1)
        for index, quad in enumerate(candidates):
            if not outlines[index]:
                continue
            q = quad.reshape(4, 2).astype(np.float64)
            perimeter = float(side_lengths(q).sum())
            centre = q.mean(axis=0)
            if not per_lo <= perimeter <= per_hi or any(math.dist(centre, c) < side for c in centres):
                continue
            px0, py0 = int(centre[0]) - half, int(centre[1]) - half
            if px0 < 0 or py0 < 0 or px0 + 2 * half > roi.shape[1] or py0 + 2 * half > roi.shape[0]:
                continue
            patch = roi[py0 : py0 + 2 * half, px0 : px0 + 2 * half]
            sharp = cv2.addWeighted(patch, 2.0, cv2.GaussianBlur(patch, (0, 0), 1.5), -1.0, 0)
            corners, ids, _ = self._patch_detector.detectMarkers(sharp)
            for c, marker_id in zip(corners, [] if ids is None else ids.ravel(), strict=True):
                c = c.reshape(4, 2).astype(np.float64) + np.array([px0, py0], np.float64)
                if math.dist(c.mean(axis=0), centre) < side / 2:
                    out.append((int(marker_id), c))
                    centres.append(c.mean(axis=0))
        return out

    def _find_by_colour(
        self,
        image: np.ndarray,
        pose: Pose,
        stickered: tuple[Sighting, ...],
        time: float,
        windows: list[tuple[int, int, int, int]] | None = None,
    ) -> tuple[Sighting, ...]:
        """Unmarked pieces by colour; a blob where a stickered piece was seen is that piece, not another."""
        taken = [(s.x, s.y, self.registry.kind(s.piece).radius) for s in stickered]
        by_colour: dict[str, list[tuple[str | None, float, float, float, float]]] = {}
        for blob in self._colour.blobs(image, pose, self.matrix, self.dist, windows):
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
                out.append(Sighting(entry.piece, None, site, 0, float(x), float(y), float(confidence), time))
        return tuple(out)

    def _on_a_stack(
        self, entry: PieceEntry, corners_px: np.ndarray, pose: Pose, spare: Collection[str] | None = None
    ) -> tuple[np.ndarray, tuple[tuple[float, float], float], set[str]]:
        """A piece that may top a stack whose lower pieces are hidden under it: of the heights it may stand at (on
        the board, up to the top of the tallest stack), the lowest that puts it on a site; on the board when none
        does. Its traced position slides towards the camera's nadir as the height grows, by about 17 mm at ORBIT's
        board edge for a planet and three ships, while sites lie 31 mm or more apart: one site fits best.

        A piece off every site at its own height is a lone piece off the board's sites or a tall stack's top at the
        board's edge: it is put on a site only where the top of a stack the box can make (`_stack_tops`) lands
        squarely on it (within a third of the site tolerance), never where its trace merely passes near a site
        higher up; otherwise it stands off every site, placed by its own sticker at its own height, and the sites
        its trace passes higher up are returned, left in doubt. `spare`: the box's pieces (entry ids) that may be
        under it, those whose stickers the frame reads elsewhere left out (None: all of them); from a camera tilted
        off the board's middle a piece's trace slides 50 mm and more up a tall stack's height, over a site or two,
        and only the stacks these pieces can make are heights it may stand at."""
        tops = self._stack_tops(entry, spare)
        low, high = entry.height, max([entry.height, *tops])
        at_low = self._piece_centre(entry, pose.to_board(corners_px, low, self.matrix, self.dist))[0]
        at_high = self._piece_centre(entry, pose.to_board(corners_px, high, self.matrix, self.dist))[0]
        start, slide = np.array(at_low), np.subtract(at_high, at_low)
        along = np.clip((self._site_xy - start) @ slide / max(float(slide @ slide), 1e-9), 0.0, 1.0)
        gaps = np.linalg.norm(self._site_xy - (start + along[:, None] * slide), axis=1)
        # Of the sites it may stand on, the lowest stack: a lone ship beside the board's edge also lines up, higher
        # up, with a site nearer the middle (its slide passes over it), but a stack's top traced at board level lands
        # 17 mm at most off its own site, short of the next site out.
        fits = np.flatnonzero(gaps <= self._tolerance)
        if float(np.hypot(*(self._site_xy - start).T).min()) <= self._tolerance:
            height = low + float(along[fits].min()) * (high - low) if fits.size else low
            traced = pose.to_board(corners_px, height, self.matrix, self.dist)
            return traced, self._piece_centre(entry, traced), set()
        for height in tops:
            traced = pose.to_board(corners_px, height, self.matrix, self.dist)
            centre = self._piece_centre(entry, traced)
            if float(np.hypot(*(self._site_xy - centre[0]).T).min()) <= self._tolerance / 3:
                return traced, centre, set()
        traced = pose.to_board(corners_px, low, self.matrix, self.dist)
        return traced, self._piece_centre(entry, traced), {self.board.sites[i].id for i in fits}

    def _stack_tops(self, entry: PieceEntry, spare: Collection[str] | None = None) -> list[float]:
        """The heights a piece's top may stand at on stacks the box can make (pieces stacking on top) of the pieces
        `spare` names (the entry ids of those that may be under it; None: every piece of the box): at most one
        piece of each lower layer under it, bottom to top, and as many pieces of its own layer as are spare, up to
        the tallest stack; lowest first, its own height left out."""
        wanted = None if spare is None else set(spare)
        pieces = [e for e in self.registry.entries if wanted is None or e.id in wanted]
        supports = {0.0}
        for layer in sorted({e.layer for e in pieces if e.layer < entry.layer}):
            heights = {e.height for e in pieces if e.layer == layer}
            supports |= {s + h for s in supports for h in heights}
        top = max(self._tallest, entry.height) + 0.5
        riders = [e.height for e in pieces if e.layer == entry.layer]
        if spare is None:  # any number of each height of its own layer, as many as the tallest stack takes
            riders = [h for h in set(riders) for _ in range(int(top // h))]
        still = None  # a height that added nothing: adding it again adds nothing either (a box of many counters)
        for h in riders:  # each piece under it once at most
            if h == still:
                continue
            more = {s + h for s in supports if s + h + entry.height <= top}
            still = h if more <= supports else None
            supports |= more
        return sorted(s + entry.height for s in supports if s > 0 and s + entry.height <= top)

    @staticmethod
    def _piece_centre(entry: PieceEntry, traced: np.ndarray) -> tuple[tuple[float, float], float]:
        """The piece's centre from its sticker's corners in mm (the sticker may sit off-centre), and the side."""
        up = (traced[0] - traced[3]) + (traced[1] - traced[2])
        up /= max(float(np.linalg.norm(up)), 1e-9)
        centre = traced.mean(axis=0) + entry.sticker_offset * up
        side = float(side_lengths(traced).mean())
        return (float(centre[0]), float(centre[1])), side

    def _nearest_site(self, x: float, y: float) -> tuple[str | None, float]:
        distances = np.hypot(self._site_xy[:, 0] - x, self._site_xy[:, 1] - y)
        index = int(np.argmin(distances))
        if distances[index] > self._tolerance:
            return None, float(distances[index])
        return self.board.sites[index].id, float(distances[index])

    def _board_box(self, pose: Pose, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
        """The pixel box holding every sticker a piece on the board (or on an edge site) can show, quiet zone included.

        Pieces overhang the board: a ship docked on a planet at an outer site stands past the board's edge, so the
        box is the board grown by the furthest a sticker can reach beyond it, not the board alone.
        """
        (lo_x, lo_y), (hi_x, hi_y) = self._reach_box
        pts = np.array([(x, y, z) for x in (lo_x, hi_x) for y in (lo_y, hi_y) for z in (0, self._tallest)], np.float64)
        px = pose.project(pts, self.matrix, self.dist)
        x0, y0 = np.floor(px.min(axis=0)).astype(int) - 8
        x1, y1 = np.ceil(px.max(axis=0)).astype(int) + 8
        return max(0, x0), max(0, y0), min(shape[1], x1), min(shape[0], y1)

    # -- what the frame cannot tell
    def shown_in(self, markers: FrameMarkers) -> bool:
        """Whether the frame's whole-frame searches made already (for other boards) found one of this board's
        markers."""
        return any(
            (dictionary, marker_id) in self._fiducials
            for dictionary in self._corner_detectors
            for marker_id, _ in markers.searched(dictionary) or ()
        )

    def arm_over(self, image: np.ndarray) -> bool:
        """Whether an arm reaches in over the board in this frame (of the profile's size), by the occlusion check
        alone, no sticker decoded; False unless the board stands where it was last read (a board that moved is read
        whole to be found again)."""
        pose = self._pose
        if pose is None or not self.stands(image):
            return False
        self._occluded_last = None
        found = self._occluded(image, pose)
        arm = any(sites for _, sites in self._occlusion.regions(found[0]))
        if not arm:
            self._occluded_last = (weakref.ref(image), pose, found)
        return arm

    def _occluded(
        self, colour: np.ndarray, pose: Pose, overview: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The occlusion check's cells over the board: (hidden by something reaching in, out of the frame); the one
        `arm_over` just made of this very frame where there is one."""
        last, self._occluded_last = self._occluded_last, None
        if overview is None and last is not None and last[0]() is colour and last[1] is pose:
            return last[2]
        frame_shape = colour.shape[:2]
        if overview is not None:
            small, scale = overview, overview.shape[1] / frame_shape[1]
        elif frame_shape[0] > CORNER_SEARCH_LINES:
            # A big frame (12 MP): the check samples its 4 mm cells from the frame itself (a few tens of thousands
            # of pixels, blurred across cells after); shrinking the frame first costs more than a settled change may.
            small, scale = colour, 1.0
        else:  # a quarter-size frame is plenty for the occlusion check's 4 mm cells
            small = cv2.resize(colour, (frame_shape[1] // 4, frame_shape[0] // 4), interpolation=cv2.INTER_AREA)
            scale = 0.25
        return self._occlusion.find(small, scale, pose, self.matrix, self.dist)

    def _unreliable_regions(
        self, colour: np.ndarray, pose: Pose, corners: dict, overview: np.ndarray | None = None
    ) -> list[Region]:
        """What the frame cannot tell: hidden, out of view, round a hidden corner marker. `overview`: the whole
        picture shrunk (a frame holding crops alone), for the occlusion check."""
        frame_shape = colour.shape[:2]
        occluded, out_of_view = self._occluded(colour, pose, overview)
        regions = [
            Region(reason, outline, sites)
            for reason, mask in (("occluded", occluded), ("out of view", out_of_view & ~occluded))
            for outline, sites in self._occlusion.regions(mask)
        ]
        flagged = {site for r in regions for site in r.sites}
        for site, outline in self._edge_sites(pose, frame_shape):
            if site not in flagged:
                regions.append(Region("out of view", outline, (site,)))
        for fid in self.board.fiducials:
            if fid not in corners:
                r = fid.size
                square = (
                    (fid.x - r, fid.y - r),
                    (fid.x + r, fid.y - r),
                    (fid.x + r, fid.y + r),
                    (fid.x - r, fid.y + r),
                )
                sites = tuple(s.id for s in self.board.sites if abs(s.x - fid.x) <= r and abs(s.y - fid.y) <= r)
                regions.append(Region("corner marker hidden", square, sites))
        return regions

    def _edge_sites(self, pose: Pose, shape: tuple[int, int]) -> list[tuple[str, tuple[tuple[float, float], ...]]]:
        """Sites where a piece's sticker may lie partly outside the frame, with the area it may lie in (board mm).

        The board's own cells can be in view while a stack on an outer site is not: a docked piece overhangs the
        board and its top is raised, so its sticker leaves the frame first. A sticker needs its whole white margin
        in the frame to be read, so a site counts as out of view when any point within the furthest reach of a
        sticker from it, at any stack height, falls within EDGE_PX of the frame's edge.
        """
        key = np.concatenate([pose.rvec, pose.tvec / 1000])
        if self._edge_cache is not None and np.max(np.abs(self._edge_cache[0] - key)) < 1e-4:
            return self._edge_cache[1]
        ring = self._reach_ring
        px = pose.project(ring.reshape(-1, 3), self.matrix, self.dist).reshape(len(self.board.sites), -1, 2)
        h, w = shape
        outside = ((px < EDGE_PX) | (px > np.array([w, h]) - 1 - EDGE_PX)).any(axis=2).any(axis=1)
        out = []
        for index in np.flatnonzero(outside):
            site = self.board.sites[index]
            step = ring.shape[1] // 2  # the ring's first half is at board level
            outline = tuple((round(float(x), 1), round(float(y), 1)) for x, y, _ in ring[index, :step])
            out.append((site.id, outline))
        self._edge_cache = (key, out)
        return out

    def _whole_board(self, reason: str) -> Region:
        b = self.board
        return Region(reason, ((0, 0), (b.width, 0), (b.width, b.height), (0, b.height)), tuple(s.id for s in b.sites))


class FrameMarkers:
    """One frame's gray image and its whole-frame marker search, done once however many boards look for theirs in
    it (Orbital Battle's planet maps beside the solar map carry markers of one dictionary, ids apart)."""

    def __init__(self, colour: np.ndarray) -> None:
        self._colour = colour
        self._gray: np.ndarray | None = None
        self._found: dict[str, list[tuple[int, np.ndarray]]] = {}
        self._checks: dict[tuple, tuple[tuple, Any]] = {}

    def once(self, asked: tuple, state: tuple, make: Callable[[], Any]) -> Any:
        """`make()`, a check of this frame (a board's corner markers, its sites' looks), or what it gave when the
        same was asked (`asked`, by value) against the same `state` (the same objects): a table of several boards
        asks whether a board stands and looks as it did before it reads it, and its reading need not look again."""
        kept = self._checks.get(asked)
        if kept is not None and len(kept[0]) == len(state) and all(a is b for a, b in zip(kept[0], state, strict=True)):
            return kept[1]
        value = make()
        self._checks[asked] = (state, value)
        return value

    @property
    def gray(self) -> np.ndarray:
        if self._gray is None:
            c = self._colour
            self._gray = c if c.ndim == 2 else cv2.cvtColor(c, cv2.COLOR_BGR2GRAY)
        return self._gray

    def searched(self, dictionary: str) -> list[tuple[int, np.ndarray]] | None:
        """What the whole-frame search for `dictionary` found, if it was made already (None: not yet)."""
        return self._found.get(dictionary)

    def whole(self, dictionary: str, detector: cv2.aruco.ArucoDetector) -> list[tuple[int, np.ndarray]]:
        """Every marker of `dictionary` in the frame: (id, corners in frame pixels). The search keeps the frame's
        pixels (a shrunk frame shrinks the markers below what decodes at 720p or under tilt); only frames over
        CORNER_SEARCH_LINES high are shrunk to that."""
        if dictionary not in self._found:
            gray = self.gray
            scale = min(1.0, CORNER_SEARCH_LINES / gray.shape[0])
            search = gray if scale == 1.0 else cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
            corners, ids, _ = detector.detectMarkers(search)
            self._found[dictionary] = [
                (int(i), (c.reshape(4, 2).astype(np.float64) + 0.5) / scale - 0.5)
                for c, i in zip(corners, [] if ids is None else ids.ravel(), strict=True)
            ]
        return self._found[dictionary]


class _Clock:
    """Seconds spent in each stage of a frame (FrameReport.timings), to see where the time per frame goes."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = perf_counter()

    def lap(self, name: str) -> None:
        now = perf_counter()
        self.laps[name] = now - self._last
        self._last = now


def _alike(base: np.ndarray, other: np.ndarray) -> np.ndarray:
    """1 where `other` (a gray crop of another frame) shows what `base` does, 0 where it differs: compared in blocks
    of FUSE_BLOCK pixels (the sensor's noise averaged down) once the frames' drift in exposure and white balance (a
    scale and a shift) is fitted away, and a block round each that differs left out as well (a piece's edge half in
    a block)."""
    h, w = base.shape
    size = (-(-w // FUSE_BLOCK), -(-h // FUSE_BLOCK))
    a = cv2.resize(base, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    b = cv2.resize(other, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    a -= float(a.mean())
    gain = float((a * b).sum()) / max(float((a * a).sum()), 1e-6)
    changed = (np.abs(b - float(b.mean()) - gain * a) > FUSE_CHANGE).astype(np.uint8)
    same = 1 - cv2.dilate(changed, np.ones((3, 3), np.uint8))
    return cv2.resize(same, (w, h), interpolation=cv2.INTER_NEAREST).astype(np.float32)


@dataclass(frozen=True)
class _Look:
    """A site's look when it was last decoded. What comparing a later look with it needs is worked out at the first
    comparison and kept: most sites decoded are never compared (the empty ones a change or the sweep reads)."""

    pixels: np.ndarray  # the frame round the site shrunk LOOK_SHRINK times (float32)
    ring: np.ndarray  # where in it a sticker of a piece on the site may lie (bool)

    @functools.cached_property
    def detail(self) -> np.ndarray:
        return _detail(self.pixels)

    @functools.cached_property
    def centred(self) -> np.ndarray:
        return _centred(self.detail, self.ring)

    @functools.cached_property
    def norm(self) -> float:
        return float(np.linalg.norm(self.centred))

    @functools.cached_property
    def envelope(self) -> tuple[np.ndarray, np.ndarray]:
        """The detail's highest and lowest within a cell either way."""
        return _envelope(self.detail)

    def changed(self, now: np.ndarray) -> bool:
        """Whether a later look of the site differs: its detail within the ring correlates with this one's under
        1 - LOOK_CHANGE (a sticker set on, lifted off, turned or moved; not the light's changes), or differs in a
        small part beyond what either shows within a cell (LOOK_STEP: a small sticker come or gone)."""
        if now.shape != self.pixels.shape:
            return True
        detail = _detail(now)
        centred = _centred(detail, self.ring)
        correlation = float(np.vdot(centred, self.centred)) / max(self.norm * float(np.linalg.norm(centred)), 1e-6)
        if 1.0 - correlation > LOOK_CHANGE:
            return True
        (most, least), (top, bottom) = self.envelope, _envelope(detail)
        came = cv2.max(cv2.subtract(detail, most), cv2.subtract(least, detail))
        went = cv2.max(cv2.subtract(self.detail, top), cv2.subtract(bottom, self.detail))
        return cv2.minMaxLoc(cv2.blur(cv2.max(came, went), (2, 2)), self.ring.view(np.uint8))[1] > LOOK_STEP


def _detail(look: np.ndarray) -> np.ndarray:
    """A look's log less its blur at LOOK_DETAIL cells: what its print and stickers show, the light's scale gone."""
    logged = cv2.log(cv2.add(look, LOOK_DARK))
    return cv2.subtract(logged, cv2.GaussianBlur(logged, (DETAIL_KERNEL, DETAIL_KERNEL), LOOK_DETAIL))


def _centred(detail: np.ndarray, ring: np.ndarray) -> np.ndarray:
    """A look's detail within its ring, less its mean there."""
    inside = detail[ring]
    return inside - float(inside.mean()) if inside.size else inside


def _envelope(detail: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    cell = np.ones((3, 3), np.uint8)
    return cv2.dilate(detail, cell), cv2.erode(detail, cell)


def _search_scale(smallest_px: float) -> float:
    """The scale a region is searched for stickers at, from the smallest sticker side (px) it may show."""
    return 2.0 if smallest_px < UPSCALE_BELOW_PX else 0.5 if smallest_px > DOWNSCALE_ABOVE_PX else 1.0


def _squarish(quads: np.ndarray) -> np.ndarray:
    """For each outline (..., 4, 2), whether its shortest side is at least SQUARE_SIDES of its longest."""
    sides = side_lengths(quads)
    return sides.min(axis=-1) >= SQUARE_SIDES * sides.max(axis=-1)


def _side(corners: np.ndarray) -> float:
    return float(side_lengths(corners).mean())


def _replace_confidence(s: Sighting, confidence: float) -> Sighting:
    return Sighting(s.piece, s.sticker, s.site, s.level, s.x, s.y, confidence, s.time, s.turn)


def _look_box(corners: np.ndarray, shape: tuple[int, int] | None = None) -> Box:
    """The pixels a marker's look samples: its bounding box with a little margin (clipped to a frame of `shape`)."""
    return _around(corners, 2, 3, shape)


def _blur_box(corners: np.ndarray, shape: tuple[int, int]) -> Box:
    """The pixels a marker's blur is measured on: its bounding box and as far out as the profiles across its edges
    reach (a cell and a half of its six, and the interpolation's pixel), clipped to a frame of `shape`; a plan's
    parts hold it, so that a settled change's frame measures its own blur too."""
    pad = float(np.ptp(corners, axis=0).max()) / 4 + 3
    return _around(corners, pad, pad, shape)


def _around(corners: np.ndarray, before: float, after: float, shape: tuple[int, int] | None) -> Box:
    """A marker's bounding box grown by `before` px up and left and `after` px down and right, in whole pixels, and
    clipped to a frame of `shape` (None: not clipped)."""
    x0, y0 = (int(v) for v in np.floor(corners.min(axis=0) - before))
    x1, y1 = (int(v) for v in np.ceil(corners.max(axis=0) + after))
    if shape is None:
        return x0, y0, x1, y1
    return max(0, x0), max(0, y0), min(shape[1], x1), min(shape[0], y1)


def _marker_look(gray: np.ndarray, corners: np.ndarray) -> np.ndarray | None:
    """A marker's bounding box (with a little margin) sampled small, zero mean and unit length; None when it is
    flat (covered by something plain) or leaves the frame."""
    x0, y0, x1, y1 = _look_box(corners)
    if min(x0, y0) < 0 or x1 > gray.shape[1] or y1 > gray.shape[0]:
        return None
    patch = gray[y0:y1, x0:x1]
    if patch.ndim == 3:  # a colour frame: only the patch is made gray
        patch = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
    patch = cv2.resize(patch, (LOOK_CELLS, LOOK_CELLS), interpolation=cv2.INTER_AREA)
    v = patch.astype(np.float32).ravel()
    v -= v.mean()
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 1e-3 * v.size else None


def _turn(traced: np.ndarray) -> float:
    """Degrees counter-clockwise from the board's +y to a sticker's top edge direction, from its traced corners
    (top-left, top-right, bottom-right, bottom-left, in board mm)."""
    up = (traced[0] - traced[3]) + (traced[1] - traced[2])
    return float(math.degrees(math.atan2(-up[0], up[1])) % 360.0)


def _site_tolerance(board: Board) -> float:
    """How far a piece may stand from a site and still be on it: under half the closest two sites' distance."""
    xy = np.array([(s.x, s.y) for s in board.sites])
    if len(xy) < 2:
        return 25.0
    d = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    np.fill_diagonal(d, np.inf)
    return float(min(25.0, 0.45 * d.min()))
