"""`companion bench reed`: the reed grid's latency, with the real firmware in simavr throttled to real time.

Figures: from a switch closing (and opening) to the host's change event, and the time to take in a burst in which
every switch of the matrix changes at once. The debounce is printed with them: the firmware holds every change for
that long on purpose, so the latency reads as "debounce + N ms", N being scan, serial and host time.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

HELP = "reed grid: switch-to-event latency (p50, p95, max) and a whole-matrix burst, firmware in simavr"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--board", choices=("mega", "nano"), default="mega")
    parser.add_argument("--samples", type=int, default=40, help="switch closings (and openings) to time (default 40)")
    parser.add_argument("--bursts", type=int, default=3, help="whole-matrix bursts to time (default 3)")
    parser.add_argument("--build", type=Path, default=Path("build/firmware"), help="where to build the firmware")


def run(args: argparse.Namespace) -> int:
    from companion.bench.stats import summary
    from companion.errors import UserError
    from companion.sensing.reed import ReedLink
    from companion.sim.simavr_grid import build, simavr_grid

    if args.samples < 1 or args.bursts < 1:
        raise UserError("bench reed: --samples and --bursts must be at least 1")
    try:
        build(args.build)
    except (RuntimeError, OSError) as error:
        raise UserError(f"bench reed: cannot build the firmware ({str(error).splitlines()[0]})") from None
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
