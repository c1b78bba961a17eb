"""Whole games of all five games played through `companion serve`'s own table to their end: the scripted players'
hands move the pieces over the reed grid on a pty (for Trajectory, the real firmware in simavr), the table's own
threads judge them, and the phones declare over HTTP only what a phone declares (or what the table could not book
from the board). Nothing is submitted to the session behind the table's back. Orbital Battle's planet maps lie on
grids of their own, as its solar map does."""

from __future__ import annotations

import pytest

from companion.rules import Action
from companion.sim.hand_play import HandTable
from companion.sim.hands import Habits
from companion.sim.phones import HttpPhones
from companion.sim.table_setup import TOKEN, make_twin
from companion.web.serve import start_server

GAMES = [
    ("orbit", 2, {}, 1, "virtual"),
    ("dakalio", 2, {"mode": "simple"}, 2, "virtual"),
    ("orbital_battle", 2, {"turn_limit": 2}, 1, "virtual"),  # two turns: units land on the planet maps' own grids
    ("trajectory", 2, {}, 1, "simavr"),  # the real firmware behind its bootloader, in simavr
    ("periorbis", 2, {"length": "short"}, 1, "virtual"),
]


@pytest.fixture(scope="module")
def firmware(tmp_path_factory):
    return tmp_path_factory.mktemp("firmware")


@pytest.mark.parametrize(("game", "players", "options", "seed", "grid"), GAMES, ids=[g[0] for g in GAMES])
def test_a_whole_game_is_played_at_the_table_to_its_end(tmp_path, firmware, game, players, options, seed, grid):
    twin = make_twin(game, players, seed, grid, str(tmp_path / "t.db"), 0.0, 0.0, options=options, settle=0.03,
                     firmware=firmware)  # fmt: skip
    server = start_server(twin.web, "127.0.0.1", 0)
    twin.phones = HttpPhones(f"http://127.0.0.1:{server.port}/", TOKEN)
    try:
        with twin:
            table = HandTable(twin, seed, Habits(slide=0.2, lift=0.1, knock=0.05))
            stats = table.play(1500)
            session = twin.session
            # The board the grid reports at the end is the game's.
            assert twin.occupancy() == twin._closed(session.game.layout(session.state))
            entries = list(session.store.entries(session.record.id))
    finally:
        server.stop()
    assert session.game.outcome(session.state) is not None
    assert stats.board_changes > 0 and stats.frames >= stats.board_changes
    actions = [e for e in entries if e.kind == "action"]
    # Moves came from the board and declarations from the phones, nothing else; the log replays to the end.
    sources = {e.source for e in actions}
    assert sources <= {"board", "phone"} and "phone" in sources
    if game == "orbital_battle":
        # Landings are made by hand on the planet maps, each on its own grid, and booked from what those grids feel.
        landed = [a for e in actions if e.source == "board" and (a := Action.from_json(e.action)).type == "unload"]
        assert landed and all(dict(a.args)["at"].startswith("p") for a in landed)
    # (a board the hands leave for less than the table takes to hear it may settle half set on a loaded machine with
    # this short a settle window: a booking the hand did not make is undone on a phone, and counted)
    undone = sum(e.kind == "undo" for e in entries)
    assert undone == stats.wrong_bookings, table.findings
    played: list[Action] = []
    for entry in entries:
        if entry.kind in ("undo", "correction"):  # (a correction puts another action in place of the last)
            played.pop()
        if entry.action:
            played.append(Action.from_json(entry.action))
    replayed, _ = session.game.replay(session.record.players, options, seed, played)
    assert session.game.state_to_json(replayed) == session.game.state_to_json(session.state)
    print(f"{game}: {vars(stats)}; tapped although on the board: {dict(table.tapped)}; unseen: {dict(table.unseen)}")
