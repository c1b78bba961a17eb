"""`companion bench messy`: its rows, its table and its one-line errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from companion.bench.messy import default_benches

ROOT = Path(__file__).resolve().parents[2]


def companion(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, cwd=ROOT)


def test_the_default_rows_cover_all_five_games():
    rows = default_benches()
    assert {b.game for b in rows} == {"orbit", "dakalio", "orbital_battle", "trajectory", "periorbis"}
    assert sum(b.game == "orbit" for b in rows) == 4
    assert {dict(b.options).get("mode") for b in rows if b.game == "dakalio"} == {"simple", "supremacy"}


def test_a_row_prints_its_figures():
    result = companion("bench", "messy", "--game", "periorbis", "--settle", "0.03")
    assert result.returncode == 0, result.stderr
    line = next(x for x in result.stdout.splitlines() if x.startswith("Periorbis short"))
    actions, moves, wrong = (int(v) for v in line.split()[2:5])
    assert actions > moves > 0 and wrong == 0


def test_bad_arguments_are_one_line_errors():
    for args in (["--games", "0"], ["--game", "chess"], ["--players", "3"]):
        result = companion("bench", "messy", *args)
        assert result.returncode == 2 and "bench messy" in result.stderr and "Traceback" not in result.stderr
