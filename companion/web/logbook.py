"""The log as the phones read it: entries in the words of their game, pages of the log for a stream's replay, and
where the log stands. Every read is on a connection of its own (WAL), so any thread may read while the session
writes."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from companion.boards import Board
from companion.table.game_board import board_of
from companion.table.store import Entry, GameRecord, Store
from companion.web import sse
from companion.web.words import Words

WORDS_KEPT = 8  # games whose words are kept made (a board takes some milliseconds to build)


def entry_json(entry: Entry) -> dict[str, Any]:
    """A log entry as the API and the stream send it."""
    return {
        "id": entry.id,
        "game_id": entry.game_id,
        "kind": entry.kind,
        "action": entry.action,
        "source": entry.source,
        "actor": entry.actor,
        "events": entry.events,
        "created": entry.created,
        "phone": entry.phone,
    }


def _stored_entry_json(row: tuple) -> str:
    """A stored entry as entry_json gives it, assembled from the JSON texts as stored (parsing and writing them
    again for every replayed entry would cost ten times as much)."""
    entry_id, game_id, kind, action, source, actor, events, created, phone = row
    return (
        f'{{"id":{entry_id},"game_id":{game_id},"kind":{json.dumps(kind)},"action":{action or "null"},'
        f'"source":{json.dumps(source)},"actor":{json.dumps(actor)},"events":{events},'
        f'"created":{created!r},"phone":{json.dumps(phone)}}}'
    )


class LogBook:
    """One table's log, read for the phones. `current` is the game in play's record, `in_play` the board it was set
    up on; `board` the table's board for a game."""

    def __init__(
        self, path: str, current: Callable[[], GameRecord], board: Callable[[str], Board], in_play: Callable[[], Board]
    ) -> None:
        self.path = path
        self._current = current
        self._board = board
        self._in_play = in_play  # the board the game in play was set up on
        with self.reader() as store:
            self.identity = store.identity  # in every announcement's id: a phone's position names its log
        self._words: dict[int, Words] = {}

    @contextmanager
    def reader(self) -> Iterator[Store]:
        """The store on a connection of its own."""
        store = Store(self.path)
        try:
            yield store
        finally:
            store.close()

    def words(self, game_id: int | None = None) -> Words:
        """The names of the game in play, or of an earlier game of the log (made once per game)."""
        record = self._current()
        if game_id is not None and game_id != record.id:
            with self.reader() as store:
                record = store.game(game_id)
        if record.id not in self._words:
            if len(self._words) > WORDS_KEPT:
                self._words.clear()
            board = (
                self._in_play()
                if record.id == self._current().id
                else board_of(record.game, record.options, self._board)
            )
            self._words[record.id] = Words(board, record.players)
        return self._words[record.id]

    def entry_json(self, entry: Entry) -> dict[str, Any]:
        """A log entry as the phones get it: its sentences in the words of its game."""
        words = self.words(entry.game_id)
        shown = entry_json(entry)
        shown["events"] = [{**event, "text": words.text(event.get("text", ""))} for event in entry.events]
        return shown

    def entries(self, after: int = 0, game_id: int | None = None) -> list[dict[str, Any]]:
        with self.reader() as store:
            return [self.entry_json(e) for e in store.entries(game_id, after)]

    def position(self) -> tuple[str, int]:
        """This log's identity and its last entry's id."""
        with self.reader() as store:
            return self.identity, store.last_entry_id()

    def first_entry(self) -> int:
        """The first entry of the game in play."""
        with self.reader() as store:
            return store.first_entry_id(self._current().id)

    def replay_page(self, after: int, limit: int) -> tuple[int, int, bytes]:
        """At most `limit` entries after `after` (of every game) as stream messages in one piece: how many, the
        last one's id, the messages."""
        with self.reader() as store:
            rows = store.page(after, limit)
        messages = b"".join(sse.raw_message("entry", self._shown(row), sse.event_id(self.identity, row[0]))
                            for row in rows)  # fmt: skip
        return len(rows), rows[-1][0] if rows else after, messages

    def _shown(self, row: tuple) -> str:
        """A stored entry for the stream, its sentences in words: written again only when the words pass changes a
        sentence (most entries go out as stored)."""
        events = row[6]
        words = self.words(row[1])
        stored = json.loads(events)
        shown = [{**event, "text": words.text(event.get("text", ""))} for event in stored]
        if shown != stored:
            events = json.dumps(shown)
        return _stored_entry_json((*row[:6], events, *row[7:]))
