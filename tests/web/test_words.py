"""Every text a player sees uses names, never ids: whole twin games of all five games, walked announcement by
announcement, with each phase's prompt, the books as the page shows them, the labels of the moves the page offers
and the words of their steps, the end, and the twin's warnings and questions (messy hands and illegal moves on a
simulated reed grid). A text fails on an internal id (a site id where the board prints a name, a piece id, a card
id, a snake_case name), a JSON fragment, a raw option value where the option has a name ("Mode: simple"), a card
number or a ship's code where the card has a name ("card 17", "ship 1-7"), or a list that writes the same kind of
word in two cases ("orange, yellow, Green"); and a prompt names a player as the page's header does.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from companion.boards import default_board
from companion.rules import load, names
from companion.rules.orbital_battle.units import KINDS as UNIT_KINDS
from companion.rules.words import verdict
from companion.sim.players import random_action
from companion.sim.table_setup import make_twin
from companion.web.books import books
from companion.web.inputs import inputs
from companion.web.words import Words

GAMES = {"trajectory": 2, "orbit": 2, "dakalio": 2, "orbital_battle": 2, "periorbis": 3}
JSON = re.compile(r"[{}\[\]]|\"\w+\"\s*:|\b(?:true|false|null|True|False|None)\b")
SNAKE = re.compile(r"\b[a-z]+_[a-z_]+\b")
# A piece id: lowercase words joined by hyphens, one of them a kind of piece or a seat's colour (transport-green).
HYPHENATED = re.compile(r"\b[a-z0-9_]+(?:-[a-z0-9_]+)+\b")
PIECE_PARTS = {"ship", "planet", "station", "base", "army", "fleet", "infestor", "marker", "dakalio", *UNIT_KINDS,
               "red", "green", "blue", "yellow"}  # fmt: skip
CARD = re.compile(r"\b[Cc]ard:? c\d+\b")
# A card or a ship by its number where it has a name: "hires card 29", "cards in the pool: 29, 2", "Card: 17",
# "to ship 1-7", "Ship: 1-7".
NUMBERED = re.compile(
    r"\bcards? \d+\b|\bcards\b[^.:;]*: \d+, \d+|\bCard: \d+(?![\w ])|"
    r"\b[Ss]hips?:? (?:ship )?\d+-\d+\b"
)
COLOURS = {"red", "orange", "yellow", "green", "blue", "purple", "brown", "gray", "grey", "white", "black", "pink"}
# An option's value as the rules spell it, where the New game form gives it a name ("simple": "Simple: one game").
RAW = {
    value
    for game in names()
    for words in load(game).option_words.values()
    for value, name in words.choices.items()
    if isinstance(value, str) and not name.startswith(value)
}


def mixed_case(text: str) -> list[str]:
    """A list of colours written in two cases ("orange, yellow, Green, Blue")."""
    found = []
    for run in re.findall(r"\b[A-Za-z]+(?:, [A-Za-z]+)+\b", text):
        words = run.split(", ")
        if all(w.lower() in COLOURS for w in words) and len({w[0].isupper() for w in words}) > 1:
            found.append(run)
    return found


def leaks(text: str, site_ids: set[str]) -> list[str]:
    """What in `text` is an internal id or JSON rather than words."""
    found = [m.group() for pattern in (JSON, SNAKE, CARD, NUMBERED) for m in pattern.finditer(text)]
    found += mixed_case(text)
    found += [value for value in re.findall(r": ([a-z]+)$", text) if value in RAW]  # a books row: "Mode: simple"
    found += [m.group() for m in HYPHENATED.finditer(text) if PIECE_PARTS.intersection(m.group().split("-"))]
    found += [word for word in re.findall(r"[a-z0-9:/-]+", text) if word in site_ids]
    return found


def ids_of(game: str) -> set[str]:
    """The board's site ids that are not also the name printed on the board (Dakalio's mat prints d8)."""
    return {site.id for site in default_board(game).sites if site.id != site.name and len(site.id) > 2}


def texts_of_a_game(game: str, players: int, seed: int) -> Iterator[tuple[str, str]]:
    """(where, text) for every announcement, prompt, book row and offered move of a whole game played out."""
    engine = load(game)
    seats = ["red", "green", "blue", "yellow"][:players]
    words = Words(default_board(game), seats)
    state = engine.setup(seats, {}, seed)
    rng = random.Random(seed)
    for step in range(3000):
        yield "prompt", words.text(engine.phase(state).prompt)
        if step % 50 == 0:  # the books and the moves offered, now and then: they are the slow part
            shown = books(game, engine.ledger(state), words)
            for player in shown["players"]:
                yield from ((f"books {player['name']}", f"{label}: {text}") for label, text in player["rows"])
            yield from (("books table", f"{label}: {text}") for label, text in shown["table"])
            for item in inputs(engine, state, words)[:40]:
                yield "move", item["label"]
                yield "move", item["title"]
                yield from (("move step", f"{name}: {said}") for name, _, said, *_ in item["steps"])
                yield from (("move piece", piece) for piece in item["pieces"])
        if engine.outcome(state) is not None:
            outcome = engine.outcome(state)
            yield "outcome", words.text(verdict(outcome.result, outcome.winners, outcome.reason))
            return
        state, events = engine.apply(state, random_action(engine, state, rng))
        yield from (("announcement", words.text(event.text)) for event in events)


def test_the_leak_finder_catches_what_it_is_for():
    assert leaks("Green hires card 29, a basic employee. New employee cards in the pool: 29, 2.", set()) == [
        "card 29",
        "cards in the pool: 29, 2",
    ]
    assert leaks("Green carries 2 crates to ship 1-7. Ship: 1-7", set()) == ["ship 1-7", "Ship: 1-7"]
    assert leaks("Markers to place: orange, yellow, Green, Blue", set()) == ["orange, yellow, Green, Blue"]
    assert leaks("Mode: simple", set()) == ["simple"] and leaks("Difficulty: normal", set()) == ["normal"]
    assert leaks("Card: c01", set()) == ["Card: c01"] and leaks("Card: 17", set()) == ["Card: 17"]
    assert leaks("Card: 1 wild planet; fly 3", set()) == []
    assert leaks("Cards in hand: 3; Pool: specialist miner (no. 17), 6 credits; Mode: Simple", set()) == []


@pytest.mark.parametrize("game", list(GAMES))
def test_every_text_of_a_whole_game_uses_names(game):
    site_ids = ids_of(game)
    bad: dict[str, list[str]] = {}
    for where, text in texts_of_a_game(game, GAMES[game], 11):
        found = leaks(text, site_ids)
        if found:
            bad.setdefault(f"{where}: {text}", found)
    assert not bad, "\n".join(f"{text}  <- {found}" for text, found in list(bad.items())[:25])


@pytest.mark.parametrize("game", list(GAMES))
def test_the_twins_warnings_and_questions_use_names(game, tmp_path):
    """Messy hands and illegal moves on the simulated grid: every warning, its advice and every question."""
    twin = make_twin(game, GAMES[game], 5, "virtual", str(tmp_path / "t.db"), mess=0.3, illegal=0.3)
    seen: list[str] = []

    def on_warning(warning: Any) -> None:
        if warning is not None:
            seen.extend([warning.text, *warning.advice])

    def on_question(question: Any) -> None:
        if question is not None:  # None: the question was withdrawn
            seen.extend(question.texts)

    twin.loop.warnings.subscribe(on_warning)
    twin.loop.questions.subscribe(on_question)
    with twin:
        twin.play(120)
        entries = list(twin.session.store.entries(twin.session.record.id))
    seen += [event["text"] for entry in entries for event in entry.events]
    words = Words(default_board(game), twin.session.record.players)
    site_ids = ids_of(game)
    shown = [words.text(text) for text in seen]  # as the page's table layer hands them to the phones
    bad = {text: leaks(text, site_ids) for text in shown if leaks(text, site_ids)}
    assert twin.stats.illegal_tried > 0
    assert not bad, "\n".join(f"{text}  <- {found}" for text, found in list(bad.items())[:25])


def test_the_stream_and_the_log_hand_out_the_sentences_in_words(tmp_path):
    """An ORBIT card played: its announcement names no card id, live, in the log and in a replayed page alike."""
    from .conftest import phones_table

    with phones_table(tmp_path / "t.db", "orbit", ["red", "green"]) as table:
        session = table.session
        card = next(iter(session.game.legal_actions(session.state)))
        entry = session.submit(card, "phone", "red")
        assert "card c" in entry.events[0]["text"]  # the engine's own sentence, kept in the log as it was
        shown = table.entry_json(entry)["events"][0]["text"]
        assert shown.startswith("Red plays a card: ") and not leaks(shown, ids_of("orbit"))
        assert [e["events"] for e in table.logbook.entries()][-1][0]["text"] == shown
        _, _, replayed = table.logbook.replay_page(0, 50)
        assert b"card c" not in replayed and shown.encode() in replayed


def test_orbit_books_name_the_card_in_play_by_what_it_does():
    engine = load("orbit")
    state = engine.setup(["red", "green"], {}, 3)
    play = next(a for a in engine.legal_actions(state) if a.type == "play")
    state = engine.apply(state, play)[0]
    table = dict(books("orbit", engine.ledger(state), Words(default_board("orbit"), ["red", "green"]))["table"])
    assert not re.search(r"\bc\d+\b", table["Card in play"]), table
    assert table["Card in play"].split(" ")[0] in ("advance", "fly", "take", "reverse", "nebula", "1", "2")
    assert ":" not in table["Features left"], table


def test_records_in_the_books_name_their_numbers_and_the_asteroids_their_capitals():
    """Periorbis's books: ore by colour, a contract by its row and the ship's name, the pool card by card by the
    names the cards print, asteroids by the names the board prints (Ada, not ada); never a row of bare numbers."""
    words = Words(default_board("periorbis"), ["red", "green"])
    employees = {
        "1": {"card": 0, "role": "basic", "where": "ada", "acted": True},
        "2": {"card": -1, "role": "engineer", "where": "hq", "acted": False},
    }
    ship = "level 1 ship paying 9 a crate"
    ledger = {"players": {"red": {"bases": ["ada", "eros"], "employees": employees,
                                  "contracts": [{"ship": "1-4", "name": ship, "row": 2, "crates": 1, "bonus": 0}]}},
              "table": {"ore": {"ada": {"black": 4, "grey": 3, "white": 1}},
                        "ships": [{"ship": "1-4", "name": ship, "crates": 1, "minimum": 5}],
                        "pool": [{"card": 10, "name": "specialist miner no. 10", "price": 6},
                                 {"card": 12, "name": "specialist captain no. 12", "price": 8}]}}  # fmt: skip
    shown = books("periorbis", ledger, words)
    assert dict(shown["players"][0]["rows"]) == {
        "Bases": "Ada, Eros",
        "Contracts": f"row 2 of the {ship}, 1 crate",
        "Employees": "1: basic on Ada, has acted; 2: engineer at HQ",
    }
    assert dict(shown["table"]) == {
        "Ore": "Ada: black 4, grey 3, white 1",
        "Ships": f"{ship}: 1 of 5 crates",
        "Pool": "specialist miner no. 10, 6 credits; specialist captain no. 12, 8 credits",
    }


def test_a_planet_is_named_with_the_way_its_arrow_points():
    words = Words(default_board("orbit"), ["red", "green"])
    assert words.piece("planet-red>r1s1") == f"{words.piece('planet-red')} pointing to {words.site('r1s1')}"
    assert "r1s1" not in words.piece("planet-red>r1s1")
    # in a sentence too (the referee's advice names the pieces it wants back as the layout has them)
    assert words.text("Put planet-green>r4s1, ship-green back on r1s0.") == (
        "Put green planet pointing to ring 4 spot 1, Green's ship back on ring 1 spot 0."
    )
    assert words.text("r1s0>r1s1, 2>1") == "ring 1 spot 0>ring 1 spot 1, 2>1"


def test_a_message_quoted_back_keeps_its_words_and_says_its_sites_by_name():
    words = Words(default_board("orbital_battle"), ["red", "blue"])
    said = words.places("r3s7 is not next to sun; no action 'fly_to_r3s7'")
    assert said == "ring 3 hex 7 is not next to the star; no action 'fly_to_r3s7'"


def test_a_site_already_named_in_words_is_named_once():
    """The referee names sites as the board does ("e4 (red base)"); the page names once what is already named."""
    words = Words(default_board("dakalio"), ["red", "blue"])
    assert words.text("Put the red dakalio back on e4 (red base).") == "Put the red dakalio back on e4 (red base)."
    assert words.text("Put red-dakalio back on e4.") == "Put Red's dakalio back on e4 (red base)."
    assert words.places("e4 (red base) or e4") == "e4 (red base) or e4 (red base)"


def test_a_prompt_names_the_player_as_the_header_does(tmp_path):
    """A seat given a player's name: the banner's prompt and the end say "Ann (Red)" as the header above them."""
    from .conftest import phones_table

    with phones_table(tmp_path / "t.db", "dakalio", ["red", "green"]) as table:
        session = table.session
        table.name_seat("green", "Ann")
        assert table.state()["phase"]["prompt"].startswith("Ann (Green) plays first: ")
        game = session.game
        while not any(a.type == "resign" for a in game.legal_actions(session.state)):  # the asteroids placed
            session.submit(next(iter(game.legal_actions(session.state))), "phone", game.phase(session.state).actor)
        resign = next(a for a in game.legal_actions(session.state) if a.type == "resign")
        session.submit(resign, "phone", game.phase(session.state).actor)
        assert "Ann (Green)" in table.state()["outcome"]["sentence"], table.state()["outcome"]


def test_orbital_battles_books_say_the_home_world_is_a_planet():
    from companion.rules import Action

    engine, seats = load("orbital_battle"), ["red", "green"]
    words = Words(default_board("orbital_battle"), seats)
    state = engine.setup(seats, {}, 3)

    def home_rows() -> list[list[str]]:
        return [row for player in books("orbital_battle", engine.ledger(state), words)["players"]
                for row in player["rows"] if row[0] == "Home world"]  # fmt: skip

    assert home_rows() == [["Home world", "not picked yet"]] * 2
    state = engine.apply(state, Action.make("roll", dice=(6, 1)))[0]
    state = engine.apply(state, Action.make("home", planet="6"))[0]
    assert home_rows() == [["Home world", "planet 6"], ["Home world", "not picked yet"]]
