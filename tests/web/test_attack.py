"""A hostile guest on the table's Wi-Fi, without the token or with it: slow requests, slow bodies, floods of streams,
replays of a long log, oversized and nested bodies, options that name files, and the table's own storage failing.
Every attack is real traffic over loopback (attack.py: the guests come from addresses of their own, the phone from
127.0.0.1) and stops by itself; after each, a real phone still gets the page and /healthz within a second and the
log is exactly what it was."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import socket
import sqlite3
import time
from pathlib import Path

import pytest

from companion.rules import Action, Event
from companion.table.datasets import DataSets
from companion.table.store import CannotSave
from companion.web.attack import Guests, phone_check
from companion.web.server import Limits

from .conftest import TOKEN, Stream, new_table

QUICK = Limits(head_seconds=1.0, body_seconds=1.0)  # the deadlines short enough to watch them act


def log_of(served) -> tuple[int, str]:
    """The whole log, as its length and a digest of every entry as stored (cheap for a 100,000-entry log)."""
    digest = hashlib.sha256()
    with sqlite3.connect(served.store.path) as db:
        rows = db.execute("SELECT * FROM entries ORDER BY id").fetchall()
    for row in rows:
        digest.update(repr(row).encode())
    return len(rows), digest.hexdigest()


def the_phone_is_served(served, log_before: list[dict]) -> None:
    for _ in range(3):
        assert phone_check(served.port) < 1.0
    assert log_of(served) == log_before


def raw(port: int, data: bytes, source: str = "127.0.5.1", wait: float = 5.0) -> bytes:
    """Send bytes as they are and read the answer until the table closes the connection (or `wait` runs out)."""
    with socket.create_connection(("127.0.0.1", port), 5, (source, 0)) as sock:
        sock.sendall(data)
        return answer_of(sock, wait)


def answer_of(sock: socket.socket, wait: float) -> bytes:
    """What the table answers on `sock`, until it closes the connection (or `wait` runs out)."""
    sock.settimeout(wait)
    answer = b""
    try:
        while chunk := sock.recv(65536):
            answer += chunk
    except OSError:  # the time is up, or the table reset a connection whose body it would not read
        pass
    return answer


def credentials(served) -> bytes:
    """The head lines of a request from the host's phone."""
    return b"X-Orrery-Token: " + TOKEN.encode() + b"\r\nX-Orrery-Phone: " + served.own_key().encode() + b"\r\n"


def error_line(answer: bytes) -> tuple[int, str]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split()[1])
    text = json.loads(body)["error"]
    assert "\n" not in text and text
    return status, text


@pytest.fixture
def quick(tmp_path):
    with new_table(tmp_path, limits=QUICK) as table:
        yield table


def test_slow_headers_hold_no_thread_and_are_cut_off_at_the_deadline(quick):
    before = log_of(quick)
    with Guests(quick.port, "slow-headers", 60, subnet=2, every=0.3) as slow:
        time.sleep(1.5)
        the_phone_is_served(quick, before)
        time.sleep(1.0)
        assert slow.cut >= 60  # every one of them closed after its second, though each sent a line every 0.3 s
    the_phone_is_served(quick, before)


def test_a_kept_alive_connection_gets_the_same_deadline_for_its_next_head(quick):
    with socket.create_connection(("127.0.0.1", quick.port), 5, ("127.0.2.9", 0)) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        sock.settimeout(5)
        assert sock.recv(65536).startswith(b"HTTP/1.1 200")
        started = time.monotonic()
        sock.sendall(b"GET / HTTP/1.1\r\n")
        with pytest.raises((ConnectionError, OSError)):
            while time.monotonic() - started < 5:
                time.sleep(0.3)
                sock.sendall(b"X-Slow: 1\r\n")
                sock.setblocking(False)
                try:
                    if sock.recv(1) == b"":
                        raise ConnectionError("closed")
                except BlockingIOError:
                    pass
                sock.setblocking(True)
        assert time.monotonic() - started < 2.5


def test_slow_bodies_are_refused_at_their_deadline_and_hold_nothing(quick):
    before = log_of(quick)
    with Guests(quick.port, "slow-body", 40, subnet=2, every=0.3) as slow:
        time.sleep(1.5)
        the_phone_is_served(quick, before)
    assert slow.cut >= 40
    started = time.monotonic()
    answer = raw(quick.port, b"POST /api/act HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                 + credentials(quick) + b"Content-Length: 100\r\n\r\n{\"action\"")  # fmt: skip
    assert time.monotonic() - started < 3.0
    status, text = error_line(answer)
    assert status == 408 and "did not arrive within 1 s" in text
    the_phone_is_served(quick, before)


def test_one_address_gets_a_bounded_share_of_connections(served):
    before = log_of(served)
    limit = served.server.limits.per_address
    with Guests(served.port, "silent", limit + 20, subnet=2, per_address=limit + 20, every=5.0) as greedy:
        time.sleep(1.0)
        assert greedy.cut >= 20  # the ones over the limit were answered 503 and closed at once
        the_phone_is_served(served, before)
    refused = raw(served.port, b"", source="127.0.2.1", wait=0.5)  # the address is free again afterwards
    assert refused == b""


def test_a_flood_of_streams_from_one_address_is_capped_and_idle_streams_cost_no_phone_its_stream(served):
    before = log_of(served)
    per_address = served.server.limits.streams_per_address
    baseline = rss_kb()
    with Guests(served.port, "idle-streams", 100, subnet=3, per_address=4) as idle:
        deadline = time.monotonic() + 10
        while served.table.hub.streams < 100 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert served.table.hub.streams >= 100 and idle.cut == 0
        assert rss_kb() - baseline < 10 * 1024  # KB: 100 idle streams (both ends of them) take a few MB at most
        the_phone_is_served(served, before)
        # One address asking for more streams than its share: the extra ones get a one-line 503.
        flood = [socket.create_connection(("127.0.0.1", served.port), 5, ("127.0.6.1", 0))
                 for _ in range(per_address + 2)]  # fmt: skip
        try:
            answers = []
            for sock in flood:
                sock.sendall(b"GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
                sock.settimeout(2.0)
                answers.append(sock.recv(65536))
        finally:
            for sock in flood:
                sock.close()
        refused = [a for a in answers if a.startswith(b"HTTP/1.1 503")]
        assert len(refused) == 2 and "live streams open" in error_line(refused[0])[1]
        # A real phone's stream still opens and hears a move at once.
        phone = Stream(served.port, f"/events?after={served.session.store.last_entry_id()}")
        try:
            phone.until("state")
            entry = served.session.submit(Action.make("end_turn"), "phone", "red")
            started = time.monotonic()
            assert phone.until("entry", within=2.0)["data"]["id"] == entry.id
            assert time.monotonic() - started < 1.0
        finally:
            phone.close()


def rss_kb() -> int:
    with open(f"/proc/{os.getpid()}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def test_ten_replays_of_a_100000_entry_log_keep_memory_flat_and_the_page_answering(served):
    events = json.dumps([{"type": "note", "text": "Red's ship flies from orbit 2 space 0 to orbit 3 space 5, "
                          "burning 2 fuel.", "data": {"from": "o2s0", "to": "o3s5"}}])  # fmt: skip
    game = served.session.record.id
    with sqlite3.connect(served.store.path) as db:
        db.executemany(
            "INSERT INTO entries (game_id, kind, action, source, actor, events, created)"
            " VALUES (?, 'note', NULL, 'companion', NULL, ?, 0)",
            ((game, events) for _ in range(100_000)),
        )
    before = log_of(served)
    baseline = rss_kb()
    # Ten phones ask for the whole log and read none of it: the server keeps one page for each, no more.
    stalled = [socket.create_connection(("127.0.0.1", served.port), 5, (f"127.0.4.{n}", 0)) for n in range(1, 11)]
    try:
        for sock in stalled:
            sock.sendall(b"GET /events HTTP/1.1\r\nHost: t\r\nLast-Event-ID: 0\r\n\r\n")
        time.sleep(2.0)
        the_phone_is_served(served, before)
        assert rss_kb() - baseline < 40 * 1024, (baseline, rss_kb())
        # A phone that reads gets its replay page after page, in order (`companion bench web` reads it all).
        stream = Stream(served.port, last_id=0, timeout=10)
        try:
            assert [stream.until("entry")["data"]["id"] for _ in range(1500)] == list(range(1, 1501))
        finally:
            stream.close()
        print(f"ten stalled replays and one read: RSS {baseline / 1024:.1f} MB before, {rss_kb() / 1024:.1f} MB after")
        assert rss_kb() - baseline < 40 * 1024, (baseline, rss_kb())
    finally:
        for sock in stalled:
            sock.close()
    the_phone_is_served(served, before)


@pytest.mark.parametrize(
    "header, position", [("Last-Event-ID", "0123456789abcdef-2"), ("Last-Event-ID", "9999"), ("after", "9999")]
)  # another log's id; a number past this log's end
def test_a_position_from_another_log_gets_a_fresh_start_not_silence(served, header, position):
    before = log_of(served)
    phone = (
        Stream(served.port, f"/events?after={position}") if header == "after" else Stream(served.port, last_id=position)
    )
    try:
        assert phone.until("reset")["data"]["log"] == served.session.store.identity
        entries = served.table.logbook.entries()
        assert [phone.until("entry")["data"]["id"] for _ in entries] == [e["id"] for e in entries]
    finally:
        phone.close()
    the_phone_is_served(served, before)


@pytest.mark.parametrize("body, says", [
    (b'{"action": {"type": "end_turn", "args": {"x": "' + b"a" * 9000 + b'"}}, "actor": "red"}', "bytes"),
    (b'{"action": ' + b"[" * 3000 + b"]" * 3000 + b', "actor": "red"}', "nests too deep"),
    (b'{"action": ' + b'{"a": ' * 20 + b"1" + b"}" * 20 + b', "actor": "red"}', "nests too deep"),
    (b'{"action": {"type": "end_turn", "args": {"n": ' + str(2**70).encode() + b'}}, "actor": "red"}', "too large"),
    (b'{"action": {"type": "end_turn", "args": {"n": 1e400}}, "actor": "red"}', "too large"),
    (b'{"action": {"type": "end_turn", "args": {"n": NaN}}, "actor": "red"}', "not a number"),
])  # fmt: skip
def test_oversized_nested_and_enormous_bodies_are_one_line_400s_and_change_nothing(served, body, says):
    before = log_of(served)
    status, answer = served.request("POST", "/api/act", raw=body)
    assert status == 400 and says in answer["error"] and "\n" not in answer["error"]
    the_phone_is_served(served, before)


def test_a_declared_50_mb_body_is_refused_before_a_byte_of_it_is_read(served):
    before = log_of(served)
    started = time.monotonic()
    answer = raw(served.port, b"POST /api/act HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                 + credentials(served) + b"Content-Length: 52428800\r\n\r\n{", wait=3.0)  # fmt: skip
    status, text = error_line(answer)
    assert status == 400 and "52428800 bytes" in text and time.monotonic() - started < 2.0
    # Without a length (chunked), the body is cut off at the limit as it arrives.
    chunk = b"a" * 4096
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(4)) + b"0\r\n\r\n"
    answer = raw(served.port, b"POST /api/act HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                 + credentials(served) + b"Transfer-Encoding: chunked\r\n\r\n" + chunked, wait=3.0)  # fmt: skip
    assert error_line(answer) == (400, "the request body is over 8192 bytes, the most the table takes")
    the_phone_is_served(served, before)


def test_the_table_that_cannot_save_says_so_refuses_moves_and_loses_nothing(served):
    store = served.session.store
    events = Stream(served.port, f"/events?after={store.last_entry_id()}")
    try:
        events.until("state")
        # The disk fills up: SQLite's own SQLITE_FULL once the database may not grow by another page.
        store._db.execute(f"PRAGMA max_page_count = {store._db.execute('PRAGMA page_count').fetchone()[0]}")
        for size in (1000, 100, 10, 1):  # until not even a small entry fits
            with pytest.raises(CannotSave):
                for _ in range(1000):
                    served.session.note(Event("note", "x" * size))
        before = log_of(served)
        status, answer = served.post("/api/act", {"action": {"type": "end_turn"}, "actor": "red"})
        assert status == 400 and answer["error"].startswith("the table cannot save: moves are paused")
        warning = events.until("warning", lambda data: data is not None)["data"]
        assert warning["text"] == "The table cannot save: moves are paused."
        health = served.get("/healthz")
        assert health["ok"] is False and "storage is full" in health["cannot_save"]
        assert served.session.state == served.session.state and log_of(served) == before
        the_phone_is_served(served, before)
        store._db.execute("PRAGMA max_page_count = 1073741823")  # room again
        status, answer = served.post("/api/act", {"action": {"type": "end_turn"}, "actor": "red"})
        assert status == 200
        seen = {}
        while len(seen) < 2:
            message = events.next(time.monotonic() + 5)
            if message.get("event") == "warning" or (message.get("event") == "entry"
                                                     and message["data"]["id"] == answer["entry"]["id"]):  # fmt: skip
                seen[message["event"]] = message["data"]
        assert seen == {"entry": answer["entry"], "warning": None}  # the warning withdrawn, the move announced
        assert served.get("/healthz")["ok"] is True
    finally:
        events.close()


def test_a_read_only_log_is_reported_and_refuses_moves(served):
    before = log_of(served)
    served.session.store._db.execute("PRAGMA query_only = 1")  # every write refused, as on a read-only file system
    status, answer = served.post("/api/act", {"action": {"type": "end_turn"}, "actor": "red"})
    assert status == 400 and "read-only" in answer["error"]
    assert "read-only" in served.get("/healthz")["cannot_save"]
    the_phone_is_served(served, before)


def test_a_corrupted_database_is_kept_aside_and_the_table_starts_a_new_log(tmp_path):
    from companion.table.config import TableConfig
    from companion.table.live import LiveTable
    from companion.web.serve import start_server, web_table

    with new_table(tmp_path) as old:
        for _ in range(30):
            old.session.note(Event("note", "x" * 2000))
    path = tmp_path / "table.db"
    size = path.stat().st_size
    with open(path, "r+b") as database:  # a page in the middle of the file overwritten: a bad SD card
        database.seek(size // 2 // 4096 * 4096)
        database.write(os.urandom(4096))
    damaged = path.read_bytes()
    live = LiveTable(TableConfig(db=str(path), players=("red", "blue"), serial="none", camera="none"))
    try:
        assert len(live.notes) == 1 and "the database is damaged" in live.notes[0] and "\n" not in live.notes[0]
        kept = [p for p in tmp_path.iterdir() if ".damaged-" in p.name and not p.name.endswith(("-wal", "-shm"))]
        assert len(kept) == 1 and kept[0].read_bytes() == damaged  # kept as it was, never deleted
        assert [e.kind for e in live.store.entries()] == ["note"]  # a new log: its game's opening
        server = start_server(web_table(live), "127.0.0.1", 0)
        try:
            assert phone_check(server.port) < 1.0
        finally:
            server.stop()
    finally:
        live.stop()


def test_the_attacks_at_once_leave_a_phone_its_page_and_its_moves(served):
    before = log_of(served)
    crowds = [Guests(served.port, "slow-headers", 30, subnet=2), Guests(served.port, "slow-body", 20, subnet=7),
              Guests(served.port, "idle-streams", 40, subnet=3, per_address=4)]  # fmt: skip
    for crowd in crowds:
        crowd.start()
    try:
        time.sleep(1.5)
        the_phone_is_served(served, before)
        status, _ = served.post("/api/act", {"action": {"type": "end_turn"}, "actor": "red"})
        assert status == 200 and log_of(served)[0] == before[0] + 1
    finally:
        for crowd in crowds:
            crowd.stop()


def test_the_page_is_answered_from_memory_while_every_worker_of_the_api_is_busy(served):
    import http.client
    import threading

    from companion.web.pages import STATIC

    held = threading.Event()
    workers = served.server._pool  # every worker that runs the app, kept busy as a flood of requests would
    for _ in range(workers._max_workers):
        workers.submit(held.wait, 10)
    try:
        assert phone_check(served.port, ("/", "/sw.js", "/static/main.js")) < 1.0
        connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=5)
        connection.request("GET", "/")
        page = connection.getresponse()
        assert page.read() == (STATIC / "index.html").read_bytes()
        assert page.getheader("Content-Type") == "text/html; charset=utf-8"
        assert (page.getheader("Cache-Control"), page.getheader("X-Content-Type-Options")) == ("no-cache", "nosniff")
        connection.request("GET", "/", headers={"If-None-Match": page.getheader("ETag")})
        again = connection.getresponse()
        assert again.status == 304 and again.read() == b""
        # A browser takes it gzipped: a quarter of the bytes over the table's Wi-Fi, the same page once unpacked.
        connection.request("GET", "/static/main.js", headers={"Accept-Encoding": "gzip, deflate, br"})
        packed = connection.getresponse()
        body = packed.read()
        assert packed.getheader("Content-Encoding") == "gzip" and packed.getheader("Vary") == "Accept-Encoding"
        assert gzip.decompress(body) == (STATIC / "main.js").read_bytes() and len(body) < len(gzip.decompress(body)) / 2
        connection.request("GET", "/static/main.js", headers={"Accept-Encoding": "gzip;q=0, identity"})
        assert connection.getresponse().read() == (STATIC / "main.js").read_bytes()
        connection.request(
            "GET", "/static/main.js", headers={"Accept-Encoding": "gzip", "If-None-Match": packed.getheader("ETag")}
        )
        revalidated = connection.getresponse()
        assert revalidated.status == 304 and revalidated.read() == b""
        # If-None-Match compares weakly (RFC 9110): a proxy that weakened the tag, or a list holding it, still matches.
        held_tags = f'"other", W/{packed.getheader("ETag")}'
        connection.request("GET", "/static/main.js", headers={"Accept-Encoding": "gzip", "If-None-Match": held_tags})
        assert connection.getresponse().status == 304
        connection.close()
    finally:
        held.set()


@pytest.mark.parametrize("game, options, says", [
    ("orbit", {"deck": "/etc/passwd"}, "deck: '/etc/passwd' is not a data set this table offers"),
    ("orbit", {"board": "/dev/zero"}, "board: '/dev/zero' is not a data set this table offers (offered: 'front', "),
    ("orbital_battle", {"planet_files": {"1": "/dev/zero"}}, "planet_files.1: '/dev/zero' is not a data set"),
    ("periorbis", {"data": "/tmp"}, "data: '/tmp' is not a data set this table offers"),
    ("orbital_battle", {"turn_limit": 10**9}, "options.turn_limit: expected a whole number from 0 to 200, got 10000"),
    ("orbital_battle", {"turn_limit": 2**70}, "the number 11805916207174113034... is too large"),
])  # fmt: skip
def test_options_that_name_files_or_huge_numbers_start_nothing(served, game, options, says):
    before = log_of(served)
    status, answer = served.post("/api/games", {"game": game, "players": ["red", "blue"], "options": options})
    assert status == 400 and says in answer["error"] and "\n" not in answer["error"], answer
    assert served.session.record.game == "trajectory"
    the_phone_is_served(served, before)


def test_a_data_set_the_host_added_is_offered_by_name_and_plays(served, tmp_path):
    from companion.rules.orbit.data import __file__ as orbit_data

    served.table.datasets = DataSets(tmp_path / "datasets")
    deck = Path(orbit_data).with_name("deck.json")
    served.table.datasets.add("orbit", "deck", "club-deck", deck)
    fields = {f["name"]: f for g in served.get("/api/games")["games"] if g["name"] == "orbit" for f in g["options"]}
    assert fields["deck"]["kind"] == "choice" and fields["deck"]["choices"] == ["", "club-deck"]
    assert fields["deck"]["labels"] == ["the game's own", "club-deck"]  # the game's own deck stays a choice
    assert fields["board"]["choices"] == ["front", "back"]
    status, answer = served.post("/api/games", {"game": "orbit", "players": ["red", "blue"],
                                                "options": {"deck": "club-deck"}})  # fmt: skip
    assert status == 201 and answer["game"] == "orbit", answer


def test_the_host_s_own_settings_are_bounded_too(tmp_path):
    from companion.errors import UserError
    from companion.table.session import Session
    from companion.table.store import Store

    store = Store(tmp_path / "host.db")
    with pytest.raises(UserError, match=r"^cannot start orbital_battle: options\.turn_limit: expected a whole number "
                                        r"from 0 to 200, got 1180591620717411303424$"):  # fmt: skip
        Session.start(store, "orbital_battle", ["red", "blue"], {"turn_limit": 2**70}, 1)
    assert store.games() == []


@pytest.mark.parametrize("game, players, options, says", [
    ("orbit", ["red", "blue", "green", "yellow", "white"], {}, "players: the standard game takes 2 to 4 players"),
    ("dakalio", ["red", "blue", "green"], {}, "players: Dakalio takes two players"),
    ("periorbis", ["a", "b", "c", "d", "e", "f", "g"], {}, "players: Periorbis takes 2 to 6 players, got 7"),
    ("trajectory", ["red", "blue"], {"slots": 100}, "options.slots: expected a whole number from 1 to 16"),
    ("trajectory", ["red", "blue"], {"seats": [0, 400]}, "options.seats[1]: expected a number from 0 to 360"),
    ("trajectory", ["red", "blue"], {"planets": {"home": 99}}, "options.planets.home: expected a whole number "
                                                                       "from 0 to 31, got 99"),
    ("orbital_battle", ["red", "blue"], {"turn_limit": 201}, "options.turn_limit: expected a whole number from "
                                                                   "0 to 200, got 201"),
    ("orbital_battle", ["red", "blue"], {"start_points": -1}, "options.start_points: expected a whole number "
                                                                    "from 0 to 500, got -1"),
    ("orbital_battle", ["red", "blue"], {"rings": [1, 2, 3, 4, 5, 6, 9]}, "options.rings[6]: expected a whole "
                                                                                "number from 1 to 8, got 9"),
])  # fmt: skip
def test_numbers_out_of_each_game_s_bounds_are_a_one_line_400_naming_the_option_and_its_range(
    served, game, players, options, says
):
    before = log_of(served)
    status, answer = served.post("/api/games", {"game": game, "players": players, "options": options})
    assert status == 400 and answer["error"].startswith(f"cannot start {game}: {says}"), answer
    assert "\n" not in answer["error"] and served.session.record.game == "trajectory"
    the_phone_is_served(served, before)


def test_the_command_line_refuses_a_number_out_of_the_game_s_bounds_in_one_line(tmp_path):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "companion", "demo", "--game", "orbital_battle", "--players", "2",
                           "--port", "0", "--option", "turn_limit=1000"], capture_output=True, text=True, timeout=60,
                          cwd=tmp_path)  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "companion: cannot start orbital_battle: options.turn_limit: expected a whole number from 0 to 200, got 1000\n"
    )


def test_a_burst_of_connections_waits_in_the_listen_backlog_not_in_the_guests_retries(served):
    """While the loop is busy for a moment, a hundred connections arrive (phones and guests alike): each is queued by
    the kernel at once (a backlog of 128), where a queue of 5 would drop the rest and leave them to retry a second
    or more later, as a real handshake once waited 32 s behind seven silent clients."""
    before = log_of(served)
    loop = served.server._loop
    assert loop is not None
    busy_until = time.monotonic() + 1.5
    loop.call_soon_threadsafe(time.sleep, 1.5)  # the loop accepts nothing meanwhile
    time.sleep(0.1)
    burst, waits = [], []
    try:
        for n in range(100):
            started = time.monotonic()
            burst.append(socket.create_connection(("127.0.0.1", served.port), 5, (f"127.0.8.{1 + n}", 0)))
            waits.append(time.monotonic() - started)
        assert max(waits) < 0.5, max(waits)  # every one connected while the loop was still busy
        time.sleep(max(0.0, busy_until - time.monotonic()))
        the_phone_is_served(served, before)  # and the loop, free again, serves a phone at once beside them
    finally:
        for sock in burst:
            sock.close()


def test_an_idle_stream_costs_the_server_a_few_kb(served):
    """200 idle streams from guests in a process of their own, so that only the server's side is counted."""
    warm = Guests(served.port, "idle-streams", 20, subnet=3, per_address=4).spawn()  # every code path loaded once
    try:
        until_streams(served, 20)
    finally:
        warm.terminate()
        warm.wait(10)
    until_streams(served, 0)
    baseline = rss_kb()
    crowd = Guests(served.port, "idle-streams", 200, subnet=4, per_address=4).spawn()
    try:
        until_streams(served, 200)
        time.sleep(1.0)
        per_stream = (rss_kb() - baseline) / served.table.hub.streams
        print(f"an idle stream: {per_stream:.1f} KB of the server's memory")
        assert per_stream < 32, per_stream  # measured: about 12 KB (a thread's stack alone would be 64 KB or more)
        the_phone_is_served(served, log_of(served))
    finally:
        crowd.terminate()
        crowd.wait(10)


def until_streams(served, count: int) -> None:
    deadline = time.monotonic() + 30
    while served.table.hub.streams != count and time.monotonic() < deadline:
        time.sleep(0.05)
    assert served.table.hub.streams == count
