"""The players' phones as the twin's players use them: in the table's process (the web table's own calls, which the
API's routes make) for the benchmarks, or over HTTP as a browser sends them: one phone that joins with the table's
token, is the host (the first phone to join), and plays every seat by pass and play."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from companion.rules import Action, IllegalAction
from companion.web.table import Table

TOKEN_HEADER = "X-Orrery-Token"
PHONE_HEADER = "X-Orrery-Phone"


class Phones(Protocol):
    def declare(self, action: Action, actor: str | None) -> None:
        """A player says on a phone what they did (POST /api/act)."""

    def choose(self, question: int, index: int, actor: str | None) -> None:
        """A player answers the table's question (POST /api/choose)."""

    def new_game(self, game: str, players: Sequence[str], options: Mapping[str, Any], seed: int | None) -> None:
        """A player starts a new game from the setup form (POST /api/games): guided, as the page starts one."""

    def guide(self, do: str) -> None:
        """A player taps a button of the guided setup (POST /api/setup: placed, back, stop)."""

    def undo(self, actor: str | None) -> None:
        """A player takes the last action back (POST /api/undo)."""


class TablePhones:
    """Phones in the table's own process: the calls the API's routes make, without the HTTP."""

    def __init__(self, web: Table) -> None:
        self.web = web

    def declare(self, action: Action, actor: str | None) -> None:
        self.web.declare(action, actor)

    def choose(self, question: int, index: int, actor: str | None) -> None:
        self.web.choose(question, index, actor)

    def new_game(self, game: str, players: Sequence[str], options: Mapping[str, Any], seed: int | None) -> None:
        self.web.new_game(game, players, options, seed)

    def guide(self, do: str) -> None:
        self.web.guides.guide_command(do)

    def undo(self, actor: str | None) -> None:
        self.web.session.undo("phone", actor)


class HttpPhones:
    """Phones over HTTP: every request with the table's token, as the page sends it."""

    def __init__(self, base: str, token: str, timeout: float = 30.0) -> None:
        self.base = base.rstrip("/") + "/"
        self.token = token
        self.timeout = timeout
        self.key = ""  # this phone's own key, once it has joined
        self.seats: set[str] = set()
        self.stale = True  # a game may have begun whose seats this phone does not play yet

    def _seated(self) -> None:
        """Join the table (the first time) and take every seat of the game in play this phone does not play yet."""
        if not self.key:
            self.key = self.call("api/phones", {}, joining=True)["key"]
        if not self.stale:
            return
        self.stale = False
        for seat in self.call("api/state")["players"]:
            if seat not in self.seats:
                self.call("api/seats/take", {"seat": seat, "together": True}, joining=True)
                self.seats.add(seat)

    def call(self, path: str, body: Mapping[str, Any] | None = None, joining: bool = False) -> Any:
        """GET (no body) or POST a JSON body from this phone (seated first, unless `joining`); the answer's JSON. An
        answer the API refuses is an IllegalAction naming the request and the API's reason."""
        if body is not None and not joining:
            self._seated()
        request = urllib.request.Request(self.base + path.lstrip("/"),
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json", TOKEN_HEADER: self.token,
                                                  PHONE_HEADER: self.key})  # fmt: skip
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                return json.load(answer)
        except urllib.error.HTTPError as error:
            reason = error.read().decode(errors="replace")
            raise IllegalAction(f"{path}: {error.code} {reason}") from None

    def declare(self, action: Action, actor: str | None) -> None:
        self.call("api/act", {"action": action.to_json(), "actor": actor})

    def choose(self, question: int, index: int, actor: str | None) -> None:
        self.call("api/choose", {"question": question, "index": index, "actor": actor})

    def new_game(self, game: str, players: Sequence[str], options: Mapping[str, Any], seed: int | None) -> None:
        # (no seed: a phone never chooses one; the table draws a game's chance from the system's entropy)
        self.call("api/games", {"game": game, "players": list(players), "options": dict(options)})
        self.stale = True

    def guide(self, do: str) -> None:
        self.call("api/setup", {"do": do})

    def undo(self, actor: str | None) -> None:
        self.call("api/undo", {"actor": actor})
