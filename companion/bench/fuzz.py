"""`companion bench fuzz`: the reed protocol's frame and command parsers under atheris (libFuzzer).

The fuzzer runs in a child process (libFuzzer ends the process when its time is up) on a fresh corpus seeded with
real firmware frames. It stops at the first crash or false state (see companion/bench/fuzz_target.py) and this
bench then prints the failing input and exits 1. Baseline, in the same run: the uninstrumented parser on the seed
frames, so the fuzzer's executions a second can be read against what one parse costs.
"""

from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FUZZ_RSS_MB = 2048  # the memory the fuzzer may grow by before an input counts as running out of it (libFuzzer's own)
HELP = "reed protocol parsers under atheris: executions, coverage growth, crashes and false states"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=int, default=60, help="how long to fuzz (default 60)")
    parser.add_argument("--seed", type=int, default=1)


def run(args: argparse.Namespace) -> int:
    from companion.bench.stats import summary
    from companion.errors import UserError
    from companion.sensing import frames

    if args.seconds < 1:
        raise UserError("bench fuzz: --seconds must be at least 1")
    try:
        import atheris  # noqa: F401  (only to say clearly what is missing)
    except ImportError:
        raise UserError("bench fuzz needs atheris: .venv/bin/pip install atheris (it is in the test extra)") from None
    from companion.bench.fuzz_target import SEEDS

    baseline = []
    for _ in range(2000):
        for line in SEEDS:
            started = time.perf_counter()
            frames.parse_frame(line)
            baseline.append(time.perf_counter() - started)

    with tempfile.TemporaryDirectory(prefix="orrery-fuzz-") as work:
        corpus = Path(work, "corpus")
        corpus.mkdir()
        for index, line in enumerate(SEEDS):
            (corpus / f"seed{index}").write_bytes(line)
        # libFuzzer's memory limit is on the process's peak RSS, and Linux carries a parent's peak over into the
        # child it starts (a test runner's 2 GB made every run an "out-of-memory"): its 2 GB are counted from ours.
        limit = FUZZ_RSS_MB + resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        command = [
            sys.executable, "-m", "companion.bench.fuzz_target", f"-max_total_time={args.seconds}",
            f"-seed={args.seed}", "-print_final_stats=1", f"-artifact_prefix={work}/", f"-rss_limit_mb={limit}",
            str(corpus),
        ]  # fmt: skip
        started = time.monotonic()
        result = subprocess.run(command, capture_output=True, text=True, cwd=work)
        elapsed = time.monotonic() - started
        found = sorted(Path(work).glob("crash-*"))
        output = result.stdout + result.stderr
        stats = dict(re.findall(r"stat::(\w+):\s+(\d+)", output))
        print(f"Reed protocol parsers under atheris for {args.seconds} s (seed {args.seed})")
        if result.returncode != 0 or found:
            failure = next((line for line in output.splitlines() if "error" in line.lower() or "assert" in line), "")
            print(f"  FAILED: {failure.strip() or f'the fuzzer exited with {result.returncode}'}")
            for path in found:
                print(f"  input {path.read_bytes()!r}")
            return 1
        runs = int(stats.get("number_of_executed_units", 0))
        print(
            f"  {runs:,} inputs in {elapsed:.1f} s ({int(stats.get('average_exec_per_sec', 0)):,}/s), "
            f"{int(stats.get('new_units_added', 0))} new coverage units, peak RSS {stats.get('peak_rss_mb', '?')} MB"
        )
        print("  crashes 0, false states 0 (every accepted line matched its CRC and round-tripped)")
    print(f"  baseline: one uninstrumented parse of a real frame  {summary(baseline)}")
    return 0
