"""Reading stickers behind a webcam's optics: codes matched with the measured blur, the blur measured on the board's
markers, sites the camera could not read said to be unread (never empty), gray frames, and frames fused."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.bench.vision_mounted import calibrated
from companion.sensing.vision import RING_AT_A_GLANCE, UNREAD, Vision
from companion.sensing.vision_decode import CodeBook, edge_blur, worst_blur
from companion.sensing.vision_profile import CameraProfile
from companion.sim.mounted_camera import CAMERAS, camera_for, mount, random_optics, world_shot
from companion.sim.mounted_render import MountedRenderer
from companion.sim.mounted_scene import random_table

DICTIONARY = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_16h5)


def _sticker(marker_id: int, side: float, sigma: float, turn: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """A sticker (marker with its white margin) `side` px wide on a red piece's top, turned, blurred `sigma` px and
    noisy: the image and the marker's outer corners."""
    scale = 8
    cells = np.ones((8, 8), np.uint8) * 255
    cells[1:-1, 1:-1] = DICTIONARY.generateImageMarker(marker_id, 6)
    big = np.zeros((80 * scale, 80 * scale), np.uint8) + 70
    corners = []
    c, s = math.cos(turn), math.sin(turn)
    for u, v in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        corners.append((40 + (c * u - s * v) * side / 2, 40 + (s * u + c * v) * side / 2))
    outer = np.array(corners) * 4 / 3 - 40 / 3  # the margin's square, about the same centre
    src = np.array([(-0.5, -0.5), (7.5, -0.5), (7.5, 7.5), (-0.5, 7.5)], np.float32)  # the cells' outer edges
    h = cv2.getPerspectiveTransform(src, ((outer + 0.5) * scale - 0.5).astype(np.float32))
    cv2.warpPerspective(cells, h, big.shape[::-1], big, cv2.INTER_NEAREST, cv2.BORDER_TRANSPARENT)
    image = cv2.resize(big, (80, 80), interpolation=cv2.INTER_AREA).astype(np.float32)
    image = cv2.GaussianBlur(image, (0, 0), sigma) + np.random.default_rng(marker_id).normal(0, 4, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8), np.array(corners)


@pytest.mark.parametrize("marker_id", [0, 12, 17])
def test_a_blurred_small_sticker_is_read_by_matching_codes_drawn_with_its_blur(marker_id):
    image, corners = _sticker(marker_id, 14.0, 1.3)
    match = CodeBook(DICTIONARY).match(image, corners + 0.4, 1.3)  # corners a little off, as an outline gives them
    assert match is not None and match.marker_id == marker_id
    assert match.quality > 0.35 and match.ring > 0.85
    # Rotated a quarter, the code's top-left corner moves with it.
    assert np.linalg.norm(match.corners[0] - (corners[0] + 0.4)) < 2.0


def test_a_square_that_is_no_code_matches_none_clearly():
    image, corners = _sticker(0, 14.0, 1.3)
    cv2.fillConvexPoly(image, np.round(corners).astype(np.int32), 30)  # the code's cells all black
    match = CodeBook(DICTIONARY).match(image, corners, 1.3)
    assert match is not None and match.quality < 0.35


def test_a_blurred_sticker_looks_like_one_at_a_glance_and_a_square_of_the_boards_print_does_not():
    book = CodeBook(DICTIONARY)
    for marker_id in (0, 12, 17):
        image, corners = _sticker(marker_id, 14.0, 1.3)
        inverted = 255 - image  # a light square in a dark frame: the print's squares are no sticker's ring
        off = corners + 0.4  # as an outline gives them
        stuck, cut = book.rings(image, np.array([off, off - 40]), 1.3)
        assert stuck > 0.5 and np.isnan(cut)  # (the last leaves the image: not told, so read)
        assert book.rings(inverted, off[None], 1.3)[0] < RING_AT_A_GLANCE
        match = book.match(image, off, 1.3)
        assert match is not None and match.ring >= stuck - 0.2


def test_the_lens_blur_is_measured_on_a_marker_edge():
    for sigma in (0.8, 1.5):
        image, corners = _sticker(3, 48.0, sigma, turn=0.1)
        assert edge_blur(image, corners) == pytest.approx(math.hypot(sigma, 0.45), abs=0.25)


def _smeared(image: np.ndarray, length: float, angle: float) -> np.ndarray:
    """`image` smeared `length` px along `angle` (radians), as the camera's sway smears it while the shutter is open:
    a box of that length, drawn on a grid four times finer."""
    size = 2 * math.ceil(length / 2 + 1) + 1
    line = np.zeros((size * 4, size * 4), np.float32)
    c, dx, dy = size * 2, math.cos(angle) * length * 2, math.sin(angle) * length * 2
    cv2.line(line, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1, cv2.LINE_AA)
    kernel = cv2.resize(line, (size, size), interpolation=cv2.INTER_AREA)
    return cv2.filter2D(image, -1, kernel / kernel.sum(), borderType=cv2.BORDER_REPLICATE)


def test_a_smear_in_one_direction_is_measured_whole_whichever_way_it_runs():
    """A smear of length L adds L^2 / 12 to the variance along its direction only: the median of a marker's four
    edges takes about half of it when it runs along two of them, the worst direction all of it at any angle."""
    sigma, length = 0.8, 6.0
    lens = edge_blur(*_sticker(3, 48.0, sigma, turn=0.0))
    along = math.hypot(sigma, length / math.sqrt(12))
    for angle in (0.0, 30.0, 45.0, 90.0):
        image, corners = _sticker(3, 48.0, sigma, turn=0.0)
        image = _smeared(image, length, math.radians(angle))
        assert along <= worst_blur(image, corners, lens) <= along + 0.6, angle
        if angle in (0.0, 90.0):
            assert edge_blur(image, corners) < along - 0.1
    image, corners = _sticker(3, 48.0, sigma, turn=0.0)
    assert worst_blur(image, corners, lens) == pytest.approx(lens, abs=0.05)  # no sway: the lens alone


def test_cameras_follow_the_world_ranges():
    rng = np.random.default_rng(0)
    assert camera_for((1920, 1080)) == "webcam" and camera_for((4608, 2592)) == "pi-module-3"
    assert camera_for((4056, 3040)) == "pi-hq" and camera_for((2160, 3840)) == "phone"
    for kind in CAMERAS:
        for _ in range(20):
            size = {"webcam": (1920, 1080), "phone": (1080, 1920)}.get(kind, (4056, 3040))
            optics = random_optics(kind, size, rng)
            assert 100 <= optics.lux <= 500
            shot = world_shot("normal", optics, rng)
            assert 1 / 60 - 1e-9 <= shot.exposure_time <= 1 / 15 + 1e-9
            if kind == "webcam":
                assert 0.5 <= optics.lens_sigma <= 1.5 and 70 <= shot.jpeg <= 90
            if kind == "pi-hq":
                assert 1.0 <= optics.lens_sigma <= 2.0 and shot.jpeg == 0  # raw frames
    # A sweep pins a range to its hard end (a dim room at 1/15 s, a lens at 2 px); the camera is otherwise the same.
    whole = random_optics("phone", (3024, 4032), np.random.default_rng(5))
    pinned = random_optics(
        "phone", (3024, 4032), np.random.default_rng(5), lux=(100.0, 100.0), blur=(2.0, 2.0), longest_exposure=1 / 15
    )
    assert pinned.lux == pytest.approx(100.0) and pinned.lens_sigma == 2.0
    assert world_shot("normal", pinned, np.random.default_rng(6)).exposure_time == pytest.approx(1 / 15)
    assert replace(pinned, lux=whole.lux, lens_sigma=whole.lens_sigma, longest_exposure=whole.longest_exposure) == whole


@pytest.fixture(scope="module")
def seen(board, registry):
    """A 1080p webcam over Trajectory's board, a little blurred and tilted: one frame (and the next, to fuse), its
    truth, its profile."""
    cam = _webcam(board)
    rng = np.random.default_rng(21)
    frame = _still_table(board, registry, cam, rng, fuse=2)
    return frame, calibrated(cam, rng, CameraProfile)


def _webcam(board):
    return mount(board, (1920, 1080), 0.9, 0.7, math.radians(15), 1.0, 60.0, -0.1, 0.01)


def _still_table(board, registry, cam, rng: np.random.Generator, fuse: int = 1):
    """A table of 18 pieces under a sharp webcam in good light (every site legible, so what a test spoils is all
    that goes unread), and `fuse` - 1 frames more of it."""
    optics = replace(random_optics("webcam", (1920, 1080), rng), lens_sigma=0.6, lux=400.0)
    shot = world_shot("normal", optics, rng)
    return MountedRenderer(board, registry.dictionary, cam).render(
        random_table(board, registry, rng, 18, arm=False),
        shot,
        rng,
        tuple(world_shot("normal", optics, rng) for _ in range(fuse - 1)),
    )


def test_a_sticker_the_camera_cannot_read_leaves_its_site_unread_not_empty(board, registry, seen):
    frame, profile = seen
    image = frame.image.copy()
    vision = Vision(board, registry, profile)
    before = vision.process(image)
    assert UNREAD not in {r.reason for r in before.unreliable}
    hidden = next(
        t.piece
        for t in frame.truth
        if t.visible
        and t.piece.z0 == 0
        and t.piece.site in before.stacks()
        and not any(p.site == t.piece.site and p.z0 > 0 for p in (u.piece for u in frame.truth))
    )
    # A lamp's glare washes the one sticker's code out: its border and margin still show a sticker.
    corners = _sticker_pixels(vision, hidden)
    centre = corners.mean(axis=0)
    cv2.fillConvexPoly(image, np.round(centre + (corners - centre) * 0.62).astype(np.int32), (200, 200, 200))
    after = Vision(board, registry, profile).process(image)
    unread = {s for r in after.unreliable if r.reason == UNREAD for s in r.sites}
    assert hidden.site not in after.stacks() or after.stacks()[hidden.site] != before.stacks()[hidden.site]
    assert hidden.site in unread


def test_where_stickers_are_too_small_for_the_blur_an_empty_reading_is_unread(board, registry, seen):
    frame, profile = seen
    sharp = Vision(board, registry, profile)
    assert not {r.reason for r in sharp.process(frame.image).unreliable} & {UNREAD}
    blurred = cv2.GaussianBlur(frame.image, (0, 0), 2.5)
    vision = Vision(board, registry, profile)
    report = vision.process(blurred)
    assert vision.blur_px > 2.0
    unread = {s for r in report.unreliable if r.reason == UNREAD for s in r.sites}
    assert {s.id for s in board.sites} - set(report.stacks()) <= unread  # not one site read as empty


def test_a_frame_smeared_by_the_stands_sway_says_the_sites_it_cannot_read_unread(board, registry, seen):
    """The board's markers look as they did (they are not decoded again) but the stand swayed while the shutter was
    open: the blur along the smear, measured on the markers of this frame, leaves the sites whose stickers it took
    unread, never empty, and the sites with stickers large enough still read."""
    frame, profile = seen
    vision = Vision(board, registry, profile)
    sharp = vision.process(frame.image)
    lens = vision.blur_px
    report = vision.process(_smeared(frame.image, 7.0, 0.4), 1.0)
    assert vision.blur_px == lens and vision.frame_blur_px > lens + 0.8  # the markers kept; the smear measured
    unread = {s for r in report.unreliable if r.reason == UNREAD for s in r.sites}
    lost = {site for site, stack in sharp.stacks().items() if report.stacks().get(site) != stack}
    assert lost and lost <= unread
    assert {s.id for s in board.sites} - set(report.stacks()) <= unread  # not one site read as empty
    assert set(report.stacks()) - unread  # the large stickers still read
    # A settled change read in crops (the grid felt two sites change) measures its own frame's blur too.
    calm = vision.process(frame.image, 2.0, changed=set())
    assert vision.frame_blur_px < lens + 0.3 and "stickers in crops" in calm.timings
    lost_site = sorted(lost)[0]
    swayed = vision.process(_smeared(frame.image, 7.0, 0.4), 3.0, changed={lost_site})
    assert "stickers in crops" in swayed.timings and vision.frame_blur_px > lens + 0.8
    assert lost_site in {s for r in swayed.unreliable if r.reason == UNREAD for s in r.sites}


def test_gray_frames_and_fused_frames_read_as_the_colour_frame(board, registry, seen):
    frame, profile = seen
    colour = Vision(board, registry, profile).process(frame.image)
    gray = Vision(board, registry, profile).process(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY))
    fused = Vision(board, registry, profile).process(frame.image, more=frame.more)
    assert gray.stacks() == colour.stacks() == fused.stacks()
    with pytest.raises(Exception, match="differ in size"):
        Vision(board, registry, profile).process(frame.image, more=(frame.image[:10],))


def test_a_frame_to_fuse_is_averaged_in_only_where_it_shows_what_the_frame_read_does(board, registry, seen):
    """Frames of the table before pieces were set down, moved or turned (a change no switch felt, or one between two
    frames read) leave the stickers of the frame read as they are; frames of the same still table are fused almost
    everywhere (their noise alone differs)."""
    from companion.sensing.vision import _alike

    frame, profile = seen
    alone = Vision(board, registry, profile).process(frame.image).stacks()
    earlier = _still_table(board, registry, _webcam(board), np.random.default_rng(22)).image
    fused = Vision(board, registry, profile).process(frame.image, more=(earlier, earlier)).stacks()
    assert fused == alone and len(alone) >= 10
    gray = [cv2.cvtColor(f, cv2.COLOR_BGR2GRAY).astype(np.float32) for f in (frame.image, *frame.more, earlier)]
    assert _alike(gray[0], gray[1]).mean() > 0.98 and _alike(gray[0], gray[2]).mean() < 0.98


def _sticker_pixels(vision: Vision, piece) -> np.ndarray:
    square = piece.sticker_square(piece.entry.sticker_mm)
    return vision.pose.project(np.column_stack([square, np.full(4, piece.top)]), vision.matrix, vision.dist)


def test_a_sticker_seen_but_not_read_off_every_site_of_a_planet_map_is_said_unread_where_it_lies():
    """A piece set down on Orbital Battle's planet map away from every site, its sticker found as a square but its
    code not read: the report says a sticker lies unread there (a region of no site), instead of nothing."""
    from companion.bench.vision_spread import box_registry
    from companion.boards import default_board
    from companion.sim.mounted_scene import Table, _off_site

    board = default_board("orbital_battle:planet3")
    box = box_registry()
    registry = replace(box, entries=tuple(e for e in box.entries if not e.piece.startswith("planet-")))
    cam = _webcam(board)
    rng = np.random.default_rng(4)
    table = random_table(board, registry, rng, 8, arm=False)
    entry = next(
        e for e in registry.entries if e.sticker is not None and e.id not in {p.entry.id for p in table.pieces}
    )
    lone = _off_site(board, list(table.pieces), entry, rng)
    assert lone is not None
    optics = replace(random_optics("webcam", (1920, 1080), rng), lens_sigma=0.6, lux=400.0)
    frame = MountedRenderer(board, registry.dictionary, cam).render(
        Table((*table.pieces, lone), None), world_shot("normal", optics, rng), rng
    )
    profile = calibrated(cam, rng, CameraProfile)
    image = frame.image.copy()
    vision = Vision(board, registry, profile)
    before = vision.process(image)
    assert any(s.site is None and math.hypot(s.x - lone.x, s.y - lone.y) < 10 for s in before.sightings)
    assert not [r for r in before.unreliable if r.reason == UNREAD and not r.sites]
    corners = _sticker_pixels(vision, lone)  # glare washes the code out; its border and margin still show a sticker
    centre = corners.mean(axis=0)
    cv2.fillConvexPoly(image, np.round(centre + (corners - centre) * 0.62).astype(np.int32), (200, 200, 200))
    after = Vision(board, registry, profile).process(image)
    assert not any(s.site is None and math.hypot(s.x - lone.x, s.y - lone.y) < 20 for s in after.sightings)
    said = [np.mean(r.polygon, axis=0) for r in after.unreliable if r.reason == UNREAD and not r.sites]
    assert any(math.hypot(x - lone.x, y - lone.y) < 10 for x, y in said)


def test_a_code_barely_told_is_a_piece_only_where_the_frame_reads_stickers_reliably(board, registry, seen):
    """A code whose lead over the next is under what a square read by matching needs (a detector's decoding that
    the match barely agrees with) is a piece at a site this frame reads reliably, and a sticker seen but not known
    where the frame's blur leaves that site illegible (a planet map under 5 px of sway read a blue armour so)."""
    from companion.sensing.vision import MATCH_QUALITY

    frame, profile = seen
    vision = Vision(board, registry, profile)
    vision.process(frame.image)
    sharp = next(t.piece for t in frame.truth if t.visible and t.piece.z0 == 0 and t.piece.site is not None)
    barely = MATCH_QUALITY - 0.1
    sightings, rejected, _ = vision._trace([(sharp.entry, _sticker_pixels(vision, sharp), barely)], vision.pose, 0.0)
    assert [s.site for s in sightings] == [sharp.site] and not rejected
    vision.process(_smeared(frame.image, 7.0, 0.4), 1.0)
    illegible = vision._illegible(vision.pose, {s.id for s in board.sites})
    piece = next(t.piece for t in frame.truth if t.visible and t.piece.z0 == 0 and t.piece.site in illegible)
    corners = _sticker_pixels(vision, piece)
    sightings, rejected, _ = vision._trace([(piece.entry, corners, barely)], vision.pose, 1.0)
    assert not sightings and len(rejected) == 1
    sightings, _, _ = vision._trace([(piece.entry, corners, 0.9)], vision.pose, 1.0)  # told clearly: the piece
    assert [s.site for s in sightings] == [piece.site]


def test_a_pieces_dark_side_under_its_sticker_is_no_stickers_outline():
    """A counter's side, dark under its sticker's white margin, shows as a sliver the detector can decode as a code
    (beside the marines on a planet map it read a blue armour); a sticker's outline is never so thin, even where its
    black border merges with that side into an outline twice as long as wide (35 degrees of tilt)."""
    from companion.sensing.vision import _squarish

    tilt, turn = math.radians(35), 0.6
    square = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)], np.float64) * 11.7 * (1, math.cos(tilt))
    turned = square @ np.array([[math.cos(turn), math.sin(turn)], [-math.sin(turn), math.cos(turn)]])
    merged = np.array([(0, 0), (44.0, 0), (44.0, 22.0), (0, 22.0)])  # border and side as one outline
    side_seen = np.array([[70.35, 43.91], [56.35, 75.91], [49.35, 78.91], [65.35, 43.91]])  # the armour's outline
    sliver = np.array([(0, 0), (41.6, 0), (41.6, 5.0), (0, 5.0)])
    assert _squarish(np.stack([turned + 40, merged, side_seen, sliver])).tolist() == [True, True, False, False]


def _tilted_counter(seed: int) -> np.ndarray:
    """Orbital Battle's planet 5 as the bench's Pi HQ camera saw it (seed 707): a red mech infantry 23 px wide at
    the frame's left edge, 35 degrees of tilt, 1.1 px of lens blur and 2.5 px of sway, raw through the Bayer mosaic;
    a 160 px window of that frame, drawn at its own scale (no supersampling, as a 12 MP frame is)."""
    from companion.bench.vision_spread import box_registry
    from companion.boards import default_board
    from companion.sim.mounted_camera import Mounting, Shot
    from companion.sim.mounted_scene import Piece, Placement, Spread, Table

    box = box_registry()
    entry = next(e for e in box.entries if e.piece == "mech-infantry-red")
    side, (u, v) = 160, (350.7, 1864.1)  # the window, and where the sticker lies in the whole frame
    rotation = (
        (-0.7916224, 0.3157708, -0.5230897),
        (0.4896371, 0.8399555, -0.2339451),
        (0.3654990, -0.4413203, -0.8195406),
    )
    camera = Mounting(
        side,
        side,
        2454.87,
        2027.5 - u + side / 2,
        1519.5 - v + side / 2,
        -0.0188,
        0.0624,
        rotation,
        (-473.3, 1349.3, 645.8),
    )
    spread = Spread((Placement(default_board("orbital_battle:planet5"), 627.65, 483.66, -0.0444),))
    shot = Shot(
        "normal",
        white_balance=(1.023, 1.038, 0.977),
        exposure=0.996,
        light_slope=0.17,
        vignette=0.11,
        defocus_px=0.0,
        motion_px=0.8734 * 3040 / side,  # (given for a 1080-line frame)
        motion_angle=2.2904,
        shot_noise=0.725,
        read_noise=2.9,
        jpeg=0,
        glare=0.0,
        arm=False,
        light_azimuth=3.908,
        light_elevation=1.292,
        lens_sigma=1.09,
        mosaic=True,
        lux=129.3,
        exposure_time=1 / 15,
    )
    renderer = MountedRenderer(spread, box.dictionary, camera)
    renderer.scale = 1
    renderer._prepare_lens()
    table = Table((Piece(entry, 146.70, 176.66, 0.1333, 0.0, "0204"),), None)
    frame = renderer.render_spread((table,), shot, np.random.default_rng(seed))
    return cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)


def test_a_small_tilted_sticker_is_read_from_its_outline_where_its_fitted_edges_read_it_less_clearly():
    """The mech infantry's square is found but not decoded; matched from its edges fitted, its code leads the next
    by about a third of a perfect lead (the piece's dark side lies against its thin margin), some frames under the
    0.35 asked for; from the outline the detector found, by twice that. Both are read and the clearer stands."""
    from companion.bench.vision_spread import box_registry
    from companion.sensing.vision import AGREED_QUALITY, MATCH_QUALITY, MATCH_SCORE
    from companion.sensing.vision_decode import fit_edges, read_square

    box = box_registry()
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, box.dictionary))
    book, codes = CodeBook(dictionary), frozenset(e.sticker for e in box.entries if e.sticker is not None)
    detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
    fitted = []
    for seed in range(8):
        gray = _tilted_counter(seed)
        decoded, _, rejected = detector.detectMarkers(cv2.resize(gray, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC))
        assert not decoded
        outline = next(q for c in rejected if np.linalg.norm((q := (c.reshape(4, 2) + 0.5) / 2 - 0.5).mean(0) - 80) < 6)
        read = read_square(book, gray, outline, 1.45, codes, (AGREED_QUALITY, MATCH_SCORE))
        assert read is not None and read.marker_id == 6
        assert read.quality >= MATCH_QUALITY + 0.15 and read.score >= MATCH_SCORE
        fitted.append(book.match(gray, fit_edges(gray, outline), 1.45, codes).quality)
    assert min(fitted) < MATCH_QUALITY  # read from the fitted edges alone, the sticker went unread


def test_a_square_read_as_two_codes_each_with_a_lead_of_its_own_is_not_read():
    """The clearer of a square's two readings (outline as found, edges fitted) stands only where the other does not
    name another code with a lead and a score of its own: then the square is a sticker seen, its code not known."""
    from companion.sensing.vision_decode import Match, read_square

    corners = np.zeros((4, 2))

    class Readings:  # the two readings, in the order read_square asks for them
        def __init__(self, *matches: Match) -> None:
            self.matches = list(matches)

        def match(self, *_args) -> Match:
            return self.matches.pop(0)

    image, _ = _sticker(6, 24.0, 1.2)
    clear = Match(6, corners, 0.92, 0.3, 0.72, 0.9)
    for other, quality in (
        (Match(12, corners, 0.88, 0.1, 0.3, 0.95), 0.0),
        (Match(12, corners, 0.7, 0.0, 0.1, 0.95), 0.72),
    ):
        read = read_square(Readings(clear, other), image, corners, 1.2, None, (0.2, 0.75))
        assert read is not None and read.marker_id == 6 and read.quality == quality and read.ring == 0.95
