"""The game log in SQLite: games, an append-only log of what happened, and state snapshots.

Every entry is committed (WAL, synchronous=FULL) before the session hands its events to anyone, so a power cut
loses nothing a phone has shown. Entry ids grow across all games: they are the event ids of the phones' stream.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.errors import UserError
from companion.listeners import Listeners

# Each migration takes the schema from its index to the next; the database's user_version says how far it is.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        game TEXT NOT NULL,
        players TEXT NOT NULL,
        options TEXT NOT NULL,
        seed INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('playing', 'paused', 'over')),
        created REAL NOT NULL
    );
    CREATE TABLE entries (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        kind TEXT NOT NULL CHECK (kind IN ('action', 'undo', 'note')),
        action TEXT,
        source TEXT NOT NULL,
        actor TEXT,
        events TEXT NOT NULL,
        created REAL NOT NULL
    );
    CREATE INDEX entries_by_game ON entries (game_id, id);
    CREATE TABLE snapshots (
        game_id INTEGER NOT NULL REFERENCES games(id),
        entry_id INTEGER NOT NULL,
        actions INTEGER NOT NULL,
        state TEXT NOT NULL,
        PRIMARY KEY (game_id, entry_id)
    );
    """,
    # The log's identity: the streams put it in every announcement's id, so that a phone's position in another log
    # (the database replaced or reset) is told apart from one in this log.
    """
    CREATE TABLE identity (log TEXT NOT NULL);
    INSERT INTO identity (log) SELECT lower(hex(randomblob(8)));
    """,
    # A correction: the table puts its own last booking right (a piece it booked from a lift landed elsewhere).
    """
    CREATE TABLE entries_new (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        kind TEXT NOT NULL CHECK (kind IN ('action', 'undo', 'note', 'correction')),
        action TEXT,
        source TEXT NOT NULL,
        actor TEXT,
        events TEXT NOT NULL,
        created REAL NOT NULL
    );
    INSERT INTO entries_new SELECT * FROM entries;
    DROP TABLE entries;
    ALTER TABLE entries_new RENAME TO entries;
    CREATE INDEX entries_by_game ON entries (game_id, id);
    """,
    # The phone that made an entry (its public id; the seat is `actor`): every entry names the phone and the seat.
    """
    ALTER TABLE entries ADD COLUMN phone TEXT;
    """,
)


class StoreError(UserError):
    """A database the companion cannot use (a newer schema, not a database, unwritable)."""


class CannotSave(StoreError):
    """A write failed (a full disk, a file or file system gone read-only): nothing of it was kept, and nothing may
    be announced until the table can save again."""


def set_aside_if_damaged(path: str | Path, clock: Any = time.time) -> str | None:
    """`PRAGMA quick_check` on an existing database before the companion uses it. A damaged one is moved aside
    (with its -wal and -shm files) as PATH.damaged-TIME, never deleted, so the table starts a new log rather than
    failing at every start; returns the one line that says so (None: healthy, or no file yet)."""
    database = Path(path)
    if not database.exists() or database.stat().st_size == 0:
        return None
    try:
        db = sqlite3.connect(database, isolation_level=None)
        try:
            rows = [row[0] for row in db.execute("PRAGMA quick_check").fetchall()]
        finally:
            db.close()
        problem = None if rows == ["ok"] else "; ".join(str(r) for r in rows[:2])
    except sqlite3.DatabaseError as error:
        problem = str(error)
    if problem is None:
        return None
    aside = database.with_name(f"{database.name}.damaged-{time.strftime('%Y%m%d-%H%M%S', time.gmtime(clock()))}")
    for suffix in ("", "-wal", "-shm"):
        part = Path(f"{database}{suffix}")
        if part.exists():
            part.rename(f"{aside}{suffix}")
    return f"{database}: the database is damaged ({problem}); it was kept as {aside.name} and a new log begins"


@dataclass(frozen=True)
class GameRecord:
    id: int
    game: str
    players: tuple[str, ...]
    options: dict[str, Any]
    seed: int
    status: str
    created: float


@dataclass(frozen=True)
class Entry:
    """One line of a game's log: an action (with who sent it and from where), an undo, a note, or a correction (the
    action that replaces the last one, which the table had booked wrong)."""

    id: int
    game_id: int
    kind: str
    action: dict[str, Any] | None
    source: str
    actor: str | None
    events: list[dict[str, Any]]
    created: float
    phone: str | None = None  # the phone that sent it (None: the board, the companion, the console)


@dataclass(frozen=True)
class Snapshot:
    entry_id: int
    actions: int
    state: Any


class Store:
    """One SQLite file. Use from one thread at a time (the session serialises access)."""

    def __init__(self, path: str | Path, clock: Any = time.time) -> None:
        self.path = str(path)
        self._clock = clock
        self.failure: str | None = None  # why the last write failed; None once one succeeds
        self.failures: Listeners[str | None] = Listeners()  # told `failure` whenever it changes
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path}: cannot use it as the companion's database ({error})") from None

    def close(self) -> None:
        self._db.close()

    @property
    def schema_version(self) -> int:
        return self._db.execute("PRAGMA user_version").fetchone()[0]

    def _migrate(self) -> None:
        version = self.schema_version
        if version > len(MIGRATIONS):
            raise StoreError(
                f"{self.path}: made by a newer companion (schema {version}; this one knows "
                f"{len(MIGRATIONS)}); upgrade the companion"
            )
        for number in range(version, len(MIGRATIONS)):
            with self._transaction():
                for statement in MIGRATIONS[number].split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version = {number + 1}")

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK if anything inside fails: an entry is all there or not at all. A
        write the disk refuses (full, read-only) is CannotSave, and `failure` says why until a write succeeds."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        except sqlite3.OperationalError as error:
            if self._db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
            self._failed(_cannot_save(error))
            raise CannotSave(f"the table cannot save: moves are paused ({self.failure})") from None
        self._failed(None)

    def _failed(self, failure: str | None) -> None:
        if failure != self.failure:
            self.failure = failure
            self.failures.tell(failure)

    def create_game(
        self, game: str, players: list[str], options: dict[str, Any], seed: int,
        opening: list[dict[str, Any]] | None = None, state: Any = None, phone: str | None = None,
    ) -> GameRecord:  # fmt: skip
        """A new game, with its opening note (`opening`: the events, naming `phone`, the phone that began it) and
        first snapshot (`state`) in the same transaction: a disk that fills up in between leaves no game without its
        opening."""
        created = self._clock()
        with self._transaction():
            cursor = self._db.execute(
                "INSERT INTO games (game, players, options, seed, status, created) VALUES (?, ?, ?, ?, 'playing', ?)",
                (game, json.dumps(players), json.dumps(options, sort_keys=True), seed, created),
            )
            game_id = int(cursor.lastrowid or 0)
            if opening is not None:
                self._insert(game_id, "note", None, "companion", None, opening, created, (0, state), phone)
        return GameRecord(game_id, game, tuple(players), options, seed, "playing", created)

    def set_status(self, game_id: int, status: str) -> None:
        with self._transaction():
            self._db.execute("UPDATE games SET status = ? WHERE id = ?", (status, game_id))

    def set_options(self, game_id: int, options: dict[str, Any]) -> None:
        """A game's options, rewritten (its data sets pinned to the versions it was played on)."""
        with self._transaction():
            text = json.dumps(options, sort_keys=True)
            self._db.execute("UPDATE games SET options = ? WHERE id = ?", (text, game_id))

    def game(self, game_id: int) -> GameRecord:
        row = self._db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise StoreError(f"{self.path}: there is no game {game_id}")
        return _game(row)

    def games(self) -> list[GameRecord]:
        return [_game(row) for row in self._db.execute("SELECT * FROM games ORDER BY id")]

    def unfinished(self) -> list[GameRecord]:
        return [g for g in self.games() if g.status != "over"]

    def append(
        self,
        game_id: int,
        kind: str,
        action: dict[str, Any] | None,
        source: str,
        actor: str | None,
        events: list[dict[str, Any]],
        snapshot: tuple[int, Any] | None = None,
        status: str | None = None,
        phone: str | None = None,
    ) -> Entry:
        """Commit one log entry (and optionally a snapshot and a new status) in one transaction; returns it."""
        created = self._clock()
        with self._transaction():
            entry_id = self._insert(game_id, kind, action, source, actor, events, created, snapshot, phone)
            if status is not None:
                self._db.execute("UPDATE games SET status = ? WHERE id = ?", (status, game_id))
        return Entry(entry_id, game_id, kind, action, source, actor, events, created, phone)

    def _insert(
        self, game_id: int, kind: str, action: dict[str, Any] | None, source: str, actor: str | None,
        events: list[dict[str, Any]], created: float, snapshot: tuple[int, Any] | None, phone: str | None = None,
    ) -> int:  # fmt: skip
        cursor = self._db.execute(
            "INSERT INTO entries (game_id, kind, action, source, actor, events, created, phone)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                game_id,
                kind,
                None if action is None else json.dumps(action),
                source,
                actor,
                json.dumps(events),
                created,
                phone,
            ),
        )
        entry_id = int(cursor.lastrowid or 0)
        if snapshot is not None:
            self._db.execute(
                "INSERT INTO snapshots (game_id, entry_id, actions, state) VALUES (?, ?, ?, ?)",
                (game_id, entry_id, snapshot[0], json.dumps(snapshot[1])),
            )
        return entry_id

    def entries(self, game_id: int | None = None, after: int = 0) -> Iterator[Entry]:
        """Log entries with ids above `after`, of one game or of all, oldest first."""
        if game_id is None:
            rows = self._db.execute("SELECT * FROM entries WHERE id > ? ORDER BY id", (after,))
        else:
            rows = self._db.execute("SELECT * FROM entries WHERE game_id = ? AND id > ? ORDER BY id", (game_id, after))
        while batch := rows.fetchmany(500):  # a long log is read a batch at a time, never whole
            yield from (_entry(row) for row in batch)

    def snapshots(self, game_id: int) -> list[Snapshot]:
        rows = self._db.execute(
            "SELECT entry_id, actions, state FROM snapshots WHERE game_id = ? ORDER BY entry_id", (game_id,)
        )
        return [Snapshot(row[0], row[1], json.loads(row[2])) for row in rows.fetchall()]

    def last_entry_id(self) -> int:
        return self._db.execute("SELECT COALESCE(MAX(id), 0) FROM entries").fetchone()[0]

    def first_entry_id(self, game_id: int) -> int:
        """The first entry of a game (1 when it has none yet)."""
        row = self._db.execute("SELECT MIN(id) FROM entries WHERE game_id = ?", (game_id,)).fetchone()
        return row[0] or 1

    def page(self, after: int, limit: int) -> list[tuple]:
        """At most `limit` entries (of every game) with ids above `after`, oldest first, as stored: the id, game,
        kind, the action's JSON text (or None), source, actor, the events' JSON text, the time and the phone. A replay's
        memory is one page, whatever the log's length, and it never parses what it only passes on."""
        return self._db.execute("SELECT * FROM entries WHERE id > ? ORDER BY id LIMIT ?", (after, limit)).fetchall()

    @property
    def identity(self) -> str:
        """This log's identity, made once with the database."""
        return self._db.execute("SELECT log FROM identity").fetchone()[0]


def _cannot_save(error: sqlite3.Error) -> str:
    text = str(error)
    if "full" in text:
        return "its storage is full"
    if "readonly" in text or "read-only" in text:
        return "its storage is read-only"
    return f"the database refused the write: {text}"


def _entry(row: tuple) -> Entry:
    action = None if row[3] is None else json.loads(row[3])
    return Entry(row[0], row[1], row[2], action, row[4], row[5], json.loads(row[6]), row[7], row[8])


def _game(row: tuple) -> GameRecord:
    return GameRecord(row[0], row[1], tuple(json.loads(row[2])), json.loads(row[3]), row[4], row[5], row[6])
