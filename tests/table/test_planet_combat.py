"""Land combat on a planet map at the twin's table, every map on a grid of its own: the fight is declared on a
phone, then hands take the loser's unit off its planet hex. In between the page says what is still to do there (never
to put back what the fight did); once the unit is off, the board matches and nothing more is booked."""

import random

import pytest

from companion.rules import Action, load
from companion.rules.orbital_battle.state import phase_name
from companion.sim.hands import footprint
from companion.sim.players import scripted_action
from companion.sim.table_setup import make_twin
from companion.table.session import Session
from companion.table.store import Store

from .conftest import play_until_done

GAME = load("orbital_battle")
OPTIONS = {"turn_limit": 12}
SEED = 10  # scripted play reaches a land combat on planet 1 early with this seed


def _to_land_combat() -> list[Action]:
    state = GAME.setup(["red", "blue"], OPTIONS, SEED)
    rng = random.Random(SEED)
    played = []
    while phase_name(state) != "land_combat":
        played.append(scripted_action(GAME, state, rng))
        state = GAME.apply(state, played[-1])[0]
        assert len(played) < 400, "no land combat"
    return played


def _fight(state, loser: str) -> Action:
    """An attack on a planet whose dice destroy one unit on a planet hex: the defender's (`loser` "defender") or
    the attacker's."""
    for action in GAME.legal_actions(state):
        if action.type != "attack" or "dice" in dict(action.args):
            continue
        dice = (6, 1) if loser == "defender" else (1, 6)
        fight = Action.make("attack", **{**dict(action.args), "dice": dice})
        foot = footprint(GAME.layout(state), GAME.layout(GAME.apply(state, fight)[0]))
        if foot.removed and not foot.moved and not foot.added and all(s.startswith("p") for _, s in foot.removed):
            return fight
    raise AssertionError("no land attack that destroys a unit")


@pytest.fixture
def twin(tmp_path):
    db = tmp_path / "t.db"
    store = Store(db)
    session = Session.start(store, "orbital_battle", ["red", "blue"], OPTIONS, SEED)
    for action in _to_land_combat():
        session.submit(action, "phone", GAME.phase(session.state).actor)
    store.close()
    twin = make_twin("orbital_battle", 2, SEED, "virtual", str(db), 0.0, 0.0, settle=0.05)
    with twin:
        yield twin


@pytest.mark.parametrize("loser", ["defender", "attacker"])
def test_land_combat_losses_are_taken_off_the_planet_hex_after_the_fight_is_declared(twin, loser):
    session, loop = twin.session, twin.loop
    state = session.state
    fight = _fight(state, loser)
    before = GAME.layout(state)
    result = GAME.apply(state, fight)[0]
    after = GAME.layout(result)
    ((piece, hex_),) = footprint(before, after).removed
    assert twin.show(before) is None and loop.warning is None  # the board agrees with the game before the fight
    count = len(session.actions)
    session.submit(fight, "phone", GAME.phase(state).actor)  # the fight, declared on a phone (the table rolled)
    ruling = twin.show(before)  # the loser is still on the planet
    assert ruling is not None and ruling.verdict == "mismatch"
    warning = loop.warning
    assert warning is not None and warning.sites == (hex_,) and warning.progress  # still to do, not a wrong board
    assert warning.text.startswith("Still to do: Take the piece off"), warning.text
    name = twin.loop.site_name(hex_)
    assert name.startswith("planet ") and name in warning.text and "off" in warning.text.lower(), warning.text
    assert not any(word in warning.text.lower() for word in ("put back", "return", "put the")), warning.text
    twin.show(after)  # a hand takes the loser off
    assert loop.warning is None and loop.question is None
    assert len(session.actions) == count + 1 and GAME.state_to_json(session.state) == GAME.state_to_json(result)
    entries = [e for e in session.store.entries(session.record.id) if e.kind == "action"]
    assert entries[-1].source == "phone" and Action.from_json(entries[-1].action) == fight
    assert twin.occupancy() == twin._closed(after)
    assert piece.split("-")[-1] in ("red", "blue")


def test_the_demo_players_walk_a_planet_maps_grid_and_find_each_maps_grid(tmp_path):
    """`companion demo`'s glue for Orbital Battle: the twin's players set the magnet on each planet hex a walk names
    and on each map's marked hex a probe asks for, and then play on with every map's grid read."""

    twin = make_twin("orbital_battle", 2, SEED, "virtual", str(tmp_path / "t.db"), 0.0, 0.0, options=OPTIONS,
                     settle=0.05)  # fmt: skip
    with twin:
        table = twin.web  # `companion serve`'s web table, as the demo serves it
        table.guides.start_walk(["p4:0000", "p4:0403"], board="orbital_battle:planet4")
        play_until_done(twin, table.guides.walk)
        assert table.guides.walk.state == "saved" and not twin.loop.paused
        before = twin.link, list(twin.beside_links)
        table.guides.start_probe()
        status = play_until_done(twin, table.guides.walk)
        assert status["state"] == "saved" and status["mapped"] == 9 and "config had it" not in status["message"]
        assert (twin.link, twin.beside_links) == before  # each map was already read from its own grid
        stats = twin.play(40)
    assert stats.wrong_accepted == 0
