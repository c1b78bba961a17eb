"""The session and its SQLite log: commit before announcing, undo, pause, resume exactly, export."""

import json
import os
import sqlite3
import subprocess
import sys
import textwrap

import pytest

import companion
from companion.errors import UserError
from companion.rules import Action, IllegalAction
from companion.sim.players import playout
from companion.table.session import SNAPSHOT_EVERY, Session
from companion.table.store import MIGRATIONS, Store, StoreError

FIXED = {"planets": {"metal": 0, "home": 0, "helium": 0, "ice": 0}, "difficulty": "easy"}


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "companion.db")
    yield store
    store.close()


def _play(session, count, seed=3):
    """Feed `count` random legal actions through the session, as the board and phones would."""
    played = 0
    for move in playout(session.game, session.state, seed, max_actions=count):
        session.submit(move.action, "board")
        played += 1
    return played


def test_database_is_wal_with_a_versioned_schema(store):
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.schema_version == len(MIGRATIONS)
    assert len(store.identity) == 16 and store.identity == Store(store.path).identity  # made once, kept


def test_a_database_of_the_first_schema_gains_an_identity_and_keeps_its_log(tmp_path):
    path = tmp_path / "old.db"
    old = sqlite3.connect(path, isolation_level=None)
    old.executescript(MIGRATIONS[0] + "PRAGMA user_version = 1;")
    old.execute("INSERT INTO games VALUES (1, 'trajectory', '[\"red\"]', '{}', 1, 'playing', 0)")
    old.execute("INSERT INTO entries VALUES (1, 1, 'note', NULL, 'companion', NULL, '[]', 0)")
    old.close()
    store = Store(path)
    assert store.schema_version == len(MIGRATIONS) and len(store.identity) == 16
    assert [e.id for e in store.entries()] == [1]


def test_an_entry_is_committed_before_listeners_hear_of_it(store, tmp_path):
    session = Session.start(store, "trajectory", ["red", "blue"], FIXED, 1)
    seen = []

    def listener(entry):
        # A second connection (another process's view) already sees the entry the listener is told about.
        other = sqlite3.connect(tmp_path / "companion.db")
        seen.append(other.execute("SELECT COUNT(*) FROM entries WHERE id = ?", (entry.id,)).fetchone()[0])
        other.close()

    session.entries.subscribe(listener)
    session.submit(Action.make("draw", card="action"), "phone", "red")
    assert seen == [1]


def test_an_illegal_action_changes_nothing(store):
    session = Session.start(store, "trajectory", ["red"], FIXED, 1)
    before = (session.state, store.last_entry_id())
    with pytest.raises(IllegalAction, match="must draw a card first"):
        session.submit(Action.make("move", to="o2s1"), "board")
    assert (session.state, store.last_entry_id()) == before


def test_resume_rebuilds_the_last_announced_state(store, tmp_path):
    session = Session.start(store, "trajectory", ["red", "blue", "green"], {}, 5)
    _play(session, SNAPSHOT_EVERY * 2 + 7)
    expected = session.state
    store.close()
    again = Session.resume(Store(tmp_path / "companion.db"), session.record.id)
    assert again is not None and again.state == expected and again.actions == session.actions


def test_undo_takes_back_the_last_action_and_survives_a_resume(store, tmp_path):
    session = Session.start(store, "trajectory", ["red", "blue"], FIXED, 2)
    _play(session, SNAPSHOT_EVERY)  # the last action is inside the snapshot just taken
    before_last = session.game.replay(["red", "blue"], FIXED, 2, session.actions[:-1])[0]
    entry = session.undo("phone", "red")
    assert entry.events[0]["text"].startswith("Undone: ")
    assert session.state == before_last
    store.close()
    assert Session.resume(Store(tmp_path / "companion.db")).state == before_last


def test_undo_with_nothing_to_undo(store):
    session = Session.start(store, "trajectory", ["red"], FIXED, 1)
    with pytest.raises(IllegalAction, match="nothing to undo"):
        session.undo("phone")


def test_pause_refuses_actions_until_resumed(store):
    session = Session.start(store, "trajectory", ["red"], FIXED, 1)
    session.set_paused(True, "phone", "red")
    with pytest.raises(IllegalAction, match="paused"):
        session.submit(Action.make("draw"), "board")
    session.set_paused(False, "phone", "red")
    session.submit(Action.make("draw"), "board")


def test_a_finished_game_is_not_resumed_and_exports_as_json(store):
    session = Session.start(store, "trajectory", ["red"], {}, 9)
    _play(session, 5000)
    assert session.game.outcome(session.state) is not None
    assert session.record.status == "over"
    assert Session.resume(store) is None
    exported = json.loads(json.dumps(session.export()))
    replayed, _ = session.game.replay(["red"], {}, 9, [Action.from_json(a) for a in exported["actions"]])
    assert session.game.state_to_json(replayed, whole=True) == exported["state"]
    assert session.game.state_from_json(exported["state"]) == session.state  # the export alone reads it again


def test_a_bad_game_or_setup_is_one_clear_error(store):
    with pytest.raises(UserError, match="cannot start chess: unknown game 'chess'"):
        Session.start(store, "chess", ["red"], {}, 1)
    with pytest.raises(UserError, match=r"options\.difficulty"):
        Session.start(store, "trajectory", ["red"], {"difficulty": "x"}, 1)


def test_a_newer_or_foreign_database_is_refused(tmp_path):
    newer = tmp_path / "newer.db"
    sqlite3.connect(newer).execute("PRAGMA user_version = 99").connection.commit()
    with pytest.raises(StoreError, match="made by a newer companion"):
        Store(newer)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(StoreError, match="cannot use it as the companion's database"):
        Store(junk)


KILLER = textwrap.dedent(
    """
    import json, os, sys
    from companion.sim.players import playout
    from companion.table.session import Session
    from companion.table.store import Store

    store = Store(sys.argv[1])
    session = Session.resume(store) or Session.start(store, "trajectory", ["red", "blue"], {}, 11)
    log = open(sys.argv[2], "a")

    def announced(entry):
        state = json.dumps(session.game.state_to_json(session.state), sort_keys=True)
        log.write(f"{entry.id} {state}\\n"); log.flush()
        if entry.id == int(sys.argv[3]):
            os._exit(9)  # the power goes, right after a phone was told

    session.entries.subscribe(announced)
    for move in playout(session.game, session.state, int(sys.argv[3]), max_actions=60):
        session.submit(move.action, "board")
    """
)


def test_killing_the_process_never_loses_an_announced_action(tmp_path):
    db, log = tmp_path / "t.db", tmp_path / "announced.log"
    script = tmp_path / "killer.py"
    script.write_text(KILLER)
    for kill_at in (3, 17, 30, 44):
        env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(companion.__file__))}
        args = [sys.executable, str(script), str(db), str(log), str(kill_at)]
        result = subprocess.run(args, capture_output=True, env=env)
        assert result.returncode in (0, 9), result.stderr.decode()
        last_id, last_state = log.read_text().splitlines()[-1].split(" ", 1)
        store = Store(db)
        assert store.last_entry_id() == int(last_id)
        session = Session.resume(store, 1)
        # The resumed game is exactly the last one a phone was told about.
        assert json.dumps(session.game.state_to_json(session.state), sort_keys=True) == last_state
        store.close()


def test_a_write_the_disk_refuses_is_cannot_save_until_one_succeeds(tmp_path):
    from companion.table.store import CannotSave, set_aside_if_damaged

    store = Store(tmp_path / "t.db")
    heard = []
    store.failures.subscribe(heard.append)
    game = store.create_game("trajectory", ["red"], {}, 1)
    store._db.execute("PRAGMA query_only = 1")
    with pytest.raises(CannotSave, match=r"^the table cannot save: moves are paused \(its storage is read-only\)$"):
        store.append(game.id, "note", None, "companion", None, [])
    assert store.failure == "its storage is read-only" and list(store.entries()) == []
    store._db.execute("PRAGMA query_only = 0")
    store.append(game.id, "note", None, "companion", None, [])
    assert store.failure is None and heard == ["its storage is read-only", None]
    assert set_aside_if_damaged(tmp_path / "t.db") is None and set_aside_if_damaged(tmp_path / "none.db") is None


def test_closing_a_session_waits_for_an_announcement_under_way(tmp_path):
    """A sense's thread may be announcing through the session (its listeners reading the log) as the table stops:
    the log is closed after that announcement, never under it (SQLite closed under a statement in another thread
    crashes the process)."""
    import threading
    import time

    from companion.rules import Event

    session = Session.start(Store(tmp_path / "t.db"), "trajectory", ["red", "blue"], {}, 1)
    started, read = threading.Event(), []

    def slow(entry) -> None:
        started.set()
        time.sleep(0.3)
        read.append(session.store.last_entry_id())

    session.entries.subscribe(slow)
    announcing = threading.Thread(target=session.note, args=(Event("grid-lost", "The grid is lost."),))
    announcing.start()
    assert started.wait(5)
    session.close()
    announcing.join(5)
    assert read and read[0] > 0
    with pytest.raises(sqlite3.ProgrammingError):
        session.store.last_entry_id()
