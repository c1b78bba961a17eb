"""The end of a game to share: its picture (/games/ID/summary.svg) and its page (/games/ID), served by the companion,
for whole games of all five games played out by random players: every player by name with the game's own books
broken down, winners first, the game and the day, and no id or JSON fragment anywhere in what a player reads."""

from __future__ import annotations

import random
import time
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET

import pytest

from companion.sim.players import random_action
from companion.table.session import Session
from companion.web.serve import start_server
from companion.web.summary import played_on, seat_name
from companion.web.table import Table

from .conftest import free_port, phones_table
from .test_words import GAMES, ids_of, leaks

NAMES = {"red": "Ann", "green": "Bartholomew Wiśniewski"}
SVG = "{http://www.w3.org/2000/svg}"


def fetch(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.headers["Content-Type"], answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode()


def played_out(session: Session, seed: int, most: int = 2500) -> None:
    """Random players play the game to its end (or `most` actions; Dakalio's players resign after 60)."""
    rng = random.Random(seed)
    for step in range(most):
        if session.game.outcome(session.state) is not None:
            return
        legal = list(session.game.legal_actions(session.state))
        resign = [action for action in legal if action.type == "resign"]
        action = resign[0] if resign and step > 60 else random_action(session.game, session.state, rng)
        session.submit(action, "phone", session.game.phase(session.state).actor)


@pytest.mark.parametrize("game", list(GAMES))
def test_a_games_summary_picture_and_page_name_every_player_and_score(tmp_path, game):
    seats = ["red", "green", "blue"][: GAMES[game]]
    with phones_table(tmp_path / "table.db", game, seats, seed=5) as table:
        summarised(table, game, seats)


def summarised(table: Table, game: str, seats: list[str]) -> None:
    """The game at `table` played out, and its summary picture and page served."""
    session = table.session
    for seat, name in NAMES.items():
        table.name_seat(seat, name)
    played_out(session, 5)
    server = start_server(table, "127.0.0.1", free_port(), threads=4)
    try:
        base = f"http://127.0.0.1:{server.port}"
        status, kind, svg = fetch(f"{base}/games/{session.record.id}/summary.svg")
        assert status == 200 and kind.startswith("image/svg+xml")
        lines = ["".join(text.itertext()) for text in ET.fromstring(svg).iter(f"{SVG}text")]
        said = " ".join(lines)
        summary = table.past.summary(session.record.id)
        assert summary["title"] in lines[0] and played_on(summary["created"]) in lines[1]
        outcome = session.game.outcome(session.state)
        if outcome is not None:
            assert " ".join(table.words().text(outcome.reason).split()) in said
        headings = [line for line in lines if any(line.startswith(seat_name(s, NAMES)) for s in seats)]
        assert len(headings) == len(seats), lines  # one card per player, by the player's name and colour
        if outcome is not None and outcome.winners:
            assert headings[0].endswith("· winner") and headings[0].startswith(seat_name(outcome.winners[0], NAMES))
        for player in summary["books"]["players"]:
            assert player["rows"], player  # the game's own books, broken down
            for label, value in player["rows"]:
                words = " ".join(value.split())
                shown = words in said or words.replace(" ", "") in said.replace(" ", "")  # a long word cut in two
                assert label in lines and shown, (label, value)
        site_ids = ids_of(game)
        assert not [(line, leaks(line, site_ids)) for line in lines if leaks(line, site_ids)]
        status, kind, html = fetch(f"{base}/games/{session.record.id}")
        assert status == 200 and kind.startswith("text/html")
        assert "<svg" in html and all(name in html for name in NAMES.values() if name.split()[0] in said)
        assert f'href="/api/export?game={session.record.id}"' in html
        status, _, missing = fetch(f"{base}/games/{session.record.id + 9}/summary.svg")
        assert status == 404 and "no such game" in missing
    finally:
        server.stop()


def test_the_day_is_said_in_words():
    assert played_on(time.mktime((2026, 11, 25, 18, 5, 0, 0, 0, -1))) == "25 November 2026, 18:05"
