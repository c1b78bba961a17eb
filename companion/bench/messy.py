"""`companion bench messy`: the five games played at the twin's table by hands in time, swept over how long a hand
holds a piece in the air.

The scripted players play to win (companion/sim/players.py) and their hands carry every action out touch by touch
with the times people take (companion/sim/hand_time.py, from shared/WORLD.md, sharing nothing with the referee):
lift-to-land times, holds, hovering, set-down-and-nudge, slides, knocks, drops, two hands at once, captures taken
off before, during or after the capturing move. Each point of the sweep holds the first carry of every action that
long (0.1 to 10 s) and plays a bounded number of moves per game (`--moves`) from a game joined part way (up to
`--skip` actions made on the phones first), on the table's own settings (settle time and hold window, unless given).

Printed per game and per sense (the grid alone; with `--senses grid,camera`, the grid and the rendered camera where
the game has one: seconds a frame, so not by default), one line per hold time: moves made by hand, wrong bookings
(the table's books hold another action than the hand's when the player looks at a phone: goal 0), corrections (a
booking the table put right itself, announced), advice to undo a legal move under way (goal 0), taps per move, and
the time from the hand's last movement to the table's own booking of its move (median and p95; goal: median under
0.5 s; a move settled by a tap is counted in taps per move instead).

With `--windows`, the table's hold window (TableConfig.hold) is swept instead: one line per window, each over the
whole hold sweep (holds up to 10 s, each with its carry), with the wrong bookings, corrections, advice to undo and
taps per move a builder weighs to choose it: a window shorter than people hold books the move a lift alone shows
before the piece lands (put right, or wrong), a longer one leaves more moves to a tap.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.sim.hand_clock import TimedTable

HELP = (
    "the five games with hands in time, swept over how long a hand holds a piece: wrong bookings and advice to "
    "undo (goal 0), corrections, taps, time to booking"
)
# Each game's webcam with the camera: its mean lag (`TimedTable.webcam_lag`), its bookings' seconds after the last
# touch and after the arm left.
Webcams = list[tuple[float, list[float], list[float]]]
HOLDS = (0.1, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)
WINDOWS = (3.0, 5.0, 8.0, 12.0, 15.0)
SENSES = ("grid", "camera")


@dataclass(frozen=True)
class Bench:
    """One row of the table: a game with its players and options."""

    game: str
    label: str
    players: int
    options: Mapping[str, Any] = field(default_factory=dict)
    opening: tuple[tuple[str, Mapping[str, Any]], ...] = ()  # actions made on the phones first (type, arguments)
    joined: int = 0  # scripted actions always made on the phones before the hands play (a long setup)


def default_benches() -> list[Bench]:
    from companion.sim.game_layouts import ORBIT_TABLES

    orbit = [
        Bench(
            "orbit",
            "ORBIT " + (str(dict(t.options).get("mode", "")) or ("modules" if t.options else "4 players")),
            len(t.players),
            t.options,
        )
        for t in ORBIT_TABLES
    ]
    return [
        *orbit,
        Bench("dakalio", "Dakalio simple", 2, {"mode": "simple"}),
        Bench("dakalio", "Dakalio supremacy", 2, {"mode": "supremacy"}),
        Bench("dakalio", "Dakalio with portals", 2, {"mode": "simple"}, (("portals", {"use": True}),)),
        Bench("orbital_battle", "Orbital Battle", 2, {"turn_limit": 4}, joined=50),  # its purchases made
        Bench("trajectory", "Trajectory", 3),
        Bench("periorbis", "Periorbis short", 3, {"length": "short"}),
    ]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from companion.table.config import TableConfig

    table = TableConfig()
    parser.add_argument("--games", type=int, default=1, help="games per point of the sweep and row (default 1)")
    parser.add_argument(
        "--moves", type=int, default=8, help="moves made by hand per game and point of the sweep (default 8)"
    )
    parser.add_argument(
        "--skip",
        type=int,
        default=12,
        help="up to this many actions made on the phones before the hands play, so that games are "
        "joined part way (default 12)",
    )
    parser.add_argument(
        "--holds",
        default=",".join(f"{h:g}" for h in HOLDS),
        help="seconds the first carry of each action is held in the air, the sweep's points "
        "(default 0.1,0.3,0.5,1,2,3,5,10)",
    )
    parser.add_argument(
        "--senses",
        default="grid",
        help="grid (the grid alone, default), camera (the grid and the rendered camera, where the game "
        "has one: slow, seconds a frame) or grid,camera",
    )
    parser.add_argument("--game", help="only this game's rows (default: all five games)")
    parser.add_argument("--players", type=int, help="one row with this many players (with --game)")
    parser.add_argument("--grid", default="virtual", help="virtual (default) or simavr")
    parser.add_argument(
        "--no-beside",
        dest="beside",
        action="store_false",
        help="the boards a game places beside its own (Orbital Battle's planet maps) on no grid: with "
        "the camera it alone reads them, else their moves are declared on the phones, as at a "
        "table of one grid (default: each on a grid of its own)",
    )
    parser.add_argument(
        "--settle",
        type=float,
        default=table.settle,
        help=f"the table's settle window in seconds (default {table.settle:g}, the table's own)",
    )
    parser.add_argument(
        "--hold-window",
        type=float,
        default=table.hold,
        help=f"the table's hold window in seconds (default {table.hold:g}, the table's own)",
    )
    parser.add_argument(
        "--windows",
        nargs="?",
        const=",".join(f"{w:g}" for w in WINDOWS),
        help="sweep the table's hold window instead: one line per window over the whole hold sweep (default "
        "windows 3,5,8,12,15 s; or seconds separated by commas)",
    )
    parser.add_argument(
        "--webcam",
        choices=("drawn", "slowest", "quickest"),
        default="drawn",
        help="drawn: each game draws its webcam from shared/WORLD.md's range (default); slowest or quickest: every "
        "game has the webcam at that end of the range",
    )
    parser.add_argument(
        "--slower",
        type=float,
        default=1.0,
        help="the table's CPU this many times slower than this machine's (a Pi 4's core: 3-5): each camera frame's "
        "reading is charged to the table's clock that many times over (default 1)",
    )
    parser.add_argument("--findings", type=int, default=3, help="lines of findings to print per row (default 3)")
    parser.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE",
        help="a game option for one row (with --game), e.g. --option mode=dual",
    )  # fmt: skip


def choose(args: argparse.Namespace) -> list[Bench]:
    from companion.cli.options import game_options
    from companion.errors import UserError
    from companion.rules import names

    if args.games < 1 or args.moves < 1 or args.skip < 0 or min(args.settle, args.hold_window) <= 0:
        raise UserError(
            "bench messy: --games and --moves must be 1 or more, --skip 0 or more, --settle and --hold-window above 0"
        )
    if not 1 <= args.slower <= 100:
        raise UserError(f"bench messy: --slower must be from 1 to 100 (a Pi 4's core: 3-5), not {args.slower:g}")
    benches = default_benches()
    if args.game is None:
        if args.players is not None or args.option:
            raise UserError("bench messy: --players and --option need --game")
        return benches
    if args.game not in names():
        raise UserError(f"bench messy: unknown game {args.game!r} (known: {', '.join(names())})")
    options = game_options(args.option, "bench messy")
    if args.players is not None or options:
        mine = [b for b in benches if b.game == args.game]
        players = args.players or (mine[0].players if mine else 2)
        return [Bench(args.game, args.game, players, options)]
    return [b for b in benches if b.game == args.game] or [Bench(args.game, args.game, 2)]


def holds(text: str, option: str = "--holds") -> list[float]:
    """Seconds separated by commas (the sweep's holds, or with `option` "--windows" its hold windows)."""
    from companion.errors import UserError

    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise UserError(f"bench messy: {option} {text!r}: expected seconds separated by commas") from None
    if not values or any(v <= 0 or v > 60 for v in values):
        raise UserError(f"bench messy: {option} {text!r}: each must be above 0 and at most 60 s")
    return values


def senses(text: str) -> list[str]:
    from companion.errors import UserError

    chosen = [part.strip() for part in text.split(",") if part.strip()]
    if not chosen or any(part not in SENSES for part in chosen):
        raise UserError(f"bench messy: --senses {text!r}: expected grid, camera or grid,camera")
    return chosen


def run(args: argparse.Namespace) -> int:
    from companion.bench.stats import percentile
    from companion.sensing.pieces import has_registry
    from companion.sim.hand_clock import Webcam

    benches, points, kinds = choose(args), holds(args.holds), senses(args.senses)
    windows = holds(args.windows, "--windows") if args.windows else None
    window_words = "hold window swept" if windows else f"hold window {args.hold_window:g} s"
    print(
        f"hands in time: {args.moves} moves by hand per game and point, {args.games} game(s) a point, settle "
        f"{args.settle:g} s, {window_words}, grid {args.grid}{'' if args.beside else ', planet maps on no grid'}"
    )
    if "camera" in kinds:
        cam = Webcam()
        print(
            f"the camera: a USB webcam at {cam.fps[0]:g}-{cam.fps[1]:g} frames a second, each reaching the table "
            f"{cam.transfer[0]:g}-{cam.transfer[1]:g} frame intervals after its exposure of 1/"
            f"{1 / cam.exposure[0]:.0f}-1/{1 / cam.exposure[1]:.0f} s, "
            + ("drawn per game" if args.webcam == "drawn" else f"every game's at the range's {args.webcam} end")
            + f"; each frame's reading charged {args.slower:g} times its CPU time here"
        )
    failed = 0
    for sense in kinds:
        for bench in benches:
            if sense == "camera" and not has_registry(bench.game):
                print(f"\n{bench.label}, grid and camera: no camera for this game (no piece registry)")
                continue
            words = "grid alone" if sense == "grid" else "grid and camera"
            print(f"\n{bench.label}, {words}")
            if windows:
                failed += sweep_windows(bench, sense == "camera", points, windows, args)
                continue
            print(f"{'hold s':>7}{COLUMNS}")  # (the table's own bookings)
            findings: list[str] = []
            judged: list[float] = []
            booked: list[float] = []
            after_arm: list[float] = []
            frames: list[float] = []
            webcams: Webcams = []
            for index, hold in enumerate(points):
                started = time.monotonic()
                stats, found, cams = point(bench, sense == "camera", hold, index, args)
                webcams += cams
                print(line(f"{hold:g}", stats, time.monotonic() - started))
                findings += found
                judged += stats.judge_seconds
                booked += stats.booked_after
                after_arm += stats.booked_after_arm
                frames += stats.frame_seconds
                failed += stats.wrong_bookings + stats.undo_advice
            if booked:
                print(
                    f"  booked after, over the sweep: median {percentile(booked, 0.5):.2f} s, p95 "
                    f"{percentile(booked, 0.95):.2f} s ({len(booked)} bookings by the table)"
                )
            if after_arm:
                print(
                    f"  booked after the arm left the board: median {percentile(after_arm, 0.5):.2f} s, p95 "
                    f"{percentile(after_arm, 0.95):.2f} s ({len(after_arm)} bookings)"
                )
            print_webcams(webcams)
            if frames:
                print(
                    "  the table's reading of each camera frame, CPU ms: median, p95 "
                    + ", ".join(f"{percentile(frames, q) * 1e3:.1f}" for q in (0.5, 0.95))
                    + f" ({len(frames)} frames)"
                )
            if judged:
                print(
                    "  the referee over each settled board, ms: median, p95, p99 "
                    + ", ".join(f"{percentile(judged, q) * 1e3:.2f}" for q in (0.5, 0.95, 0.99))
                )
            print_findings(findings, args.findings)
    print(
        "\nmoves: actions that change what the sensors see, made by hand; wrong: the table's books held another "
        "action than the hand's when its player looked at a phone (goal 0); corrected: bookings the table put "
        "right itself in one announced entry; undo: moves during which the table advised undoing them (goal 0); "
        "taps/move: phone taps per move; booked after: seconds from the hand's last movement to the table's own "
        "booking of its move, a move settled by a tap counted in taps/move instead (goal: median under 0.5 s); arm "
        "left: with the camera, whose frames show the arm over the board until it leaves and which holds every "
        "booking until then, the median from the arm's leaving"
        + (
            "; in hand: moves during which the table waited for a piece that may be in the hand (the window's "
            "moves); wrong at: the holds (s) at which a move was booked wrong"
            if windows
            else ""
        )
    )
    return 1 if failed else 0


COLUMNS = (
    f"{'moves':>7}{'wrong':>7}{'corrected':>10}{'undo':>6}{'taps/move':>10}{'booked after s: median, p95':>29}"
    f"{'arm left s':>12}{'s':>6}"
)


def sweep_windows(
    bench: Bench, camera: bool, points: list[float], windows: list[float], args: argparse.Namespace
) -> int:
    """One line per hold window, each over every hold of the sweep (the same hands and seeds in every window): what
    a builder weighs to choose the window. Returns the wrong bookings and advice to undo at the table's own window."""
    from companion.sim.hand_play import HandStats

    print(f"{'window s':>8}{COLUMNS}{'in hand':>8}{'wrong at':>10}")
    failed = 0
    findings: list[str] = []
    for window in windows:
        started = time.monotonic()
        totals, wrong_at = HandStats(), []
        for index, hold in enumerate(points):
            stats, found, _ = point(bench, camera, hold, index, args, window)
            totals.add(stats)
            findings += found
            if stats.wrong_bookings:
                wrong_at.append(f"{hold:g}")
        where = ",".join(wrong_at) or "-"
        print(f"{line(f'{window:g}', totals, time.monotonic() - started, 8)}{totals.held:>8}{where:>10}")
        if window == args.hold_window:
            failed += totals.wrong_bookings + totals.undo_advice
    print_findings(findings, args.findings)
    return failed


def print_findings(findings: list[str], count: int) -> None:
    findings.sort(key=lambda text: ("wrong booking" not in text, "advice to undo" not in text))
    for text in findings[:count]:
        print(f"    {text[:220]}")


def print_webcams(webcams: Webcams) -> None:
    """The row's bookings with the camera by how quick its webcam was (each game draws one from shared/WORLD.md's
    range): the slowest third shows what the goal is at the range's slow end."""
    webcams = sorted(w for w in webcams if w[1])
    if len(webcams) < 3:
        return
    from companion.bench.stats import percentile

    third = len(webcams) / 3
    parts = []
    for name, group in (
        ("quickest", webcams[: round(third)]),
        ("middle", webcams[round(third) : round(2 * third)]),
        ("slowest", webcams[round(2 * third) :]),
    ):
        landed = [t for _, after, _ in group for t in after]
        left = [t for _, _, arm in group for t in arm]
        parts.append(
            f"{name} third ({group[0][0]:.2f}-{group[-1][0]:.2f} s) {percentile(landed, 0.5):.2f}"
            + (f", {percentile(left, 0.5):.2f}" if left else "")
        )
    print(
        "  by the webcam (its mean seconds from the arm leaving to a frame's arrival): median booked after the last "
        "touch, after the arm left: " + "; ".join(parts)
    )


def point(
    bench: Bench, camera: bool, hold: float, index: int, args: argparse.Namespace, window: float | None = None
) -> tuple[Any, list[str], Webcams]:
    """One point of the sweep: `args.games` games of `bench` joined part way, `args.moves` moves each by hand, on the
    table's hold `window` (default `args.hold_window`). Returns the totals, the findings, and with the camera each
    game's webcam (its mean lag, `TimedTable.webcam_lag`) with its bookings' times after the touch and the arm."""
    from companion.sim.hand_play import HandStats

    totals, findings, webcams = HandStats(), [], []
    for game in range(args.games):
        table = hands_game(bench, camera, hold, 1 + index + 97 * game, args, window)
        totals.add(table.stats)
        findings += table.findings
        if table.twin.camera is not None:
            webcams.append((table.webcam_lag, table.stats.booked_after, table.stats.booked_after_arm))
    return totals, findings, webcams


def hands_game(
    bench: Bench, camera: bool, hold: float, seed: int, args: argparse.Namespace, window: float | None = None
) -> TimedTable:
    """One game of `bench` at the twin's table (the camera on it too if `camera` and the game has one), joined part
    way, `args.moves` moves made by hands in time that hold each action's first carry `hold` seconds, on the table's
    hold `window` (default `args.hold_window`): the played TimedTable, its twin closed."""
    from companion.errors import UserError
    from companion.rules import Action, SetupError
    from companion.sim.hand_clock import TimedTable, Webcam, twin_geometry
    from companion.sim.table_setup import game_board, make_twin

    try:
        twin = make_twin(bench.game, bench.players, seed, args.grid, None, 0.0, 0.0,
                         camera=None if camera else False, options=bench.options, beside=args.beside,
                         settle=args.settle, own_clock=True)  # fmt: skip
    except SetupError as error:
        raise UserError(f"bench messy: {bench.label}: {error}") from None
    twin.loop.hold = args.hold_window if window is None else window
    with twin:
        geometry = twin_geometry(twin, game_board(bench.game, bench.options))
        webcam = None if args.webcam == "drawn" else Webcam().end(args.webcam == "slowest")
        table = TimedTable(twin, seed, hold, geometry, webcam=webcam, slower=args.slower)
        rng = random.Random(seed)
        opening = tuple(Action.make(kind, **dict(arguments)) for kind, arguments in bench.opening)
        table.skip(bench.joined + rng.randint(0, args.skip), rng, opening)
        table.play_moves(args.moves)
    return table


def line(label: str, s: Any, seconds: float, width: int = 7) -> str:
    from companion.bench.stats import percentile

    per_move = f"{s.board_taps / s.board_changes:.2f}" if s.board_changes else "-"
    after = s.booked_after
    timing = f"{percentile(after, 0.5):.2f}, {percentile(after, 0.95):.2f}" if after else "-"
    left = f"{percentile(s.booked_after_arm, 0.5):.2f}" if s.booked_after_arm else "-"
    return (
        f"{label:>{width}}{s.board_changes:>7}{s.wrong_bookings:>7}{s.corrections:>10}{s.undo_advice:>6}{per_move:>10}"
        f"{timing:>29}{left:>12}{seconds:>6.0f}"
    )
