"""`companion serve` as a user runs it: a real process, the grid over a pty, the game in SQLite."""

from __future__ import annotations

import json
import queue
import re
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from companion.boards import default_board
from companion.calibration.grid import GridProfile, save_profile
from companion.cli import main
from companion.sim.players import random_action
from companion.sim.simavr_grid import virtual_grid
from companion.sim.twin import switch_map
from companion.table.referee import board_actions
from companion.table.session import Session
from companion.table.store import Store


class Served:
    """A `companion serve` process whose output lines can be waited for."""

    def __init__(self, *args: str) -> None:
        command = [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", "--port", "0", *args]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line.rstrip())

    def wait_for(self, text: str, timeout: float = 15.0) -> str:
        """The first line printed so far or within `timeout` that holds `text` (lines come in any order)."""
        deadline = time.monotonic() + timeout
        found = next((line for line in self.seen if text in line), None)
        while found is None and time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.1)
            except queue.Empty:
                continue
            self.seen.append(line)
            if text in line:
                found = line
        if found is None:
            raise AssertionError(f"no line with {text!r}; got {self.seen}")
        return found

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


def _game_at_a_board_move(db):
    """A game in the store whose next action is a move on the board; returns it with that move."""
    import random

    session = Session.start(Store(db), "trajectory", ["red", "green"], {}, 4)
    rng = random.Random(4)
    while not board_actions(session.game, session.state):
        session.submit(random_action(session.game, session.state, rng), "phone")
    return session


def test_serve_with_the_grid_alone_referees_a_move_and_resumes_the_game(tmp_path):
    db = tmp_path / "table.db"
    session = _game_at_a_board_move(db)
    action, after = board_actions(session.game, session.state)[0]
    board = default_board("trajectory")
    sites = switch_map(board, 8, 8)
    save_profile(GridProfile(board.name, 8, 8, sites), tmp_path / "grid.json")
    grid = virtual_grid(8, 8).start()
    grid.go()
    closed = lambda layout: {sites[s] for s, pieces in layout.items() if pieces and s in sites}  # noqa: E731
    grid.set_all(closed(session.game.layout(session.state)))
    served = Served("--db", str(db), "--serial", grid.port, "--grid-profile", str(tmp_path / "grid.json"))
    try:
        served.wait_for("resumed game")
        served.wait_for("Refereeing with: grid alone")
        page = re.search(r"http://127\.0\.0\.1:\d+/", served.wait_for("Watch only")).group(0)
        with urllib.request.urlopen(page + "healthz", timeout=5) as answer:
            health = json.load(answer)
        assert health["sensors"]["mode"] == "grid alone" and health["sensors"]["grid"] == "up"
        stream = urllib.request.urlopen(page + "events", timeout=10)  # a phone listening
        grid.set_all(closed(after))
        text = " ".join(e.text for e in session.game.apply(session.state, action)[1])
        served.wait_for(text.split(".")[0])
        told = b""
        while text.split(".")[0].encode() not in told:
            told += stream.readline()  # the announcement reaches the phone too
        stream.close()
    finally:
        served.stop()
        grid.stop()
    resumed = Session.resume(Store(db))
    assert resumed.actions[-1] == action
    assert [e.source for e in resumed.store.entries(resumed.record.id) if e.kind == "action"][-1] == "board"


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("game = 3\n", "game: expected str, found int"),
        ("[grid]\nspeed = 1\n", "grid.speed: unknown key"),
        ("players = 'red'\n", "players: expected a list of names"),
        ("game = \n", "not TOML"),
        ("hold = 0\n", "hold: expected seconds above 0 and at most 120, found 0"),
        ("hold = 'long'\n", "hold: expected float, found str"),
        ("boards = 3\n", "boards: expected [[boards]] tables"),
        ("[[boards]]\nboard = 'orbital_battle:planet3'\n", "boards[0].serial: expected a name"),
        (
            "[[boards]]\nboard = 'orbital_battle:planet3'\nserial = 'auto'\nprofile = 'p3.json'\n",
            "boards[0].serial: a board's own grid needs its port named",
        ),
        (
            "[[boards]]\nboard = 'orbital_battle:planet3'\nserial = '/dev/null'\nprofile = 'p3.json'\n",
            "'orbital_battle:planet3' is not a board trajectory's layout places beside its own",
        ),
        (
            "game = 'orbital_battle'\nplayers = ['red', 'blue']\n[[boards]]\nboard = 'orbital_battle:planet9'\n"
            "serial = '/dev/null'\nprofile = 'p9.json'\n",
            "boards[0].board: no board 'orbital_battle:planet9'",
        ),
        (
            "game = 'orbital_battle'\nplayers = ['red', 'blue']\n[grid]\nserial = '/dev/ttyACM0'\n[[boards]]\n"
            "board = 'orbital_battle:planet3'\nserial = '/dev/ttyACM0'\nprofile = 'p3.json'\n",
            "boards[0].serial: /dev/ttyACM0 is the port of the game board's own grid",
        ),
    ],
)
def test_a_bad_config_is_one_line_naming_the_key(tmp_path, capsys, config, message):
    path = tmp_path / "table.toml"
    path.write_text(config)
    assert main(["serve", "--config", str(path), "--db", str(tmp_path / "x.db")]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_an_uncalibrated_grid_is_left_out_and_the_table_says_why(tmp_path):
    served = Served("--db", str(tmp_path / "x.db"), "--serial", "auto", "--grid-profile", str(tmp_path / "no.json"))
    try:
        served.wait_for("the grid is left out")
        served.wait_for("Refereeing with: phones alone")
    finally:
        served.stop()


def test_a_broken_grid_profile_is_one_line(tmp_path, capsys):
    (tmp_path / "grid.json").write_text("{")
    assert main(["serve", "--db", str(tmp_path / "x.db"), "--grid-profile", str(tmp_path / "grid.json")]) == 2
    assert "grid.json: not JSON" in capsys.readouterr().err


def test_a_game_on_another_board_is_read_with_that_boards_own_grid_profile(tmp_path):
    """The table keeps a grid profile per board beside the configured one: a game of another game is read with its
    board's profile when the table has one, declared on the phones (and the phones told so) when it has not, and the
    table's own game gets the configured profile back."""
    from companion.table.config import TableConfig
    from companion.table.live import LiveTable

    board, dakalio = default_board("trajectory"), default_board("dakalio")
    save_profile(GridProfile(board.name, 8, 8, switch_map(board, 8, 8)), tmp_path / "grid.json")
    config = TableConfig(db=str(tmp_path / "t.db"), serial="/dev/null", grid_profile=str(tmp_path / "grid.json"))
    live = LiveTable(config)
    assert live.observer is not None and live.grid is not None
    same = live.use(Session.start(live.store, "trajectory", ["red", "green"], {}, 2))
    assert same is not None and live.loop is same
    other = Session.start(live.store, "dakalio", ["red", "green"], {}, 2)
    assert live.use(other) is not None
    told = [e.events[0] for e in other.store.entries(other.record.id)]
    assert any(e["type"] == "senses-board" and "The grid has not learnt Dakalio's own board yet" in e["text"]
               for e in told), told  # fmt: skip
    assert live.observer.switch_sites == {} and live.senses.status()["grid"] == "absent"
    assert live.grid.profile == tmp_path / "grid.dakalio.json" and live.grid.board.name == dakalio.name

    wiring = {site.id: (i // 8, i % 8) for i, site in enumerate(dakalio.sites[:64])}
    save_profile(GridProfile(dakalio.name, 8, 8, wiring), tmp_path / "grid.dakalio.json")
    live.use(Session.start(live.store, "dakalio", ["red", "green"], {}, 3))
    assert live.observer.switch_sites == {switch: site for site, switch in wiring.items()}
    live.use(Session.start(live.store, "trajectory", ["red", "green"], {}, 4))
    assert live.observer.switch_sites == {s: site for site, s in switch_map(board, 8, 8).items()}
    assert live.grid.profile == tmp_path / "grid.json" and live.senses.status()["grid"] == "lost"  # (unplugged)
    live.store.close()


def _call(page: str, path: str, token: str, body: dict | None = None, key: str = "") -> dict:
    request = urllib.request.Request(
        page + path, data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "X-Orrery-Token": token, "X-Orrery-Phone": key},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def test_a_new_game_of_another_game_brings_its_own_board_map_and_layout(tmp_path):
    """`companion serve` with one game in play; a phone starts another game: the map, the layout and the guided
    setup are the new game's board, and starting the first game again brings its board back."""
    served = Served("--db", str(tmp_path / "t.db"), "--serial", "none", "--game", "trajectory")
    try:
        joined = served.wait_for("Phones: open")
        page, token = re.search(r"(http://127\.0\.0\.1:\d+/)\?t=(\S+)", joined).groups()
        assert _call(page, "api/board", token)["name"] == default_board("trajectory").name
        key = _call(page, "api/phones", token, {})["key"]  # the first phone to join: the host
        for game, players in (("dakalio", ["red", "green"]), ("orbital_battle", ["red", "green"]),
                              ("trajectory", ["red", "green"])):  # fmt: skip
            state = _call(page, "api/games", token, {"game": game, "players": players}, key)
            board = default_board(game)
            sites = {site.id for site in board.sites}
            drawn = _call(page, "api/board", token)
            assert drawn["name"] == board.name and {site["id"] for site in drawn["sites"]} == sites
            assert state["layout"] and set(state["layout"]) <= sites
            guide = _call(page, "api/setup", token)
            pieces = sum(len(stack) for stack in state["layout"].values())
            assert guide["total"] == pieces and guide["site"] in sites
    finally:
        served.stop()


def test_a_table_restarted_with_another_games_game_unfinished_comes_back(tmp_path):
    """The grid is set up for Trajectory; a phone started Dakalio, and the table restarts with it unfinished: the
    table comes back (no profile refused), Dakalio's board is read with its own profile (none yet: the grid reads
    nothing, the terminal says to walk it), and the grid is Trajectory's again for the next Trajectory game."""
    from companion.table.config import TableConfig
    from companion.table.live import LiveTable

    board = default_board("trajectory")
    save_profile(GridProfile(board.name, 8, 8, switch_map(board, 8, 8)), tmp_path / "grid.json")
    Session.start(Store(tmp_path / "t.db"), "dakalio", ["red", "green"], {}, 2).store.close()
    config = TableConfig(db=str(tmp_path / "t.db"), serial="/dev/null", grid_profile=str(tmp_path / "grid.json"))
    live = LiveTable(config)
    assert live.resumed and live.session.record.game == "dakalio"
    assert live.board.name == "trajectory" and live.playing.name == "dakalio" and live.switch_sites is None
    assert any("The grid has not learnt Dakalio's own board yet" in note for note in live.notes), live.notes
    assert live.observer is not None and live.observer.switch_sites == {}
    assert live.use(Session.start(live.store, "trajectory", ["red", "green"], {}, 3)) is not None
    assert live.observer.switch_sites == {s: site for site, s in switch_map(board, 8, 8).items()}
    live.store.close()


def test_a_board_of_the_table_is_named_as_the_phones_name_it(tmp_path, capsys):
    from companion.boards import orbit
    from companion.boards.files import board_to_json
    from companion.table import library
    from companion.table.datasets import DataSets, data_folder

    db = tmp_path / "table.db"
    board = board_to_json(orbit.build("back"))
    board["sites"][0]["label"] = "our sun"
    library.save(DataSets(data_folder(db)), "orbit", "board", "my-copy", board)
    assert main(["serve", "--db", str(db), "--game", "orbit", "--board", "our-copy"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("--board: 'our-copy' is neither a board file nor a board of this table (its boards: "
                        "my-copy (orbit))") and len(err.splitlines()) == 1  # fmt: skip
    assert main(["print", "board", "my-copy", "--db", str(db), "--out", str(tmp_path / "overlay.svg")]) == 0
    assert "<svg" in (tmp_path / "overlay.svg").read_text()
    assert main(["print", "board", "our-copy", "--db", str(db), "--out", str(tmp_path / "x.svg")]) == 2
    assert "this table: its boards: my-copy (orbit)" in capsys.readouterr().err
    served = Served("--db", str(db), "--serial", "none", "--game", "orbit", "--players", "red,blue",
                    "--board", "my-copy")  # fmt: skip
    try:
        served.wait_for("Refereeing with: phones alone")
    finally:
        served.stop()


def test_the_camera_reads_a_copy_by_its_own_corner_markers_and_leaves_one_without_them(tmp_path):
    """The camera profile's pose was taken over the table's own board: a copy laid over its own photo is read with
    its own sites and found afresh by its corner markers; a copy without markers is left to the grid, and said."""
    from dataclasses import replace as replaced

    from companion.boards import orbit
    from companion.boards.files import board_to_json
    from companion.sensing.vision_profile import save_profile as save_camera
    from companion.sim.render_camera import overhead_camera, sim_profile
    from companion.table import library
    from companion.table.config import TableConfig
    from companion.table.datasets import DataSets, data_folder
    from companion.table.live import LiveTable

    own = orbit.build("front")
    save_camera(sim_profile(overhead_camera(own.width, own.height), own.name), tmp_path / "camera.json")
    (tmp_path / "frames").mkdir()
    config = TableConfig(game="orbit", players=("red", "blue"), db=str(tmp_path / "t.db"), serial="none",
                         camera=str(tmp_path / "frames"), camera_profile=str(tmp_path / "camera.json"))  # fmt: skip
    live = LiveTable(config)
    assert live.vision is not None and live.vision[0].board is live.board and live.vision[0].pose is not None
    sets = DataSets(data_folder(config.db))
    scale = 650 / 700  # the group's board is smaller: the editor's sites are in its own millimetres
    copy = replaced(
        own,
        width=650.0,
        height=650.0,
        sites=tuple(replaced(s, x=round(s.x * scale, 1), y=round(s.y * scale, 1)) for s in own.sites),
    )
    marked = replaced(copy, fiducials=tuple(replaced(f, x=f.x * scale, y=f.y * scale) for f in own.fiducials))
    library.save(sets, "orbit", "board", "marked", board_to_json(marked))
    library.save(sets, "orbit", "board", "bare", board_to_json(replaced(copy, fiducials=())))
    options = {"board": str(sets.root / "orbit/board/marked")}
    views: list = []
    live.visions.subscribe(views.append)  # (serve's calibration view draws the board in play)
    session = live.use(Session.start(live.store, "orbit", ["red", "blue"], options, 2)).session
    assert live.vision is not None and live.vision[0].board.width == 650 and live.vision[0].pose is None
    assert views == [live.vision]
    notes = " ".join(e.events[0]["text"] for e in live.store.entries(session.record.id) if e.kind == "note")
    assert "The camera finds the board “marked” by its corner markers" in notes
    bare = Session.start(live.store, "orbit", ["red", "blue"], {"board": str(sets.root / "orbit/board/bare")}, 3)
    live.use(bare)
    assert live.vision is None and live.observer.camera_sites is None and live.senses.status()["camera"] == "absent"
    notes = " ".join(e.events[0]["text"] for e in live.store.entries(bare.record.id) if e.kind == "note")
    assert "The camera cannot find the board “bare”: its file has no corner markers" in notes
    live.use(Session.start(live.store, "orbit", ["red", "blue"], {}, 4))
    assert live.vision is not None and live.vision[0].board is live.board and live.vision[0].pose is not None
    assert live.senses.status()["camera"] == "up"
    live.store.close()


def test_a_game_on_a_copy_resumed_after_a_restart_is_read_with_the_copys_profile(tmp_path):
    """The session's options name the board: a table that restarts with a game on a copy unfinished reads the grid
    with the copy's profile at once, and the table's own profile stays the table's own board's."""
    from companion.table import library
    from companion.table.config import TableConfig
    from companion.table.datasets import DataSets, data_folder
    from companion.table.live import LiveTable
    from tests.web.test_board_grids import small_orbit_board, wired

    copy = small_orbit_board()
    sets = DataSets(data_folder(tmp_path / "t.db"))
    library.save(sets, "orbit", "board", "my-copy", copy)
    wiring = wired(copy)
    save_profile(GridProfile("orbit", 8, 8, wiring), tmp_path / "grid.orbit.my-copy.json")
    options = {"board": str(sets.root / "orbit/board/my-copy")}
    Session.start(Store(tmp_path / "t.db"), "orbit", ["red", "blue"], options, 2).store.close()
    config = TableConfig(game="orbit", players=("red", "blue"), db=str(tmp_path / "t.db"), serial="/dev/null",
                         grid_profile=str(tmp_path / "grid.json"))  # fmt: skip
    live = LiveTable(config)
    assert live.resumed and live.playing.site("site1").name == "site 1"
    assert live.observer is not None and live.observer.switch_sites == {s: site for site, s in wiring.items()}
    assert live.grid is not None and live.grid.profile == tmp_path / "grid.orbit.my-copy.json"
    assert not any("has not learnt" in note for note in live.notes), live.notes
    assert live.loop is not None and live.senses.status()["grid"] == "lost"  # (its cable: not started here)
    live.use(Session.start(live.store, "orbit", ["red", "blue"], {}, 3))  # the table's own board: no profile yet
    assert live.observer.switch_sites == {} and live.grid.profile == tmp_path / "grid.json"
    live.store.close()


def test_the_hold_window_is_a_setting_of_the_config_file_with_a_default(tmp_path):
    from companion.table.config import HOLD, read_config

    assert read_config(tmp_path / "t.toml", "").hold == HOLD
    assert read_config(tmp_path / "t.toml", "hold = 5\n").hold == 5.0
