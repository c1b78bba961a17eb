"""`companion bench vision --game orbital_battle`: one mounted camera over the solar map and one or two planet maps
lying beside it (companion/sim/mounted_*.py), read by one pipeline per board (sensing/vision_table.py).

Each mounting lays the maps out as people do (beside the solar map, a little turned and apart) and takes
`--per-mounting` frames: the first as laid out, then one with a planet map pushed aside (its markers must find it
again while the others keep their pose), and, in the last frame of every other mounting, a planet map taken off the
table: that board is out of view and must be said so, not read as empty. Pieces come from a stickered Orbital
Battle box (companion/sim/pieces_orbital_battle.json: the companion ships no Orbital Battle registry yet): planets
and counters on the solar map, counters on the planet maps, all from the one box (no kind laid more often than the
box holds it, across the maps). Each board is scored as the mounted bench scores one
board: every sticker in view read, missed, withheld or wrong, and false pieces. Time: every board of a frame read,
against plain detectMarkers (defaults, whole frame, the stickers' dictionary) on the same frame.
"""

from __future__ import annotations

import argparse
import math
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from importlib import resources

import numpy as np

PLANET_MAPS = (3, 5)  # the planet maps laid beside the solar map (the first always, the second in every other)
PIECES = {"orbital_battle": 16, "orbital_battle:planet": 10}  # pieces set out on each board per frame


@dataclass
class BoardTally:
    """One board's frames: outcomes per visible sticker, false pieces, all-correct frames, and out-of-view frames
    (said so, or read as if in view)."""

    frames: int = 0
    right: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    false: int = 0
    gone: int = 0
    gone_said: int = 0
    moved: int = 0
    moved_right: int = 0


def box_registry():
    """The stickered Orbital Battle box the bench models."""
    from companion.sensing.pieces import load_registry

    return load_registry(resources.files("companion.sim").joinpath("pieces_orbital_battle.json"))


def run(args: argparse.Namespace, sizes: list[tuple[int, int]]) -> int:
    import cv2

    from companion.bench.stats import summary
    from companion.bench.vision_mounted import Extremes, report, report_approved, save_records

    cv2.setNumThreads(1)
    fill = tuple(float(v) for v in args.fill.split("-"))
    ranges = Extremes.of(args).words() or "the whole of WORLD.md's ranges"
    print(
        f"mounted camera ({args.optics} optics) over the solar map and planet maps beside it: {args.scenes} frames "
        f"per row, {args.per_mounting} per mounting, the maps filling {args.fill} of the frame, tilt up to "
        f"{args.tilt:g} degrees, {args.fuse} frame(s) fused, one thread; {ranges}"
    )
    for size in sizes:
        for condition in args.conditions.split(","):
            cells, tallies, seconds, baseline = _row(
                size,
                condition,
                args.scenes,
                args.per_mounting,
                args.seed,
                fill,
                args.tilt,
                args.optics,
                args.fuse,
                Extremes.of(args),
                args.approved,
            )
            print(f"orbital_battle {size[0]}x{size[1]} {condition}:")
            for name, cell in cells.items():
                t = tallies[name]
                if args.records:
                    save_records(
                        args.records,
                        f"{name} {size[0]}x{size[1]} {condition}{' approved' if args.approved else ''}",
                        cell.records,
                    )
                if args.approved:  # each map as `calibrate board` judges it, the solar map's approval aside
                    report_approved(f"  {name}", cell)
                else:
                    report(f"  {name}", cell)
                    report("    mountings `calibrate board` approves", cell.approved(), sweeps=False)
                if t.moved:
                    print(f"    moved on the table in {t.moved} frames: all correct in {t.moved_right}")
                if t.gone:
                    print(f"    off the table in {t.gone} frames: said out of view in {t.gone_said}")
            print(f"  pipeline, every board  {summary(seconds, 1e3, 'ms')}")
            print(f"  baseline: plain detectMarkers, defaults, whole frame  {summary(baseline, 1e3, 'ms')}")
    return 0


def _row(
    size: tuple[int, int],
    condition: str,
    frames: int,
    per_mounting: int,
    seed: int,
    fill: tuple[float, ...],
    tilt: float,
    optics: str = "world",
    fuse: int = 1,
    extremes=None,
    approved_only: bool = False,
):
    """Per board: its frames as the mounted bench records them (a Cell), and its moved and taken-off tallies; the
    pipeline's and the baseline's seconds per frame."""
    import cv2

    from companion.bench.vision_mounted import (
        MOST_MOUNTINGS,
        Camera,
        Cell,
        Extremes,
        Record,
        calibrated,
        empty_sites,
        mounting_approved,
        score,
    )
    from companion.boards import default_board
    from companion.sensing.vision_profile import CameraProfile
    from companion.sensing.vision_table import BoardInView, TableVision
    from companion.sim.mounted_camera import CONDITIONS, random_mounting
    from companion.sim.mounted_render import MountedRenderer
    from companion.sim.mounted_scene import random_spread, tables_from_one_box

    registry = box_registry()
    counters = replace(registry, entries=tuple(e for e in registry.entries if not e.piece.startswith("planet-")))
    cells: dict[str, Cell] = {}
    tallies: dict[str, BoardTally] = {}
    seconds: list[float] = []
    baseline: list[float] = []
    plain = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, registry.dictionary)), cv2.aruco.DetectorParameters()
    )
    done = 0
    m = -1
    while done < frames and m < MOST_MOUNTINGS * math.ceil(frames / per_mounting):
        m += 1
        rng = np.random.default_rng([seed, m, size[1], 11])
        maps = PLANET_MAPS[: 1 + m % 2]
        boards = [default_board("orbital_battle")] + [default_board(f"orbital_battle:planet{p}") for p in maps]
        spread = random_spread(boards, rng)
        extremes = extremes or Extremes()
        mounting = random_mounting(spread, size, rng, fill, tilt, extremes.tilt_from)
        camera = Camera(mounting, optics, condition, rng, extremes)
        renderer = MountedRenderer(spread, registry.dictionary, mounting)
        profile = calibrated(mounting, rng, CameraProfile)
        vision = TableVision(
            [BoardInView(boards[0])] + [BoardInView(b, f"p{p}:") for b, p in zip(boards[1:], maps, strict=True)],
            registry,
            profile,
        )
        shots = np.random.default_rng([seed, m, size[1], CONDITIONS.index(condition)])
        count = min(per_mounting, frames - done)
        approved: dict[str, bool] = {}
        kept = (
            {name: len(cell.records) for name, cell in cells.items()},
            len(seconds),
            len(baseline),
            done,
            {name: (t.moved, t.moved_right, t.gone, t.gone_said) for name, t in tallies.items()},
        )
        for k in range(count):
            now = spread
            moved = gone = None
            if k == 1:  # a planet map pushed aside: slid and turned a little
                moved = int(shots.integers(1, len(boards)))
                now = _nudged(spread, moved, shots)
            if k == count - 1 and k > 1 and m % 2:  # a planet map taken off the table
                gone = len(boards) - 1
                now = _nudged(spread, gone, shots, away=True)
            shot = camera.shot(shots)
            tables = tables_from_one_box(  # the maps' pieces from one box, as a table has them
                boards,
                [registry] + [counters] * (len(boards) - 1),
                shots,
                [PIECES["orbital_battle"]] + [PIECES["orbital_battle:planet"]] * (len(boards) - 1),
                [bool(shot.arm)] + [False] * (len(boards) - 1),
            )
            frame = renderer.render_spread(tables, shot, shots, now, tuple(camera.shot(shots) for _ in range(fuse - 1)))
            t0 = time.perf_counter()
            table_report = vision.process(frame.image, float(done), more=frame.more)
            t1 = time.perf_counter()
            plain.detectMarkers(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY))
            seconds.append(t1 - t0)
            baseline.append(time.perf_counter() - t1)
            for i, (where, board_report) in enumerate(table_report.boards):
                name = where.board.name
                tally = tallies.setdefault(name, BoardTally())
                if i == gone:
                    tally.gone += 1
                    tally.gone_said += not board_report.reliable
                    continue
                board_vision = vision.visions[i]
                if name not in approved and board_vision.pose is not None:  # `calibrate board` for this map
                    approved[name] = mounting_approved(where.board, registry, profile, board_vision.pose, frame.image)
                truth = [t for t in frame.truth if t.board == name]
                own = {s.id for s in where.board.sites}
                results, false = score(board_report, truth, own)
                traits = camera.traits(shot, size) | {
                    "measured": board_vision.blur_px,
                    "frame": board_vision.frame_blur_px,
                    "mounting": m,
                    "shot": k,
                }
                record = Record(
                    approved.get(name, False),
                    tuple(results),
                    false,
                    not board_report.reliable,
                    t1 - t0,
                    0.0,
                    0.0,
                    traits,
                    tuple(t.piece.entry.sticker for t in truth if t.visible),
                    *empty_sites(board_report, truth, own),
                )
                cells.setdefault(name, Cell()).records.append(record)
                if i == moved:
                    tally.moved += 1
                    tally.moved_right += record.all_correct
            done += 1
            if approved_only and not approved.get(boards[0].name):  # the solar map's mounting is not approved
                _drop(cells, tallies, seconds, baseline, kept)
                done = kept[3]
                break
    return cells, tallies, seconds, baseline


def _drop(cells, tallies, seconds: list[float], baseline: list[float], kept) -> None:
    """Forget what a mounting added (the cells' records, the times, the tallies) back to `kept`."""
    counts, n_seconds, n_baseline, _, tally = kept
    for name, cell in cells.items():
        del cell.records[counts.get(name, 0) :]
    for name, t in tallies.items():
        t.moved, t.moved_right, t.gone, t.gone_said = tally.get(name, (0, 0, 0, 0))
    del seconds[n_seconds:], baseline[n_baseline:]


def _nudged(spread, index: int, rng: np.random.Generator, away: bool = False):
    """The spread with one board slid 20-60 mm and turned up to 6 degrees, or (`away`) carried off the table."""
    from companion.sim.mounted_scene import Placement, Spread

    placements = list(spread.placements)
    p = placements[index]
    if away:
        placements[index] = Placement(p.board, p.x + 5000.0, p.y, p.turn)
    else:
        angle, distance = float(rng.uniform(0, 2 * math.pi)), float(rng.uniform(20, 60))
        placements[index] = Placement(
            p.board,
            p.x + distance * math.cos(angle),
            p.y + distance * math.sin(angle),
            p.turn + math.radians(float(rng.uniform(-6, 6))),
        )
    return Spread(tuple(placements))
