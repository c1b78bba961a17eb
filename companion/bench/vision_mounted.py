"""`companion bench vision` on the mounted camera (companion/sim/mounted_*.py): the pipeline against frames from a
model of its own, cameras mounted any way a table allows, conditions drawn per frame.

Each mounting is a new camera (turn, fill, tilt, lens) with a profile as a good calibration gives it (focal length,
centre and distortion a little off) and no board pose yet: the pipeline finds the board itself and keeps its pose
over the mounting's frames. Every visible sticker is one of: read (right piece, right site), missed (not reported,
its site not flagged), withheld (its site flagged unreliable), wrong (reported as another piece, or on another
site); a report of a piece that is not there is a false piece. Rows per sticker size in pixels; the size from which
frames are all correct 99 % of the time.
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

SIZE_EDGES = (0, 10, 12, 14, 16, 18, 20, 24, 28, 36, 48, 10_000)
OUTCOMES = ("read", "missed", "withheld", "wrong")
PIECES = {"trajectory": 22, "orbit": 16}  # pieces set out per frame


@dataclass(frozen=True)
class Record:
    """One frame: its mounting's verdict from `calibrate board`, each visible sticker's (side px, outcome, sticker
    id), the false pieces, whether the frame was refused whole, the pipeline's time, and what the frame was shot
    through (`traits`: the lens's blur and the sway's smear in px, the camera's tilt in degrees, the light in lux)."""

    approved: bool
    results: tuple[tuple[float, str], ...]
    false: int
    refused: bool
    seconds: float
    render_seconds: float
    baseline_seconds: float  # plain detectMarkers (defaults, whole frame, the stickers' dictionary) on the frame
    traits: dict[str, float] = field(default_factory=dict)
    stickers: tuple[int, ...] = ()  # each visible sticker's id, in the order of `results`
    empty: int = 0  # the board's sites with no piece on them
    empty_unread: int = 0  # of them, those the report said unread (caution, not an error: what it costs the referee)

    @property
    def all_correct(self) -> bool:
        return not self.refused and self.false == 0 and all(o == "read" for _, o in self.results)

    def cells(self, trait: str = "frame") -> list[float]:
        """Each visible sticker's blur in its own cells (a sixth of its side): the blur the vision measured on the
        board's markers in this frame along its worst direction (the sway's smear included; the lens's alone in
        records that do not have it) over the sticker's cell. What a sticker's reading depends on most. `trait`
        "measured": the lens's blur alone, as `calibrate board` measures it."""
        blur = self.traits.get(trait, self.traits.get("measured", 0.0))
        return [6 * blur / max(side, 1e-6) for side, _ in self.results]

    @property
    def worst_cells(self) -> float:
        return max(self.cells(), default=0.0)

    @property
    def worst_lens_cells(self) -> float:
        return max(self.cells("measured"), default=0.0)

    @property
    def unflagged(self) -> int:
        """Stickers missed without their site said to be unread or unreliable."""
        return sum(o == "missed" for _, o in self.results)


@dataclass
class Cell:
    """The frames of one game, frame size and conditions."""

    records: list[Record] = field(default_factory=list)

    def approved(self) -> Cell:
        return Cell([r for r in self.records if r.approved])

    def outcome(self) -> Counter[str]:
        return Counter(o for r in self.records for _, o in r.results)

    def by_size(self) -> dict[int, Counter[str]]:
        out: dict[int, Counter[str]] = {}
        for r in self.records:
            for side, o in r.results:
                out.setdefault(_bin(side), Counter())[o] += 1
        return out


def save_records(path: str, row: str, records: list[Record]) -> None:
    """Append each frame's record to `path`, one JSON line naming its row: a long sweep split into runs of a few
    frames each (the machine is shared) is reported whole by `--merge`."""
    import dataclasses
    import json

    with open(path, "a", encoding="utf-8") as out:
        for r in records:
            out.write(json.dumps({"row": row} | dataclasses.asdict(r)) + "\n")


def load_records(paths: list[str]) -> dict[str, Cell]:
    """The rows `save_records` wrote to these files, each row's frames from every file together, in file order."""
    import json

    from companion.errors import UserError

    cells: dict[str, Cell] = {}
    for path in paths:
        try:
            with open(path, encoding="utf-8") as records:
                lines = records.read().splitlines()
        except OSError as error:
            raise UserError(f"bench vision --merge: {path}: {error.strerror}") from None
        for number, line in enumerate(lines, 1):
            try:
                data = json.loads(line)
                row = data.pop("row")
                data["results"] = tuple((float(side), str(o)) for side, o in data["results"])
                data["stickers"] = tuple(int(i) for i in data["stickers"])
                record = Record(**data)
            except (ValueError, KeyError, TypeError):
                raise UserError(f"bench vision --merge: {path} line {number}: not a frame's record") from None
            cells.setdefault(row, Cell()).records.append(record)
    return cells


def _bin(side: float) -> int:
    for index in range(len(SIZE_EDGES) - 1):
        if side < SIZE_EDGES[index + 1]:
            return index
    return len(SIZE_EDGES) - 2


def score(report, truth, sites: set[str]) -> tuple[list[tuple[float, str]], int]:
    """(side px, outcome) for each visible sticker, and the number of false pieces reported."""
    unreliable = report.unreliable_sites() if report.reliable else sites
    left = list(report.sightings) if report.reliable else []

    def take(match) -> object | None:
        for s in left:
            if match(s):
                left.remove(s)
                return s
        return None

    out: dict[int, str] = {}
    for k, t in enumerate(truth):  # right piece, right site (off-site pieces: near where it stands)
        p = t.piece
        if take(
            lambda s, p=p: (
                s.piece == p.entry.piece
                and s.site == p.site
                and (p.site is not None or math.hypot(s.x - p.x, s.y - p.y) < 20)
            )
        ):
            out[k] = "read"
    for k, t in enumerate(truth):  # a hidden piece reported where it is is no error
        if not t.visible and k not in out:
            take(lambda s, p=t.piece: s.piece == p.entry.piece and s.site == p.site)
    for k, t in enumerate(truth):
        if not t.visible or k in out:
            continue
        p = t.piece
        if take(lambda s, p=p: s.piece == p.entry.piece) or take(lambda s, p=p: s.site == p.site is not None):
            out[k] = "wrong"
        else:
            out[k] = "withheld" if p.site in unreliable or _said_unread(report, p) else "missed"
    return [(t.side_px, out[k]) for k, t in enumerate(truth) if t.visible], len(left)


def empty_sites(report, truth, sites: set[str]) -> tuple[int, int]:
    """The sites with no piece on them, and how many of them the report said unread (a frame too blurred for them,
    say): the referee takes such a site as unknown, so a vision that said every site unread would miss nothing and
    tell nothing."""
    from companion.sensing.vision import UNREAD

    empty = sites - {t.piece.site for t in truth}
    said = {s for r in report.unreliable if r.reason == UNREAD for s in r.sites} if report.reliable else set()
    return len(empty), len(empty & said)


def _said_unread(report, piece) -> bool:
    """A piece off every site lying where the report says a sticker was seen but not read (an unread region of no
    site within 20 mm, as an off-site sighting is matched)."""
    from companion.sensing.vision import UNREAD

    return piece.site is None and any(
        r.reason == UNREAD and not r.sites and math.dist(np.mean(r.polygon, axis=0), (piece.x, piece.y)) < 20
        for r in report.unreliable
    )


def run_cell(
    game: str,
    size: tuple[int, int],
    condition: str,
    frames: int,
    per_mounting: int,
    seed: int,
    fill: tuple[float, float],
    tilt: float,
    optics: str = "world",
    fuse: int = 1,
    extremes: Extremes | None = None,
    approved_only: bool = False,
    all_codes: bool = False,
) -> Cell:
    """`frames` frames of mountings drawn one after another; `approved_only`: of those `calibrate board` approves
    only (a mounting it does not is dropped after its first frame); `all_codes`: each mounting's kinds given codes
    drawn afresh from the whole dictionary, so that every code is read on every kind of piece (the per-code
    sweep)."""
    import cv2

    from companion.boards import default_board
    from companion.sensing.pieces import default_registry
    from companion.sensing.vision import Vision
    from companion.sensing.vision_profile import CameraProfile
    from companion.sim.mounted_camera import CONDITIONS, random_mounting
    from companion.sim.mounted_render import MountedRenderer
    from companion.sim.mounted_scene import random_table

    extremes = extremes or Extremes()
    board, box = default_board(game), default_registry(game)
    sites = {s.id for s in board.sites}
    baseline = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, box.dictionary)), cv2.aruco.DetectorParameters()
    )
    cell = Cell()
    m = 0
    while len(cell.records) < frames and m < MOST_MOUNTINGS * math.ceil(frames / per_mounting):
        rng = np.random.default_rng([seed, m, size[1]])  # the same mountings under every condition
        registry = recoded(box, np.random.default_rng([seed, m, 5])) if all_codes else box
        mounting = random_mounting(board, size, rng, fill, tilt, extremes.tilt_from)
        camera = Camera(mounting, optics, condition, rng, extremes)
        renderer = MountedRenderer(board, registry.dictionary, mounting)
        profile = calibrated(mounting, rng, CameraProfile)
        vision = Vision(board, registry, profile)
        shots = np.random.default_rng([seed, m, size[1], CONDITIONS.index(condition)])
        m += 1
        approved = None
        kept = len(cell.records)
        for k in range(min(per_mounting, frames - len(cell.records))):
            t0 = time.perf_counter()
            shot = camera.shot(shots)
            table = random_table(board, registry, shots, PIECES.get(game, 20), shot.arm)
            frame = renderer.render(table, shot, shots, tuple(camera.shot(shots) for _ in range(fuse - 1)))
            t1 = time.perf_counter()
            report = vision.process(frame.image, float(len(cell.records)), more=frame.more)
            t2 = time.perf_counter()
            baseline.detectMarkers(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY))
            t3 = time.perf_counter()
            if approved is None and vision.pose is not None:  # what `calibrate board` says of this mounting
                approved = mounting_approved(board, registry, profile, vision.pose, frame.image)
            if approved_only and not approved:
                break
            results, false = score(report, frame.truth, sites)
            empty, empty_unread = empty_sites(report, frame.truth, sites)
            traits = camera.traits(shot, size) | {
                "measured": vision.blur_px,
                "frame": vision.frame_blur_px,
                "mounting": m - 1,  # where the frame was drawn (with the seed): a failure is rendered again from it
                "shot": k,
            }
            cell.records.append(
                Record(
                    bool(approved),
                    tuple(results),
                    false,
                    not report.reliable,
                    t2 - t1,
                    t1 - t0,
                    t3 - t2,
                    traits,
                    tuple(t.piece.entry.sticker for t in frame.truth if t.visible),
                    empty,
                    empty_unread,
                )
            )
        if approved_only and not approved:
            del cell.records[kept:]
    return cell


MOST_MOUNTINGS = 40  # --approved draws at most this many times the mountings it needs before it stops looking


def recoded(registry, rng: np.random.Generator):
    """The registry with its stickered kinds given codes drawn at random from the whole dictionary (the per-code
    sweep: which codes read worst, whatever piece carries them)."""
    from dataclasses import replace

    from companion.sensing.pieces import dictionary_size

    kinds = sorted({e.piece for e in registry.entries if e.sticker is not None})
    codes = rng.permutation(dictionary_size(registry.dictionary) or len(kinds))[: len(kinds)]
    given = dict(zip(kinds, (int(c) for c in codes), strict=False))
    return replace(
        registry,
        entries=tuple(replace(e, sticker=given[e.piece]) if e.sticker is not None else e for e in registry.entries),
    )


@dataclass(frozen=True)
class Extremes:
    """Where a run pins WORLD.md's ranges to their hard end, to find what the whole range hides: the room's light
    (lux), the auto exposure's longest exposure (s), the lens's blur (sigma, px at the frame's size), the least
    tilt (degrees; the most is --tilt). None: the whole range."""

    lux: tuple[float, float] | None = None
    exposure: float | None = None
    blur: tuple[float, float] | None = None
    tilt_from: float = 0.0

    @classmethod
    def of(cls, args: argparse.Namespace) -> Extremes:
        return cls(
            getattr(args, "lux", None),
            getattr(args, "exposure", None),
            getattr(args, "lens_blur", None),
            getattr(args, "tilt_from", 0.0),
        )

    def words(self) -> str:
        said = [
            f"light {self.lux[0]:g}-{self.lux[1]:g} lux" if self.lux else "",
            f"exposures up to {self.exposure:.3g} s" if self.exposure else "",
            f"lens blur {self.blur[0]:g}-{self.blur[1]:g} px" if self.blur else "",
            f"tilt from {self.tilt_from:g} degrees" if self.tilt_from else "",
        ]
        return ", ".join(w for w in said if w)


class Camera:
    """The mounting's camera: WORLD.md's optics (`world`: blur, light, noise, compression as cameras of the frame's
    size give them, mounted_camera.random_optics, within `extremes`) or the crisp camera the bench had before
    (`sharp`)."""

    def __init__(
        self, mounting, optics: str, condition: str, rng: np.random.Generator, extremes: Extremes = Extremes()
    ) -> None:
        from companion.sim.mounted_camera import camera_for, random_optics

        self.condition = condition
        self.mounting = mounting
        self.optics = (
            None
            if optics == "sharp"
            else random_optics(
                camera_for((mounting.width, mounting.height)),
                (mounting.width, mounting.height),
                rng,
                lux=extremes.lux,
                blur=extremes.blur,
                longest_exposure=extremes.exposure,
            )
        )

    def shot(self, rng: np.random.Generator):
        from companion.sim.mounted_camera import random_shot, world_shot

        return random_shot(self.condition, rng) if self.optics is None else world_shot(self.condition, self.optics, rng)

    def traits(self, shot, size: tuple[int, int]) -> dict[str, float]:
        k = min(size) / 1080
        # The sharp model's defocus disc of radius r blurs about as a Gaussian of sigma r / 2.
        sigma = shot.lens_sigma if self.optics is not None else shot.defocus_px * k / 2
        tilt = math.degrees(math.acos(min(1.0, abs(float(self.mounting.rot[2, 2])))))
        return {"blur": float(sigma), "smear": float(shot.motion_px * k), "tilt": tilt, "lux": float(shot.lux)}


def mounting_approved(board, registry, profile, pose, image: np.ndarray) -> bool:
    """What `calibrate board` says of a mounting from its first frame read whole (the lens's blur measured on the
    board's markers in that frame, as `calibrate board` measures it in its photo)."""
    from companion.calibration.mounting import board_blur, check_mounting

    return check_mounting(board, registry, profile, pose, board_blur(image, board)).approved


def calibrated(mounting, rng: np.random.Generator, profile_type):
    """The profile `companion calibrate camera` would give this camera: intrinsics a little off, no board pose."""
    k = mounting.height / 1080
    f = mounting.f * (1 + rng.normal(0, 0.002))
    cx, cy = mounting.cx + rng.normal(0, 1.5 * k), mounting.cy + rng.normal(0, 1.5 * k)
    dist = (mounting.k1 + rng.normal(0, 0.004), mounting.k2 + rng.normal(0, 0.004), 0.0, 0.0, 0.0)
    return profile_type(
        f"mounted-{mounting.height}p",
        (mounting.width, mounting.height),
        ((f, 0.0, cx), (0.0, f, cy), (0.0, 0.0, 1.0)),
        dist,
    )


def size_for(cell: Cell, goal: float = 0.99, least: int = 20) -> float | None:
    """The smallest sticker side (px) such that frames whose stickers are all at least that big are all correct
    `goal` of the time (None when no size does, with `least` frames to judge)."""
    for edge in SIZE_EDGES[:-1]:
        chosen = [r.all_correct for r in cell.records if min((s for s, _ in r.results), default=math.inf) >= edge]
        if len(chosen) >= least and sum(chosen) / len(chosen) >= goal:
            return edge
    return None


CELL_EDGES = (0.0, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.85, 99.0)  # blur in a sticker's cells


def cells_for(records: list[Record], goal: float = 0.99, least: int = 20, lens: bool = False) -> float | None:
    """The most blur, in the worst sticker's cells, up to which frames are all correct `goal` of the time (None when
    not even the sharpest `least` frames are); `lens`: the lens's blur alone (what `calibrate board` judges by)
    rather than the frame's along its worst direction."""
    found = None
    worst = [r.worst_lens_cells if lens else r.worst_cells for r in records]
    for low, edge in itertools.pairwise(CELL_EDGES[:-1]):
        chosen = [r.all_correct for r, w in zip(records, worst, strict=True) if w <= edge]
        if not any(low < w <= edge for w in worst):  # no frame this blurred: the sweep says nothing of it
            continue
        if len(chosen) >= least and sum(chosen) / len(chosen) >= goal:
            found = edge
    return found


def stickers_by_cells(records: list[Record]) -> dict[int, Counter[str]]:
    """Each visible sticker's outcome, binned by its blur in its own cells (the frame's worst direction, CELL_EDGES)."""
    out: dict[int, Counter[str]] = {}
    for r in records:
        for b, (_, o) in zip(r.cells(), r.results, strict=True):
            index = next(i for i in range(len(CELL_EDGES) - 1) if b < CELL_EDGES[i + 1])
            out.setdefault(index, Counter())[o] += 1
    return out


def read_cells_for(records: list[Record], goal: float = 0.99, least: int = 30) -> tuple[float, int] | None:
    """Where stickers stop being read: the upper edge of the last bin of blur in cells (the frame's worst direction)
    such that every bin up to it with `least` stickers or more read `goal` of them or more, and the stickers up to
    it; None when the sharpest such bin already reads less. The limit past which a site read empty is not known to
    be empty (sensing/vision_legibility.py MAX_FRAME_BLUR_CELLS)."""
    found, counted = None, 0
    for index, k in sorted(stickers_by_cells(records).items()):
        n = sum(k.values())
        if n >= least and k["read"] / n < goal:
            break
        counted += n
        if n >= least:
            found = (CELL_EDGES[index + 1], counted)
    return found


SWEEPS = (  # frame traits the bench sweeps, with the edges of their bins
    ("blur", "lens blur sigma (px)", (0.0, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 99.0)),
    ("smear", "sway's smear (px)", (0.0, 0.5, 1.0, 1.5, 2.5, 99.0)),
    ("tilt", "tilt (degrees)", (0.0, 10.0, 20.0, 28.0, 36.0)),
    ("lux", "light (lux)", (1.0, 150.0, 250.0, 400.0, 10_000.0)),
)


def goals(cell: Cell) -> str:
    """Issue's goals against the 95 % bounds of this row's figures: all-correct frames (lower bound), stickers not
    read and stickers read as another piece (upper bounds), and misses not flagged."""
    from companion.bench.stats import lower_bound, upper_bound

    frames = len(cell.records)
    c = cell.outcome()
    n = sum(c.values())
    right = sum(r.all_correct for r in cell.records)
    low = lower_bound(right, frames)
    lost, wrong = upper_bound(c["missed"] + c["withheld"], n), upper_bound(c["wrong"], n)
    clean = math.ceil(math.log(0.05) / math.log(0.99))  # frames a clean run needs to clear 99 % at 95 %

    def said(met: bool) -> str:
        return "met" if met else "not met"

    return (
        f"goals at 95% confidence: all correct >= 99% (lower bound {100 * low:.2f}%) {said(low >= 0.99)}"
        + ("" if low >= 0.99 or right < frames else f", a clean run clears it from {clean} frames")
        + f"; not read <= 0.5% (upper bound {100 * lost:.3f}%) {said(lost <= 0.005)}; wrong <= 0.1% (upper bound "
        f"{100 * wrong:.3f}%) {said(wrong <= 0.001)}; every miss flagged {said(c['missed'] == 0)}"
        f"{'' if not sum(r.false for r in cell.records) else '; false pieces not met'}"
    )


def sweep_rows(records: list[Record], key, edges: tuple[float, ...]) -> list[str]:
    """A row per bin of `key(record)`: frames, all correct, stickers not read (and of them, silent)."""
    rows = []
    for lo, hi in itertools.pairwise(edges):
        chosen = [r for r in records if lo <= key(r) < hi]
        if not chosen:
            continue
        stickers = sum(len(r.results) for r in chosen)
        lost = sum(o != "read" for r in chosen for _, o in r.results)
        silent = sum(r.unflagged for r in chosen)
        top = "" if hi == edges[-1] else f"{hi:g}"
        rows.append(
            f"{lo:g}-{top}: {len(chosen)} frames {100 * sum(r.all_correct for r in chosen) / len(chosen):.1f}% "
            f"all correct, {100 * lost / max(1, stickers):.2f}% not read ({silent} silent)"
        )
    return rows


def report(label: str, cell: Cell, sweeps: bool = True) -> None:
    from companion.bench.stats import lower_bound, summary

    frames = len(cell.records)
    if not frames:
        print(f"{label}: no frames")
        return
    c = cell.outcome()
    n = max(1, sum(c.values()))
    right = sum(r.all_correct for r in cell.records)
    print(
        f"{label}: {frames} frames, {sum(r.refused for r in cell.records)} refused whole; all correct "
        f"{100 * right / frames:.1f}% ({right} of {frames}; at least {100 * lower_bound(right, frames):.2f}% at 95% "
        "confidence, exact one-sided)"
    )
    print(
        f"  stickers in view {n}: not read {100 * (c['missed'] + c['withheld']) / n:.2f}% (silent, reported empty: "
        f"{100 * c['missed'] / n:.2f}%; flagged unread or unreliable: {100 * c['withheld'] / n:.2f}%), "
        f"wrong {100 * c['wrong'] / n:.2f}%; false pieces {sum(r.false for r in cell.records)}"
    )
    empty = sum(r.empty for r in cell.records)
    if empty:
        said = sum(r.empty_unread for r in cell.records)
        print(f"  empty sites {empty}: said unread {100 * said / empty:.2f}% (unknown to the referee, not wrong)")
    rows = []
    by_size = cell.by_size()
    for b in sorted(by_size):
        counts = by_size[b]
        upper = SIZE_EDGES[b + 1] if b + 2 < len(SIZE_EDGES) else ""
        rows.append(
            f"{SIZE_EDGES[b]}-{upper}: {sum(counts.values())} read "
            f"{100 * counts['read'] / max(1, sum(counts.values())):.1f}%"
        )
    print("  by sticker side (px)  " + "  ".join(rows))
    if sweeps:
        smallest = sweep_rows(cell.records, lambda r: min((s for s, _ in r.results), default=math.inf), SIZE_EDGES)
        print("  by the frame's smallest sticker (px)  " + "  ".join(smallest))
        for name, title, edges in SWEEPS:
            if any(name in r.traits for r in cell.records):
                print(
                    f"  by {title}  "
                    + "  ".join(sweep_rows(cell.records, lambda r, n=name: r.traits.get(n, -1), edges))
                )
        print(
            "  by the worst sticker's blur in its cells  "
            + "  ".join(sweep_rows(cell.records, lambda r: r.worst_cells, CELL_EDGES))
        )
        print(
            "  by the worst sticker's lens blur in its cells (what `calibrate board` judges)  "
            + "  ".join(sweep_rows(cell.records, lambda r: r.worst_lens_cells, CELL_EDGES))
        )
        per_cell = stickers_by_cells(cell.records)
        print(
            "  stickers by their blur in cells  "
            + "  ".join(
                f"{CELL_EDGES[i]:g}-{'' if i + 2 == len(CELL_EDGES) else f'{CELL_EDGES[i + 1]:g}'}: "
                f"{sum(k.values())} read "
                f"{100 * k['read'] / max(1, sum(k.values())):.2f}%"
                for i, k in sorted(per_cell.items())
            )
        )
        by_id: dict[int, Counter[str]] = {}
        for r in cell.records:
            for sticker, (_, o) in zip(r.stickers, r.results, strict=False):
                by_id.setdefault(sticker, Counter())[o] += 1
        if by_id:
            print(
                "  not read by sticker id  "
                + "  ".join(
                    f"{i}: {100 * (1 - k['read'] / max(1, sum(k.values()))):.1f}%" for i, k in sorted(by_id.items())
                )
            )
    print("  " + goals(cell))
    most, lens = cells_for(cell.records), cells_for(cell.records, lens=True)
    print(
        "  99% all-correct frames: "
        + (f"up to {most:g} cells of blur on the worst sticker" if most is not None else "at no blur measured")
        + " (the frame's worst direction); "
        + (f"up to {lens:g} cells of the lens's blur" if lens is not None else "at no lens blur measured")
        + " (what `calibrate board` approves by)"
    )
    read = read_cells_for(cell.records)
    print(
        "  stickers read 99% or more in every bin of 30 or more: "
        + (
            f"up to {read[0]:g} cells of the frame's worst direction ({read[1]} stickers; past it a site read empty "
            "is not known to be empty)"
            if read is not None
            else "in no bin measured"
        )
    )
    need = size_for(cell)
    if need is None:
        print("  99% all-correct frames: at no sticker size measured")
    elif need == SIZE_EDGES[0]:  # even the smallest stickers in view: the frames as they are reach the goal
        print("  99% all-correct frames: at every sticker size measured")
    else:
        print(f"  99% all-correct frames from stickers of {need} px")
    print(f"  pipeline {summary([r.seconds for r in cell.records], 1e3, 'ms')}")
    print(
        f"  baseline: plain detectMarkers, defaults, whole frame  "
        f"{summary([r.baseline_seconds for r in cell.records], 1e3, 'ms')}"
    )
    print(f"  rendering {summary([r.render_seconds for r in cell.records], 1e3, 'ms')}")


def report_approved(label: str, cell: Cell) -> None:
    """A board's frames where `calibrate board` approves its mounting, as `report` gives them, and one line for the
    frames of that board it refuses (a map of Orbital Battle's spread can be refused where the solar map is not):
    the user is told to change the mounting for that map, and meanwhile what the camera cannot read there must be
    said unread, never guessed: its silent misses, wrong readings and false pieces."""
    report(label, cell.approved())
    refused = [r for r in cell.records if not r.approved]
    if refused:
        c = Counter(o for r in refused for _, o in r.results)
        print(
            f"  at mountings `calibrate board` refuses for this board: {len(refused)} frames, stickers "
            f"{sum(c.values())}: read {c['read']}, flagged unread {c['withheld']}, silent {c['missed']}, wrong "
            f"{c['wrong']}; false pieces {sum(r.false for r in refused)}"
        )


def run(args: argparse.Namespace, sizes: list[tuple[int, int]]) -> int:
    import cv2

    if args.merge:
        for row, cell in load_records(args.merge.split(",")).items():
            (report_approved if row.endswith(" approved") else report)(f"{row} (merged)", cell)
        return 0
    cv2.setNumThreads(1)
    fill = tuple(float(v) for v in args.fill.split("-"))
    print(
        f"mounted camera ({args.optics} optics): {args.scenes} frames per row, {args.per_mounting} per mounting, "
        f"board filling {args.fill} of the frame, tilt up to {args.tilt:g} degrees, {args.fuse} frame(s) fused, "
        f"one thread{'; ' + Extremes.of(args).words() if Extremes.of(args).words() else ''}"
        f"{'; mountings calibrate board approves only' if args.approved else ''}"
        f"{'; each mounting codes its kinds afresh from the whole dictionary' if args.all_codes else ''}"
    )
    for w, h in sizes:
        for condition in args.conditions.split(","):
            cell = run_cell(
                args.game,
                (w, h),
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
                args.all_codes,
            )
            label = f"{args.game} {w}x{h} {condition}{' approved' if args.approved else ''}"
            if args.records:
                save_records(args.records, label, cell.records)
            report(label, cell)
            if not args.approved:
                report("  mountings `calibrate board` approves", cell.approved())
    return 0
