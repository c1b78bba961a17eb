"""The referee against synthetic observations: reed-only, camera-only, partial views and wrong boards."""

import pytest

from companion.boards import default_board
from companion.rules import Action, load
from companion.rules.engine import unpointed
from companion.table.observation import Observation, SiteReading
from companion.table.referee import judge

GAME = load("trajectory")
SITES = [s.id for s in default_board("trajectory").sites]
FIXED = {"planets": {"metal": 0, "home": 0, "helium": 0, "ice": 0}}


@pytest.fixture
def state():
    state = GAME.setup(["red", "blue"], FIXED, 1)
    return GAME.apply(state, Action.make("draw", card="action"))[0]


def reed(layout):
    return Observation({site: SiteReading(occupied=bool(layout.get(site))) for site in SITES})


def camera(layout, sites=SITES):
    return Observation({site: SiteReading(pieces=tuple(layout.get(site, ()))) for site in sites})


def after(state, **action):
    return GAME.layout(GAME.apply(state, Action.make(**action))[0])


def test_an_untouched_board_is_unchanged(state):
    assert judge(GAME, state, reed(GAME.layout(state))).verdict == "unchanged"
    assert judge(GAME, state, camera(GAME.layout(state))).verdict == "unchanged"


def test_a_move_seen_by_the_reed_grid_alone_is_explained(state):
    ruling = judge(GAME, state, reed(after(state, type="move", to="o3s1")))
    assert ruling.verdict == "explained"
    assert ruling.actions == (Action.make("move", to="o3s1"),)


def test_a_ship_leaving_a_shared_space_is_explained_by_the_camera(state):
    # Red and blue end up sharing o2s2; the camera tells which of them left it.
    moved = GAME.apply(state, Action.make("move", to="o2s1"))[0]
    blue_waits = GAME.apply(GAME.apply(moved, Action.make("end_turn"))[0], Action.make("draw", card="action"))[0]
    blue_waits = GAME.apply(blue_waits, Action.make("move", to="o2s1"))[0]
    blue_waits = GAME.apply(blue_waits, Action.make("end_turn"))[0]
    blue_waits = GAME.apply(blue_waits, Action.make("orbit"))[0]
    red_turn = GAME.apply(blue_waits, Action.make("draw", card="action"))[0]
    target = "o2s3"
    # Both ships stand on o2s2 now; red flies to o2s3, blue stays.
    assert GAME.layout(red_turn)["o2s2"] == ("ship-red", "ship-blue")
    seen = after(red_turn, type="move", to=target)
    assert judge(GAME, red_turn, camera(seen)).actions == (Action.make("move", to=target),)


def test_a_partial_view_with_several_explanations_is_ambiguous(state):
    # The camera sees red has left home but is blind everywhere else: every move red could make fits.
    seen = after(state, type="move", to="o3s1")
    ruling = judge(GAME, state, camera(seen, sites=["o2s0"]))
    assert ruling.verdict == "ambiguous"
    assert Action.make("move", to="o3s1") in ruling.actions and len(ruling.actions) > 1


def test_an_illegal_move_is_a_mismatch_with_advice(state):
    layout = dict(GAME.layout(state))
    layout["o2s0"] = ("planet-home", "ship-blue")
    layout["o3s5"] = ("ship-red",)  # two orbits away: not one move
    ruling = judge(GAME, state, camera(layout), name=lambda s: default_board("trajectory").site(s).name)
    assert ruling.verdict == "mismatch"
    advice = {fix.site: fix.advice for fix in ruling.fixes}
    assert advice == {
        "o2s0": "Put the red ship on orbit 2 space 0.",
        "o3s5": "Take the red ship off orbit 3 space 5.",
    }


def test_advice_names_pieces_and_sites_in_words_never_ids():
    """A Dakalio base piece knocked off its site: put the red dakalio back on e4 (red base), not red-dakalio."""
    game = load("dakalio")
    state = game.setup(["red", "blue"], {"mode": "simple"}, 1)
    board = default_board("dakalio")
    layout = dict(game.layout(state))
    site = next(s for s, pieces in layout.items() if pieces == ("red-dakalio",))
    del layout[site]
    ruling = judge(
        game,
        state,
        Observation({s.id: SiteReading(bool(layout.get(s.id))) for s in board.sites}),
        name=lambda s: board.site(s).name,
    )
    assert [fix.advice for fix in ruling.fixes] == [f"Put the red dakalio back on {board.site(site).name}."]


def test_a_knocked_piece_seen_by_the_reed_grid_is_a_mismatch(state):
    layout = dict(GAME.layout(state))
    layout["o4s20"] = ("ship-red",)  # a piece knocked onto an empty space, nothing left home (planet remains)
    ruling = judge(GAME, state, reed(layout))
    assert ruling.verdict == "mismatch"
    assert [fix.site for fix in ruling.fixes] == ["o4s20"]
    assert ruling.fixes[0].advice == "Take the piece off o4s20: nothing should stand there."


def test_advice_when_the_grid_and_the_camera_disagree_or_a_piece_is_doubled():
    from companion.table.observation import Observation, SiteReading
    from companion.table.referee import _fixes

    layout = {"a": ("infestor-ice",), "b": ("planet-home",)}
    seen = Observation(
        {"a": SiteReading(True, ("infestor-ice", "infestor-ice")), "b": SiteReading(False, ("planet-home",))}
    )
    fixes = {fix.site: fix.advice for fix in _fixes(layout, seen, ["a", "b"], lambda site: f"site {site}")}
    assert fixes["a"] == "Take the ice infestor off site a."
    assert fixes["b"] == "Check site b: the grid and the camera disagree there."


ORBIT = load("orbit")
ORBIT_SITES = [s.id for s in default_board("orbit").sites]
STICKERED = frozenset(
    f"{kind}-{c}"
    for kind in ("planet", "ship")
    for c in ("red", "orange", "yellow", "green", "blue", "purple", "brown", "gray")
)


def orbit_grid(layout):
    return Observation({site: SiteReading(bool(layout.get(site))) for site in ORBIT_SITES})


def orbit_camera(layout):
    """What ORBIT's camera reads with the grid: each stack's top ship (partial: it hides what is under it), else
    the planet with the way its arrow points; only pieces with stickers, named as the box names them."""
    readings = {}
    for site in ORBIT_SITES:
        stack = [ORBIT.physical_piece(p) for p in layout.get(site, ())]
        seen = [p for p in stack if unpointed(p) in STICKERED]
        ships = [p for p in seen if p.startswith("ship-")]
        readings[site] = SiteReading(bool(stack), tuple(ships[-1:] or seen), partial=bool(ships))
    return Observation(readings, camera_pieces=STICKERED)


def docking_flight():
    """A dual game's state where Red's second (blue) ship can fly onto a planet, and that flight."""
    start = ORBIT.setup(["red", "green"], {"mode": "dual"}, 3)
    for card in ORBIT.legal_actions(start):
        played = ORBIT.apply(start, card)[0]
        for action in ORBIT.legal_actions(played):
            if action.type == "fly" and action["ship"] == "blue" and ORBIT.layout(played).get(action["to"]):
                return played, action
    raise AssertionError("no card lets the blue ship fly onto a planet")


def test_orbit_the_camera_tells_which_ship_docked_where_the_grid_cannot():
    """Red's second ship (blue, `ship-blue-red` in the layout) flies from its planet onto another: both sites keep a
    piece, so the grid feels nothing at all; the camera, seeing the blue ship on the other planet, settles it."""
    state, action = docking_flight()
    seen = ORBIT.layout(ORBIT.apply(state, action)[0])
    assert "ship-blue-red" in seen[action["to"]]
    assert judge(ORBIT, state, orbit_grid(seen)).verdict == "unchanged"
    assert judge(ORBIT, state, orbit_camera(seen)).actions == (action,)

    class NamedByRole(type(ORBIT)):
        def physical_piece(self, name: str) -> str:
            return name  # the layout's names compared as they are: the blue ship seen is not `ship-blue-red`

    assert judge(NamedByRole(), state, orbit_camera(seen)).verdict == "mismatch"


def test_a_ship_the_camera_sees_docked_is_the_move_not_a_piece_knocked_where_the_ship_could_have_gone():
    """The blue ship docks on a planet (the grid feels nothing there; the camera sees it on top) while a neighbour is
    knocked onto an empty spot the ship could also have flown to, where the camera reads nothing it can name. The
    flight the camera sees is the move: the advice is about the knocked piece alone, never to take the ship off."""
    state, action = docking_flight()
    before = ORBIT.layout(state)
    seen = dict(ORBIT.layout(ORBIT.apply(state, action)[0]))
    flown = {a["to"] for a in ORBIT.legal_actions(state) if a.type == "fly" and a["ship"] == action["ship"]}
    moved = {site for site in before if before.get(site) != seen.get(site)}
    spot = next(site for site in sorted(flown) if not before.get(site))
    knocked = next(site for site in sorted(before) if len(before[site]) == 1 and site not in moved | {spot})
    seen[spot], seen[knocked] = before[knocked], ()
    camera = orbit_camera(seen)
    readings = {**camera.sites, spot: SiteReading(True)}  # a piece there the camera cannot name
    ruling = judge(ORBIT, state, Observation(readings, camera_pieces=camera.camera_pieces))
    assert ruling.verdict == "mismatch" and {fix.site for fix in ruling.fixes} <= {spot, knocked}, ruling


def test_pieces_the_camera_does_not_tell_apart_are_left_to_the_grid():
    seen = Observation(
        {"a": SiteReading(True, ()), "b": SiteReading(True, ("ship-red",), partial=True)},
        camera_pieces=frozenset({"ship-red", "planet-red"}),
    )
    assert seen.agrees("a", ("nebula",)) and seen.agrees("b", ("station-hand", "ship-red"))
    assert not seen.agrees("a", ("planet-red",))  # a planet it would have seen
    assert not seen.agrees("a", ())  # the grid feels a piece
    assert not Observation(dict(seen.sites)).agrees("a", ("nebula",))  # a camera that knows every piece sees none
    assert seen.shown(("station-hand", "planet-red", "ship-blue-red"), ORBIT.physical_piece) == ("planet-red",)


def _entering_where_a_move_could_end():
    """A Dakalio position where a ship entering the mat lands where a ship on the mat could also move to."""
    import random

    from companion.table.referee import Referee

    game = load("dakalio")
    state, rng, referee = game.setup(["red", "green"], {}, 1), random.Random(1), Referee(game)
    for _ in range(200):
        candidates = referee.prepare(state).candidates
        for enter in (c for c in candidates if c.action.type == "enter"):
            for move in candidates:
                if move.action.type == "move" and move.footprint.sites > enter.footprint.sites:
                    return game, state, enter
        state = game.apply(state, rng.choice(list(game.legal_actions(state))))[0]
    raise AssertionError("no such position in 200 random actions")


def dakalio_reed(layout):
    return Observation({s.id: SiteReading(occupied=bool(layout.get(s.id))) for s in default_board("dakalio").sites})


def test_a_ship_set_down_where_a_move_could_end_is_booked_as_entering_not_asked_about():
    # The ship that could move there still stands at its origin: a hand lifts a piece before setting it down, so
    # the board is no move half made, and the entering ship needs no tap.
    game, state, enter = _entering_where_a_move_could_end()
    ruling = judge(game, state, dakalio_reed(enter.after))
    assert (ruling.verdict, ruling.actions) == ("explained", (enter.action,))


def test_a_neighbour_knocked_off_mid_move_is_all_the_advice_not_the_move_itself():
    game, state, enter = _entering_where_a_move_could_end()
    (target,) = enter.footprint.sites
    neighbour = next(site for site, pieces in enter.after.items() if pieces and site != target)
    knocked = {**enter.after, neighbour: ()}
    ruling = judge(game, state, dakalio_reed(knocked))
    assert ruling.verdict == "mismatch"
    assert [fix.site for fix in ruling.fixes] == [neighbour]  # never "take the piece off" the ship's new site


def test_a_ship_set_down_where_no_move_of_it_goes_is_checked_neither_put_back_nor_a_second_move_begun():
    # A ship carried from its site to one only a ship from the reserve could enter: to the grid, a ship lifted (a
    # move of its own begun) and a ship entering. Pieces are conserved: the entering ship shows no lift of its own,
    # so only one move is under way, not two. The same board is a ship dropped on its way to a legal site: which
    # piece is out of place is not certain, so both sites are to be checked and the lifted ship is never put back.
    import random

    from companion.table.referee import Referee

    game = load("dakalio")
    state, rng, referee = game.setup(["red", "green"], {}, 1), random.Random(1), Referee(game)
    for _ in range(200):
        layout, candidates = game.layout(state), referee.prepare(state).candidates
        entries = {c.footprint.changes[0].site for c in candidates if c.action.type == "enter"}
        for move in (c for c in candidates if c.action.type == "move" and len(c.footprint.changes) == 2):
            ((piece, origin, _),) = move.footprint.moved()
            reach = {t for c in candidates for _, o, t in c.footprint.moved() if o == origin}
            target = next(iter(sorted(entries - reach)), None)
            if target is not None:
                ruling = judge(game, state, dakalio_reed({**layout, origin: (), target: (piece,)}))
                assert ruling.verdict == "mismatch"
                assert origin not in [fix.site for fix in ruling.fixes]
                assert {origin, target} <= set(ruling.sites) and ruling.todo[0].startswith("Check ")
                return
        state = game.apply(state, rng.choice(list(game.legal_actions(state))))[0]
    raise AssertionError("no such position in 200 random actions")


def _two_moves_to_one_site():
    """A Dakalio state where two ships can each move to the same empty site (plain moves: one piece leaves, the
    same piece arrives), and those two moves."""
    import random

    from companion.table.referee import Referee

    game = load("dakalio")
    state, rng, referee = game.setup(["red", "green"], {}, 1), random.Random(2), Referee(game)
    for turn in range(600):
        if game.outcome(state) is not None:
            state = game.setup(["red", "green"], {}, turn)
        moves = [
            c
            for c in referee.prepare(state).candidates
            if not c.declared and len(c.footprint.changes) == 2 and len(c.footprint.moved()) == 1
        ]
        for first in moves:
            _, origin, target = first.footprint.moved()[0]
            for other in moves:
                _, elsewhere, same = other.footprint.moved()[0]
                if same == target and elsewhere != origin:
                    return game, state, first, other
        state = game.apply(state, rng.choice(list(game.legal_actions(state))))[0]
    raise AssertionError("no such position in 600 random actions")


def test_when_two_moves_under_way_tie_the_advice_puts_back_neither():
    # One ship has moved to the target while the other ship that could have gone there was knocked off: to the
    # grid, either ship may be the one moved. Advice to put either back could undo the move being made, so the
    # table names the sites to check instead.
    game, state, first, other = _two_moves_to_one_site()
    (_, origin, target), (_, elsewhere, _) = first.footprint.moved()[0], other.footprint.moved()[0]
    board = {**first.after, elsewhere: ()}
    ruling = judge(game, state, dakalio_reed(board))
    assert ruling.verdict == "mismatch"
    assert {fix.site for fix in ruling.fixes}.isdisjoint({origin, elsewhere, target})
    assert set(ruling.sites) == {origin, elsewhere}
    assert ruling.todo and "Check" in ruling.todo[0]
    # Once the knocked ship is back, the move alone is on the board: booked.
    assert judge(game, state, dakalio_reed(first.after)).actions == (first.action,)


def test_an_infestor_drawn_at_the_edge_of_the_frame_is_booked_by_the_piece_read_there():
    """An infestation point near the frame's edge: the camera vouches only that the infestor it read is there (more
    may stand beyond the frame), which still tells one drawn infestor from another; the grid alone cannot."""
    state = GAME.setup(["red", "blue"], FIXED, 1)
    drawn = Action.make("draw", card="infestor", infestor="ice")
    board = after(state, type="draw", card="infestor", infestor="ice")
    point = next(site for site, pieces in board.items() if pieces == ("infestor-ice",))
    edge = Observation({**reed(board).sites, point: SiteReading(True, ("infestor-ice",), partial=True, top=0)})
    assert judge(GAME, state, edge).actions == (drawn,)
    assert judge(GAME, state, edge).verdict == "explained"
    assert judge(GAME, state, reed(board)).verdict == "ambiguous"
    # Where the ice planet stands on the point, a reading of the planet alone there (the infestor beside it out of
    # the frame) shows nothing new: nothing is booked.
    space = int(point.split("s")[-1])
    state = GAME.setup(["red", "blue"], {"planets": {**FIXED["planets"], "ice": space}}, 1)
    board = after(state, type="draw", card="infestor", infestor="ice")
    assert board[point] == ("planet-ice", "infestor-ice")
    planet = Observation({**reed(board).sites, point: SiteReading(True, ("planet-ice",), partial=True, top=0)})
    assert judge(GAME, state, planet).verdict == "unchanged"
    seen = Observation({**planet.sites, point: SiteReading(True, board[point], partial=True, top=0)})
    assert judge(GAME, state, seen).actions == (drawn,)


def test_a_stack_reaching_out_of_the_frame_names_only_the_pieces_read_there():
    from companion.table.footprint import footprint
    from companion.table.referee import Candidate, _named

    set_down = Candidate(
        Action.make("draw", card="infestor", infestor="ice"),
        {},
        footprint({"a": ("planet-ice",)}, {"a": ("planet-ice", "infestor-ice")}),
        True,
    )

    def read(*pieces):
        return Observation({"a": SiteReading(True, pieces, partial=True, top=0)})

    assert not _named(set_down, read("planet-ice"), str)
    assert _named(set_down, read("planet-ice", "infestor-ice"), str)
