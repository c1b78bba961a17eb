"""Which grid lies under which board at a table of several: `companion calibrate grids` asks for a piece on each
board's marked hex, binds the grid that answers to that board, names in one line a grid the config had under another
board, refuses a grid that already answered for another board, and writes the ports into the config."""

import subprocess
import sys
from pathlib import Path

import pytest

from companion.boards import default_board
from companion.calibration.grid_probe import GridProbe, marked_site
from companion.sim.table_grids import TableGrids
from companion.table.beside import layout_prefix
from companion.table.config import load_config

BOARDS = ["orbital_battle", "orbital_battle:planet2", "orbital_battle:planet5"]


def _config(path: Path, solar: str, planet2: str, planet5: str) -> None:
    path.write_text(
        f'# the host\'s own notes stay\ngame = "orbital_battle"\nplayers = ["red", "blue"]\n'
        f'[grid]\nserial = "{solar}"\nprofile = "solar.json"\n'
        f'[[boards]]\nboard = "orbital_battle:planet2"\nserial = "{planet2}"  # the left one\n'
        'profile = "planet2.json"\n'
        f'[[boards]]\nboard = "orbital_battle:planet5"\nserial = "{planet5}"\nprofile = "planet5.json"\n'
    )


def test_the_grid_that_answers_is_bound_and_one_the_config_had_elsewhere_is_named(tmp_path):
    with TableGrids(tmp_path, [(b, layout_prefix("orbital_battle", b) if ":" in b else "") for b in BOARDS]) as grids:
        solar, planet2, planet5 = grids.boards
        path = tmp_path / "table.toml"
        # The two planet grids' cables were swapped in the config (the hub enumerated them the other way).
        _config(path, solar.grid.port, planet5.grid.port, planet2.grid.port)
        run = subprocess.Popen([sys.executable, "-m", "companion", "calibrate", "grids", "--config", str(path),
                                "--wait", "20"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
        by_title = {"the solar map": solar, "planet 2's map": planet2, "planet 5's map": planet5}
        lines = []
        assert run.stdout is not None
        pressed = None
        for line in run.stdout:
            lines.append(line.rstrip())
            if "is already under" in line:  # the player takes that piece off and sets one on planet 5's map
                planet2.grid.open_switch(0, 0)
                planet5.grid.close_switch(*planet5.sites[marked_site(planet5.board).id])
                continue
            if "Put a piece on the marked hex of" not in line:
                continue
            title = next(t for t in by_title if f"of {t} (" in line)
            on_grid = by_title[title]
            if pressed is not None:
                pressed.grid.open_switch(*pressed.sites[marked_site(pressed.board).id])
            if title == "planet 5's map":
                # A player sets the piece on planet 2's map again by mistake: that grid already answered.
                planet2.grid.close_switch(0, 0)
                continue
            on_grid.grid.close_switch(*on_grid.sites[marked_site(on_grid.board).id])
            pressed = on_grid
        assert run.wait(timeout=30) == 0, run.stderr.read()
    text = "\n".join(lines)
    assert f"Planet 2's map lies on the grid at {planet2.grid.port}." in text
    assert (f"The grid at {planet2.grid.port} answered for planet 2's map, but the config had it under planet 5's "
            "map.") in lines[lines.index(f"  Planet 2's map lies on the grid at {planet2.grid.port}.") + 1]  # fmt: skip
    assert f"The grid at {planet2.grid.port} is already under planet 2's map" in text
    config = load_config(path)
    assert config.serial == solar.grid.port
    assert {g.board: g.serial for g in config.boards} == {
        "orbital_battle:planet2": planet2.grid.port,
        "orbital_battle:planet5": planet5.grid.port,
    }
    kept = path.read_text()
    assert "# the host's own notes stay" in kept and "# the left one" in kept


def test_a_table_of_one_board_or_of_grids_that_do_not_answer_saves_nothing(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text('game = "orbital_battle"\nplayers = ["red", "blue"]\n[grid]\nserial = "auto"\n')
    run = subprocess.run([sys.executable, "-m", "companion", "calibrate", "grids", "--config", str(path)],
                         capture_output=True, text=True, timeout=30)  # fmt: skip
    assert run.returncode == 2 and "names one board" in run.stderr and "Traceback" not in run.stderr
    _config(path, str(tmp_path / "nothing0"), str(tmp_path / "nothing1"), str(tmp_path / "nothing2"))
    before = path.read_text()
    run = subprocess.run([sys.executable, "-m", "companion", "calibrate", "grids", "--config", str(path)],
                         capture_output=True, text=True, timeout=30)  # fmt: skip
    assert run.returncode == 2 and "3 boards but 0 grids answered" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and path.read_text() == before


def test_the_probe_asks_each_board_once_and_refuses_a_grid_twice():
    probe = GridProbe(BOARDS, {"orbital_battle:planet2": "B", "orbital_battle:planet5": "C"})
    marked = marked_site(default_board("orbital_battle"))
    assert marked.kind == "hex" and probe.prompt() == (f"Put a piece on the marked hex of the solar map "
                                                       f"({marked.name}), and nothing else.")  # fmt: skip
    assert probe.offer("A").verdict == "bound" and probe.offer("A").verdict == "taken"
    offer = probe.offer("C")
    assert offer.verdict == "bound" and offer.wrong == ("The grid at C answered for planet 2's map, but the config "
                                                        "had it under planet 5's map.")  # fmt: skip
    probe.skip()
    assert probe.board is None and probe.unbound() == ["orbital_battle:planet5"]
    with pytest.raises(ValueError):
        probe.offer("B")
