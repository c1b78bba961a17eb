"""`companion bench latency` runs the whole path, firmware to phone, and every timed move is announced."""

from __future__ import annotations

from companion.cli import main


def test_the_latency_bench_announces_every_move(firmware_build, capsys):
    assert main(["bench", "latency", "--moves", "12", "--build", str(firmware_build)]) == 0
    out = capsys.readouterr().out
    assert "12 board moves" in out and "0 moves not announced" in out
    assert "switch closed -> announcement on the stream  median" in out and "baseline" in out
