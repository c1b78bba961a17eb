"""The referee on boards real hands make: compound moves in their natural orders, in every game."""

import dataclasses
import random
from pathlib import Path

import pytest

from companion.boards import default_board
from companion.rules import Action, load
from companion.scenarios import _initial_state, load_scenario
from companion.table.observation import Observation, SiteReading
from companion.table.referee import Referee, judge
from companion.table.words import piece_words

SCENARIOS = Path(__file__).parent.parent / "scenarios"


def reed(game_name, layout):
    return Observation({s.id: SiteReading(occupied=bool(layout.get(s.id))) for s in default_board(game_name).sites})


def camera(game, layout):
    sites = default_board(game.name).sites
    return Observation(
        {
            s.id: SiteReading(bool(layout.get(s.id)), tuple(game.physical_piece(p) for p in layout.get(s.id, ())))
            for s in sites
        }
    )


def scenario_state(path, before_step):
    """The state of a scenario file just before its step number `before_step` (0: its given state)."""
    scenario = load_scenario(SCENARIOS / path)
    state = _initial_state(scenario)
    for step in scenario.steps[:before_step]:
        state = scenario.game.apply(state, step.action)[0]
    return scenario.game, state


def test_a_dakalio_capture_in_natural_order_is_in_progress_then_booked(dakalio_capture):
    game, state, capture = dakalio_capture.game, dakalio_capture.state, dakalio_capture.capture
    ((piece, source, target),) = capture.footprint.moved()
    ((victim, victim_site),) = capture.footprint.removed()
    moved = {s: p for s, p in game.layout(state).items() if s != source}
    moved[target] = (piece,)
    name = lambda site: default_board("dakalio").site(site).name  # noqa: E731
    for seen in (reed("dakalio", moved), camera(game, moved)):
        ruling = judge(game, state, seen, name)
        assert ruling.verdict == "in_progress"
        assert capture.action in ruling.actions
        text = " ".join(ruling.todo)
        assert f"Take the {victim.replace('ship-', '')} ship off {name(victim_site)}: it leaves the board." in text
        assert "put" not in text.lower()  # never: put the moved ship back
        assert ruling.sites == (victim_site,)
    # The captured ship taken off: the whole footprint is on the board and the capture is booked.
    assert judge(game, state, reed("dakalio", capture.after)).actions == (capture.action,)


def test_a_lifted_piece_is_a_move_under_way_not_a_wrong_board(dakalio_capture):
    game, state, capture = dakalio_capture.game, dakalio_capture.state, dakalio_capture.capture
    ((_, source, _),) = capture.footprint.moved()
    lifted = {s: p for s, p in game.layout(state).items() if s != source}
    ruling = judge(game, state, reed("dakalio", lifted))
    assert ruling.verdict == "in_progress" and ruling.todo


def orbit_tile_or_flight():
    """A partnership ORBIT state where a card's flight lands where the friendship tile would take the ship."""
    game = load("orbit")
    state = game.setup(["red", "blue", "green", "yellow"], {"mode": "partnership"}, 2)
    rng = random.Random(2)
    referee = Referee(game)
    for _ in range(150):
        candidates = referee.prepare(state).candidates
        for tile in (c for c in candidates if c.action.type == "friendship"):
            flights = [c for c in candidates if c.after == tile.after and c.action.type == "fly"]
            if flights:
                return game, state, tile, flights[0]
        state = game.apply(state, rng.choice(list(game.legal_actions(state))))[0]
    raise AssertionError("no flight to a partner in 150 random actions")


def test_orbit_friendship_tile_and_card_flight_to_the_same_spot_are_asked_about():
    game, state, tile, flight = orbit_tile_or_flight()
    assert game.apply(state, tile.action)[0] != game.apply(state, flight.action)[0]  # they book differently
    # Docked ships stand on planets, so only the camera sees this move; it cannot see which way the ship flew.
    ruling = judge(game, state, camera(game, tile.after))
    assert ruling.verdict == "ambiguous"
    assert {tile.action, flight.action} <= set(ruling.actions)


def test_orbit_friendship_tile_alone_is_booked_when_the_camera_sees_it():
    game, state = scenario_state("orbit/partnership_friendship_tile.json", 0)
    state = dataclasses.replace(state, exchange=())  # with the exchange tile too, this board may be one half made
    referee = Referee(game)
    tile = next(c for c in referee.prepare(state).candidates if c.action.type == "friendship")
    assert not [c for c in referee.prepare(state).candidates if c.after == tile.after and c is not tile]
    ruling = referee.judge(state, camera(game, tile.after))
    assert (ruling.verdict, ruling.actions) == ("explained", (tile.action,))


def orbit_camera(game, layout):
    """ORBIT's camera as it reads: a ship hides the sticker under it, so a stack with a ship on top is a partial
    reading (something may hide under what is seen); a planet alone, a base, is read exactly."""
    sites = default_board("orbit").sites
    readings = {}
    for site in sites:
        stack = tuple(game.physical_piece(p) for p in layout.get(site.id, ()))
        ships = [p for p in stack if p.startswith("ship-")]
        readings[site.id] = SiteReading(bool(stack), stack[-1:] if ships else stack, partial=bool(ships))
    return Observation(readings)


def test_orbit_ships_moved_by_a_tile_are_booked_from_the_top_the_camera_sees():
    """A friendship tile flies a ship onto its partner's (the team's exchange tile used up, so it is no exchange
    half made): the camera sees the ship on top of the stack there (a top is always in view), so the declared move
    is booked with no tap. An exchange takes a ship away from under the one set down in its place, which a partial
    reading cannot vouch for by itself: asked about, with one choice, unless the camera sees that ship where the
    other stood and the box holds one of it (next test)."""
    for path, kind, verdict in (
        ("orbit/partnership_friendship_tile.json", "friendship", "explained"),
        ("orbit/partnership_exchange_tile.json", "exchange", "ambiguous"),
    ):
        game, state = scenario_state(path, 0)
        state = dataclasses.replace(state, exchange=()) if kind == "friendship" else state
        referee = Referee(game)
        (tile,) = [c for c in referee.prepare(state).candidates if c.action.type == kind][:1]
        seen = orbit_camera(game, tile.after)
        assert any(seen.sites[c.site].partial for c in tile.footprint.changes)
        ruling = referee.judge(state, seen)
        assert (ruling.verdict, ruling.actions) == (verdict, (tile.action,)), path
        # The grid alone cannot tell the ship from any piece set down there: the phones are asked.
        assert referee.judge(state, reed("orbit", tile.after)).verdict != "explained"


def test_an_orbit_exchange_whole_is_booked_when_each_ship_is_seen_where_the_other_stood():
    """The box holds one ship of each colour: the ship the exchange takes from under its partner's is seen on the
    partner's old site, so it hides nowhere, and the exchange is booked with no tap. A ship of which the box holds
    several (or one the camera does not see elsewhere) leaves it to the phones."""
    from companion.sensing.pieces import default_registry
    from companion.table.observe import _singles

    game, state = scenario_state("orbit/partnership_exchange_tile.json", 0)
    referee = Referee(game)
    swap = next(c for c in referee.prepare(state).candidates if c.action.type == "exchange")
    seen = orbit_camera(game, swap.after)
    singles = _singles(default_registry("orbit"))
    assert "ship-red" in singles and "nebula" not in singles
    ruling = referee.judge(state, dataclasses.replace(seen, singles=singles))
    assert (ruling.verdict, ruling.actions) == ("explained", (swap.action,))
    assert referee.judge(state, seen).verdict == "ambiguous"
    ((ship, _, target), *_) = swap.footprint.moved(game.physical_piece)
    unseen = {**seen.sites, target: SiteReading(True, None)}  # the ship's new site out of the camera's view
    ruling = referee.judge(state, dataclasses.replace(seen, sites=unseen, singles=singles))
    assert ruling.verdict == "ambiguous", ship


def test_an_orbit_exchange_half_made_is_not_booked_as_the_friendship_flight_it_looks_like():
    """Both tiles in hand: the first ship of an exchange set down on its partner's is a friendship flight whole, and
    an exchange part way: the phones are asked, never the flight booked."""
    game, state = scenario_state("orbit/dual_friendship_and_exchange.json", 0)
    referee = Referee(game)
    candidates = referee.prepare(state).candidates
    swap = next(c for c in candidates if c.action.type == "exchange")
    ((piece, source, target), *_) = swap.footprint.moved(game.physical_piece)
    before = game.layout(state)
    half = {**before, source: tuple(p for p in before[source] if p != piece), target: (*before[target], piece)}
    shown = {k: v for k, v in half.items() if v}
    assert [c for c in candidates if c.action.type == "friendship" and c.after == shown], "it looks like a flight"
    ruling = referee.judge(state, orbit_camera(game, half))
    assert ruling.verdict == "ambiguous"
    assert {a.type for a in ruling.actions} == {"friendship", "exchange"}


def test_a_trajectory_station_set_down_before_the_tap_is_offered_at_once():
    game, state = scenario_state("trajectory/engineer_builds_each_station_at_its_cost.json", 1)
    build = Action.make("build", station="storage")
    built = game.layout(game.apply(state, build)[0])
    # The camera names the station: booked with no tap.
    assert judge(game, state, camera(game, built)).actions == (build,)
    # A camera that sees only part of the stack there (a piece may hide under the one on top) cannot vouch for it:
    # offered at once, one tap, since nothing else leaves this board.
    seen = camera(game, built)
    (site,) = [s for s in built if built[s] != game.layout(state).get(s)]
    top = SiteReading(True, built[site], partial=True)
    ruling = judge(game, state, Observation({**seen.sites, site: top}))
    assert (ruling.verdict, ruling.actions) == ("ambiguous", (build,))
    # What the camera sees on top is the stack's top: a station seen without the ship on it means the ship is in
    # the air, a move still under way.
    lifted = SiteReading(True, tuple(p for p in built[site] if p.startswith("station")), partial=True)
    assert judge(game, state, Observation({**seen.sites, site: lifted})).verdict == "in_progress"
    # The grid cannot feel a station set under a ship; the camera sees it.
    assert judge(game, state, reed("trajectory", built)).verdict == "unchanged"


def test_a_periorbis_base_set_down_before_the_tap_is_offered_and_named_by_the_camera_is_booked():
    game, state = scenario_state("periorbis/build_a_base_costs_the_slot_minus_the_building_skill.json", 0)
    build = Action.make("build", employee=2, asteroid="ada")
    built = game.layout(game.apply(state, build)[0])
    by_grid = judge(game, state, reed("periorbis", built))
    assert by_grid.verdict == "ambiguous" and build in by_grid.actions
    outcomes = {game.state_to_json(game.apply(state, a)[0]).__repr__() for a in by_grid.actions}
    assert len(outcomes) == len(by_grid.actions)
    by_camera = judge(game, state, camera(game, built))
    if len(by_camera.actions) == 1:  # the camera tells the piece: booked with no tap
        assert by_camera.verdict == "explained" and by_camera.actions == (build,)
    else:
        assert by_camera.verdict == "ambiguous"


def test_an_orbital_battle_ship_taken_off_after_combat_is_offered_not_refused():
    game, state = scenario_state("orbital_battle/combat_win_by_three_destroys.json", 0)
    removed = dict(game.layout(state))
    removed["r1s1"] = ()
    for seen in (reed("orbital_battle", removed), camera(game, removed)):
        ruling = judge(game, state, seen)
        assert ruling.verdict == "ambiguous"
        assert all(a.type == "attack" for a in ruling.actions)
        # The companion's roll and the table's dice book differently: both are choices.
        assert {a.get("dice") is None for a in ruling.actions} == {True, False}


def site_names(game_name):
    board = default_board(game_name)
    return lambda site: board.site(site).name


@pytest.mark.parametrize("lift", ["trajectory_lift", "dakalio_portal_lift"])
def test_a_lift_that_the_grid_takes_for_a_move_onto_a_taken_site_is_in_hand_until_the_piece_lands(lift, request):
    """A ship lifted off its space is, to the grid, already a flight onto a planet's space (Trajectory) or a move onto
    a portal (Dakalio): nothing arrives that the grid could feel there. The same lift begins moves to empty sites,
    so the piece is in the hand: nothing is booked until it lands, a phone says, or the hold window passes."""
    lift = request.getfixturevalue(lift)
    game, state, name = lift.game, lift.state, site_names(lift.game.name)
    ruling = judge(game, state, reed(game.name, lift.lifted()), name)
    assert ruling.verdict == "in_hand"
    assert ruling.actions == (lift.onto_taken.action,)
    ((piece, origin, target),) = lift.onto_taken.footprint.moved()
    words = piece.replace("ship-", "") + " ship"
    assert ruling.todo == (f"In hand: the {words} from {name(origin)}.",)
    base = game.layout(state)[target][0]
    assert ruling.landings == (f"It landed on the {piece_words(game.physical_piece(base))} at {name(target)}.",)
    assert "-" not in ruling.todo[0] + ruling.landings[0]  # names, never ids
    assert ruling.sites == (origin,)
    # The landing decides: on an empty site, that move is booked; on the taken site, the camera sees it and books it.
    assert judge(game, state, reed(game.name, lift.elsewhere.after)).actions == (lift.elsewhere.action,)
    landed = judge(game, state, camera(game, lift.onto_taken.after))
    assert (landed.verdict, landed.actions) == ("explained", (lift.onto_taken.action,))


def test_a_planet_set_down_beside_its_space_in_the_orbit_is_taken_off_not_the_orbit_undone():
    """Trajectory's whole-system orbit part way, one planet set down on the space beside the one it goes to (to the
    grid: any piece there): the advice is to take that piece off, never to put back the planets already moved."""
    game = load("trajectory")
    state = game.setup(["red", "blue"], {"planets": {"metal": 0, "home": 0, "helium": 0, "ice": 0}}, 1)
    for action in (Action.make("draw", card="action"), Action.make("end_turn")) * 2:
        state = game.apply(state, action)[0]
    assert game.phase(state).name == "orbit"
    orbit = next(c for c in Referee(game).prepare(state).candidates if c.action.type == "orbit")
    (piece, origin, _), *_ = orbit.footprint.moved()
    board = dict(game.layout(state))
    del board[origin]
    taken = {site for c in Referee(game).prepare(state).candidates for site in c.footprint.sites} | set(board)
    beside = next(s.id for s in default_board("trajectory").sites if s.id not in taken)
    board[beside] = (piece,)
    name = site_names("trajectory")
    ruling = judge(game, state, reed("trajectory", board), name)
    assert ruling.verdict == "mismatch"
    assert [fix.advice for fix in ruling.fixes] == [f"Take the piece off {name(beside)}: nothing should stand there."]


def test_a_planet_set_down_where_another_piece_of_the_orbit_has_just_left_is_the_orbit_under_way():
    """Two hands at once in Trajectory's whole-system orbit: one piece moved on to its next space, and a planet set
    down on the space that piece left (to the grid, still taken) before it is nudged onto its own. The orbit is under
    way: the piece already moved is never told to be taken off."""
    game = load("trajectory")
    state = game.setup(["red", "blue"], {"planets": {"metal": 0, "home": 0, "helium": 0, "ice": 0}}, 1)
    for action in (Action.make("draw", card="action"), Action.make("end_turn")) * 2:
        state = game.apply(state, action)[0]
    orbit = next(c for c in Referee(game).prepare(state).candidates if c.action.type == "orbit")
    layout = game.layout(state)
    alone = [(p, a, b) for p, a, b in orbit.footprint.moved() if len(layout[a]) == 1 and not layout.get(b)]
    (planet, origin, _), (piece, left, onto) = next(
        (first, second) for first in alone for second in alone if first[0].startswith("planet") and first != second
    )
    board = dict(layout)
    del board[origin]
    board[onto] = (piece,)
    board[left] = (planet,)
    name = site_names("trajectory")
    ruling = judge(game, state, reed("trajectory", board), name)
    assert ruling.verdict == "in_progress" and orbit.action in ruling.actions
    assert name(onto) not in " ".join(ruling.todo)


def test_a_piece_dropped_on_its_way_where_a_piece_could_enter_is_never_told_to_go_back(dakalio_portal_lift):
    """A ship lifted toward a portal (a landing the grid cannot feel) and dropped on the way on a space where a ship
    could also enter from the reserve: to the grid, either the ship on its way or a ship entered with the lifted one
    gone. Neither is put back: the advice never undoes the move the hand is making."""
    lift = dakalio_portal_lift
    game, state, name = lift.game, lift.state, site_names("dakalio")
    ((ship, origin, _),) = lift.onto_taken.footprint.moved()
    candidates = Referee(game).prepare(state).candidates
    reached = {site for c in candidates if origin in c.footprint.sites for site in c.footprint.sites}
    entries = {site for c in candidates if c.action.type == "enter" for site in c.footprint.sites}
    dropped = next(site for site in sorted(entries) if site not in reached)
    board = lift.lifted()
    board[dropped] = (ship,)
    ruling = judge(game, state, reed("dakalio", board), name)
    assert ruling.verdict == "mismatch"
    assert origin not in [fix.site for fix in ruling.fixes]  # never: put the ship back where it was lifted
