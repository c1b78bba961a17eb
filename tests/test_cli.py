"""The `companion` command as a user runs it: a real process, its output and its exit code."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def companion(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, cwd=cwd)


def test_version():
    result = companion("--version")
    assert result.returncode == 0 and result.stdout.startswith("companion ")


def test_scenario_run_passes_and_counts(tmp_path):
    result = companion("scenario", "run", "tests/scenarios/trajectory/heavy_lift_pays_half_its_weight.json")
    assert result.returncode == 0
    assert result.stdout.splitlines()[-1] == "1 passed, 0 failed"


def test_a_failing_scenario_exits_1(tmp_path):
    data = json.loads((ROOT / "tests/scenarios/trajectory/heavy_lift_pays_half_its_weight.json").read_text())
    data["steps"][-1]["expect"]["ledger"]["players"]["red"]["fuel"] = 0
    path = tmp_path / "wrong.json"
    path.write_text(json.dumps(data))
    result = companion("scenario", "run", str(path))
    assert result.returncode == 1
    assert result.stdout.splitlines()[0].startswith(f"FAIL {path}: steps[5]: ledger.players.red.fuel: expected 0")
    assert result.stdout.splitlines()[-1] == "0 passed, 1 failed"


def test_a_malformed_scenario_is_one_line_and_exit_2(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"game": "trajectory", "players": ["red"], "steps": [{"action": {"type": 3}}]}')
    result = companion("scenario", "run", str(path))
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert (
        result.stderr.strip() == f"companion: {path}: steps[0].action: missing its 'type' (a string such as \"move\")"
    )
    assert "Traceback" not in result.stderr


def test_broken_json_and_missing_files(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text('{"game": ')
    result = companion("scenario", "run", str(path))
    assert result.returncode == 2 and "cut.json: not valid JSON (line 1" in result.stderr
    result = companion("scenario", "run", str(tmp_path / "nope"))
    assert result.returncode == 2 and "nope: no such file or directory" in result.stderr


def test_bench_rules_prints_its_figures():
    result = companion("bench", "rules", "--playouts", "1")
    assert result.returncode == 0, result.stderr
    for figure in ("legal actions  median", "apply          median", "baseline: state to JSON", "whole games/s"):
        assert figure in result.stdout


def test_demo_plays_a_whole_game_on_the_simulated_board():
    result = companion("demo", "--terminal", "--speed", "0", "--players", "2", "--seed", "4")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "on a simulated board (virtual grid, the rendered camera)" in lines[0]
    assert "Red draws" in result.stdout and "Everything orbits" in result.stdout
    assert lines[-2].startswith("Result: ")
    assert lines[-1].endswith("wrong moves accepted 0.")


def test_demo_rejects_a_bad_game():
    result = companion("demo", "--game", "chess")
    assert result.returncode == 2 and "unknown game 'chess'" in result.stderr


def test_scenario_record_keeps_a_whole_game_that_then_passes(tmp_path):
    path = tmp_path / "game.json"
    result = companion("scenario", "record", "orbit", "--players", "red,green", "--option", "mode=dual", "--seed", "4",
                       "-o", str(path))  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"{path}: ") and "visited every planet" in result.stdout
    data = json.loads(path.read_text())
    assert data["options"] == {"mode": "dual"} and data["steps"][-1]["expect"]["outcome"]["result"] == "won"
    assert sum("phase" in step.get("expect", {}) for step in data["steps"]) > 10  # each turn's hand-over is pinned
    assert companion("scenario", "run", str(path)).stdout.splitlines()[-1] == "1 passed, 0 failed"
    # A game that went otherwise fails where it first differs: the first turn handed over to somebody else.
    first = next(i for i, step in enumerate(data["steps"]) if "phase" in step.get("expect", {}))
    data["steps"][first]["expect"]["phase"]["actor"] = "nobody"
    path.write_text(json.dumps(data))
    failed = companion("scenario", "run", str(path))
    assert failed.returncode == 1 and f"steps[{first}]: phase.actor" in failed.stdout


def test_scenario_record_refuses_bad_requests_and_writes_nothing(tmp_path):
    path = tmp_path / "game.json"
    for args, message in [
        (("orbit", "--players", "red,green", "--option", "mode"), "scenario record: --option 'mode': expected NAME="),
        (("chess", "--players", "red,green"), "unknown game 'chess'"),
        (("orbit", "--players", "red,green", "--option", "mode=solo"), "mode"),
        (("orbit", "--players", "red,green", "--max-actions", "20"), "did not end within 20 actions; nothing written"),
    ]:
        result = companion("scenario", "record", *args, "-o", str(path))
        assert result.returncode == 2 and message in result.stderr and len(result.stderr.splitlines()) == 1
        assert not path.exists()
