"""Invariants of Periorbis over random games: hypothesis picks the seeds, the table size and the game length."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.boards import default_board
from companion.rules import Action, load
from companion.rules.periorbis.state import data, open_slots
from companion.sim.players import playout

GAME = load("periorbis")
COLOURS = ["red", "green", "blue", "yellow", "orange", "purple"]
SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])

games = st.tuples(st.integers(0, 2**32), st.integers(2, 6), st.sampled_from(["full", "short"]))


def _play(seed, players, length, limit=20_000):
    state = GAME.setup(COLOURS[:players], {"length": length}, seed)
    return state, list(playout(GAME, state, seed, max_actions=limit))


@SETTINGS
@given(games)
def test_random_games_end_with_winners(game):
    _, moves = _play(*game)
    final = moves[-1].state
    outcome = GAME.outcome(final)
    assert outcome is not None and outcome.winners
    assert final.turn == (12 if game[2] == "full" else 6)


@SETTINGS
@given(games)
def test_books_stay_within_the_rules(game):
    _, moves = _play(*game)
    for move in moves:
        state = move.state
        facts = data(state)
        for books in state.books.values():
            assert books.credits >= 0 and books.research >= 0 and books.storage >= 0
            assert 1 <= books.drive <= facts.setup.drive_levels and books.fleet <= facts.setup.fleet_max
            assert {int(s) for s in books.employees} <= set(open_slots(books, facts.setup.hq_open))
            assert all(b.crates >= 0 for b in books.bases.values())
            assert all(e.where == "hq" or e.where in books.bases for e in books.employees.values())
        for ship in state.ships:
            assert ship.crates <= facts.ships[ship.card].spaces
            players = [c.player for c in ship.rows if c is not None]
            assert len(players) == len(set(players))
        for ore in state.ore.values():
            assert min(ore.black, ore.grey, ore.white) >= 0
        if state.active is not None:
            assert state.active.cargo <= state.books[state.active.player].fleet


@SETTINGS
@given(games)
def test_the_board_shows_one_marker_every_base_and_every_disc_on_a_base(game):
    _, moves = _play(*game)
    board = default_board("periorbis")
    for move in moves:
        state = move.state
        pieces = [p for stack in GAME.layout(state).values() for p in stack]
        assert all(board.has_site(site) for site in GAME.layout(state))
        assert pieces.count("turn-marker") == 1
        for player, books in state.books.items():
            assert pieces.count(f"base-{player}") == len(books.bases)
            on_bases = sum(1 for e in books.employees.values() if e.where != "hq")
            assert sum(1 for p in pieces if p.startswith("disc") and p.endswith(f"-{player}")) == on_bases


@SETTINGS
@given(games)
def test_states_round_trip_through_json_and_games_replay(game):
    start, moves = _play(*game, limit=300)
    for move in moves[::20]:
        data_ = json.loads(json.dumps(GAME.state_to_json(move.state)))
        assert GAME.state_from_json(data_, GAME.material(move.state)) == move.state
        json.dumps(GAME.ledger(move.state))
    seed, players, length = game
    replayed, _ = GAME.replay(COLOURS[:players], {"length": length}, seed, [m.action for m in moves])
    assert replayed == (moves[-1].state if moves else start)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_every_legal_action_is_accepted(game):
    _, moves = _play(*game, limit=200)
    for move in moves[::10]:
        for action in GAME.legal_actions(move.state):
            GAME.apply(move.state, action)
            assert Action.from_json(action.to_json()) == action


@SETTINGS
@given(st.integers(0, 2**32), st.integers(2, 6))
def test_a_table_drawing_its_own_cards_plays_whole_games(seed, players):
    start = GAME.setup(COLOURS[:players], {"length": "short", "cards": "table"}, seed)
    moves = list(playout(GAME, start, seed))
    assert GAME.outcome(moves[-1].state) is not None
    befores = [start, *(m.state for m in moves[:-1])]
    for before, move in zip(befores, moves, strict=True):
        assert (move.action.type == "reveal") == bool(before.owed)  # a draw owed comes before anything else
    revealed = [m.action.get("ship") or m.action.get("card") for m in moves if m.action.type == "reveal"]
    assert len(revealed) == len(set(revealed)) > 0  # no card comes up twice


@SETTINGS
@given(st.integers(0, 2**32), st.integers(2, 6))
def test_revealing_the_cards_the_companion_would_draw_plays_the_same_game(seed, players):
    """The same game twice: the companion drawing, and a table revealing the very cards the companion drew."""
    companion = GAME.setup(COLOURS[:players], {"length": "short"}, seed)
    moves = list(playout(GAME, companion, seed))
    cards = [ship.card for ship in companion.ships]
    for move in moves:
        for event in move.events:
            cards += [event.data["ship"]] if event.type == "ship-arrives" else event.data.get("cards", [])
    table = GAME.setup(COLOURS[:players], {"length": "short", "cards": "table"}, seed)
    for action in [None, *(m.action for m in moves)]:
        while table.owed:
            key = "ship" if table.owed[0] == "ship" else "card"
            table = GAME.apply(table, Action.make("reveal", **{key: cards.pop(0)}))[0]
        if action is not None:
            table = GAME.apply(table, action)[0]
    assert cards == []
    assert GAME.ledger(table) == GAME.ledger(moves[-1].state) and GAME.outcome(table) == GAME.outcome(moves[-1].state)
