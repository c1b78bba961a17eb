"""Orbital Battle's planet maps on grids of their own at one table: landings and land moves made by hands on a
planet map's switches are booked by the referee, a wrong land move is named by its hex."""

import random
import time

import pytest

from companion.rules import load
from companion.sim.players import scripted_action
from companion.sim.table_grids import TableGrids
from companion.table.beside import layout_prefix
from companion.table.config import BoardGrid, TableConfig
from companion.table.live import LiveTable
from companion.table.session import Session
from companion.table.store import Store

GAME = load("orbital_battle")
SEED = 1


def _played_until(wanted: str) -> tuple[list, object]:
    """Scripted play from SEED until a board move of type `wanted` that the grids alone can tell: no other legal
    action sets a piece on the same hex with another outcome."""
    state = GAME.setup(["red", "blue"], {}, SEED)
    rng = random.Random(SEED)
    played = []
    for _ in range(600):
        actions = list(GAME.legal_actions(state))
        for action in actions:
            if action.type != wanted:
                continue
            to = dict(action.args).get("at") or dict(action.args).get("to")
            results = {
                str(GAME.state_to_json(GAME.apply(state, other)[0]))
                for other in actions
                if other.type in ("unload", "march") and to in dict(other.args).values()
            }
            if len(results) == 1:
                return played, action
        played.append(scripted_action(GAME, state, rng))
        state = GAME.apply(state, played[-1])[0]
    raise AssertionError(f"no {wanted} in 600 scripted actions")


def _wait(check, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (found := check()) is not None and found is not False:
            return found
        time.sleep(0.02)
    raise AssertionError("the table did not get there in time")


@pytest.fixture
def table(tmp_path, request):
    """A table with the solar map on a 16 x 16 grid and the planet of the move on an 8 x 8 of its own, the game
    played up to the move."""
    played, action = _played_until(request.param)
    to = dict(action.args).get("at") or dict(action.args).get("to")
    planet = to.split(":")[0].removeprefix("p")
    spec = f"orbital_battle:planet{planet}"
    store = Store(tmp_path / "t.db")
    session = Session.start(store, "orbital_battle", ["red", "blue"], {}, SEED)
    for done in played:
        session.submit(done, "phone", GAME.phase(session.state).actor)
    store.close()
    with TableGrids(tmp_path, [("orbital_battle", ""), (spec, layout_prefix("orbital_battle", spec))]) as grids:
        grids.show(GAME.layout(session.state))
        solar, beside = grids.boards
        config = TableConfig(game="orbital_battle", players=("red", "blue"), db=str(tmp_path / "t.db"),
                             serial=solar.grid.port, grid_profile=str(solar.profile), settle=0.1,
                             boards=(BoardGrid(spec, beside.grid.port, str(beside.profile)),))  # fmt: skip
        live = LiveTable(config).start(wait=10)
        try:
            assert live.resumed and live.loop is not None
            yield live, grids, action
        finally:
            live.stop()


def _quiet(live: LiveTable) -> None:
    """The table has looked at the board as it stands and found it agrees with the game."""
    _wait(lambda: live.observer.settled_at(time.monotonic()) is not None)
    time.sleep(0.1)  # a few looks: the settled board is judged
    assert live.loop.warning is None and live.loop.question is None


@pytest.mark.parametrize("table", ["march", "unload"], indirect=True)
def test_a_land_move_and_a_landing_made_by_hand_are_booked(table):
    live, grids, action = table
    _quiet(live)
    count = len(live.session.actions)
    result = GAME.apply(live.session.state, action)[0]
    grids.show(GAME.layout(result))
    _wait(lambda: len(live.session.actions) > count)
    booked = live.session.actions[-1]
    assert booked.type == action.type and GAME.state_to_json(live.session.state) == GAME.state_to_json(result)
    assert list(live.session.store.entries(live.session.record.id))[-1].source == "board"


@pytest.mark.parametrize("table", ["march"], indirect=True)
def test_a_wrong_land_move_is_a_mismatch_naming_the_hex(table):
    live, grids, action = table
    _quiet(live)
    state = live.session.state
    unit = dict(action.args)["unit"]
    here = next(u.site for u in state.units if u.uid == unit)
    # A hex no legal action sets a piece on (an edge hex may take a landing marine: that is a move under way).
    legal = {value for a in GAME.legal_actions(state) for value in dict(a.args).values() if isinstance(value, str)}
    board = grids.boards[1]
    prefix = board.prefix
    wrong = next(prefix + s.id for s in board.board.sites
                 if prefix + s.id not in legal and prefix + s.id != here
                 and not GAME.layout(state).get(prefix + s.id))  # fmt: skip
    layout = dict(GAME.layout(state))
    layout[wrong] = layout.pop(here)
    count = len(live.session.actions)
    grids.show(layout)
    warning = _wait(lambda: (w := live.loop.warning) is not None and not w.progress and w)
    hexes = {board.board.site(s.removeprefix(prefix)).name for s in (wrong, here)}
    assert warning.headline == "The board does not match the game."
    assert any(name in warning.text for name in hexes), warning.text
    assert set(warning.sites) <= {wrong, here} and warning.sites
    assert len(live.session.actions) == count


def test_every_map_at_the_table_has_corner_markers_of_its_own():
    """One camera over the solar map and the planet maps tells each map by its markers."""
    from companion.boards import default_board

    maps = [default_board("orbital_battle"), *(default_board(f"orbital_battle:planet{n}") for n in range(1, 9))]
    ids = [f.id for board in maps for f in board.fiducials]
    assert len(ids) == len(set(ids)) == 4 * len(maps) and max(ids) < 50
    assert {f.dictionary for board in maps for f in board.fiducials} == {"DICT_4X4_50"}


@pytest.mark.parametrize("table", ["march"], indirect=True)
def test_a_planet_maps_grid_unplugged_is_the_grid_lost_not_its_pieces_taken_off(table):
    """A planet map whose grid stops answering would read as every piece on it lifted: the table says the grid is
    lost and judges nothing until it is back."""
    live, grids, _ = table
    _quiet(live)
    count = len(live.session.actions)
    grids.boards[1].grid.stop()
    told = _wait(lambda: [e for e in live.session.store.entries(live.session.record.id)
                          if e.events and e.events[0]["type"] == "grid-lost"])  # fmt: skip
    assert told and live.senses.status()["grid"] == "lost"
    time.sleep(0.3)
    assert live.loop.warning is None and len(live.session.actions) == count


def test_a_config_names_the_planet_maps_and_one_not_calibrated_yet_names_no_site(tmp_path):
    from companion.table.config import load_config

    path = tmp_path / "table.toml"
    path.write_text('game = "orbital_battle"\nplayers = ["red", "blue"]\n[grid]\nserial = "none"\n'
                    '[[boards]]\nboard = "orbital_battle:planet3"\nserial = "/dev/null"\n'
                    f'profile = "{tmp_path / "planet3.json"}"\n')  # fmt: skip
    config = load_config(path).with_overrides(db=str(tmp_path / "t.db"))
    assert config.boards == (BoardGrid("orbital_battle:planet3", "/dev/null", str(tmp_path / "planet3.json")),)
    live = LiveTable(config)
    try:
        assert any("the grid under orbital_battle:planet3 is left out" in note for note in live.notes)
        # Its grid is opened all the same, so that the phones can calibrate it; it names no site until then.
        assert live.switch_sites == {} and live.site_name("p3:0402") == "planet 3 hex 0402"
        (grid,) = live.beside_grids()
        assert grid.board.name == "orbital_battle:planet3" and grid.prefix == "p3:" and grid.mapping() == {}
    finally:
        live.store.close()
