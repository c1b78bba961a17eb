"""Who may act: a request that changes the game must carry the table's token in a header.

A header (not a cookie) because a browser never adds it by itself: another site's page cannot make a player's
phone send it, so the check is safe against cross-site request forgery with no extra CSRF token.
"""

from __future__ import annotations

import functools
import hmac
from collections.abc import Callable
from typing import Any, TypeVar

from flask import request

from companion.web.context import table
from companion.web.errors import BadInput

TOKEN_HEADER = "X-Orrery-Token"
View = TypeVar("View", bound=Callable[..., Any])


def has_token() -> bool:
    sent = request.headers.get(TOKEN_HEADER, "")
    return bool(sent) and hmac.compare_digest(sent.encode(), table().seats.token.encode())


def check_token() -> None:
    if not request.headers.get(TOKEN_HEADER):
        raise BadInput("this browser may only watch: scan the table's QR code to join as a player", 403)
    if not has_token():
        raise BadInput("the table token is wrong: scan the table's QR code again", 403)


def requires_token(view: View) -> View:
    @functools.wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        check_token()
        return view(*args, **kwargs)

    return guarded  # type: ignore[return-value]
