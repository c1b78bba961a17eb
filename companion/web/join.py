"""Joining a table: the page's address with the table token, as text and as a QR code (on the page and in the
terminal)."""

from __future__ import annotations

import io
from urllib.parse import urlencode

import segno


def join_url(base: str, token: str | None) -> str:
    """`base` (http://host:port/) with ?t=TOKEN for a player; without it, the address to watch."""
    base = base if base.endswith("/") else base + "/"
    return base + ("?" + urlencode({"t": token}) if token else "")


def qr_svg(url: str) -> str:
    return segno.make(url, error="m").svg_inline(scale=4, omitsize=True, border=2)


def qr_terminal(url: str) -> str:
    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()
