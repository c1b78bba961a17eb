"""Who sits at the table: the table token a phone shows to join, and the players' names beside the seats' colours,
kept beside the game log (so across restarts) when the table has a data folder."""

from __future__ import annotations

import json
import secrets
import threading
from pathlib import Path

from companion.atomic import write_atomically
from companion.table.token import KeptToken

NAMES_FILE = "seat-names.json"  # beside the table token: the players' names by seat


class Seats:
    """The token (given, kept in `token_path`, or made for this run) and the players' names by seat."""

    def __init__(self, token: str | None = None, token_path: Path | None = None) -> None:
        self._kept = KeptToken(token_path) if token is None and token_path is not None else None
        self._token = token or secrets.token_urlsafe(16)
        self._lock = threading.Lock()
        self.names: dict[str, str] = _read_names(token_path) if self._kept is not None and token_path else {}

    @property
    def token(self) -> str:
        return self._kept.value if self._kept is not None else self._token

    @token.setter
    def token(self, value: str) -> None:
        self._kept, self._token = None, value

    def rotate_token(self) -> str:
        """A new token: every phone must scan the new QR code to act again."""
        if self._kept is not None:
            return self._kept.rotate()
        self._token = secrets.token_urlsafe(16)
        return self._token

    def name(self, seat: str, name: str) -> None:
        """The player's name beside a seat's colour (empty: none)."""
        with self._lock:
            names = {**self.names, seat: name} if name else {k: v for k, v in self.names.items() if k != seat}
            self.names = names
            if self._kept is not None:
                write_atomically(self._kept.path.with_name(NAMES_FILE), json.dumps(names).encode())


def _read_names(token_path: Path) -> dict[str, str]:
    try:
        names = json.loads(token_path.with_name(NAMES_FILE).read_text())
    except (OSError, ValueError):
        return {}  # none yet, or a damaged file: the players give their names again
    return {str(k): str(v) for k, v in names.items()} if isinstance(names, dict) else {}
