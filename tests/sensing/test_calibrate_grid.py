"""`companion calibrate grid` against the virtual grid over a real pty, and the profile file's checks."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.boards import default_board
from companion.calibration.grid import GridProfile, load_profile, save_profile
from companion.errors import UserError
from companion.sim.simavr_grid import virtual_grid

ROOT = Path(__file__).parent.parent.parent


def test_calibration_maps_named_sites_and_refuses_a_duplicate(tmp_path):
    out = tmp_path / "grid.json"
    answers = {"o1s0": [(0, 0)], "o1s1": [(0, 0), (5, 1)], "o2s0": [(7, 7)]}  # o1s1 first gets o1s0's switch
    with virtual_grid(8, 8) as grid:
        grid.go()
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "companion",
                "calibrate",
                "grid",
                "--port",
                grid.port,
                "--sites",
                "o1s0,o1s1,o2s0",
                "--out",
                str(out),
                "--wait",
                "5",
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        lines = []
        for line in proc.stdout:
            lines.append(line.rstrip())
            if line.startswith("[") or "already" in line:
                site = line.split("(")[-1].split(")")[0] if line.startswith("[") else "o1s1"
                switch = answers[site].pop(0)
                grid.open_switch(*switch)  # lift the magnet (if it is there) and set it down again
                time.sleep(0.05)
                grid.close_switch(*switch)
        assert proc.wait(10) == 0, proc.stderr.read()
    assert any("Switch row 0 column 0 is already orbit 1 space 0" in line for line in lines)
    profile = load_profile(out, default_board("trajectory"))
    # A board with fewer sites than switches: three sites mapped, the other 61 switches unused.
    assert profile.sites == {"o1s0": (0, 0), "o1s1": (5, 1), "o2s0": (7, 7)}
    assert profile.site_of((5, 1)) == "o1s1" and profile.site_of((3, 3)) is None


def test_unmapped_sites_are_an_error_unless_allowed(tmp_path):
    out = tmp_path / "grid.json"
    with virtual_grid(8, 8) as grid:
        grid.go()
        args = [
            sys.executable,
            "-m",
            "companion",
            "calibrate",
            "grid",
            "--port",
            grid.port,
            "--sites",
            "o1s0",
            "--out",
            str(out),
            "--wait",
            "0.3",
        ]
        result = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
        assert result.returncode == 2 and not out.exists()
        assert result.stderr.strip() == (
            "companion: calibrate grid: 1 site(s) unmapped (o1s0); nothing saved (run again, or pass --allow-unmapped)"
        )
        result = subprocess.run([*args, "--allow-unmapped"], cwd=ROOT, capture_output=True, text=True)
        assert result.returncode == 0 and json.loads(out.read_text())["sites"] == {}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(kind="camera"), 'kind: expected "reed-grid"'),
        (lambda d: d.update(rows=17), "rows: expected a whole number from 1 to 16"),
        (lambda d: d["sites"].update(nowhere=[0, 1]), "sites.nowhere: board 'trajectory' has no such site"),
        (lambda d: d["sites"].update(o1s1=[0, 0]), "sites.o1s1: switch [0, 0] is already site 'o1s0'"),
        (lambda d: d["sites"].update(o1s1=[8, 0]), "sites.o1s1: expected [row, column] inside the 8x8 matrix"),
    ],
)
def test_profile_errors_name_the_file_and_field(tmp_path, change, message):
    path = tmp_path / "grid.json"
    save_profile(GridProfile("trajectory", 8, 8, {"o1s0": (0, 0)}), path)
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    with pytest.raises(UserError) as error:
        load_profile(path, default_board("trajectory"))
    assert str(error.value) == f"{path}: {message}"
