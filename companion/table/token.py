"""The table token: the secret a phone shows to act (docs/web.md). It is kept in a file in the table's data folder,
beside the game log, so that phones stay joined across a restart of the companion; rotating it writes a new one
and locks out every phone until it scans the new QR code."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from companion.atomic import write_atomically
from companion.errors import UserError

TOKEN_FILE = "table-token"


def token_file(db: str | Path) -> Path:
    """Where the token of the table whose game log is `db` is kept."""
    return Path(db).resolve().parent / TOKEN_FILE


def rotate_token(path: Path) -> str:
    """A new token, written atomically (owner-only) to `path`."""
    token = secrets.token_urlsafe(16)
    try:
        write_atomically(path, (token + "\n").encode(), mode=0o600)
    except PermissionError:
        raise  # the command line says whose the file is and how to run as its owner
    except OSError as error:
        raise UserError(f"{path}: cannot write the table token ({error.strerror})") from None
    return token


def read_token(path: Path) -> str:
    """The token kept in `path`, made there when missing or empty."""
    try:
        token = path.read_text().strip()
    except FileNotFoundError:
        token = ""
    except PermissionError:
        raise  # the command line says whose the file is and how to run as its owner
    except OSError as error:
        raise UserError(f"{path}: cannot read the table token ({error.strerror})") from None
    return token or rotate_token(path)


class KeptToken:
    """The token in its file, read again whenever the file changes (`companion token rotate` while serving)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._value = read_token(path)
        self._stamp = self._stat()

    def _stat(self) -> tuple[int, int] | None:
        try:
            info = os.stat(self.path)
        except OSError:
            return None
        return info.st_mtime_ns, info.st_ino

    @property
    def value(self) -> str:
        stamp = self._stat()
        if stamp != self._stamp:
            self._value, self._stamp = read_token(self.path), self._stat()
        return self._value

    def rotate(self) -> str:
        self._value = rotate_token(self.path)
        self._stamp = self._stat()
        return self._value
