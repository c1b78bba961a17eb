"""The games of a table's log as the phones read them: one game as its log left it, each game's result and books,
and the latest games, newest first."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.rules.words import verdict
from companion.table.session import CannotResume, Session
from companion.table.store import GameRecord, Store, StoreError
from companion.web.books import books
from companion.web.words import Words

HISTORY = 12  # games Past games lists
SECRET = ("seed", "state")  # what an export of a game still on leaves out


class PastGames:
    """The games of the log in `path`; `words` gives a game's names by its id."""

    def __init__(self, path: str, words: Callable[[int], Words]) -> None:
        self.path = path
        self._words = words

    def session(self, game_id: int) -> Session:
        """A game of this table's log as its log left it, on a connection of its own that the caller closes
        (`session.store.close()`); StoreError: no such game."""
        store = Store(self.path)
        try:
            session = Session.resume(store, game_id)
        except StoreError:
            store.close()
            raise
        assert session is not None
        return session

    def export(self, game_id: int) -> dict[str, Any]:
        """One game as a file to keep: while it is on, without what would tell the draws and rolls to come (its
        seed and its state: the generator, the decks' order); once it is over, all of it (StoreError: no such
        game)."""
        session = self.session(game_id)
        try:
            exported = session.export()
        finally:
            session.store.close()
        if exported["status"] != "over":
            exported = {key: value for key, value in exported.items() if key not in SECRET}
        return exported

    def history(self, limit: int = HISTORY) -> list[dict[str, Any]]:
        """The latest games of the log, newest first: who played, how it ended, and each seat's books at the end."""
        store = Store(self.path)
        try:
            records = store.games()[-limit:][::-1]
        finally:
            store.close()
        return [self._listed(record) for record in records]

    def _listed(self, record: GameRecord) -> dict[str, Any]:
        """A game's summary, or what can be said of one that cannot be replayed (its data gone)."""
        try:
            return self.summary(record.id)
        except CannotResume as error:
            return {"id": record.id, "game": record.game, "title": record.game, "players": list(record.players),
                    "status": record.status, "created": record.created, "result": str(error), "winners": [],
                    "books": {"players": [], "table": []}}  # fmt: skip

    def summary(self, game_id: int) -> dict[str, Any]:
        """One game of the log as it stands (or ended): its game, when it began, its players, the result, the
        winners and each seat's books (StoreError: no such game)."""
        session = self.session(game_id)
        try:
            record, outcome, words = session.record, session.game.outcome(session.state), self._words(game_id)
            return {
                "id": record.id, "game": record.game, "title": session.game.title, "players": list(record.players),
                "status": record.status, "created": record.created,
                "result": words.text(verdict(outcome.result, outcome.winners, outcome.reason)) if outcome else None,
                "winners": list(outcome.winners) if outcome else [],
                "books": books(record.game, session.game.ledger(session.state), words),
            }  # fmt: skip
        finally:
            session.store.close()
