"""`companion bench vision`: the camera pipeline on rendered scenes, in normal and harsh conditions.

Figures per resolution and conditions: per-piece identification error, the share of frames with every piece right,
position error (mm) of the pieces found, and time per frame on one thread. Baseline in the same run: plain marker
detection (OpenCV defaults, whole frame, piece dictionary) on the same frames, without the rest of the pipeline.
Goals (normal conditions): under 0.1% per-piece error, 99% all-correct frames, under 25 ms per 720p frame.
"""

from __future__ import annotations

import argparse
import math
import time

HELP = "camera pipeline on rendered scenes: identification error, all-correct frames, position error, ms per frame"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scenes", type=int, default=200, help="scenes per resolution and conditions (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sizes", default="1280x720,1920x1080", help="frame sizes (default 1280x720,1920x1080)")
    parser.add_argument("--conditions", default="normal,harsh", help="normal, harsh (default both)")
    parser.add_argument("--hands", type=float, default=0.0,
                        help="share of scenes with a hand over the board (default 0)")


def run(args: argparse.Namespace) -> int:
    import cv2

    from companion.bench.stats import percentile, summary
    from companion.boards import default_board
    from companion.errors import UserError
    from companion.sensing.pieces import default_registry
    from companion.sensing.vision import Vision
    from companion.sim.render import Renderer
    from companion.sim.render_camera import CONDITIONS, overhead_camera, sim_profile
    from companion.sim.render_scene import random_scene
    from companion.sim.render_truth import visible

    cv2.setNumThreads(1)  # one-core figures
    board = default_board("trajectory")
    registry = default_registry("trajectory")
    renderer = Renderer(board, registry.dictionary, registry.sticker_mm)
    baseline = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, registry.dictionary)), cv2.aruco.DetectorParameters()
    )
    sizes = []
    for size in args.sizes.split(","):
        try:
            w, h = (int(v) for v in size.lower().split("x"))
        except ValueError:
            raise UserError(f"bench vision: --sizes: {size!r} is not WIDTHxHEIGHT") from None
        sizes.append((w, h))
    for name in args.conditions.split(","):
        if name not in CONDITIONS:
            raise UserError(f"bench vision: unknown conditions {name!r} (known: {', '.join(CONDITIONS)})")
    print(f"{args.scenes} rendered scenes per row, Trajectory board, 20 pieces a scene (3 stacks, 2 off-site), "
          f"stickers {registry.dictionary} {registry.sticker_mm:g} mm, one thread")
    for w, h in sizes:
        camera = overhead_camera(board.width, board.height, w, h)
        for name in args.conditions.split(","):
            vision = Vision(board, registry, sim_profile(camera, board.name))
            pieces = errors = withheld = frames_right = unflagged = 0
            position, times, base_times = [], [], []
            for index in range(args.scenes):
                seed = args.seed + index
                hand = args.hands > 0 and (index % max(1, round(1 / args.hands)) == 0)
                scene = random_scene(board, registry, camera, seed, CONDITIONS[name], hand=hand)
                rendered = renderer.render(scene)
                gray = cv2.cvtColor(rendered.image, cv2.COLOR_BGR2GRAY)
                t0 = time.perf_counter()
                baseline.detectMarkers(gray)
                t1 = time.perf_counter()
                report = vision.process(rendered.image, float(index))
                t2 = time.perf_counter()
                base_times.append(t1 - t0)
                times.append(t2 - t1)
                seen = {s.entry: s for s in report.sightings}
                in_view = visible(scene, rendered, registry.sticker_mm)
                unreliable = report.unreliable_sites() if report.reliable else {s.id for s in board.sites}
                frame_errors = 0
                for piece in scene.pieces:
                    sighting = seen.pop(piece.entry.id, None)
                    if not in_view.get(piece.entry.id, False):
                        if sighting is None and piece.site is not None and piece.site not in unreliable:
                            unflagged += 1  # hidden, and the frame did not say so
                        continue
                    pieces += 1
                    if sighting is None:
                        if piece.site is not None and piece.site in unreliable:
                            withheld += 1
                        else:
                            frame_errors += 1
                    elif sighting.site != piece.site:
                        frame_errors += 1
                    else:
                        position.append(math.hypot(sighting.x - piece.x, sighting.y - piece.y))
                frame_errors += len(seen)  # sightings of pieces that are not there
                errors += frame_errors
                frames_right += frame_errors == 0 and report.reliable
            position.sort()
            print(f"{w}x{h} {name}:")
            print(f"  per-piece error   {100 * errors / max(1, pieces):.3f}% ({errors} of {pieces} visible pieces; "
                  f"{withheld} withheld as unreliable, {unflagged} hidden pieces not flagged)")
            print(f"  all-correct frames {100 * frames_right / args.scenes:.1f}% ({frames_right} of {args.scenes})")
            if position:
                print(f"  position error    median {percentile(position, 0.5):.2f} mm, "
                      f"p95 {percentile(position, 0.95):.2f} mm, max {position[-1]:.2f} mm")
            print(f"  pipeline          {summary(times, 1e3, 'ms')}")
            print(f"  baseline: plain detectMarkers, defaults, whole frame  {summary(base_times, 1e3, 'ms')}")
    return 0
