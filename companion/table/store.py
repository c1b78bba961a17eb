"""The game log in SQLite: games, an append-only log of what happened, and state snapshots.

Every entry is committed (WAL, synchronous=FULL) before the session hands its events to anyone, so a power cut
loses nothing a phone has shown. Entry ids grow across all games: they are the event ids of the phones' stream.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.errors import UserError

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
)


class StoreError(UserError):
    """A database the companion cannot use (a newer schema, not a database, unwritable)."""


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
    """One line of a game's log: an action (with who sent it and from where), an undo, or a note."""

    id: int
    game_id: int
    kind: str
    action: dict[str, Any] | None
    source: str
    actor: str | None
    events: list[dict[str, Any]]
    created: float


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
        """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK if anything inside fails: an entry is all there or not at all."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def create_game(self, game: str, players: list[str], options: dict[str, Any], seed: int) -> GameRecord:
        created = self._clock()
        with self._transaction():
            cursor = self._db.execute(
                "INSERT INTO games (game, players, options, seed, status, created) VALUES (?, ?, ?, ?, 'playing', ?)",
                (game, json.dumps(players), json.dumps(options, sort_keys=True), seed, created),
            )
        return GameRecord(int(cursor.lastrowid or 0), game, tuple(players), options, seed, "playing", created)

    def set_status(self, game_id: int, status: str) -> None:
        with self._transaction():
            self._db.execute("UPDATE games SET status = ? WHERE id = ?", (status, game_id))

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
    ) -> Entry:
        """Commit one log entry (and optionally a snapshot and a new status) in one transaction; returns it."""
        created = self._clock()
        with self._transaction():
            cursor = self._db.execute(
                "INSERT INTO entries (game_id, kind, action, source, actor, events, created)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    kind,
                    None if action is None else json.dumps(action),
                    source,
                    actor,
                    json.dumps(events),
                    created,
                ),
            )
            entry_id = int(cursor.lastrowid or 0)
            if snapshot is not None:
                self._db.execute(
                    "INSERT INTO snapshots (game_id, entry_id, actions, state) VALUES (?, ?, ?, ?)",
                    (game_id, entry_id, snapshot[0], json.dumps(snapshot[1])),
                )
            if status is not None:
                self._db.execute("UPDATE games SET status = ? WHERE id = ?", (status, game_id))
        return Entry(entry_id, game_id, kind, action, source, actor, events, created)

    def entries(self, game_id: int | None = None, after: int = 0) -> Iterator[Entry]:
        """Log entries with ids above `after`, of one game or of all, oldest first."""
        if game_id is None:
            rows = self._db.execute("SELECT * FROM entries WHERE id > ? ORDER BY id", (after,))
        else:
            rows = self._db.execute("SELECT * FROM entries WHERE game_id = ? AND id > ? ORDER BY id", (game_id, after))
        for row in rows.fetchall():
            yield Entry(
                row[0],
                row[1],
                row[2],
                None if row[3] is None else json.loads(row[3]),
                row[4],
                row[5],
                json.loads(row[6]),
                row[7],
            )

    def snapshots(self, game_id: int) -> list[Snapshot]:
        rows = self._db.execute(
            "SELECT entry_id, actions, state FROM snapshots WHERE game_id = ? ORDER BY entry_id", (game_id,)
        )
        return [Snapshot(row[0], row[1], json.loads(row[2])) for row in rows.fetchall()]

    def last_entry_id(self) -> int:
        return self._db.execute("SELECT COALESCE(MAX(id), 0) FROM entries").fetchone()[0]


def _game(row: tuple) -> GameRecord:
    return GameRecord(row[0], row[1], tuple(json.loads(row[2])), json.loads(row[3]), row[4], row[5], row[6])
