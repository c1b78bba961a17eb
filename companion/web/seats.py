"""Who sits at the table: the table token a phone shows to join, the phones that joined (each with a key of its
own), which phone holds which seat, the host, and the players' names beside the seats' colours.

- The token is the table's join secret (in the QR code); a phone that shows it gets a key of its own (POST
  /api/phones) and from then on shows both. Only a digest of each key is kept.
- The first phone to join a table is its host (the phone that set it up); `companion token host --db` on the
  Pi's console lets the next phone to join be the host instead (a lost phone), as `companion token rotate` makes
  a new token.
- A seat belongs to the phone that took it: its holder may give it to another phone or leave it; the host may give
  it to another phone once the seat's phone agrees, and may give it at once to a phone that asked for it or free it
  (a lost or dead phone never holds a seat for good). A phone holds one seat unless it chose pass and play.
Kept beside the game log (so across restarts) when the table has a data folder; in memory otherwise (tests).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.atomic import write_atomically
from companion.table.token import KeptToken

NAMES_FILE = "seat-names.json"  # beside the table token: the players' names by seat
PHONES_FILE = "phones.json"  # beside the table token: the phones' key digests, the host, the seats' holders
PHONES_KEPT = 64  # phones remembered; the oldest without a seat is forgotten first (it joins again)


class SeatRefused(Exception):
    """A seat the phone may not take or give now; the message says why, in a player's words."""


@dataclass(frozen=True)
class Phone:
    """A phone that joined: its id (public: the log names it), whether it is the host, and its seats."""

    id: str
    host: bool
    seats: tuple[str, ...]
    together: bool  # pass and play: this phone plays several seats


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class Seats:
    """The token (given, kept in `token_path`, or made for this run), the phones, the seats' holders and names."""

    def __init__(self, token: str | None = None, token_path: Path | None = None) -> None:
        self._kept = KeptToken(token_path) if token is None and token_path is not None else None
        self._token = token or secrets.token_urlsafe(16)
        self._lock = threading.RLock()
        self._folder = token_path.parent if self._kept is not None and token_path is not None else None
        self.names: dict[str, str] = _read(self._folder, NAMES_FILE)
        self._phones: dict[str, str] = {}  # key digest -> phone id
        self._host: str | None = None
        self._holders: dict[str, str] = {}  # seat -> phone id
        self._together: set[str] = set()  # phones that chose pass and play
        self._stamp: tuple[int, int] | None = None
        self._fresh()

    # The token.
    @property
    def token(self) -> str:
        return self._kept.value if self._kept is not None else self._token

    @token.setter
    def token(self, value: str) -> None:
        self._kept, self._token = None, value

    def rotate_token(self) -> str:
        """A new token: every phone must scan the new QR code to act again (each keeps its key and seats)."""
        if self._kept is not None:
            return self._kept.rotate()
        self._token = secrets.token_urlsafe(16)
        return self._token

    def token_matches(self, sent: str) -> bool:
        return bool(sent) and hmac.compare_digest(sent.encode(), self.token.encode())

    # The phones.
    def join(self) -> tuple[Phone, str]:
        """A new phone and its key (said once: only its digest is kept). The first phone of a table is its host."""
        with self._lock:
            self._fresh()
            key = secrets.token_urlsafe(24)
            phone_id = secrets.token_hex(4)
            self._phones[digest(key)] = phone_id
            if self._host is None:
                self._host = phone_id
            self._forget_oldest()
            self._save()
            return self._phone(phone_id), key

    def _fresh(self) -> None:
        """The phones as the file keeps them, read again when it changed (the console's `companion token host`)."""
        if self._folder is None:
            return
        stamp = _stamp(self._folder / PHONES_FILE)
        if stamp == self._stamp:
            return
        kept = read_phones(self._folder)
        self._phones, self._host = kept["phones"], kept["host"]
        self._holders, self._together, self._stamp = kept["holders"], set(kept["together"]), stamp

    def phone(self, key: str) -> Phone | None:
        """The phone whose key this is, or None."""
        self._fresh()
        if not key:
            return None
        phone_id = self._phones.get(digest(key))
        return None if phone_id is None else self._phone(phone_id)

    def phone_by_id(self, phone_id: str) -> Phone | None:
        return self._phone(phone_id) if phone_id in self._phones.values() else None

    def _phone(self, phone_id: str) -> Phone:
        seats = tuple(seat for seat, holder in self._holders.items() if holder == phone_id)
        return Phone(phone_id, phone_id == self._host, seats, phone_id in self._together)

    def forget_host(self) -> None:
        """The console's word: the next phone to join is the host."""
        self.hand_host(None)

    def hand_host(self, phone_id: str | None) -> None:
        """The console's word: this phone is the host (None: the next phone to join)."""
        with self._lock:
            self._host = phone_id
            self._save()

    def _forget_oldest(self) -> None:
        held = set(self._holders.values()) | {self._host}
        while len(self._phones) > PHONES_KEPT:
            spare = next((d for d, p in self._phones.items() if p not in held), None)
            if spare is None:
                return
            del self._phones[spare]

    # The seats.
    def holder(self, seat: str) -> str | None:
        return self._holders.get(seat)

    def holders(self, seats: tuple[str, ...]) -> dict[str, str | None]:
        self._fresh()
        return {seat: self._holders.get(seat) for seat in seats}

    def take(self, phone: Phone, seat: str, together: bool = False) -> Phone:
        """The phone takes a free seat; a second seat only by pass and play."""
        with self._lock:
            holder = self._holders.get(seat)
            if holder == phone.id:
                return self._phone(phone.id)
            if holder is not None:
                raise SeatRefused(f"{_seat(seat)}'s seat is another phone's: its player may give it to you, "
                                  "or the host may, once that phone agrees")  # fmt: skip
            current = self._phone(phone.id)
            if current.seats and not (together or current.together):
                raise SeatRefused(f"this phone plays {_seat(current.seats[0])}: choose pass and play to play several "
                                  "seats on one phone")  # fmt: skip
            if together:
                self._together.add(phone.id)
            self._holders[seat] = phone.id
            self._save()
            return self._phone(phone.id)

    def leave(self, phone: Phone, seat: str) -> Phone:
        with self._lock:
            if self._holders.get(seat) != phone.id:
                raise SeatRefused(f"this phone does not play {_seat(seat)}")
            del self._holders[seat]
            if not any(holder == phone.id for holder in self._holders.values()):
                self._together.discard(phone.id)
            self._save()
            return self._phone(phone.id)

    def give(self, seat: str, to: str, keep: bool = True) -> None:
        """The seat to the phone `to` (the holder's gift, or the host's once the seat's phone agreed); without
        `keep`, `to` leaves its other seats (it asked to swap its seat for this one)."""
        with self._lock:
            if to not in self._phones.values():
                raise SeatRefused("phone: no phone of this table has that id (it must join first)")
            if not keep:
                self._holders = {s: holder for s, holder in self._holders.items() if holder != to}
                self._together.discard(to)
            self._holders[seat] = to
            if sum(holder == to for holder in self._holders.values()) > 1:
                self._together.add(to)  # given a second seat: it now plays both
            self._save()

    def free(self, seat: str) -> str | None:
        """The host's word: nobody plays `seat` now; the phone that played it, if any."""
        with self._lock:
            holder = self._holders.pop(seat, None)
            if holder is not None and holder not in self._holders.values():
                self._together.discard(holder)
            self._save()
            return holder

    def keep_seats(self, seats: tuple[str, ...]) -> None:
        """A new game: holders of seats the new game still has keep them; the others are free."""
        with self._lock:
            self._holders = {seat: holder for seat, holder in self._holders.items() if seat in seats}
            self._save()

    # Names.
    def name(self, seat: str, name: str) -> None:
        """The player's name beside a seat's colour (empty: none)."""
        with self._lock:
            names = {**self.names, seat: name} if name else {k: v for k, v in self.names.items() if k != seat}
            self.names = names
            if self._folder is not None:
                write_atomically(self._folder / NAMES_FILE, json.dumps(names).encode())

    def _save(self) -> None:
        if self._folder is None:
            return
        kept = {"phones": self._phones, "host": self._host, "holders": self._holders,
                "together": sorted(self._together)}  # fmt: skip
        write_phones(self._folder, kept)
        self._stamp = _stamp(self._folder / PHONES_FILE)


def _seat(seat: str) -> str:
    return seat[:1].upper() + seat[1:]


def _read(folder: Path | None, name: str) -> dict[str, Any]:
    if folder is None:
        return {}
    try:
        kept = json.loads((folder / name).read_text())
    except (OSError, ValueError):
        return {}  # none yet, or a damaged file: the phones join again
    return {str(k): str(v) for k, v in kept.items()} if isinstance(kept, dict) else {}


def read_phones(folder: Path) -> dict[str, Any]:
    """The phones kept in `folder`: each key's digest and phone id, the host, the seats' holders, pass and play (a
    damaged file reads as none: the phones join again)."""
    try:
        kept = json.loads((folder / PHONES_FILE).read_text())
    except (OSError, ValueError):
        kept = {}
    kept = kept if isinstance(kept, dict) else {}

    def strings(value: Any) -> dict[str, str]:
        return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}

    host = kept.get("host")
    together = kept.get("together")
    return {"phones": strings(kept.get("phones")), "host": host if isinstance(host, str) else None,
            "holders": strings(kept.get("holders")),
            "together": [str(p) for p in together] if isinstance(together, list) else []}  # fmt: skip


def write_phones(folder: Path, kept: dict[str, Any]) -> None:
    write_atomically(folder / PHONES_FILE, json.dumps(kept).encode(), mode=0o600)


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_ino
