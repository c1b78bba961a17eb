"""`companion serve` as users run it, where its parts once failed each other: a new game with a calibrated camera, a
camera whose pictures change size, a guided setup left waiting while the group plays on."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from pathlib import Path

import cv2
import pytest

from companion.boards import default_board
from companion.calibration.grid import GridProfile, save_profile
from companion.cli import main
from companion.sim.simavr_grid import virtual_grid
from companion.sim.twin import switch_map
from companion.table.session import Session
from companion.table.store import Store

from .conftest import until
from .test_serve import Served


@pytest.fixture(scope="module")
def frames(tmp_path_factory) -> Path:
    """Two rendered camera frames of Trajectory's board (1920 x 1080) and the profile of the camera that took them."""
    out = tmp_path_factory.mktemp("frames")
    assert main(["vision", "render", "--out", str(out), "--count", "2"]) == 0
    return out


def _joined(served: Served) -> tuple[str, str]:
    """The page's address and the table's token, from the line `companion serve` prints for the phones."""
    line = served.wait_for("Phones: open")
    page, token = re.search(r"(http://127\.0\.0\.1:\d+/)\?t=(\S+)", line).groups()
    return page, token


def _call(page: str, path: str, token: str | None = None, body: dict | None = None, key: str = "") -> tuple[int, dict]:
    request = urllib.request.Request(page + path, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json", "X-Orrery-Token": token or "",
                                              "X-Orrery-Phone": key})  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def _host(page: str, token: str) -> str:
    """The key of the first phone to join (the host), playing every seat of the game in play by pass and play."""
    status, joined = _call(page, "api/phones", token, {})
    assert status == 201 and joined["host"], joined
    _seated(page, token, joined["key"])
    return joined["key"]


def _seated(page: str, token: str, key: str) -> None:
    """The phone takes every seat of the game in play that it does not hold yet."""
    held = set(_call(page, "api/phones/me", token, key=key)[1]["seats"])
    for seat in _call(page, "api/state")[1]["players"]:
        if seat not in held:
            status, answer = _call(page, "api/seats/take", token, {"seat": seat, "together": True}, key)
            assert status == 200, answer


def _declared(page: str, token: str, key: str) -> dict:
    """The first action the game in play offers its phones that is declared on a phone (not made on the board)."""
    status, inputs = _call(page, "api/inputs", token, key=key)
    assert status == 200, inputs
    move = next(item for item in inputs["phone"] if not item.get("chance"))
    return {"action": move["action"], "actor": inputs["actor"]}


def _camera_folder(frames: Path, into: Path, size: tuple[int, int] | None = None, turned: bool = False) -> Path:
    """A folder of the rendered frames as a camera delivers them: rescaled to `size`, or turned to portrait."""
    into.mkdir()
    for path in sorted(frames.glob("scene-*.png")):
        image = cv2.imread(str(path))
        if turned:
            image = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
        elif size is not None:
            image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        cv2.imwrite(str(into / path.name), image)
    return into


def test_a_new_game_with_a_calibrated_camera_starts_and_is_the_one_a_restart_resumes(tmp_path, frames):
    """With a calibrated camera a phone starts a new game: it is answered as started, the table plays it, and a
    restart resumes it (not the game before it)."""
    db = tmp_path / "t.db"
    args = ("--db", str(db), "--serial", "none", "--camera", str(frames), "--camera-profile",
            str(frames / "profile.json"))  # fmt: skip
    served = Served(*args)
    try:
        page, token = _joined(served)
        key = _host(page, token)
        first = _call(page, "api/state")[1]["game_id"]
        status, state = _call(page, "api/games", token, {"game": "trajectory", "players": ["red", "blue"]}, key)
        assert status == 201 and state["game_id"] != first and state["status"] == "playing"
        assert _call(page, "api/board")[1]["name"] == default_board("trajectory").name
    finally:
        served.stop()
    assert [g.status for g in Store(db).games()] == ["playing", "playing"]
    served = Served(*args)
    try:
        assert f"resumed game {state['game_id']})" in served.wait_for("resumed game")
    finally:
        served.stop()


def test_a_new_game_the_table_fails_to_take_up_is_ended_and_the_game_in_play_stays(tmp_path):
    """Should taking a new game up fail (a fault of the table's own), the phone is told, the game is ended with
    why, the table goes on with the game in play, and a restart resumes that one."""
    from companion.web.table import Table

    playing = Session.start(Store(tmp_path / "t.db"), "trajectory", ["red", "blue"], {}, 1)

    def broken(session: Session) -> None:
        if session.record.game == "dakalio":
            raise RuntimeError("the camera's reader would not start")

    table = Table(playing, make_loop=broken, token="t")
    with pytest.raises(RuntimeError):
        table.new_game("dakalio", ["red", "blue"], {}, 2)
    assert table.session is playing
    store = Store(tmp_path / "t.db")
    failed = store.games()[-1]
    assert failed.id != playing.record.id and failed.status == "over"
    said = list(store.entries(failed.id))[-1].events[0]["text"]
    assert "could not begin: the camera's reader would not start" in said
    assert Session.resume(store).record.id == playing.record.id


def test_a_camera_whose_pictures_change_shape_is_said_to_need_recalibrating_and_the_table_stays_up(tmp_path, frames):
    """A phone turned to portrait: the camera thread does not die; the phones are told why the camera stopped, and
    /healthz says so. Pictures of the profile's shape at another resolution are rescaled and read."""
    turned = _camera_folder(frames, tmp_path / "turned", turned=True)
    served = Served("--db", str(tmp_path / "a.db"), "--serial", "none", "--camera", str(turned), "--camera-profile",
                    str(frames / "profile.json"))  # fmt: skip
    try:
        page, _ = _joined(served)
        said = served.wait_for("The camera has stopped")
        assert "recalibrate the camera: its pictures are now 1080 x 1920" in said
        health = until(lambda: (h := _call(page, "healthz")[1])["sensors"]["camera"] == "lost" and h)
        assert health["ok"] and "recalibrate the camera" in health["sensors"]["why"]["camera"]
        assert health["sensors"]["mode"] == "phones alone" and "stopped" not in health["sensors"]
    finally:
        served.stop()
    smaller = _camera_folder(frames, tmp_path / "smaller", size=(1280, 720))
    served = Served("--db", str(tmp_path / "b.db"), "--serial", "none", "--camera", str(smaller), "--camera-profile",
                    str(frames / "profile.json"))  # fmt: skip
    try:
        served.wait_for("Refereeing with: camera alone")
        page, token = _joined(served)

        def snapshot() -> bytes:
            request = urllib.request.Request(page + "api/calibration/snapshot.jpg", headers={"X-Orrery-Token": token})
            try:
                with urllib.request.urlopen(request, timeout=10) as answer:
                    return answer.read(2)
            except urllib.error.HTTPError as error:
                assert error.code == 503  # (no frame read yet)
                return b""

        assert until(snapshot, what="a frame") == b"\xff\xd8"  # a frame was read, at the profile's size
        health = until(lambda: (h := _call(page, "healthz")[1])["sensors"]["camera"] == "lost" and h)
        assert "why" not in health["sensors"]  # (the folder has run out: no more pictures, none of another shape)
    finally:
        served.stop()


def test_a_guided_setup_left_waiting_answers_every_move_on_the_grid_and_holds_the_phones(tmp_path):
    """The group sets the planets out (the grid feels them), forgets the tap for a ship and plays on: every move on
    the grid is answered with what is still to place, and a move declared on a phone is refused until then."""
    board = default_board("trajectory")
    sites = switch_map(board, 8, 8)
    save_profile(GridProfile(board.name, 8, 8, sites), tmp_path / "grid.json")
    grid = virtual_grid(8, 8).start()
    grid.go()
    served = Served("--db", str(tmp_path / "t.db"), "--serial", grid.port, "--grid-profile",
                    str(tmp_path / "grid.json"))  # fmt: skip
    try:
        served.wait_for("Refereeing with: grid alone")
        page, token = _joined(served)
        key = _host(page, token)
        assert _call(page, "api/games", token, {"game": "trajectory", "players": ["red", "blue"]}, key)[0] == 201
        guide = _call(page, "api/setup")[1]
        planets = [site for piece, site in guide["order"] if piece.startswith("planet")]
        grid.set_all({sites[site] for site in planets})
        waiting = until(lambda: (g := _call(page, "api/setup")[1])["how"] == "tap" and g, what="the tap step")
        assert waiting["placed"] == len(planets) and waiting["message"] is None
        left = waiting["total"] - waiting["placed"]
        # A planet moved on, as the orbit phase moves it: the guide answers at once.
        moved = next(s for s in board.sites if s.id not in planets and s.id.startswith("o1"))
        grid.set_all({sites[site] for site in planets[1:]} | {sites[moved.id]})
        told = until(lambda: (g := _call(page, "api/setup")[1])["message"] and g, what="the guide's answer")
        assert told["message"].startswith(f"Set out the board first: {left} pieces still to place.")
        assert moved.id in told["wrong"] and planets[0] in told["wrong"]
        status, refused = _call(page, "api/act", token, {"action": {"type": "end_turn"}, "actor": "red"}, key)
        assert status == 409 and f"set out the board first: {left} pieces still to place" in refused["error"]
    finally:
        served.stop()
        grid.stop()


def test_the_demo_serves_serves_own_table(tmp_path):
    """`companion demo` is `companion serve`'s table on the twin's devices: the page's grid and camera are the
    table's own (its grid's profile where the table keeps it, its senses' status), not a table of the demo's."""
    import subprocess
    import sys

    command = [
        sys.executable,
        "-m",
        "companion",
        "demo",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--speed",
        "0",
        "--no-camera",
        "--db",
        str(tmp_path / "d.db"),
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        page = None
        for line in process.stdout:
            found = re.search(r"Watch only: (http://127\.0\.0\.1:\d+/)", line)
            if found:
                page = found.group(1)
                break
        assert page is not None
        health = until(lambda: (h := _call(page, "healthz")[1])["sensors"]["grid"] == "up" and h)
        assert health["sensors"]["mode"] == "grid alone"
        grid = _call(page, "api/calibration/grid")[1]
        assert grid["grid"] and Path(grid["profile"]).name == "grid.json" and grid["rows"] == 8
        assert len(grid["mapped"]) == len(default_board("trajectory").sites)
    finally:
        process.terminate()
        process.wait(15)


SENSES = {  # what a table has, and what `companion serve` says referees the board with it
    "phones": ("phones alone", False, False),
    "grid": ("grid alone", True, False),
    "camera": ("camera alone", False, True),
    "both": ("grid and camera", True, True),
}


def test_with_no_sense_watching_the_board_a_move_declared_on_a_phone_ends_the_guide(tmp_path):
    """Phones alone: the guide is help in setting out, not a referee held back, so the group's first declared move
    is booked and ends it (a table whose senses watch the board refuses it until the board is set out)."""
    served = Served("--db", str(tmp_path / "t.db"), "--serial", "none")
    try:
        served.wait_for("Refereeing with: phones alone.")
        page, token = _joined(served)
        key = _host(page, token)
        assert _call(page, "api/games", token, {"game": "trajectory", "players": ["red", "blue"]}, key)[0] == 201
        assert _call(page, "api/setup")[1]["state"] == "placing"
        status, _ = _call(page, "api/act", token, {"action": {"type": "no_such_move"}, "actor": "red"}, key)
        assert status == 400 and _call(page, "api/setup")[1]["state"] == "placing"  # a refused move changes nothing
        status, done = _call(page, "api/act", token, _declared(page, token, key), key)
        assert status == 200 and done["entry"]["kind"] == "action"
        guide = _call(page, "api/setup")[1]
        assert guide["state"] == "stopped" and guide["message"] == (
            "The guide has stopped. Play on: moves are declared on the phones."
        )
    finally:
        served.stop()


@pytest.mark.parametrize("senses", list(SENSES))
def test_a_new_game_a_restart_and_a_resume_with_every_set_of_senses(tmp_path, frames, senses):
    """`companion serve` with the phones alone, the grid (on a pty), the camera (a phone on a stand, its stills
    over HTTP) or both: a move declared on a phone, a new game from a phone, the table restarted: the new game
    resumes with the same senses and takes the next move."""
    mode, gridded, camera = SENSES[senses]
    board = default_board("trajectory")
    args = ["--db", str(tmp_path / "t.db"), "--players", "red,blue", "--seed", "1", "--serial", "none"]
    grid = None
    if gridded:
        save_profile(GridProfile(board.name, 8, 8, switch_map(board, 8, 8)), tmp_path / "grid.json")
        grid = virtual_grid(8, 8).start()
        grid.go()
        args[-1:] = [grid.port, "--grid-profile", str(tmp_path / "grid.json")]
    if camera:
        args += ["--camera", "phone", "--camera-profile", str(frames / "profile.json")]
    still = (frames / "scene-1.png").read_bytes()

    def phone_camera(page: str, token: str) -> None:
        request = urllib.request.Request(
            page + "api/camera/frame?still=1",
            data=still,
            headers={"Content-Type": "image/png", "X-Orrery-Token": token},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert answer.status == 200

    try:
        served = Served(*args)
        try:
            served.wait_for(f"Refereeing with: {mode}.")
            page, token = _joined(served)
            if camera:
                phone_camera(page, token)
            key = _host(page, token)
            first = _call(page, "api/state")[1]["game_id"]
            status, _ = _call(page, "api/act", token, _declared(page, token, key), key)
            assert status == 200
            status, state = _call(page, "api/games", token, {"game": "trajectory", "players": ["red", "blue"]}, key)
            assert status == 201 and state["game_id"] != first
            assert _call(page, "healthz")[1]["game"]["id"] == state["game_id"]
        finally:
            served.stop()
        served = Served(*args)
        try:
            assert f"resumed game {state['game_id']})" in served.wait_for("resumed game")
            served.wait_for(f"Refereeing with: {mode}.")
            page, token = _joined(served)
            if camera:
                phone_camera(page, token)
            _seated(page, token, key)  # the phone's key, kept on the phone across the restart
            status, done = _call(page, "api/act", token, _declared(page, token, key), key)
            assert status == 200 and done["entry"]["game_id"] == state["game_id"]
        finally:
            served.stop()
    finally:
        if grid is not None:
            grid.stop()
