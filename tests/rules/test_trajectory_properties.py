"""Invariants of Trajectory over random games: hypothesis picks the seeds, the table size and the difficulty."""

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.boards import trajectory as geometry
from companion.rules import Action, load
from companion.rules.trajectory.state import (
    FUEL_TOKENS,
    PROVISION_TOKENS,
    RESOURCE_TOKENS,
    RINGS,
    Infestor,
    Station,
    capacity,
    supply_left,
)
from companion.sim.players import playout

GAME = load("trajectory")
COLOURS = ["red", "green", "blue", "yellow", "orange", "purple"]
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

games = st.tuples(st.integers(0, 2**32), st.integers(1, 6), st.sampled_from(["easy", "normal", "hard"]))


def _play(seed, players, difficulty, limit=400):
    state = GAME.setup(COLOURS[:players], {"difficulty": difficulty}, seed)
    return state, list(playout(GAME, state, seed, max_actions=limit))


def _pieces(state):
    return sorted(p for pieces in GAME.layout(state).values() for p in pieces)


@SETTINGS
@given(games)
def test_books_stay_within_the_box(game):
    _, moves = _play(*game)
    for move in moves:
        state = move.state
        for ship in state.ships.values():
            assert min(ship.hold.items().values()) >= 0 and ship.cards >= 0
            assert ship.hold.weight <= capacity(ship, state.options)
        for good, total in (("fuel", FUEL_TOKENS), ("metal", RESOURCE_TOKENS), ("provisions", PROVISION_TOKENS)):
            assert 0 <= supply_left(state, good) <= total
        assert len(state.stations) <= RINGS
        cards = sum(s.cards for s in state.ships.values())
        assert cards + sum(p.actions for p in state.deck) <= 36


@SETTINGS
@given(games)
def test_pieces_are_conserved_except_where_the_rules_add_or_remove_them(game):
    # How many pieces of each kind an action may add (+) or remove (-); every other count stays exactly the same.
    allowed = {
        "draw": {"infestor": (0, 1)},
        "move_infestors": {"infestor": (-12, 0)},  # traps destroy arrivals
        "build": {"station": (1, 1)},
        "disassemble": {"station": (-1, -1)},
        "destroy": {"infestor": (-1, -1)},
    }
    state, moves = _play(*game)
    for move in moves:
        before, after = _pieces(state), _pieces(move.state)
        for kind in ("ship", "planet", "station", "infestor"):
            change = sum(p.startswith(kind) for p in after) - sum(p.startswith(kind) for p in before)
            low, high = allowed.get(move.action.type, {}).get(kind, (0, 0))
            assert low <= change <= high, (move.action, kind, change)
        if move.action.type not in allowed:
            assert before == after, move.action
        state = move.state


@SETTINGS
@given(games)
def test_state_json_round_trip_and_replay(game):
    seed, players, difficulty = game
    start, moves = _play(seed, players, difficulty)
    for move in moves[::7]:
        assert GAME.state_from_json(GAME.state_to_json(move.state), GAME.material(move.state)) == move.state
    actions = [Action.from_json(m.action.to_json()) for m in moves]
    replayed, events = GAME.replay(COLOURS[:players], {"difficulty": difficulty}, seed, actions)
    assert replayed == (moves[-1].state if moves else start)
    assert [e.to_json() for e in events] == [e.to_json() for m in moves for e in m.events]


@SETTINGS
@given(games)
def test_every_generated_action_is_accepted(game):
    _, moves = _play(*game, limit=150)
    for move in moves[::5]:
        if GAME.outcome(move.state) is None:
            for action in GAME.legal_actions(move.state):
                GAME.apply(move.state, action)


sites = st.sampled_from([s.id for s in geometry.build().sites])


@SETTINGS
@given(
    st.lists(sites, min_size=1, max_size=6),
    st.lists(sites, max_size=4, unique=True),
    st.lists(sites, max_size=4),
    st.integers(1, 64),
)
def test_orbiting_moves_everything_one_space_and_returns_after_32_rounds(ship_sites, station_sites, infestor_sites, k):
    state = GAME.setup(COLOURS[: len(ship_sites)], {}, 1)
    state = replace(
        state,
        ships={name: replace(ship, site=s) for (name, ship), s in zip(state.ships.items(), ship_sites, strict=True)},
        stations=tuple(Station("storage", s) for s in station_sites),
        infestors=tuple(Infestor("ice", "ice", s, settled=True) for s in infestor_sites),
    )

    def orbit_once(s):
        s, _ = GAME.apply(replace(s, stage="orbit", turn=None), Action.make("orbit"))
        return s

    def shifted(site, n):
        orbit, space = geometry.parse_site(site)
        return geometry.site_id(orbit, space + n)

    # Orbit n turns once every 4 * 2**(n-1) rounds, so the whole board comes back every 32 rounds (not 60: after
    # 60 rounds orbits 2 to 4 stand 4, 12 and 28 spaces on), which k up to 64 covers.
    moved = state
    for _ in range(k):
        moved = orbit_once(moved)
    assert [s.site for s in moved.ships.values()] == [shifted(s, k) for s in ship_sites]
    assert [s.site for s in moved.stations] == [shifted(s, k) for s in station_sites]
    assert [i.site for i in moved.infestors] == [shifted(s, k) for s in infestor_sites]
    assert moved.planets == {p: shifted(s, k) for p, s in state.planets.items()}
    for _ in range(32 - k % 32):
        moved = orbit_once(moved)
    assert GAME.layout(moved) == GAME.layout(state)
