"""ORBIT's planet arrows: the layout names a planet with the way it points, the camera reads it from the sticker's
turn (the twin's rendered camera, through the real vision), and the referee books a turned arrow from that reading;
to the grid alone a turned arrow changes nothing, so it is said on a phone."""

import random

from companion.rules import load
from companion.rules.engine import points_to, unpointed
from companion.sim.players import scripted_action
from companion.sim.table_setup import game_board, twin_camera
from companion.table.observation import Observation, SiteReading
from companion.table.referee import Referee

ORBIT = load("orbit")


def reading(camera, layout):
    """The grid's and the rendered camera's reading of `layout`, as the table's observer would fuse them."""
    view = camera.look(layout, 0.0)
    sites = {}
    for site in (s.id for s in camera.board.sites):
        pieces = None if site in view.unreliable else view.stacks.get(site, ())
        sites[site] = SiteReading(bool(layout.get(site)), pieces, partial=site in view.partial)
    return Observation(sites, camera_pieces=view.pieces)


def grid(layout, board):
    return Observation({s.id: SiteReading(bool(layout.get(s.id))) for s in board.sites})


def find(options, wanted, players=("red", "green", "blue"), tries=4000):
    """A state of a scripted game where an action `wanted(state, action)` picks is legal, and that action."""
    rng = random.Random(5)
    seed = 1
    state = ORBIT.setup(list(players), options, seed)
    for _ in range(tries):
        if ORBIT.outcome(state) is not None:
            seed += 1
            state = ORBIT.setup(list(players), options, seed)
        for action in ORBIT.legal_actions(state):
            if wanted(state, action):
                return state, action
        state = ORBIT.apply(state, scripted_action(ORBIT, state, rng))[0]
    raise AssertionError("no such state")


def test_the_layout_names_each_planet_with_the_way_its_arrow_points():
    state = ORBIT.setup(["red", "green"], {}, 1)
    planets = [p for stack in ORBIT.layout(state).values() for p in stack if p.startswith("planet-")]
    assert len(planets) == 8
    for name in planets:
        colour = unpointed(name).removeprefix("planet-")
        assert points_to(name) == state.planets[colour].heading


def test_a_reversed_arrow_is_booked_from_the_camera_and_left_to_a_phone_with_the_grid_alone():
    def bare_planet_reversed(state, action):
        if action.type != "reverse":
            return False
        site = state.planets[action["planet"]].site
        return len(ORBIT.layout(state)[site]) == 1  # no ship on it: its sticker is in view

    state, action = find({}, bare_planet_reversed)
    board = game_board("orbit", {})
    after = ORBIT.layout(ORBIT.apply(state, action)[0])
    camera = twin_camera("orbit", board, 3)
    seen = reading(camera, after)
    site = state.planets[action["planet"]].site
    assert seen.reading(site).pieces == (f"planet-{action['planet']}>{action['heading']}",)
    assert Referee(ORBIT).judge(state, seen).actions == (action,)
    assert Referee(ORBIT).judge(state, grid(after, board)).verdict == "unchanged"
    # The board as it was: the camera sees the arrow where the game has it.
    assert Referee(ORBIT).judge(state, reading(camera, ORBIT.layout(state))).verdict == "unchanged"


def test_a_planet_stopped_at_a_fork_is_steered_on_a_phone_unless_a_camera_reads_its_arrow():
    def steer_of_a_bare_planet(state, action):
        if action.type != "steer":
            return False
        colour = state.turn.steer
        return len(ORBIT.layout(state)[state.planets[colour].site]) == 1

    state, action = find({"board": "back"}, steer_of_a_bare_planet)
    board = game_board("orbit", {"board": "back"})
    after = ORBIT.layout(ORBIT.apply(state, action)[0])
    site = state.planets[state.turn.steer].site
    # The fork's two ways leave a few degrees apart: the rendered camera leaves the arrow unread, as the grid does.
    seen = reading(twin_camera("orbit", board, 4), after)
    assert seen.reading(site).pieces == (unpointed(after[site][0]),)
    assert Referee(ORBIT).judge(state, seen).verdict == "unchanged"
    assert Referee(ORBIT).judge(state, grid(after, board)).verdict == "unchanged"
    # A camera that reads it (ways far enough apart on a board of one's own) settles the steer with no tap.
    exact = Observation({**seen.sites, site: SiteReading(True, after[site])}, camera_pieces=seen.camera_pieces)
    assert points_to(after[site][0]) == action["heading"]
    assert Referee(ORBIT).judge(state, exact).actions == (action,)


def test_a_planet_pointing_another_way_than_the_game_has_it_is_advised_to_be_turned():
    state = ORBIT.setup(["red", "green"], {}, 1)
    layout = ORBIT.layout(state)
    site, name = next((s, p[0]) for s, p in layout.items() if len(p) == 1 and p[0].startswith("planet-"))
    board = game_board("orbit", {})
    other = next(link.b for link in board.links_from(site) if link.kind == "orbit" and link.b != points_to(name))
    seen = Observation({s.id: SiteReading(bool(layout.get(s.id)), layout.get(s.id, ())) for s in board.sites})
    wrong = Observation({**seen.sites, site: SiteReading(True, (f"{unpointed(name)}>{other}",))})
    assert Referee(ORBIT).judge(state, seen).verdict == "unchanged"
    ruling = Referee(ORBIT).judge(state, wrong, lambda s: board.site(s).name)
    assert ruling.verdict == "mismatch"
    colour = unpointed(name).removeprefix("planet-")
    assert [f.advice for f in ruling.fixes] == [
        f"Turn the {colour} planet on {board.site(site).name} to point to {board.site(points_to(name)).name}."
    ]
