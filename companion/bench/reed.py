"""`companion bench reed`: the reed grid's scan time and latency, with the real firmware in simavr.

Scan time, counted in the simulated CPU's cycles (exact whatever the machine's load), on the Uno and the Mega behind
their bootloaders: from driving the first row to releasing the last, and the ticks of the millisecond clock on which
no scan started because the loop was still busy. Four loads: idle; full chatter (every switch flips every
millisecond: each scan sees every reading move); a flood (every switch of the matrix flips at once, every 25 ms, so
each flip is a real change of every switch that the firmware must debounce and report); and a ripple (one column of
every row flips each millisecond, the next column each time, so each row holds readings from as many different
moments as it has switches: the most work the debounce can be given); and a faulty diode (a shorted one under a
closed switch of row 1, with every switch of row 4 and half of row 1's closed: each scan of row 4 finds row 1 tied
to it and probes the columns for the faulty one, the most work a fault gives the scan). The goal: every scan within
1 ms and no tick of the millisecond clock without a scan, under every load, on the Uno and the Mega.

Latency, at real time: from a switch closing (and opening) to the host's change event, and the time to take in a
burst in which every switch of the matrix changes at once. The debounce is printed with them: the firmware holds
every change for that long on purpose, so the latency reads as "debounce + N ms", N being scan, serial and host time.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

HELP = "reed grid: switch-to-event latency (p50, p95, max) and a whole-matrix burst, firmware in simavr"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--board", choices=("mega", "nano"), default="mega")
    parser.add_argument("--samples", type=int, default=40, help="switch closings (and openings) to time (default 40)")
    parser.add_argument("--bursts", type=int, default=3, help="whole-matrix bursts to time (default 3)")
    parser.add_argument("--build", type=Path, default=Path("build/firmware"), help="where to build the firmware")
    parser.add_argument("--scan-only", action="store_true", help="only the scan times, not the latency")
    parser.add_argument("--scan-ms", type=int, default=400, help="simulated milliseconds per scan load (default 400)")
    parser.add_argument("--debounce", type=int, help="debounce (ms) for the scan loads (default: the firmware's)")


def run(args: argparse.Namespace) -> int:
    from companion.bench.stats import summary
    from companion.errors import UserError
    from companion.sensing.reed import ReedLink
    from companion.sim.simavr_grid import build, simavr_grid

    if args.samples < 1 or args.bursts < 1 or not 50 <= args.scan_ms <= 10_000:
        raise UserError("bench reed: --samples and --bursts must be at least 1, --scan-ms within 50..10000")
    if args.debounce is not None and not 0 <= args.debounce <= 1000:
        raise UserError(f"bench reed: --debounce {args.debounce} is outside 0..1000 ms")
    try:
        build(args.build)
    except (RuntimeError, OSError) as error:
        raise UserError(f"bench reed: cannot build the firmware ({str(error).splitlines()[0]})") from None
    for board in ("uno", "mega"):
        print_scan_times(board, scan_times(board, args.build.resolve(), args.scan_ms, args.debounce), args.debounce)
    if args.scan_only:
        return 0
    grid = simavr_grid(args.board, args.build.resolve(), realtime=True).start()
    link = ReedLink(grid.port).start()
    try:
        time.sleep(0.05)
        grid.go()
        if not link.wait_synced(5):
            raise UserError("bench reed: the simulated firmware did not answer")
        debounce = link.info.debounce_ms if link.info else 0
        closing, opening = [], []
        for i in range(args.samples):
            switch = (i * 5 % grid.rows, i * 3 % grid.cols)
            for closed, samples in ((True, closing), (False, opening)):
                _drain(link)
                started = time.monotonic()
                (grid.close_switch if closed else grid.open_switch)(*switch)
                change = _wait_change(link, switch, closed)
                samples.append(change - started)
        everything = {(r, c) for r in range(grid.rows) for c in range(grid.cols)}
        bursts = []
        for _ in range(args.bursts):
            for target in (everything, set()):
                _drain(link)
                started = time.monotonic()
                grid.set_all(target)
                last = started
                while link.occupancy() != target:
                    change = link.next_change(2.0)
                    if change is None:
                        raise UserError("bench reed: the burst did not arrive within 2 s")
                    last = change.host_time
                bursts.append(last - started)
        counters = link.counters
    finally:
        link.stop()
        grid.stop()
    print(f"reed grid, {args.board} firmware in simavr at real time, {grid.rows}x{grid.cols}, debounce {debounce} ms")
    print(f"  switch closes -> host event: {summary(closing, 1e3, 'ms')}")
    print(f"  switch opens  -> host event: {summary(opening, 1e3, 'ms')}")
    over = [s * 1e3 - debounce for s in closing + opening]
    print(f"  = debounce {debounce} ms + median {sorted(over)[len(over) // 2]:.1f} ms, max {max(over):.1f} ms")
    print(f"  burst of {len(everything)} changes, first change to last event: {summary(bursts, 1e3, 'ms')}")
    print(f"  link counters: {counters}")
    return 0


SCAN_GOAL_US = 1000.0
TICK_US = 1024.0  # the Arduino millis() clock ticks every 1024 us
# (name, GridProcess method, period in us): "noise" flips every switch at once, "ripple" one column at a time.
LOADS = (
    ("idle", "noise", 0),
    ("full chatter", "noise", 1_000),
    ("flood: all at once", "noise", 25_000),
    ("ripple by column", "ripple", 1_000),
)


@dataclass(frozen=True)
class ScanLoad:
    name: str
    durations_us: list[float]
    missed_ticks: int
    scans: int


def scan_times(board: str, build_dir: Path, sim_ms: int = 400, debounce: int | None = None) -> list[ScanLoad]:
    """Scan durations under each load, from the harness's cycle counts, with the host link reading the frames (and
    setting the debounce, if given: a longer one keeps wider counters)."""
    from companion.errors import UserError
    from companion.sensing.reed import ReedLink
    from companion.sim.simavr_grid import simavr_grid

    grid = simavr_grid(board, build_dir).start()
    link = ReedLink(grid.port, debounce_ms=debounce).start()
    try:
        time.sleep(0.05)
        grid.go()
        deadline = time.monotonic() + 15
        while not (link.synced and (debounce is None or (link.info and link.info.debounce_ms == debounce))):
            if time.monotonic() > deadline:
                raise UserError(f"bench reed: the simulated {board} did not answer")
            time.sleep(0.01)
        loads = []
        for name, command, period in LOADS:
            getattr(grid, command)(period)
            grid.scans()  # from here on
            until = grid.time_us() + sim_ms * 1000
            while grid.time_us() < until:
                time.sleep(0.02)
            scans = grid.scans()
            mhz = 16.0
            durations = [cycles / mhz for cycles, _ in scans]
            missed = sum(max(0, round(gap / mhz / TICK_US) - 1) for _, gap in scans if gap)
            loads.append(ScanLoad(name, durations, missed, len(scans)))
            getattr(grid, command)(0)
        grid.diode(1, 2, "shorted")
        grid.set_all({(4, c) for c in range(grid.cols)} | {(1, c) for c in range(0, grid.cols, 2)})
        grid.scans()
        grid.run_for(sim_ms * 1000)
        scans = grid.scans()
        missed = sum(max(0, round(gap / 16.0 / TICK_US) - 1) for _, gap in scans if gap)
        loads.append(ScanLoad("a faulty diode", [cycles / 16.0 for cycles, _ in scans], missed, len(scans)))
        return loads
    finally:
        link.stop()
        grid.stop()


def print_scan_times(board: str, loads: list[ScanLoad], debounce: int | None = None) -> None:
    from companion.bench.stats import summary

    rows, cols = (16, 16) if board == "mega" else (8, 8)
    print(
        f"reed grid scan, {board} firmware behind its bootloader in simavr, {rows}x{cols}, cycle counts at 16 MHz"
        + (f", debounce {debounce} ms" if debounce is not None else "")
        + "; "
        f"goal every scan <= {SCAN_GOAL_US:.0f} us, no tick missed"
    )
    for load in loads:
        worst = max(load.durations_us, default=float("nan"))
        verdict = "meets the goal" if worst <= SCAN_GOAL_US and load.missed_ticks == 0 else "misses the goal"
        print(
            f"  {load.name:<19} scan {summary([d / 1e6 for d in load.durations_us])}; "
            f"{load.missed_ticks} of {load.scans + load.missed_ticks} ticks without a scan; {verdict}"
        )


def _drain(link) -> None:
    while link.next_change(0.0) is not None:
        pass


def _wait_change(link, switch: tuple[int, int], closed: bool) -> float:
    from companion.errors import UserError

    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        change = link.next_change(deadline - time.monotonic())
        if change is not None and change.switch == switch and change.closed == closed:
            return change.host_time
    raise UserError(f"bench reed: no event for switch {switch} within 2 s")
