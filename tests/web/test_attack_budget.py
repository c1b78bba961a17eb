"""The attacks a guest on the table's Wi-Fi can make with large bodies and pictures, without the token and with it
(every player has it), held to a memory budget: the server's peak resident memory stays within 200 MB of its start,
and a real phone on its own address gets the page and /healthz within a second throughout. And who may do what:
a phone that holds no seat, or acts for another's, is refused everything but watching."""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
import time
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

from companion.boards.files import board_to_json
from companion.boards.orbit import build
from companion.web.attack import Guests, phone_check

from .test_attack import answer_of, credentials

BUDGET_KB = 200 * 1024  # the server's peak resident memory over its start, under any attack
PAGE_SECONDS = 1.0


def resident() -> tuple[int, int]:
    """This process's resident memory now and at its peak since the peak was last reset (kB)."""
    values = {}
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(("VmRSS:", "VmHWM:")):
                values[line.split(":")[0]] = int(line.split()[1])
    return values["VmRSS"], values["VmHWM"]


class Spawned:
    """Crowds of guests in processes of their own, as the guests' own devices would be (they share no interpreter
    lock with the table)."""

    def __init__(self, *crowds: Guests) -> None:
        self.processes = [crowd.spawn() for crowd in crowds]
        time.sleep(1.0)  # they start and connect

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
            process.wait(10)


def under_attack(served, attack: Callable[[], object], seconds: float) -> tuple[float, float]:
    """Run `attack` (a callable started in the background, returning something with stop() or None) while a phone
    looks at the table every 0.2 s: the slowest look (s), and the server's peak memory over its start (MB)."""
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")  # the peak starts again from now
    start, _ = resident()
    slowest, stop = 0.0, threading.Event()
    running = attack()
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            slowest = max(slowest, phone_check(served.port))
            time.sleep(0.2)
    finally:
        stop.set()
        if running is not None:
            running.stop()
    _, peak = resident()
    return slowest, (peak - start) / 1024


def send(port: int, head: bytes, body: bytes, source: str) -> tuple[int, str, float]:
    """One request as raw bytes (the body as fast as the table reads it): status, error line, seconds."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), 10, (source, 0)) as sock:
        sock.sendall(head + f"Connection: close\r\nContent-Length: {len(body)}\r\n\r\n".encode())
        with contextlib.suppress(OSError):  # refused before the body was read: the table closed the connection
            sock.sendall(body)
        answer = answer_of(sock, 30)
    elapsed = time.monotonic() - started
    status_line, _, rest = answer.partition(b"\r\n")
    text = json.loads(rest.partition(b"\r\n\r\n")[2] or b"{}").get("error", "")
    return int(status_line.split()[1]), text, elapsed


def png_claiming(width: int, height: int) -> bytes:
    """A small PNG whose header claims `width` x `height` pixels (its data a few rows of a blank picture)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = zlib.compress(b"\0" * (width + 1) * 64, 9)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", rows) + chunk(b"IEND", b""))  # fmt: skip


@pytest.fixture
def camera_table(camera_served):
    """The table's camera is a phone on a stand: the frame path is open (with the token)."""
    return camera_served


def test_without_the_token_no_large_body_is_read_whatever_it_declares(served):
    """62 camera stills of 24 MB and 12 boards of 4 MB from 4 addresses, on a table whose camera is no phone: each
    is refused at the head."""

    def attack():
        return Spawned(
            Guests(served.port, "frames", 62, subnet=7, per_address=16, every=0.1),
            Guests(served.port, "board-checks", 12, subnet=8, per_address=3, every=0.1),
        )

    slowest, peak = under_attack(served, attack, 4.0)
    print(f"without the token: the page within {slowest:.3f} s, peak memory +{peak:.1f} MB")
    assert slowest < PAGE_SECONDS and peak * 1024 < BUDGET_KB
    status, text, seconds = send(served.port, b"POST /api/camera/frame?still=1 HTTP/1.1\r\nHost: t\r\n"
                                 b"Content-Type: image/jpeg\r\n", b"\0" * (24 << 20), "127.0.7.200")  # fmt: skip
    assert status == 403 and "may only watch" in text and seconds < 2.0


def test_with_the_token_the_frame_path_is_closed_on_a_table_without_a_phone_camera(served):
    status, text, _ = send(
        served.port,
        b"POST /api/camera/frame?still=1 HTTP/1.1\r\nHost: t\r\nContent-Type: image/jpeg\r\n" + credentials(served),
        b"\0" * (24 << 20),
        "127.0.9.1",
    )
    assert status == 409 and "not a phone" in text  # answered without reading the body


def test_with_the_token_heavy_checks_take_one_lane_and_the_page_stays_a_phones(served):
    """Twelve 3 MB boards checked at once (each a game set up): one runs, one waits, the rest are told the table is
    busy before their bodies are read; the page answers throughout."""
    board = board_to_json(build("front"))
    board["sites"][0]["label"] = "x" * (3 << 20)  # a board of 3 MB, read and set up as a game
    body = json.dumps({"game": "orbit", "board": board}).encode()
    head = b"POST /api/editor/check HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n" + credentials(served)
    answers: list[tuple[int, str, float]] = []

    class Checks:
        def __init__(self) -> None:
            self.pool = ThreadPoolExecutor(12)
            self.futures = [self.pool.submit(send, served.port, head, body, f"127.0.10.{n}") for n in range(1, 13)]

        def stop(self) -> None:
            answers.extend(future.result() for future in self.futures)
            self.pool.shutdown()

    slowest, peak = under_attack(served, Checks, 3.0)
    statuses = sorted(status for status, _, _ in answers)
    print(f"12 board checks with the token: {statuses}; the page within {slowest:.3f} s, peak memory +{peak:.1f} MB")
    assert slowest < PAGE_SECONDS and peak * 1024 < BUDGET_KB
    assert statuses.count(503) >= 8 and all(status in (200, 400, 503) for status in statuses)
    assert all("busy" in text for status, text, _ in answers if status == 503)


@pytest.mark.parametrize(
    "path", ["/api/camera/frame?still=1", "/api/editor/flatten?corners=0,0,9,0,9,9,0,9&width=9&height=9"]
)
def test_a_small_picture_claiming_20000_by_20000_pixels_is_refused_before_it_is_decoded(camera_table, path):
    picture = png_claiming(20000, 20000)
    assert len(picture) < 400_000
    results = []

    class One:
        def __init__(self) -> None:
            head = (f"POST {path} HTTP/1.1\r\nHost: t\r\nContent-Type: image/png\r\n".encode()
                    + credentials(camera_table))  # fmt: skip
            results.append(send(camera_table.port, head, picture, "127.0.11.1"))

        def stop(self) -> None:
            pass

    slowest, peak = under_attack(camera_table, One, 1.0)
    status, text, seconds = results[0]
    print(f"a PNG claiming 20000 x 20000: {status} {text!r} in {seconds:.3f} s, peak memory +{peak:.1f} MB")
    assert status == 400 and "20000 x 20000 pixels is larger than the table takes" in text and "\n" not in text
    assert slowest < PAGE_SECONDS and peak * 1024 < BUDGET_KB and seconds < 1.0


def test_with_the_token_floods_of_frames_to_a_phone_camera_stay_within_the_budget(camera_table):
    head = credentials(camera_table)

    def attack():
        return Spawned(Guests(camera_table.port, "frames", 62, subnet=12, per_address=16, every=0.1, head=head))

    slowest, peak = under_attack(camera_table, attack, 4.0)
    print(f"62 stills of 24 MB with the token: the page within {slowest:.3f} s, peak memory +{peak:.1f} MB")
    assert slowest < PAGE_SECONDS and peak * 1024 < BUDGET_KB


def test_a_seatless_phone_and_a_phone_acting_for_another_seat_may_only_watch(served):
    served.post("/api/seats/leave", {"seat": "blue"})  # the tests' own phone (the host) plays red
    guest = served.join()  # a guest with the token: joined, no seat
    attempts = [
        ("/api/act", {"action": {"type": "end_turn"}, "actor": "red"}),
        ("/api/undo", {}),
        ("/api/pause", {"paused": True}),
        ("/api/seat", {"seat": "red", "name": "Mallory"}),
        ("/api/token", {}),
        ("/api/games", {"game": "trajectory", "players": ["red", "blue"]}),
    ]
    for path, body in attempts:
        status, answer = served.post(path, body, key=guest)
        assert status == 403 and "\n" not in answer["error"], (path, answer)
    assert served.post("/api/seats/take", {"seat": "blue"}, key=guest)[0] == 200  # now it plays blue
    for path, body in attempts[:1] + attempts[3:]:
        status, answer = served.post(path, body, key=guest)
        assert status == 403, (path, answer)  # Red's move, Red's name, the host's controls: not Blue's phone's
    assert served.post("/api/seats/take", {"seat": "red"}, key=guest)[0] == 409  # the host's phone plays red
    entries = served.table.logbook.entries()
    seats = [entry["events"][0]["text"] for entry in entries[-2:]]  # the seats' history: nothing refused is in it
    assert seats == ["Blue's seat is free: its phone left it.", "Blue joins the table on a phone."]
    assert entries[-3]["actor"] == "red" and entries[-3]["phone"] is None  # Red's draw, before: nothing else since


def test_another_seats_move_is_taken_back_only_once_that_seat_agrees(served):
    served.post("/api/seats/leave", {"seat": "blue"})
    blue = served.join()
    served.post("/api/seats/take", {"seat": "blue"}, key=blue)
    status, done = served.post("/api/act", {"action": {"type": "end_turn"}})  # Red ends the turn from its phone
    assert status == 200 and done["entry"]["phone"] == served.table.seats.phone(served.own_key()).id
    status, asked = served.post("/api/undo", {}, key=blue)
    assert status == 202 and asked["entry"] is None and len(served.session.actions) == 2
    ask = asked["asked"]
    assert ask["seat"] == "red" and served.post("/api/asks/answer", {"ask": ask["id"], "yes": True}, key=blue)[0] == 409
    status, answered = served.post("/api/asks/answer", {"ask": ask["id"], "yes": True})
    assert status == 200 and answered["entry"]["kind"] == "undo" and len(served.session.actions) == 1
    assert answered["entry"]["actor"] == "red" and answered["entry"]["phone"]


@pytest.mark.parametrize("body, says", [
    ({"game": "dakalio", "players": ["red\n", "blue"]}, "players[0]: 'red\\n' is not a seat id"),
    ({"game": "dakalio", "players": ["\x1b[2Jred", "blue"]}, "is not a seat id"),
    ({"game": "dakalio", "players": ["\u202eder", "blue"]}, "is not a seat id"),
    ({"game": "trajectory", "players": ["Red", "blue"]}, "is not a seat id"),
    ({"game": "trajectory", "players": ["r" * 17, "blue"]}, "is not a seat id"),
])  # fmt: skip
def test_seat_ids_are_checked_for_every_game(served, body, says):
    status, answer = served.post("/api/games", body)
    assert status == 400 and says in answer["error"] and "\n" not in answer["error"], answer
    assert served.session.record.game == "trajectory"


@pytest.mark.parametrize("game", ["trajectory", "orbit", "dakalio", "orbital_battle", "periorbis"])
def test_every_game_refuses_a_seat_id_that_is_not_one_in_one_line(served, game):
    for bad in ("red\n", "\x1b]0;x\x07", "\u202eder", "Red", "", "r" * 17, 7):
        status, answer = served.post("/api/games", {"game": game, "players": [bad, "blue", "green"][:3]})
        assert status == 400 and "\n" not in answer["error"] and "\x1b" not in answer["error"], (game, bad, answer)
    assert served.session.record.game == "trajectory"


@pytest.mark.parametrize(
    "path", ["/api/log?game=" + "9" * 23, "/api/export?game=" + "9" * 23, "/api/log?after=-1", "/api/log?after=1e3"]
)
def test_game_numbers_out_of_range_are_a_one_line_400(served, path):
    status, answer = served.request("GET", path)
    assert status == 400 and "expected a whole number from 0 to" in answer["error"]
    assert served.request("GET", "/games/" + "9" * 23)[0] == 404


def test_a_set_name_with_a_newline_and_a_deeply_nested_library_file_are_one_line_400s(served, tmp_path):
    from companion.table.datasets import DataSets

    served.table.datasets = DataSets(tmp_path / "datasets")
    board = board_to_json(build("front"))
    status, answer = served.post("/api/editor/save", {"game": "orbit", "name": "mine\n", "board": board})
    assert status == 400 and "a data set's name is" in answer["error"] and "\n" not in answer["error"]
    assert not (tmp_path / "datasets" / "orbit" / "board").exists() or not any(
        (tmp_path / "datasets" / "orbit" / "board").iterdir()
    )
    deep = b'{"format": "orrery-library", "sets": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    status, answer = served.request("POST", "/api/library/import?file=deep%1b.json", raw=deep)
    assert status == 400 and "nests too deep" in answer["error"] and "\x1b" not in answer["error"]


def test_the_console_lets_the_next_phone_to_join_be_the_host(tmp_path):
    import subprocess
    import sys

    from .conftest import phones_table

    db = tmp_path / "table.db"
    with phones_table(db, token=None) as table:  # its token kept beside the log, as `companion serve` keeps it
        first, _ = table.seats.join()
        assert first.host
        done = subprocess.run([sys.executable, "-m", "companion", "token", "host", "--db", str(db)],
                              capture_output=True, text=True, timeout=60)  # fmt: skip
        assert done.returncode == 0 and "next phone to join" in done.stdout
        second, key = table.seats.join()  # the running table reads the console's word at once
        assert second.host and not table.seats.phone_by_id(first.id).host and table.seats.phone(key) == second
