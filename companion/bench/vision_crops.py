"""`companion bench vision --changes N`: the time a settled change costs at full resolution (12 MP), read in crops
around the sites the table reads at a change, against the whole frame decoded, in the same run on the same frames.

Each mounting (companion/sim/mounted_*.py) starts from a table read whole; then a hand changes it (_move_one, one of
three alike: a piece moved to an empty site; a stack's top lifted off it to an empty site; a lone rider set onto a
stack while a piece from the box is set on an empty site), the frame is taken once it has settled, and the pipeline
reads it, told what `companion serve` tells it (Observer.sites_to_read): the sites whose switch changed, decoded, and
apart from them every other site a piece stands on (the grid feels one there; a piece set onto another changes no
switch), decoded where it looks changed since it was last decoded. A second pipeline on the same frames decodes every
occupied site (the table's reading before the look check), a third is told the two changed sites alone (the narrower
reading of earlier figures), a fourth reads the whole frame. Every reading is scored against the truth as the mounted
bench scores them.
A camera that sends JPEGs (a phone) is read two more ways, by pipelines of their own on the same frames, told as
the table tells them: from the crops the phone cuts from its photo where the table asks (CropPlan: every occupied
site's, those that look unchanged left undecoded; nothing to decode; with --colours the
parts the colour windows are warped from, in colour), and from the same frame as a Pi camera sends it, raw (its luma;
in colour with --colours: the baseline the crops are held to).
With --colours, each mounting's first table is also the layout `calibrate colours` samples (its pieces without a
sticker whose colour names one kind, on their sites), and pieces found by colour are scored too: read (its kind on
its site) or missed, and a colour sighting of nothing there is a false piece.
With --game orbital_battle, each mounting is over Orbital Battle's spread (the solar map with planet maps 3 and 5
beside it, their pieces from one box, as bench vision_spread.py lays them) read by one pipeline a board
(TableVision), and each change is of one of its boards: the phone's parts are then one plan over the
boards whose sites changed (TablePlan).
Every sticker in view is scored after every change, the boards' unchanged sites (their last reading kept) too. What
`calibrate board` says of each board from the mounting's first frame is kept: the rows are given again for the boards
it approves (a board it does not reads on as it can, its misses counted in the first rows only); with --approved,
mountings whose own board (the solar map on the spread) it does not approve are drawn again.
"""

from __future__ import annotations

import argparse
import copy
import math
import time
from dataclasses import dataclass, field, replace

import numpy as np


class Delivered:
    """A frame as the camera hands it to the table: a Pi camera's raw luma plane (gray, nothing to decode; colour
    frames where pieces are found by colour), or the JPEG a webcam or a phone sends, decoded by the table."""

    def __init__(self, camera, colours: bool) -> None:
        self.raw = camera.optics is None or not camera.optics.jpeg
        self.colour = colours

    def sent(self, image: np.ndarray):
        import cv2

        if self.raw:
            return image if self.colour else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        return cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])[1]

    def frame(self, sent) -> np.ndarray:
        import cv2

        if self.raw:
            return sent
        return cv2.imdecode(sent, cv2.IMREAD_COLOR if self.colour else cv2.IMREAD_GRAYSCALE)


@dataclass(frozen=True)
class Change:
    """One settled change as read: each board's scored stickers and false pieces (the scene's order), and what
    `calibrate board` said of each board at the mounting's first frame."""

    boards: tuple[tuple[list[tuple[float, str]], int], ...]
    approved: tuple[bool, ...]

    def whole(self) -> tuple[list[tuple[float, str]], int]:
        """Every board's stickers and false pieces together."""
        return [o for results, _ in self.boards for o in results], sum(false for _, false in self.boards)

    def approved_boards(self) -> list[tuple[list[tuple[float, str]], int]]:
        return [board for board, ok in zip(self.boards, self.approved, strict=True) if ok]


@dataclass
class Row:
    crops: list[float] = field(default_factory=list)
    crops_cpu: list[float] = field(default_factory=list)  # CPU seconds of the same (the machine is shared)
    crops_least: list[float] = field(default_factory=list)  # the least CPU seconds of the change's repeats
    decodes: dict[str, list[float]] = field(default_factory=dict)  # a JPEG's decoding alone, least CPU seconds
    two_sites: list[float] = field(default_factory=list)  # least CPU seconds told the two changed sites alone
    every: list[float] = field(default_factory=list)  # least CPU seconds with every occupied site decoded
    whole: list[float] = field(default_factory=list)
    outcomes: dict[str, list[Change]] = field(
        default_factory=lambda: {"crops": [], "every occupied": [], "two sites": [], "whole": []}
    )
    looks: list[float] = field(default_factory=list)  # seconds the gated reading's site looks took, per change
    looked: list[int] = field(default_factory=list)  # occupied sites none of whose switches changed, per change
    decoded: list[int] = field(default_factory=list)  # of which decoded (they looked changed)
    fallbacks: int = 0
    mountings: list[tuple[bool, ...]] = field(default_factory=list)  # each board's approval, per mounting
    calibrated: int = 0  # mountings whose colour ranges were calibrated (--colours)
    raw: bool = True  # the camera sends raw frames (no JPEG to decode)
    # A JPEG camera's frames read from the phone's crops, and as raw luma (the baseline): least CPU seconds
    cut: list[float] = field(default_factory=list)
    baseline: list[float] = field(default_factory=list)
    sent_bytes: list[int] = field(default_factory=list)  # what the phone sent for each change
    whole_bytes: list[int] = field(default_factory=list)  # and the JPEG it would have sent instead


def run(args: argparse.Namespace, sizes: list[tuple[int, int]]) -> int:
    import cv2

    from companion.bench.stats import summary
    from companion.bench.vision_mounted import Extremes

    cv2.setNumThreads(1)
    fill = tuple(float(v) for v in args.fill.split("-"))
    print(
        f"settled changes read in crops against the whole frame: {args.changes} changes per mounting, "
        f"{args.scenes} mountings per row, board filling {args.fill} of the frame, one thread"
    )
    names = {
        "crops": "crops as the table reads",
        "every occupied": "crops round every occupied site",
        "two sites": "crops round the two changed sites alone",
        "whole": "whole",
        "cut": "phone's crops",
        "luma": "raw colour" if args.colours else "raw luma",
    }
    for size in sizes:
        row = _row(
            args.game,
            size,
            args.scenes,
            args.changes,
            args.seed,
            fill,
            args.tilt,
            args.colours,
            args.optics,
            Extremes.of(args),
            args.repeats,
            args.approved,
        )
        boards = sum(len(a) for a in row.mountings)
        approved = sum(sum(a) for a in row.mountings)
        print(
            f"{args.game} {size[0]}x{size[1]}: {len(row.mountings)} mountings, `calibrate board` approves "
            f"{approved} of their {boards} boards"
        )
        for name, changes in row.outcomes.items():
            _outcomes(
                f"{args.game} {size[0]}x{size[1]} {names[name]}: {len(changes)} changes", [c.whole() for c in changes]
            )
            readings = [board for c in changes for board in c.approved_boards()]
            _outcomes(
                f"    the boards `calibrate board` approves: {len(readings)} readings of a board after a change",
                readings,
            )
        if args.colours:
            print(f"  colour ranges calibrated in {row.calibrated} of {args.scenes} mountings")
        print(
            f"  per settled change, in crops  {summary(row.crops, 1e3, 'ms')}"
            f"  ({row.fallbacks} read whole: the board moved)"
        )
        print(
            f"    CPU time  {summary(row.crops_cpu, 1e3, 'ms')}  (frames as the camera sends them: "
            f"{'raw luma, nothing to decode' if row.raw else 'JPEG, decoded in the time'})"
        )
        if args.repeats > 1:
            print(
                f"    CPU time, the least of {args.repeats} readings of each change  "
                f"{summary(row.crops_least, 1e3, 'ms')}  (goal 25 ms)"
            )
        print(
            f"    the occupied sites whose switches did not change: {sum(row.looked)} looked at, "
            f"{sum(row.decoded)} decoded (they looked changed); the sites' looks, taken and kept (boards read anew)  "
            f"{summary(row.looks, 1e3, 'ms')}"
        )
        print(
            f"    every occupied site decoded (the table's reading before), least CPU time  "
            f"{summary(row.every, 1e3, 'ms')}"
        )
        print(
            f"    told the two changed sites alone (not what the table reads), least CPU time  "
            f"{summary(row.two_sites, 1e3, 'ms')}"
        )
        for name, seconds in row.decodes.items():
            print(f"    of which the JPEG, {name}, least CPU time  {summary(seconds, 1e3, 'ms')}")
        if row.cut:
            print(
                f"  per settled change, from the phone's crops, least CPU time  {summary(row.cut, 1e3, 'ms')}  "
                f"(goal 25 ms; sent {summary(row.sent_bytes, 1e-6, 'MB')}, against "
                f"{summary(row.whole_bytes, 1e-6, 'MB')} for its JPEG)"
            )
            raw = "raw colour" if args.colours else "raw luma"
            print(f"    baseline, the same frames as {raw}   {summary(row.baseline, 1e3, 'ms')}")
        print(f"  baseline, the whole frame     {summary(row.whole, 1e3, 'ms')}")
    return 0


def _outcomes(label: str, records: list[tuple[list[tuple[float, str]], int]]) -> None:
    """A row of readings (each its scored stickers and false pieces): all correct, stickers missed, withheld (their
    site said unread or unreliable), wrong, and false pieces; and the pieces found by colour, where there are."""
    stickers = [o for results, _ in records for side, o in results if side > 0]
    plain = [o for results, _ in records for side, o in results if side == 0]
    right = sum(1 for results, false in records if not false and all(o == "read" for _, o in results))
    n = max(1, len(stickers))
    if not records:
        print(label)
        return
    print(
        f"{label}, all correct {100 * right / max(1, len(records)):.1f}%; stickers {len(stickers)}: missed "
        f"{100 * stickers.count('missed') / n:.2f}%, withheld {100 * stickers.count('withheld') / n:.2f}%, "
        f"wrong {100 * stickers.count('wrong') / n:.2f}%; false pieces {sum(f for _, f in records)}"
    )
    if plain:
        print(f"  found by colour: {plain.count('read')} of {len(plain)} read, {plain.count('missed')} missed")


@dataclass
class Scene:
    """One mounting's table as the bench changes it: one board, or Orbital Battle's spread (the solar map with planet
    maps beside it, read by one pipeline a board, sensing/vision_table.py). `boards` in the spread's order, the game's
    own first, with the layout's prefix for each board's sites, and each board's table of pieces."""

    boards: list
    prefixes: list[str]
    tables: list
    renderer: object
    registry: object
    profile: object

    def reader(self):
        """A fresh pipeline over the scene's boards, as the table builds it."""
        from companion.sensing.vision import Vision
        from companion.sensing.vision_table import BoardInView, TableVision

        if len(self.boards) == 1:
            return Vision(self.boards[0], self.registry, self.profile)
        where = [BoardInView(b, prefix) for b, prefix in zip(self.boards, self.prefixes, strict=True)]
        return TableVision(where, self.registry, self.profile)

    def render(self, shot, rng: np.random.Generator):
        return self.renderer.render_spread(tuple(self.tables), shot, rng)

    def move(self, rng: np.random.Generator) -> set[str]:
        """A hand changes one board (_move_one, the box's pieces on no table to hand): the layout's sites whose
        switch changed."""
        i = int(rng.integers(len(self.boards))) if len(self.boards) > 1 else 0
        used = {p.entry.id for table in self.tables for p in table.pieces}
        box = [e for e in self.registry.entries if e.id not in used and e.sticker is not None and not e.is_base]
        self.tables[i], changed = _move_one(self.boards[i], self.tables[i], rng, self.registry.stacking, box)
        return {self.prefixes[i] + site for site in changed}

    def read_at(self, changed: set[str]) -> tuple[set[str], set[str]]:
        """What `companion serve` tells the pipeline at a change (Observer.sites_to_read): the changed sites, to
        decode, and apart from them every site a piece stands on (the grid feels one there; a piece set onto another
        changes no switch), to decode where it looks changed."""
        held = {
            prefix + p.site
            for prefix, table in zip(self.prefixes, self.tables, strict=True)
            for p in table.pieces
            if p.site is not None
        }
        return changed, held - changed

    def score(self, report, frame, colours: dict) -> tuple[tuple[list[tuple[float, str]], int], ...]:
        """Each board's stickers scored as the mounted bench scores one board's (_score)."""
        if len(self.boards) == 1:
            return (_score(report, frame.truth, {s.id for s in self.boards[0].sites}, self.tables[0], colours),)
        return tuple(
            _score(
                report.report(board.name),
                tuple(t for t in frame.truth if t.board == board.name),
                {s.id for s in board.sites},
                table,
                colours,
            )
            for board, table in zip(self.boards, self.tables, strict=True)
        )

    def approved(self, reader, image: np.ndarray) -> tuple[bool, ...]:
        """What `calibrate board` says of each board from the mounting's first frame, read whole by `reader` (a
        board whose pose it did not find is not approved)."""
        from companion.bench.vision_mounted import mounting_approved

        visions = [reader] if len(self.boards) == 1 else reader.visions
        return tuple(
            v.pose is not None and mounting_approved(b, self.registry, self.profile, v.pose, image)
            for b, v in zip(self.boards, visions, strict=True)
        )

    def in_crops(self, report) -> bool:
        """Whether the change was read in crops (every board read, not the whole frame after a board moved)."""
        reports = [report] if len(self.boards) == 1 else [r for _, r in report.boards]
        return any("stickers in crops" in r.timings for r in reports)


def _scene(game: str, size, rng: np.random.Generator, fill, tilt: float, extremes):
    """A mounting over the game's board (or Orbital Battle's spread: the solar map with planet maps 3 and 5 laid
    beside it as people lay them, bench vision_spread.py's box) and its first tables: the scene and its mounting."""
    from companion.bench.vision_mounted import PIECES, calibrated
    from companion.boards import default_board
    from companion.sensing.pieces import default_registry
    from companion.sensing.vision_profile import CameraProfile
    from companion.sim.mounted_camera import random_mounting
    from companion.sim.mounted_render import MountedRenderer
    from companion.sim.mounted_scene import random_spread, random_table, tables_from_one_box

    if game == "orbital_battle":
        from companion.bench.vision_spread import PIECES as SPREAD_PIECES
        from companion.bench.vision_spread import PLANET_MAPS, box_registry

        registry = box_registry()
        counters = replace(registry, entries=tuple(e for e in registry.entries if not e.piece.startswith("planet-")))
        boards = [default_board(game)] + [default_board(f"{game}:planet{p}") for p in PLANET_MAPS]
        prefixes = ["", *(f"p{p}:" for p in PLANET_MAPS)]
        seen = random_spread(boards, rng)
        tables = list(  # the maps' pieces from one box, as a table has them (as the frame bench lays them)
            tables_from_one_box(
                boards,
                [registry] + [counters] * (len(boards) - 1),
                rng,
                [SPREAD_PIECES[game]] + [SPREAD_PIECES[f"{game}:planet"]] * (len(boards) - 1),
                [False] * len(boards),
            )
        )
    else:
        registry = default_registry(game)
        boards, prefixes = [default_board(game)], [""]
        seen = boards[0]
    mounting = random_mounting(seen, size, rng, fill, tilt, extremes.tilt_from)
    renderer = MountedRenderer(seen, registry.dictionary, mounting)
    profile = calibrated(mounting, rng, CameraProfile)
    if game != "orbital_battle":
        tables = [random_table(boards[0], registry, rng, PIECES.get(game, 20), False)]
    return Scene(boards, prefixes, tables, renderer, registry, profile), mounting


def _row(
    game: str,
    size: tuple[int, int],
    mountings: int,
    changes: int,
    seed: int,
    fill: tuple[float, ...],
    tilt: float,
    colours: bool = False,
    optics: str = "world",
    extremes=None,
    repeats: int = 1,
    approved_only: bool = False,
) -> Row:
    """`mountings` mountings of `changes` changes each; `approved_only`: of those where `calibrate board` approves
    the game's own board (the solar map on the spread), the others drawn again, at most MOST_MOUNTINGS times as many
    in all."""
    import cv2

    from companion.bench.vision_mounted import MOST_MOUNTINGS, Camera, Extremes
    from companion.sensing.vision_crops import Composer

    row = Row()
    m = -1
    while len(row.mountings) < mountings and m < MOST_MOUNTINGS * mountings:
        m += 1
        rng = np.random.default_rng([seed, m, size[1], 7])
        extremes = extremes or Extremes()
        scene, mounting = _scene(game, size, rng, fill, tilt, extremes)
        board, registry, profile = scene.boards[0], scene.registry, scene.profile
        crops, whole, narrow, every = scene.reader(), scene.reader(), scene.reader(), scene.reader()
        camera = Camera(mounting, optics, "normal", rng, extremes)
        shot = camera.shot(rng)
        delivered = Delivered(camera, colours)
        first = delivered.frame(delivered.sent(scene.render(shot, rng).image))
        for reader in (crops, whole, narrow, every):
            reader.process(first, 0.0)
        approved = scene.approved(whole, first)
        if approved_only and not approved[0]:
            continue
        row.mountings.append(approved)
        if colours and (ranges := sampled_colours(board, registry, profile, whole, scene.tables[0], first)):
            profile = scene.profile = replace(profile, colours=ranges)
            crops, whole, narrow, every = scene.reader(), scene.reader(), scene.reader(), scene.reader()
            for reader in (crops, whole, narrow, every):
                reader.process(first, 0.0)
            row.calibrated += 1
        # A phone's crops, and its frames as a Pi camera sends them, raw (luma; colour where pieces are found by it)
        cut = baseline = None
        if not delivered.raw:
            cut, baseline = scene.reader(), scene.reader()
            composer = Composer()  # the table's kept frame (PushedFrames)
            cut.process(first, 0.0)
            baseline.process(first, 0.0)
            row.outcomes.update({"cut": row.outcomes.get("cut", []), "luma": row.outcomes.get("luma", [])})
        for k in range(changes):
            moved = scene.move(rng)
            changed, held = scene.read_at(moved)  # what the table tells the pipeline
            frame = scene.render(camera.shot(rng), rng)
            sent = delivered.sent(frame.image)  # what reaches the table: raw luma, or a JPEG to decode
            # The change read `repeats` times by copies of the pipeline as it stood (each decodes the frame as
            # sent): the least CPU time is the change's own, what other processes' load adds to it left out.
            runs = []
            before = _read_sets(crops)
            for _ in range(repeats):
                reader = _copied(crops)
                t0, c0 = time.perf_counter(), time.process_time()
                report = reader.process(delivered.frame(sent), k + 1.0, changed, held=held)
                t1, c1 = time.perf_counter(), time.process_time()
                runs.append((c1 - c0, t1 - t0, reader, report))
            crops, a = runs[0][2], runs[0][3]
            if cut is not None and baseline is not None:
                cut, report = _phone_crops(
                    cut, composer, frame.image, sent, (changed, held), k + 1.0, repeats, row, colours
                )
                row.outcomes["cut"].append(Change(scene.score(report, frame, profile.colours), approved))
                luma = frame.image if colours else cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
                baseline, report, seconds = _least(
                    baseline, lambda r, f=luma, at=k + 1.0, c=changed, h=held: r.process(f, at, c, held=h), repeats
                )
                row.baseline.append(seconds)
                row.outcomes["luma"].append(Change(scene.score(report, frame, profile.colours), approved))
                row.whole_bytes.append(len(sent))
            if not delivered.raw:  # what the JPEG alone costs, whole and decoded at an eighth of its side (still
                # entropy decoded whole: the least any partial decoding of a JPEG without restart markers can cost)
                for name, flag in (
                    (("decode in colour", cv2.IMREAD_COLOR) if colours else ("decode", cv2.IMREAD_GRAYSCALE)),
                    ("decode at an eighth", cv2.IMREAD_REDUCED_GRAYSCALE_8),
                ):
                    row.decodes.setdefault(name, []).append(
                        min(_cpu(lambda f=flag, j=sent: cv2.imdecode(j, f)) for _ in range(repeats))
                    )
            row.looked.append(len(held))
            row.decoded.append(len(_decoded(before, crops) & held))
            anew = [new is not old for (_, old), (_, new) in zip(before, _read_sets(crops), strict=True)]
            reports = [a] if not hasattr(a, "boards") else [r for _, r in a.boards]
            row.looks.append(sum(r.timings.get("looks", 0.0) for r, fresh in zip(reports, anew, strict=True) if fresh))
            every, all_read, seconds = _least(
                every,
                lambda r, d=delivered, f=sent, at=k + 1.0, c=changed | held: r.process(d.frame(f), at, c),
                repeats,
            )
            row.every.append(seconds)
            row.outcomes["every occupied"].append(Change(scene.score(all_read, frame, profile.colours), approved))
            narrow, two, seconds = _least(  # (the frame decoded in the time, as for the crops above)
                narrow, lambda r, d=delivered, f=sent, at=k + 1.0, c=moved: r.process(d.frame(f), at, c), repeats
            )
            row.two_sites.append(seconds)
            row.outcomes["two sites"].append(Change(scene.score(two, frame, profile.colours), approved))
            t1 = time.perf_counter()
            b = whole.process(delivered.frame(sent), k + 1.0)
            t2 = time.perf_counter()
            row.crops.append(runs[0][1])
            row.crops_cpu.append(runs[0][0])
            row.crops_least.append(min(cpu for cpu, _, _, _ in runs))
            row.whole.append(t2 - t1)
            row.fallbacks += not scene.in_crops(a)
            row.raw = delivered.raw
            for name, report in (("crops", a), ("whole", b)):
                row.outcomes[name].append(Change(scene.score(report, frame, profile.colours), approved))
    return row


def _copied(reader):
    """A copy of a pipeline as it stands, to read a change again from the same start: one board's, or each board's
    of a table of several."""
    copied = copy.copy(reader)
    if hasattr(reader, "visions"):
        copied.visions = tuple(copy.copy(v) for v in reader.visions)
    return copied


def _read_sets(reader) -> list[tuple[str, set[str]]]:
    """Each board's prefix and the sites its last reading in crops decoded."""
    if hasattr(reader, "visions"):
        return [(b.prefix, v._sites_read) for b, v in zip(reader.boards, reader.visions, strict=True)]
    return [("", reader._sites_read)]


def _decoded(before: list[tuple[str, set[str]]], reader) -> set[str]:
    """The layout's sites `reader` decoded in crops since `before` (_read_sets): each board read anew has a set of
    its own."""
    return {
        prefix + site
        for (prefix, old), (_, new) in zip(before, _read_sets(reader), strict=True)
        if new is not old
        for site in new
    }


def _least(reader, work, repeats: int):
    """`work(copy of reader)` done `repeats` times: the first copy after it, its report, and the least CPU seconds
    taken."""
    runs = []
    for _ in range(repeats):
        copied = _copied(reader)
        start = time.process_time()
        report = work(copied)
        runs.append((time.process_time() - start, copied, report))
    return runs[0][1], runs[0][2], min(seconds for seconds, _, _ in runs)


def _phone_crops(
    reader,
    composer,
    photo,
    sent,
    to_read: tuple[set[str], set[str]],
    when: float,
    repeats: int,
    row: Row,
    colours: bool = False,
):
    """The change read from the crops the phone cuts from its photo where the table's plan asks, as the camera page
    and the table do: the plan made, the body the page sends composed into a frame and read, the table's share timed.
    The photo is the frame as the camera's own JPEG left it (the renderer compresses a phone's frames), which the
    phone decodes itself; without a plan the page sends it whole, the JPEG `sent`, decoded here (in colour where
    pieces are found by colour). `to_read`: the changed sites and the held ones (Scene.read_at): the plan asks for
    both, the held ones decoded where their crops look changed."""
    import cv2

    from companion.sim.phone_crops import cut

    changed, held = to_read
    plan = reader.crop_plan(changed | held)
    body = cut(photo, plan) if plan is not None else bytes(sent)
    row.sent_bytes.append(len(body))

    def read(vision):
        if vision.crop_plan(changed | held) is None:
            return vision.process(
                cv2.imdecode(sent, cv2.IMREAD_COLOR if colours else cv2.IMREAD_GRAYSCALE), when, changed, held=held
            )
        image, cropped = composer.compose(plan, body)
        return vision.process(image, when, cropped=cropped, held=held)

    reader, report, seconds = _least(reader, read, repeats)
    row.cut.append(seconds)
    return reader, report


def _cpu(work) -> float:
    """The CPU seconds `work()` takes."""
    start = time.process_time()
    work()
    return time.process_time() - start


def sampled_colours(board, registry, profile, vision, table, image) -> dict:
    """The colour ranges `calibrate colours` samples from this frame, its layout the table's pieces without a sticker
    whose colour names one kind (empty when there are none, or the board was not found)."""
    import cv2

    from companion.calibration.colours import sample_colours
    from companion.sensing.vision_colour import in_range, top_down
    from companion.sensing.vision_profile import BoardPose

    kinds = registry.colour_kinds()
    layout = {
        p.site: p.entry.id
        for p in table.pieces
        if p.entry.sticker is None and p.site is not None and len(kinds[p.entry.colour]) == 1
    }
    if not layout or vision.pose is None:
        return {}
    pose = BoardPose(board.name, tuple(vision.pose.rvec), tuple(vision.pose.tvec), 0.0)
    ranges = sample_colours(image, board, registry, profile, pose, layout)
    # A colour the board's own print has (ORBIT's white PRISM disc on the white paper) finds the board, not the
    # piece: a user sees that at once and calibrates the chips' pink alone, as calibration/README.md says.
    view = cv2.cvtColor(top_down(image, board, vision.pose, vision.matrix, vision.dist, 0.0), cv2.COLOR_BGR2HSV)
    return {c: r for c, r in ranges.items() if np.count_nonzero(in_range(view, r)) < 0.2 * view[..., 0].size}


def _score(report, truth, sites: set[str], table, colours: dict) -> tuple[list[tuple[float, str]], int]:
    """The mounted bench's score of the stickers, and the pieces found by colour: each piece of a calibrated colour
    on a site is read (a colour sighting of its kind there) or missed; a colour sighting left over is a false
    piece."""
    from dataclasses import replace as with_

    from companion.bench.vision_mounted import score

    by_colour = [s for s in report.sightings if s.sticker is None] if report.reliable else []
    results, false = score(
        with_(report, sightings=tuple(s for s in report.sightings if s.sticker is not None)), truth, sites
    )
    for piece in table.pieces:
        if piece.entry.sticker is not None or piece.entry.colour not in colours or piece.site is None:
            continue
        match = next((s for s in by_colour if s.piece == piece.entry.piece and s.site == piece.site), None)
        if match is not None:
            by_colour.remove(match)
        results.append((0.0, "read" if match is not None else "missed"))  # side 0: no sticker
    return results, false + len(by_colour)


def _move_one(board, table, rng: np.random.Generator, stacking: str = "on top", box=()):
    """The table after a hand's settled change, and the sites whose switch changed (what the grid feels), one of
    three alike: a ground piece without riders moved to an empty site (turned anew); a stack's top lifted off it to an
    empty site (the stack's switch stays closed); or a lone rider set onto a stack ('on top': on its top piece, of its
    own kind where one is there; 'beside': docked on a base), whose switch stays closed, while a piece of `box` (kinds
    on no table) is set on an empty site (one switch opens, one closes: the table reads in crops)."""
    from companion.sim.mounted_scene import Piece, Table

    pieces = list(table.pieces)
    kind = int(rng.integers(3))
    if kind == 1:
        tops = [
            i for i, p in enumerate(pieces) if p.z0 > 0 and not any(q.site == p.site and q.z0 > p.z0 for q in pieces)
        ]
        if tops:
            index = tops[int(rng.integers(len(tops)))]
            moved = _to_empty(board, pieces, index, rng)
            if moved is not None:
                pieces[index] = moved
                return Table(tuple(pieces), table.arm), {moved.site}
    if kind == 2 and box and (onto := _onto_a_stack(pieces, rng, stacking)) is not None:
        index, piece = onto
        origin = pieces[index].site
        pieces[index] = piece
        pieces.append(Piece(box[int(rng.integers(len(box)))], 0.0, 0.0, 0.0, 0.0, None))
        brought = _to_empty(board, pieces, len(pieces) - 1, rng)
        if brought is not None:
            pieces[-1] = brought
            return Table(tuple(pieces), table.arm), {origin, brought.site}
        pieces = list(table.pieces)
    carrying = {p.site for p in pieces if p.z0 > 0}
    movable = [i for i, p in enumerate(pieces) if p.z0 == 0 and p.site is not None and p.site not in carrying]
    index = movable[int(rng.integers(len(movable)))]
    moved = _to_empty(board, pieces, index, rng)
    if moved is None:
        return table, set()
    site = pieces[index].site
    pieces[index] = moved
    return Table(tuple(pieces), table.arm), {site, moved.site}


def _to_empty(board, pieces: list, index: int, rng: np.random.Generator):
    """The piece at `index` set down on an empty site clear of the others (turned anew), or None where no such site
    is found."""
    from companion.sim.mounted_scene import Piece

    piece = pieces[index]
    for _ in range(100):
        site = board.sites[int(rng.integers(len(board.sites)))]
        moved = Piece(
            piece.entry,
            site.x + rng.normal(0, 1.0),
            site.y + rng.normal(0, 1.0),
            float(rng.uniform(0, 2 * math.pi)),
            0.0,
            site.id,
        )
        if all(_apart(moved, p) for i, p in enumerate(pieces) if i != index):
            return moved
    return None


def _onto_a_stack(pieces: list, rng: np.random.Generator, stacking: str):
    """A lone rider on a site set onto another site's pieces: its index and where it now stands, or None where
    there is no such rider or stack."""
    from companion.sim.mounted_scene import docked, set_on

    carrying = {p.site for p in pieces if p.z0 > 0}
    lone = [
        i
        for i, p in enumerate(pieces)
        if p.z0 == 0 and p.site is not None and p.site not in carrying and not p.entry.is_base
    ]
    if not lone:
        return None
    index = lone[int(rng.integers(len(lone)))]
    entry = pieces[index].entry
    on = {}  # each other site's pieces
    for p in pieces:
        if p.site is not None and p.site != pieces[index].site:
            on.setdefault(p.site, []).append(p)
    if stacking == "on top":
        stacks = [max(held, key=lambda p: p.z0) for held in on.values() if len(held) < 3]
        alike = [top for top in stacks if top.entry.piece == entry.piece]
        if not stacks:
            return None
        top = (alike or stacks)[int(rng.integers(len(alike or stacks)))]
        return index, set_on(top, entry, rng)
    bases = [
        (base, [p for p in held if p.z0 > 0])
        for held in on.values()
        for base in held
        if base.z0 == 0 and base.entry.is_base and sum(p.z0 > 0 for p in held) < 2
    ]
    for k in rng.permutation(len(bases)):
        base, riders = bases[int(k)]
        rider = docked(base, entry, riders, rng)
        if rider is not None:
            return index, rider
    return None


def _apart(a, b) -> bool:
    import cv2

    area, _ = cv2.intersectConvexConvex(a.outline().astype(np.float32), b.outline().astype(np.float32))
    return area < 0.5 and math.dist((a.x, a.y), (b.x, b.y)) > a.entry.radius + b.entry.radius
