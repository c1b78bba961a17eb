"""Who may do what: each view declares what a request must show in its head, and the server checks it there, before
a byte of the body is read (door.py); the view checks it again, so the app is safe on its own too.

- open: anyone on the table's network (watching: the page, the state, the log, the stream);
- token: the table token (`X-Orrery-Token`), from the join QR code: joining as a phone, the join code;
- phone: the token and a joined phone's own key (`X-Orrery-Phone`): taking a seat, the editors' checks;
- seated: a phone that holds a seat: the game's moves, undo, pause, the guides (a phone without one watches);
- host: the token and the host phone's key: a new game, a new table code, giving another phone's seat, saving
  the table's data sets.
A seat's actions (a move, undo, pause) need a phone that holds the seat: the view checks the seat it names.
Headers and not cookies: a browser never adds a header by itself, so another site's page cannot make a player's
phone send it, and no CSRF token is needed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from enum import IntEnum
from typing import Any, TypeVar

from flask import request

from companion.web.context import table
from companion.web.errors import BadInput
from companion.web.seats import Phone, Seats

TOKEN_HEADER = "X-Orrery-Token"
PHONE_HEADER = "X-Orrery-Phone"
ACCESS = "orrery_access"  # the attribute a view's level is kept in
View = TypeVar("View", bound=Callable[..., Any])


class Access(IntEnum):
    OPEN = 0
    TOKEN = 1
    PHONE = 2
    SEATED = 3
    HOST = 4


def caller(headers: Mapping[str, str], seats: Seats, needed: Access) -> Phone | None:
    """The phone a request's head names (None: none named), or BadInput (403, one line) when the head does not
    show what `needed` asks."""
    if needed is Access.OPEN:
        return seats.phone(headers.get(PHONE_HEADER, ""))
    sent = headers.get(TOKEN_HEADER, "")
    if not sent:
        raise BadInput("this browser may only watch: scan the table's QR code to join as a player", 403)
    if not seats.token_matches(sent):
        raise BadInput("the table token is wrong: scan the table's QR code again", 403)
    phone = seats.phone(headers.get(PHONE_HEADER, ""))
    if needed >= Access.PHONE and phone is None:
        raise BadInput("this phone has not joined the table: open the page from the table's QR code again", 403)
    if needed is Access.SEATED and phone is not None and not phone.seats:
        raise BadInput("this phone watches: take a seat to play", 403)
    if needed is Access.HOST and phone is not None and not phone.host:
        raise BadInput("only the host's phone may do that (the phone that set the table up)", 403)
    return phone


def this_phone(needed: Access = Access.PHONE) -> Phone | None:
    """The phone making the current request (checked against `needed`)."""
    return caller(request.headers, table().seats, needed)


def the_phone() -> Phone:
    """The joined phone making the current request."""
    phone = this_phone(Access.PHONE)
    assert phone is not None
    return phone


def requires(needed: Access) -> Callable[[View], View]:
    def mark(view: View) -> View:
        @functools.wraps(view)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            this_phone(needed)
            return view(*args, **kwargs)

        setattr(guarded, ACCESS, needed)
        return guarded  # type: ignore[return-value]

    return mark


requires_token = requires(Access.TOKEN)
requires_phone = requires(Access.PHONE)
requires_seat = requires(Access.SEATED)
requires_host = requires(Access.HOST)


def access_of(view: Callable[..., Any]) -> Access:
    return getattr(view, ACCESS, Access.OPEN)


def check_token() -> None:
    this_phone(Access.TOKEN)
