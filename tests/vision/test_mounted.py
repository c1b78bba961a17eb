"""The mounted camera (companion/sim/mounted_*): the camera model honours its ranges, frames show what their truth
says (checked with plain OpenCV, not the pipeline), the bench tells misses from wrong readings, and the mounting
check says when stickers are too small."""

from __future__ import annotations

import math
from dataclasses import replace
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from companion.bench.vision_mounted import calibrated, score
from companion.calibration.mounting import BLURRED_PX, check_mounting, describe
from companion.sensing.vision_pose import Pose
from companion.sensing.vision_profile import CameraProfile, Sharpness
from companion.sim.mounted_camera import mount, random_mounting, random_shot
from companion.sim.mounted_render import MountedRenderer
from companion.sim.mounted_scene import Piece, Table, random_table
from companion.sim.render_camera import overhead_camera, sim_profile


def _corners(board):
    return np.array([(0, 0, 0), (board.width, 0, 0), (board.width, board.height, 0), (0, board.height, 0)], float)


@pytest.mark.parametrize("seed", range(8))
def test_mountings_keep_the_board_in_frame_at_the_fill_and_tilt_asked(board, registry, seed):
    rng = np.random.default_rng(seed)
    cam = random_mounting(board, (1280, 720), rng, (0.6, 0.95), 35.0)
    px = cam.project(_corners(board))
    extent = max(np.ptp(px[:, 0]) / 1280, np.ptp(px[:, 1]) / 720)
    assert 0.6 - 0.02 <= extent <= 0.95 + 0.02
    assert px.min() >= 0 and px[:, 0].max() <= 1279 and px[:, 1].max() <= 719
    assert math.degrees(math.acos(-cam.rot[2, 2])) <= 35.0 + 1e-6
    # The lens model inverts: a pixel's ray lands back on the pixel.
    xy = cam.undistort(px)
    r2 = np.sum(xy**2, axis=1, keepdims=True)
    back = xy * (1 + cam.k1 * r2 + cam.k2 * r2 * r2) * cam.f + (cam.cx, cam.cy)
    assert np.abs(back - px).max() < 1e-3
    # The lens never folds back on itself: what the frame sees fits a canvas a little wider than the frame.
    renderer = MountedRenderer(board, registry.dictionary, cam)
    assert max(renderer.canvas_size) < 3 * 2 * 1280


def test_frames_show_their_stickers_where_the_truth_says(board, registry):
    """Plain OpenCV (defaults, nothing of the pipeline) finds the visible stickers at their true place and size."""
    cam = mount(board, (1280, 720), 0.95, 0.4, math.radians(20), 1.0, 60.0, -0.15, 0.02)
    rng = np.random.default_rng(5)
    renderer = MountedRenderer(board, registry.dictionary, cam)
    table = random_table(board, registry, rng, 22, arm=True)
    shot = random_shot("normal", np.random.default_rng(1))
    frame = renderer.render(table, shot, rng)
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, registry.dictionary)), cv2.aruco.DetectorParameters()
    )
    found, ids, _ = detector.detectMarkers(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY))
    seen: dict[int, list[np.ndarray]] = {}  # pieces of a kind share a sticker: an id may be found several times
    for c, i in zip(found, ids.ravel(), strict=True):
        seen.setdefault(int(i), []).append(c.reshape(4, 2))
    visible = [t for t in frame.truth if t.visible]
    assert len(visible) >= 12 and any(not t.visible for t in frame.truth)  # the arm hides some
    hits, sides = 0, []
    for t in visible:
        square = t.piece.sticker_square(t.piece.entry.sticker_mm)
        truth_px = cam.project(np.column_stack([square, np.full(4, t.piece.top)]))
        near = [c for c in seen.get(t.piece.entry.sticker, []) if np.abs(c - truth_px).mean() < 10]
        if not near:
            continue
        c = near[0]
        hits += 1
        assert np.abs(c - truth_px).max() < 1.5  # same corners, same order: the sticker is upright as printed
        sides.append(np.mean(np.linalg.norm(c - np.roll(c, 1, axis=0), axis=1)) - t.side_px)
    assert hits >= 0.8 * len(visible)
    assert abs(float(np.median(sides))) < 0.7 and max(map(abs, sides)) < 2.0  # (OpenCV's corners: whole pixels)


def _sighting(piece, site, x=0.0, y=0.0):
    return SimpleNamespace(piece=piece, site=site, x=x, y=y)


def test_the_bench_tells_misses_withheld_wrong_and_false_apart(registry):
    entries = {e.id: e for e in registry.entries}

    def truth(entry, site, visible=True):
        return SimpleNamespace(piece=Piece(entries[entry], 0.0, 0.0, 0.0, 0.0, site), visible=visible, side_px=15.0)

    frame = [
        truth("ship-red", "o1s1"),
        truth("ship-blue", "o1s2"),
        truth("ship-green", "o1s3"),
        truth("ship-yellow", "o1s4"),
        truth("ship-orange", "o1s5"),
        truth("planet-ice", "o2s1", False),
    ]
    report = SimpleNamespace(
        reliable=True,
        unreliable_sites=lambda: {"o1s4"},
        sightings=[
            _sighting("ship-red", "o1s1"),
            _sighting("ship-blue", "o2s9"),
            _sighting("ship-purple", "o1s3"),
            _sighting("planet-ice", "o2s1"),
            _sighting("infestor-ice", "o3s3"),
        ],
    )
    results, false = score(report, frame, set())
    assert [o for _, o in results] == ["read", "wrong", "wrong", "withheld", "missed"]
    assert false == 1  # the infestor; the hidden planet reported where it stands is no error
    refused = SimpleNamespace(reliable=False, unreliable_sites=set, sightings=[])
    results, false = score(refused, frame, {"o1s1", "o1s2", "o1s3", "o1s4", "o1s5"})
    assert {o for _, o in results} == {"withheld"} and false == 0


def test_the_mounting_check_tells_a_lens_focused_elsewhere_from_a_soft_one(board, registry):
    """The calibration target's sharpest photo is what the lens can give: a board blurred far beyond it wants the
    lens focused on the board; where the board's markers are too small to measure, the target's blur is taken."""
    cam = overhead_camera(board.width, board.height, 1920, 1080)
    pose = Pose(np.array(cam.rvec), np.array(cam.tvec))
    profile = replace(sim_profile(cam, board.name), sharpness=Sharpness(0.7, 0.6, 8))
    check = check_mounting(board, registry, profile, pose, 3.0)
    assert check.defocused and not check.approved
    assert "calibration target showed 0.6 px" in check.advice((1920, 1080))[0]
    soft = check_mounting(board, registry, replace(profile, sharpness=Sharpness(2.9, 2.8, 8)), pose, 3.0)
    assert not soft.defocused and "the lens itself is soft" in soft.advice((1920, 1080))[0]
    unmeasured = check_mounting(board, registry, profile, pose, None)
    assert unmeasured.blur_px == 0.7 and "calibration target" in unmeasured.blur_from and unmeasured.approved


def test_the_mounting_check_approves_big_sharp_stickers_and_says_what_to_change(board, registry):
    near = overhead_camera(board.width, board.height, 1920, 1080)
    far = overhead_camera(board.width, board.height, 1280, 720)
    for cam, blur, approved in ((near, 0.8, True), (far, 1.5, False), (near, 2.5, False)):
        profile = sim_profile(cam, board.name)
        check = check_mounting(board, registry, profile, Pose(np.array(cam.rvec), np.array(cam.tvec)), blur)
        assert set(check.sizes) == {s.id for s in board.sites}
        expected = registry.sticker_sizes()[0] * cam.fx / 900.0  # the smallest sticker (an infestor's)
        assert min(check.sizes.values()) == pytest.approx(expected, rel=0.15)
        assert check.approved is approved
        text = "\n".join(describe(check, profile.image_size))
        assert ("does not reach the goal" in text) is not approved
        if not approved:
            assert "closer" in text and "frames of at least" in text
            assert ("focus the camera" in text) is (blur > BLURRED_PX)


def test_the_calibrated_profile_is_close_but_not_exact(board):
    cam = random_mounting(board, (1280, 720), np.random.default_rng(3))
    profile = calibrated(cam, np.random.default_rng(4), CameraProfile)
    assert profile.pose is None and profile.image_size == (1280, 720)
    assert profile.matrix[0][0] == pytest.approx(cam.f, rel=0.01) and profile.matrix[0][0] != cam.f


def test_tables_have_no_overlapping_pieces_and_riders_clear_of_stickers(board, registry):
    for seed in range(5):
        table: Table = random_table(board, registry, np.random.default_rng(seed), 22, arm=False)
        ground = [p for p in table.pieces if p.z0 == 0]
        for i, a in enumerate(ground):
            for b in ground[i + 1 :]:
                area, _ = cv2.intersectConvexConvex(a.outline().astype(np.float32), b.outline().astype(np.float32))
                assert area < 0.5
        for rider in (p for p in table.pieces if p.z0 > 0):
            base = next(p for p in ground if p.site == rider.site and p.entry.is_base)
            label = base.sticker_square(base.entry.sticker_mm * 4 / 3).astype(np.float32)
            area, _ = cv2.intersectConvexConvex(rider.outline().astype(np.float32), label)
            assert area < 0.5


def test_sightings_say_which_way_each_sticker_points(board, registry, match):
    """The pipeline reads each sticker's turn (ORBIT's planet arrows need it) on a tilted, turned mounting."""
    from companion.sensing.vision import Vision

    cam = mount(board, (1280, 720), 0.95, 2.0, math.radians(25), 4.0, 60.0, -0.1, 0.0)
    rng = np.random.default_rng(8)
    frame = MountedRenderer(board, registry.dictionary, cam).render(
        random_table(board, registry, rng, 22, arm=False), random_shot("normal", rng), rng
    )
    profile = CameraProfile(
        "exact",
        (cam.width, cam.height),
        ((cam.f, 0.0, cam.cx), (0.0, cam.f, cam.cy), (0.0, 0.0, 1.0)),
        (cam.k1, cam.k2, 0.0, 0.0, 0.0),
    )
    report = Vision(board, registry, profile).process(frame.image)
    shown = [t.piece for t in frame.truth if t.visible]
    seen, _ = match(report.sightings, shown)  # pieces of a kind share a sticker: matched by kind and place
    read = [(seen[p.entry.id], math.degrees(p.turn) % 360) for p in shown if p.entry.id in seen]
    assert len(read) >= 0.9 * len(shown)
    for sighting, turn in read:
        assert abs((sighting.turn - turn + 180) % 360 - 180) < 4.0, sighting.piece
    assert report.sightings[0].to_json()["turn"] == round(report.sightings[0].turn, 1)


def test_counters_ringing_a_planet_are_set_down_clear_of_it_and_of_each_other():
    """A player sets each counter flat on its hex: never riding on the edge of the planet disc or of the counter
    beside it (a counter half on a disc hides its sticker's white border, which no real table shows)."""
    from companion.boards import default_board
    from companion.sim.mounted_scene import _overlap, layout_table
    from companion.sim.twin_spread import SIDES, box_piece, twin_box

    board = default_board("orbital_battle")
    ring = [link.b for link in board.links_from("r5s15")]
    layout = {"r5s15": ("planet-4",), **{site: ("transport-green",) for site in ring}}
    assert len(ring) == 6
    box, physical = twin_box(), box_piece(["red", "green"], SIDES)
    for seed in range(8):
        table, hidden = layout_table(board, box, layout, np.random.default_rng(seed), physical)
        assert not hidden and len(table.pieces) == 7
        for k, a in enumerate(table.pieces):
            for b in table.pieces[k + 1 :]:
                assert not _overlap(a.outline(), b.outline()), (seed, a.site, b.site)


def test_records_saved_by_short_runs_are_reported_as_one_row(tmp_path, capsys):
    """A sweep split into runs (one per seed) keeps each frame's record; --merge reports the rows whole, and a line
    that is no record is one line naming the file and line."""
    from companion.bench.vision_mounted import Record, load_records, save_records
    from companion.errors import UserError

    right = Record(True, ((20.0, "read"), (14.0, "read")), 0, False, 0.1, 0.2, 0.05, {"blur": 0.8}, (3, 4))
    missed = Record(True, ((12.0, "withheld"),), 0, False, 0.1, 0.2, 0.05, {"blur": 1.3}, (14,))
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    save_records(str(first), "trajectory 1920x1080 normal", [right, missed])
    save_records(str(second), "trajectory 1920x1080 normal", [right])
    save_records(str(second), "orbit 1920x1080 normal", [missed])
    cells = load_records([str(first), str(second)])
    assert cells["trajectory 1920x1080 normal"].records == [right, missed, right]
    assert cells["orbit 1920x1080 normal"].records == [missed]
    second.write_text(second.read_text() + "{}\n")
    with pytest.raises(UserError, match=r"b.jsonl line 3: not a frame's record"):
        load_records([str(first), str(second)])


def test_settled_changes_are_given_again_for_the_boards_calibrate_approves(capsys):
    """The per-change bench keeps what `calibrate board` said of each board at the mounting's first frame: a board
    it does not approve (its stickers too blurred to read) counts in the first rows only, and --approved draws
    mountings until the game's own board is approved."""
    from companion.bench.vision_crops import Change
    from companion.cli import main

    blurred = ([(33.0, "withheld"), (33.0, "wrong")], 0)
    sharp = ([(40.0, "read")], 0)
    change = Change((sharp, blurred), (True, False))
    assert change.whole() == ([(40.0, "read"), (33.0, "withheld"), (33.0, "wrong")], 0)
    assert change.approved_boards() == [sharp]
    argv = ["bench", "vision", "--model", "mounted", "--game", "trajectory", "--changes", "1", "--scenes", "1"]
    argv += ["--sizes", "1920x1080", "--repeats", "1", "--fill", "0.9-0.95", "--tilt", "10", "--approved"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "trajectory 1920x1080: 1 mountings, `calibrate board` approves 1 of their 1 boards" in out
    rows = ("crops as the table reads", "crops round every occupied site", "crops round the two changed sites alone")
    for row in (*rows, "whole", "phone's crops", "raw luma"):
        at = out.index(f"trajectory 1920x1080 {row}: 1 changes, all correct")
        assert (
            out[at:]
            .splitlines()[1]
            .startswith("    the boards `calibrate board` approves: 1 readings of a board after a change, all correct")
        )


def test_a_spread_of_maps_lays_no_kind_more_often_than_the_box_holds_it():
    # Each map drawn from a box of its own put three of a kind the box holds two of on the table, and the vision
    # rightly took the surplus for misreads.
    from collections import Counter

    from companion.bench.vision_spread import PIECES, box_registry
    from companion.boards import default_board
    from companion.sim.mounted_scene import tables_from_one_box

    box = box_registry()
    boards = [default_board("orbital_battle")] + [default_board(f"orbital_battle:planet{p}") for p in (3, 5)]
    counts = [PIECES["orbital_battle"]] + [PIECES["orbital_battle:planet"]] * 2
    rng = np.random.default_rng(7)
    for _ in range(20):
        tables = tables_from_one_box(boards, [box] * 3, rng, counts, [False] * 3)
        laid = Counter(p.entry.piece for t in tables for p in t.pieces)
        assert all(n <= box.count(kind) for kind, n in laid.items())
        ids = [p.entry.id for t in tables for p in t.pieces]
        assert len(ids) == len(set(ids)) and all(t.pieces for t in tables)


def test_a_map_calibrate_refuses_is_reported_apart_from_the_maps_it_approves(tmp_path, capsys):
    """Orbital Battle's spread is kept by its solar map's verdict, so a planet map's frames come from mountings
    `calibrate board` may refuse for that map: the approved rows hold that map's approved frames only, and its
    refused frames are one line saying what was still guessed there (silent misses, wrong readings, false pieces)."""
    from companion.bench.vision_mounted import Record, save_records
    from companion.cli import main

    approved = Record(True, ((24.0, "read"), (26.0, "read")), 0, False, 0.1, 0.0, 0.0, {}, (3, 4))
    refused = Record(False, ((17.0, "withheld"), (18.0, "missed")), 1, False, 0.1, 0.0, 0.0, {}, (5, 6))
    records = tmp_path / "ob.jsonl"
    save_records(str(records), "orbital_battle:planet3 4056x3040 normal approved", [approved, refused, approved])
    assert main(["bench", "vision", "--model", "mounted", "--merge", str(records)]) == 0
    out = capsys.readouterr().out
    assert (
        "orbital_battle:planet3 4056x3040 normal approved (merged): 2 frames, 0 refused whole; all correct 100.0%"
        in out
    )
    assert (
        "  at mountings `calibrate board` refuses for this board: 1 frames, stickers 2: read 0, flagged unread 1, "
        "silent 1, wrong 0; false pieces 1"
    ) in out


def test_the_per_change_bench_lays_the_maps_pieces_from_one_box():
    from collections import Counter

    from companion.bench.vision_crops import _scene
    from companion.bench.vision_mounted import Extremes

    for seed in range(4):
        scene, _ = _scene("orbital_battle", (1920, 1080), np.random.default_rng(seed), (0.6, 0.9), 20.0, Extremes())
        pieces = [p for t in scene.tables for p in t.pieces]
        assert len({p.entry.id for p in pieces}) == len(pieces)
        assert all(n <= scene.registry.count(kind) for kind, n in Counter(p.entry.piece for p in pieces).items())


def test_the_per_change_bench_tells_the_pipeline_every_site_a_piece_stands_on_as_the_table_does():
    """At a change the table decodes the sites whose switch changed and tells the vision every other site the grid
    feels a piece on (a piece set onto another, or lifted off a stack, changes no switch): so does the per-change
    bench, on every map of the spread; and its hands stack and unstack pieces, the changes a switch does not feel."""
    from companion.bench.vision_crops import _scene
    from companion.bench.vision_mounted import Extremes

    rng = np.random.default_rng(3)
    scene, _ = _scene("orbital_battle", (1920, 1080), rng, (0.6, 0.9), 20.0, Extremes())
    sites = {prefix + s.id for prefix, board in zip(scene.prefixes, scene.boards, strict=True) for s in board.sites}

    def stacks() -> dict[str, list]:
        out: dict[str, list] = {}
        for prefix, table in zip(scene.prefixes, scene.tables, strict=True):
            for p in table.pieces:
                if p.site is not None:
                    out.setdefault(prefix + p.site, []).append(p.entry.id)
        return out

    unfelt = 0
    for _ in range(12):
        before = stacks()
        moved = scene.move(rng)
        after = stacks()
        changed, held = scene.read_at(moved)
        assert changed == moved == {site for site in sites if (site in before) != (site in after)}
        assert held == set(after) - moved and {site.split(":")[0] for site in held if ":" in site} == {"p3", "p5"}
        unfelt += sum(1 for site in held if sorted(before.get(site, [])) != sorted(after[site]))
    assert unfelt >= 2  # stacks changed where every switch stayed closed


def test_calibrate_board_judges_each_map_beside_the_solar_map_that_the_photo_shows(tmp_path, capsys):
    """One camera over Orbital Battle's spread: `calibrate board` judges the solar map and then each planet map in
    the photo as a board of its own, names a map it refuses with what to change, and says a map out of the photo
    was not judged."""
    import importlib.resources

    from companion.bench.vision_spread import box_registry
    from companion.boards import default_board
    from companion.cli import main
    from companion.sensing.vision_profile import save_profile
    from companion.sim.mounted_camera import random_optics, world_shot
    from companion.sim.mounted_scene import Placement, Spread, random_spread

    boards = [default_board(n) for n in ("orbital_battle", "orbital_battle:planet3", "orbital_battle:planet5")]
    rng = np.random.default_rng(5)
    laid = random_spread(boards[:2], rng)
    mounting = random_mounting(laid, (1280, 720), rng, (0.85, 0.9), 10.0)
    away = Placement(boards[2], 5000.0, 0.0, 0.0)  # planet 5 back in the box
    spread = Spread((*laid.placements, away))
    optics = replace(random_optics("webcam", (1280, 720), rng), lens_sigma=0.6, lux=400.0)
    box = box_registry()
    frame = MountedRenderer(spread, box.dictionary, mounting).render_spread(
        (Table((), None),) * 3, world_shot("normal", optics, rng), rng
    )
    cv2.imwrite(str(tmp_path / "spread.png"), frame.image)
    save_profile(calibrated(mounting, rng, CameraProfile), tmp_path / "camera.json")
    registry = importlib.resources.files("companion.sim").joinpath("pieces_orbital_battle.json")
    argv = ["calibrate", "board", "--board", "orbital_battle", "--image", str(tmp_path / "spread.png")]
    argv += [
        "--profile",
        str(tmp_path / "camera.json"),
        "--out",
        str(tmp_path / "out.json"),
        "--registry",
        str(registry),
    ]
    capsys.readouterr()
    assert main(argv) == 0
    out = capsys.readouterr().out
    planet3 = out[out.index("board 'orbital_battle:planet3':") :]
    assert "stickers at the sites" in planet3.splitlines()[1]
    assert "this mounting does not reach the goal" in planet3 and "bring the camera closer" in planet3
    assert "not in this photo, not judged: orbital_battle:planet1, orbital_battle:planet2" in out
    assert "orbital_battle:planet5" in out.splitlines()[-2] and "planet3" not in out.splitlines()[-2]
    assert "refused for orbital_battle:planet3:" in out


def test_a_clean_run_clears_the_goal_at_95_percent_only_when_it_is_long_enough():
    """All-correct frames are judged at their exact lower bound: 144 clean frames leave the rate possibly under 98 %,
    299 clear 99 %; a failure moves the bound down, and a rate of failures is bounded above alike."""
    from companion.bench.stats import lower_bound, upper_bound

    assert lower_bound(144, 144) == pytest.approx(0.9794, abs=1e-4)
    assert lower_bound(298, 298) < 0.99 <= lower_bound(299, 299)
    assert lower_bound(95, 100) == pytest.approx(0.8977, abs=1e-4)  # the textbook's exact figure
    assert lower_bound(299, 300) < lower_bound(300, 300)
    assert lower_bound(0, 10) == 0.0 and upper_bound(0, 0) == 1.0
    assert upper_bound(3, 100) == pytest.approx(1 - lower_bound(97, 100))


def test_the_sweep_places_where_stickers_stop_being_read_and_prints_its_goals(capsys):
    """Stickers binned by their blur in cells (the frame's worst direction): the limit is the last bin with enough
    stickers that still reads 99 %, a thin bin deciding nothing; the report prints each goal against its bound."""
    from companion.bench.vision_mounted import Cell, Record, read_cells_for, report

    def frame(side: float, outcomes: list[str], blur: float) -> Record:
        return Record(True, tuple((side, o) for o in outcomes), 0, False, 0.1, 0.2, 0.05, {"frame": blur}, ())

    sharp = [frame(24.0, ["read"] * 40, 1.0)]  # 0.25 cells
    near = [frame(24.0, ["read"] * 40, 1.7)]  # 0.425 cells
    thin = [frame(24.0, ["missed"] * 5, 1.9)]  # 0.475 cells: too few to judge
    past = [frame(24.0, ["read"] * 30 + ["withheld"] * 10, 2.1)]  # 0.525 cells: 75 %
    beyond = [frame(24.0, ["read"] * 40, 2.3)]  # 0.575 cells: read again, but past where reading stopped
    assert read_cells_for(sharp + near + thin + past + beyond) == (0.45, 80)
    assert read_cells_for(past) is None
    report("trajectory 1920x1080 normal approved", Cell(sharp + near + thin))
    out = capsys.readouterr().out
    assert "all correct 66.7% (2 of 3; at least 13.54% at 95% confidence" in out
    assert "all correct >= 99% (lower bound 13.54%) not met;" in out
    assert "every miss flagged not met" in out
    assert "stickers read 99% or more in every bin of 30 or more: up to 0.45 cells" in out
