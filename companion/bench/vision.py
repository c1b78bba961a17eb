"""`companion bench vision`: the camera pipeline on rendered scenes, in normal and harsh conditions.

Figures per resolution and conditions: per-piece identification error, the share of frames with every piece right,
position error (mm) of the pieces found, and time per frame on one thread. Baseline in the same run: plain marker
detection (OpenCV defaults, whole frame, piece dictionary) on the same frames, without the rest of the pipeline.
Trajectory's scenes are random (pieces scattered over the sites, stacks, a few off any site); ORBIT's are boards from
real games (companion/sim/game_layouts.py: four players, partners, dual spaceships, every module on the back side),
ships stacked on planets and stations included, and for them the bench also counts the sites whose reading (what
the referee gets: exact, or partial on a stack's top) contradicts the board.
Goals (normal conditions): under 0.1% per-piece error, 99% all-correct frames, under 25 ms per 720p frame.
"""

from __future__ import annotations

import argparse
import math
import time
from collections import Counter
from dataclasses import dataclass, field, replace

HELP = "camera pipeline on rendered scenes: identification error, all-correct frames, position error, ms per frame"
TRAJECTORY_SCENES = "scenes per row, Trajectory board, 20 pieces a scene (3 stacks, 2 off-site)"
GAMES = ("trajectory", "orbit", "orbital_battle")
ORBIT_SCENES = (
    "boards per row from ORBIT games (four players, partners, dual spaceships, every module), ships "
    "stacked on planets and stations"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game",
        default="trajectory",
        choices=GAMES,
        help="trajectory (random scenes), orbit (boards from games) or orbital_battle (the mounted "
        "camera over the solar map and planet maps beside it)",
    )
    parser.add_argument("--scenes", type=int, default=200, help="scenes per resolution and conditions (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sizes", default="1280x720,1920x1080", help="frame sizes (default 1280x720,1920x1080)")
    parser.add_argument(
        "--model",
        default="mounted",
        choices=("mounted", "rendered"),
        help="mounted: cameras mounted any way, a model independent of the pipeline (default); "
        "rendered: the twin's overhead camera (the first renderer)",
    )
    parser.add_argument(
        "--conditions",
        default=None,
        help="mounted: normal, arm, harsh (default normal,arm); rendered: normal, harsh (default both)",
    )
    parser.add_argument(
        "--optics",
        default="world",
        choices=("world", "sharp"),
        help="mounted: world (WORLD.md's cameras: lens blur, sway, light and noise, compression, by "
        "frame size; default) or sharp (the crisp camera the bench had before)",
    )
    parser.add_argument(
        "--fuse",
        type=int,
        default=1,
        help="mounted: frames of each still table the pipeline fuses (the frames a camera gives in "
        "the moment the board settles; default 1)",
    )
    parser.add_argument("--per-mounting", type=int, default=4, help="mounted: frames per camera mounting (default 4)")
    parser.add_argument(
        "--fill", default="0.6-0.95", help="mounted: share of the frame the board fills (default 0.6-0.95)"
    )
    parser.add_argument("--tilt", type=float, default=35.0, help="mounted: most tilt off vertical, degrees (35)")
    parser.add_argument(
        "--tilt-from",
        type=float,
        default=0.0,
        help="mounted: least tilt off vertical, degrees (default 0; 30 with --tilt 35 sweeps the steepest mountings)",
    )
    parser.add_argument(
        "--lux",
        type=_range,
        default=None,
        help="mounted: the room's light, LOW-HIGH or one figure (default WORLD.md's 100-500)",
    )
    parser.add_argument(
        "--exposure",
        type=_seconds,
        default=None,
        help="mounted: the auto exposure's longest exposure, e.g. 1/15 (default 1/30 or 1/15)",
    )
    parser.add_argument(
        "--lens-blur",
        type=_range,
        default=None,
        help="mounted: the lens's blur, a Gaussian's sigma in px at the frame's size, LOW-HIGH or "
        "one figure (default the camera's range in WORLD.md)",
    )
    parser.add_argument(
        "--approved",
        action="store_true",
        help="mounted: only mountings `calibrate board` approves (the others are dropped after "
        "their first frame): --scenes approved frames (with --changes: mountings whose own board it approves)",
    )
    parser.add_argument(
        "--all-codes",
        action="store_true",
        help="mounted: each mounting gives the registry's kinds codes drawn afresh from the whole "
        "dictionary, to sweep misses by code",
    )
    parser.add_argument(
        "--changes",
        type=int,
        default=0,
        help="mounted: settled changes per mounting read in crops around the changed sites, timed "
        "against the whole frame (--scenes mountings; e.g. --sizes 4056x3040); 0: frames",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="with --changes: read each change this many times, by copies of the pipeline, and give "
        "the least CPU time too (what the machine's other load adds left out; default 3)",
    )
    parser.add_argument(
        "--colours",
        action="store_true",
        help="with --changes: calibrate the colours of pieces without stickers (ORBIT's nebula "
        "chips) from each mounting's first frame, as `calibrate colours` does, and read them too",
    )
    parser.add_argument(
        "--records", default=None, help="mounted: append each frame's record to this file (JSON lines), for --merge"
    )
    parser.add_argument(
        "--merge",
        default=None,
        help="mounted: report the rows of these files of records (FILE,FILE...) as one, running "
        "nothing: a sweep split into short runs, e.g. one per seed",
    )
    parser.add_argument(
        "--hands", type=float, default=0.0, help="share of scenes with a hand over the board (default 0)"
    )


def _range(text: str) -> tuple[float, float]:
    """'100-150' or '100' (a range of one figure)."""
    try:
        parts = [float(v) for v in text.split("-")]
    except ValueError:
        parts = []
    if len(parts) not in (1, 2) or min(parts) <= 0 or parts[0] > parts[-1]:
        raise argparse.ArgumentTypeError(f"{text!r} is not a figure or LOW-HIGH above 0")
    return parts[0], parts[-1]


def _seconds(text: str) -> float:
    """'1/15' or '0.066'."""
    try:
        top, _, bottom = text.partition("/")
        value = float(top) / (float(bottom) if bottom else 1.0)
    except (ValueError, ZeroDivisionError):
        value = 0.0
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not an exposure of a second or less (1/15, 0.05)")
    return value


@dataclass
class Tally:
    """One row: counts (pieces, errors, withheld, unflagged, frames_right, sites_wrong), positions and times."""

    count: Counter[str] = field(default_factory=Counter)
    position: list[float] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    base_times: list[float] = field(default_factory=list)


def run(args: argparse.Namespace) -> int:
    import cv2

    from companion.errors import UserError
    from companion.sensing.pieces import default_registry, has_registry
    from companion.sim.render_camera import CONDITIONS

    cv2.setNumThreads(1)  # one-core figures
    if args.game not in GAMES or (args.game != "orbital_battle" and not has_registry(args.game)):
        raise UserError(f"bench vision: --game must be one of {', '.join(GAMES)}, not {args.game!r}")
    if args.game == "orbital_battle" and (args.model != "mounted" or args.colours):
        raise UserError("bench vision: --game orbital_battle runs on the mounted model only, without --colours")
    if args.scenes < 1:
        raise UserError("bench vision: --scenes must be 1 or more")
    if args.colours and not (args.changes and args.model == "mounted"):
        raise UserError("bench vision: --colours goes with --changes N (settled changes on the mounted model)")
    sizes = []
    for size in args.sizes.split(","):
        try:
            w, h = (int(v) for v in size.lower().split("x"))
        except ValueError:
            raise UserError(f"bench vision: --sizes: {size!r} is not WIDTHxHEIGHT") from None
        sizes.append((w, h))
    if args.model == "mounted":
        from companion.bench.vision_mounted import run as run_mounted
        from companion.sim.mounted_camera import CONDITIONS as MOUNTED

        args.conditions = args.conditions or "normal,arm"
        for name in args.conditions.split(","):
            if name not in MOUNTED:
                raise UserError(f"bench vision: unknown conditions {name!r} (known: {', '.join(MOUNTED)})")
        try:
            fill = [float(v) for v in args.fill.split("-")]
        except ValueError:
            fill = []
        if len(fill) != 2 or not 0.1 <= fill[0] <= fill[1] <= 1.0:
            raise UserError(f"bench vision: --fill: {args.fill!r} is not LOW-HIGH between 0.1 and 1")
        if args.fuse < 1:
            raise UserError("bench vision: --fuse must be 1 or more")
        if args.per_mounting < 1:
            raise UserError("bench vision: --per-mounting must be 1 or more")
        if args.changes < 0:
            raise UserError("bench vision: --changes must be 0 or more")
        if args.repeats < 1:
            raise UserError("bench vision: --repeats must be 1 or more")
        if args.merge:  # the records of earlier runs, whatever their game
            return run_mounted(args, sizes)
        if args.changes:
            from companion.bench.vision_crops import run as run_crops

            return run_crops(args, sizes)
        if args.game == "orbital_battle":
            from companion.bench.vision_spread import run as run_spread

            return run_spread(args, sizes)
        return run_mounted(args, sizes)
    registry = default_registry(args.game)
    args.conditions = args.conditions or "normal,harsh"
    for name in args.conditions.split(","):
        if name not in CONDITIONS:
            raise UserError(f"bench vision: unknown conditions {name!r} (known: {', '.join(CONDITIONS)})")
    scenes, what = (_orbit_scenes, ORBIT_SCENES) if args.game == "orbit" else (_trajectory_scenes, TRAJECTORY_SCENES)
    baseline = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, registry.dictionary)), cv2.aruco.DetectorParameters()
    )
    print(
        f"{args.scenes} rendered {what}, stickers {registry.dictionary} "
        f"{'-'.join(f'{s:g}' for s in sorted(set(registry.sticker_sizes())))} mm, one thread"
    )
    for w, h in sizes:
        for name in args.conditions.split(","):
            tally = Tally()
            for index, (scene, vision, renderer, layout) in enumerate(scenes(args, registry, (w, h), CONDITIONS[name])):
                _measure(index, scene, vision, renderer, layout, baseline, tally)
            _print(f"{w}x{h} {name}", tally, args.scenes, args.game == "orbit")
    return 0


def _trajectory_scenes(args: argparse.Namespace, registry, size, conditions):
    from companion.boards import default_board
    from companion.sensing.vision import Vision
    from companion.sim.render import Renderer
    from companion.sim.render_camera import overhead_camera, sim_profile
    from companion.sim.render_scene import random_scene

    board = default_board("trajectory")
    camera = overhead_camera(board.width, board.height, *size)
    vision = Vision(board, registry, sim_profile(camera, board.name))
    renderer = Renderer(board, registry.dictionary)
    for index in range(args.scenes):
        hand = args.hands > 0 and (index % max(1, round(1 / args.hands)) == 0)
        scene = random_scene(board, registry, camera, args.seed + index, conditions, hand=hand)
        yield scene, vision, renderer, None


def _orbit_scenes(args: argparse.Namespace, registry, size, conditions):
    import numpy as np

    from companion.rules import load
    from companion.sensing.vision import Vision
    from companion.sim.game_layouts import ORBIT_TABLES, board_layouts
    from companion.sim.render import Renderer
    from companion.sim.render_camera import overhead_camera, sim_profile
    from companion.sim.render_scene import layout_scene, random_hand
    from companion.sim.table_setup import game_board

    physical = load("orbit").physical_piece
    rng = np.random.default_rng(args.seed)
    sides: dict[str, tuple] = {}
    for index, (table, layout) in enumerate(board_layouts("orbit", ORBIT_TABLES, args.scenes, args.seed)):
        side = str(table.options.get("board", "front"))
        if side not in sides:
            board = game_board("orbit", table.options)
            camera = overhead_camera(board.width, board.height, *size)
            sides[side] = (
                camera,
                Vision(board, registry, sim_profile(camera, board.name)),
                Renderer(board, registry.dictionary),
            )
        camera, vision, renderer = sides[side]
        scene, _ = layout_scene(renderer.board, registry, camera, layout, rng, conditions, physical)
        if args.hands > 0 and index % max(1, round(1 / args.hands)) == 0:
            scene = replace(scene, hand=random_hand(renderer.board, rng))
        yield scene, vision, renderer, layout


def _measure(index: int, scene, vision, renderer, layout, baseline, tally: Tally) -> None:
    import cv2

    from companion.rules import load
    from companion.sim.render_truth import covered, match_sightings, visible
    from companion.table.observation import Observation, SiteReading
    from companion.table.observe import camera_view

    registry, board = vision.registry, vision.board
    rendered = renderer.render(scene)
    gray = cv2.cvtColor(rendered.image, cv2.COLOR_BGR2GRAY)
    t0 = time.perf_counter()
    baseline.detectMarkers(gray)
    t1 = time.perf_counter()
    report = vision.process(rendered.image, float(index))
    t2 = time.perf_counter()
    tally.base_times.append(t1 - t0)
    tally.times.append(t2 - t1)
    seen, extra = match_sightings(report.sightings, scene.pieces)
    in_view = visible(scene, rendered)
    unreliable = report.unreliable_sites() if report.reliable else {s.id for s in board.sites}
    frame_errors = 0
    for piece in scene.pieces:
        if piece.entry.sticker is None:
            continue
        sighting = seen.pop(piece.entry.id, None)
        if not in_view.get(piece.entry.id, False):
            if sighting is not None and sighting.site != piece.site:
                frame_errors += 1  # a hidden piece read, and put on the wrong site
            elif (
                sighting is None
                and piece.site is not None
                and piece.site not in unreliable
                and not covered(scene, piece)
            ):
                tally.count["unflagged"] += 1  # hidden (not under a piece: partial readings allow for that), unsaid
            continue
        tally.count["pieces"] += 1
        if sighting is None:
            if piece.site is not None and piece.site in unreliable:
                tally.count["withheld"] += 1
            else:
                frame_errors += 1
        elif sighting.site != piece.site:
            frame_errors += 1
        else:
            tally.position.append(math.hypot(sighting.x - piece.x, sighting.y - piece.y))
    frame_errors += len(extra) + len(seen)  # sightings of pieces that are not there (or of unstickered ones)
    if layout is not None and report.reliable:
        view = camera_view(report, registry)
        shown = Observation(camera_pieces=view.pieces)
        physical = load(board.name).physical_piece
        for site in {s.id for s in board.sites} - view.unreliable:
            reading = SiteReading(None, tuple(view.stacks.get(site, ())), partial=site in view.partial)
            expected = tuple(layout.get(site, ()))
            tally.count["sites_wrong"] += not reading.agrees_with(expected, shown.shown(expected, physical))
    tally.count["errors"] += frame_errors
    tally.count["frames_right"] += frame_errors == 0 and report.reliable


def _print(label: str, tally: Tally, scenes: int, readings: bool) -> None:
    from companion.bench.stats import percentile, summary

    position, c = sorted(tally.position), tally.count
    print(f"{label}:")
    print(
        f"  per-piece error   {100 * c['errors'] / max(1, c['pieces']):.3f}% ({c['errors']} of {c['pieces']} "
        f"visible pieces; {c['withheld']} withheld as unreliable, {c['unflagged']} hidden pieces not flagged)"
    )
    print(f"  all-correct frames {100 * c['frames_right'] / scenes:.1f}% ({c['frames_right']} of {scenes})")
    if readings:
        print(f"  site readings     {c['sites_wrong']} contradict the board (exact, or partial on a stack's top)")
    if position:
        print(
            f"  position error    median {percentile(position, 0.5):.2f} mm, "
            f"p95 {percentile(position, 0.95):.2f} mm, max {position[-1]:.2f} mm"
        )
    print(f"  pipeline          {summary(tally.times, 1e3, 'ms')}")
    print(f"  baseline: plain detectMarkers, defaults, whole frame  {summary(tally.base_times, 1e3, 'ms')}")
