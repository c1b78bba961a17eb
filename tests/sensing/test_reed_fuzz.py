"""The atheris bench runs, and its oracle really catches a parser that would turn damage into state."""

from __future__ import annotations

import pytest

from companion.cli import main
from companion.sensing import frames


def test_the_fuzz_bench_runs_and_finds_nothing(capsys):
    assert main(["bench", "fuzz", "--seconds", "3"]) == 0
    out = capsys.readouterr().out
    assert "crashes 0, false states 0" in out
    assert "baseline" in out


def test_the_oracle_refuses_a_parser_that_skips_the_crc(monkeypatch):
    from companion.bench import fuzz_target

    good = frames.parse_frame(b"0D C 00000ADF 12+ *A073")
    fuzz_target.check_line(b"0D C 00000ADF 12+ *A073")
    monkeypatch.setattr(frames, "parse_frame", lambda line: good)
    with pytest.raises(AssertionError, match="CRC"):
        fuzz_target.check_line(b"0D C 00000ADF 13+ *A073")


def test_the_oracle_refuses_a_frame_that_does_not_round_trip(monkeypatch):
    from companion.bench import fuzz_target

    line = b"0D C 00000ADF 12+ *A073"
    wrong = frames.Changes(13, 0xADF, (((1, 3), True),))
    monkeypatch.setattr(frames, "parse_frame", lambda text: wrong if text == line else frames.Changes(13, 0xADF, ()))
    with pytest.raises(AssertionError, match="round-trip"):
        fuzz_target.check_line(line)


def test_the_fuzz_bench_started_by_a_process_that_has_used_gigabytes_finds_nothing_either():
    """Linux carries a process's peak RSS over into the processes it starts, and libFuzzer's memory limit is on that
    peak: run from a test runner that had used 2 GB, every run ended as an "out-of-memory"."""
    import subprocess
    import sys

    script = (
        "import numpy, sys\n"
        "used = numpy.ones(2300 * 1024 * 1024, numpy.uint8)\n"
        "from companion.cli import main\n"
        "sys.exit(main(['bench', 'fuzz', '--seconds', '1']))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "crashes 0, false states 0" in result.stdout
