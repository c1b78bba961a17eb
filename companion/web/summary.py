"""The end of a game to keep and share: a picture (SVG, drawn here on the Pi, which the page turns into a PNG to share)
and a page of its own at a stable address (/games/ID), each with the game, the day it was played, the result and every
player's books at the end, by name and colour, winners first."""

from __future__ import annotations

import time
from html import escape
from typing import Any

from flask import Blueprint, Response

from companion.table.session import CannotResume
from companion.table.store import StoreError
from companion.web.body import LARGEST
from companion.web.context import table
from companion.web.errors import BadInput

summaries = Blueprint("summaries", __name__)

# The seats' colours as the page's map draws them (static/map.js), so the picture shows each player in the colour
# the phones show them in; a seat that is not a colour gets a neutral one.
SEAT_COLOURS = {
    "red": "#ef476f", "green": "#06d6a0", "blue": "#4d8bff", "yellow": "#ffd166", "orange": "#f78c40",
    "purple": "#b57cf2", "white": "#f2f2f2", "black": "#555555", "grey": "#999999", "gray": "#999999",
    "silver": "#c0c0c0", "teal": "#2ec4b6", "brown": "#a0522d",
}  # fmt: skip
NEUTRAL = "#9aa4ba"
WIDTH, PAD, TEXT, MUTED, PANEL, BACK = 480, 16, "#e8ecf4", "#9aa4ba", "#1a2030", "#10141c"
LINE = 22  # px between the rows of a player's books
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"


def seat_name(seat: str, names: dict[str, str]) -> str:
    """A seat as players say it: its colour, and the player's name before it when one was given."""
    colour = seat[:1].upper() + seat[1:]
    return f"{names[seat]} ({colour})" if names.get(seat) else colour


def played_on(created: float) -> str:
    """The day and time a game began, in the table's own time ("25 November 2026, 18:05")."""
    moment = time.localtime(created)
    return f"{moment.tm_mday} {time.strftime('%B %Y, %H:%M', moment)}"


def _wrap(text: str, size: float, width: float) -> list[str]:
    """Lines of at most `width` px at `size` px (an average glyph is about 0.55 of the size in a sans-serif)."""
    most = max(8, int(width / (size * 0.55)))
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= most:
            lines[-1] += " " + word
        else:
            lines.extend(word[i : i + most] for i in range(0, len(word), most))
    return lines or [""]


def ordered(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The players' books, winners first (then in seat order)."""
    winners = summary["winners"]
    return sorted(summary["books"]["players"], key=lambda p: p["seat"] not in winners)


def summary_svg(summary: dict[str, Any], names: dict[str, str]) -> str:
    """The summary as one SVG picture, WIDTH px wide and as tall as its players' books need."""
    parts: list[str] = []
    y = PAD + 30

    def text(x: float, at: float, words: str, size: float, fill: str = TEXT, weight: int = 400, end: bool = False
             ) -> None:  # fmt: skip
        anchor = ' text-anchor="end"' if end else ""
        parts.append(f'<text x="{x}" y="{at:.0f}" font-size="{size}" font-weight="{weight}" fill="{fill}"{anchor}>'
                     f"{escape(words)}</text>")  # fmt: skip

    text(PAD, y, summary["title"], 26, weight=700)
    y += 24
    text(PAD, y, f"{played_on(summary['created'])} · game {summary['id']} · Orrery", 14, MUTED)
    result = summary["result"] or ("not finished" if summary["status"] != "over" else "over")
    for line in _wrap(result, 18, WIDTH - 2 * PAD):
        y += 26
        text(PAD, y, line, 18, weight=600)
    y += 20
    inner = WIDTH - 2 * PAD - 32
    for player in ordered(summary):
        seat, winner = player["seat"], player["seat"] in summary["winners"]
        rows = [(label, _wrap(value, 15, inner * 0.62)) for label, value in player["rows"]]
        height = 48 + sum(LINE * len(lines) for _, lines in rows) + 12
        colour = SEAT_COLOURS.get(seat.lower(), NEUTRAL)
        parts.append(f'<rect x="{PAD}" y="{y}" width="{WIDTH - 2 * PAD}" height="{height}" rx="12" fill="{PANEL}" '
                     f'stroke="{colour if winner else "#2c3550"}" stroke-width="{3 if winner else 1}"/>')  # fmt: skip
        parts.append(f'<rect x="{PAD}" y="{y}" width="10" height="{height}" rx="5" fill="{colour}"/>')
        heading = seat_name(seat, names) + (" · winner" if winner else "")
        text(PAD + 22, y + 30, heading, round(min(19.0, inner / (0.58 * len(heading))), 1), weight=700)  # one line
        row_y = y + 30
        for label, lines in rows:
            row_y += LINE
            text(PAD + 22, row_y, label, 15, MUTED)
            for index, line in enumerate(lines):
                text(WIDTH - PAD - 12, row_y + LINE * index, line, 15, weight=600, end=True)
            row_y += LINE * (len(lines) - 1)
        y += height + 12
    total = y + PAD - 12
    title = escape(f"{summary['title']}, {played_on(summary['created'])}: {result}")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{total}" viewBox="0 0 {WIDTH} {total}" '
            f'role="img" font-family="{FONT}"><title>{title}</title>'
            f'<rect width="{WIDTH}" height="{total}" fill="{BACK}"/>' + "".join(parts) + "</svg>")  # fmt: skip


def summary_html(summary: dict[str, Any], names: dict[str, str]) -> str:
    """A page of its own for one game: the picture, and buttons to share it, download it and keep the game."""
    game_id, title = summary["id"], f"{summary['title']}, {played_on(summary['created'])}"
    return f"""<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)} · Orrery</title><link rel="stylesheet" href="/static/style.css">
<script type="module" src="/static/share.js"></script></head>
<body>
<main class="summary-page">
  <h1 class="sr">{escape(title)}</h1>
  <figure class="summary-picture">{summary_svg(summary, names)}</figure>
  <div class="row">
    <button class="accent share-summary" data-game="{game_id}" data-title="{escape(title)}">Share</button>
    <a class="button" href="/games/{game_id}/summary.svg" download="{_file_name(summary)}.svg">Download the picture</a>
    <a class="button" href="/api/export?game={game_id}" download>Keep the game (JSON)</a>
    <a class="button" href="/">Back to the table</a>
  </div>
</main>
</body>
</html>
"""


def _file_name(summary: dict[str, Any]) -> str:
    return f"orrery-{summary['game']}-{summary['id']}"


def _summary(game_id: int) -> tuple[dict[str, Any], dict[str, str]]:
    try:
        summary = table().past.summary(game_id)
    except CannotResume as error:
        raise BadInput(str(error), 409) from None
    except StoreError:
        raise BadInput("game: no such game in this table's log", 404) from None
    return summary, table().seats.names


@summaries.get(f"/games/<int(max={LARGEST}):game_id>")
def page(game_id: int) -> Response:
    response = Response(summary_html(*_summary(game_id)), mimetype="text/html")
    response.headers["Cache-Control"] = "no-cache"
    return response


@summaries.get(f"/games/<int(max={LARGEST}):game_id>/summary.svg")
def picture(game_id: int) -> Response:
    summary, names = _summary(game_id)
    response = Response(summary_svg(summary, names), mimetype="image/svg+xml")
    response.headers["Content-Disposition"] = f'inline; filename="{_file_name(summary)}.svg"'
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response
