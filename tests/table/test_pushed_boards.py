"""A phone on a stand over a table of several boards (Orbital Battle's solar map with the planet maps beside it, each
on a grid of its own), as `companion serve` assembles it: a settled change on a planet map, or on the solar map, is
read from the parts of the photo the table names for that board alone and booked; a board that moved under the parts
has the next photo asked for whole."""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy as np
import pytest

from companion.rules import Action
from companion.sensing.vision_crops import TablePlan
from companion.sim.phone_crops import cut
from companion.sim.players import scripted_action
from companion.sim.table_setup import make_twin
from companion.sim.twin import Twin
from companion.sim.twin_spread import SpreadCamera
from tests.table.conftest import until

GAME = "orbital_battle"


@pytest.fixture(scope="module")
def twin(tmp_path_factory) -> Iterator[Twin]:
    """The twin's table with every planet map on a grid and a phone as its camera, the players through choosing home
    worlds and the first of them with an army bought on their home world (on the phones): the board set out, and
    read whole from the phone's first photo."""
    db = tmp_path_factory.mktemp("boards") / "t.db"
    twin = make_twin(GAME, 2, 1, "virtual", str(db), 0.0, 0.0, camera=True, options={"turn_limit": 4}, phone=True)
    session, rng = twin.live.session, random.Random(1)
    while not _buys(twin):
        action = scripted_action(session.game, session.state, rng)
        session.submit(action, "phone", session.game.phase(session.state).actor)
    first = next(a for a in _buys(twin) if str(a.get("at")).startswith("p") and a.get("kind") == "army")
    session.submit(first, "phone", session.game.phase(session.state).actor)
    with twin:
        phone = twin.live.phone
        assert phone is not None and isinstance(twin.camera, SpreadCamera)
        layout = session.game.layout(session.state)
        assert until(phone.wants_still, what="a photo asked for") and phone.wanted()[1] is None  # the first: whole
        phone.push(twin.camera.render(layout)[0], still=True)
        until(lambda: phone.wants_still() or not twin.live.wants_frame(), what="the first photo read")
        yield twin


def _buys(twin: Twin) -> list[Action]:
    session = twin.live.session
    return [a for a in session.game.legal_actions(session.state) if a.type == "buy"]


def _bought(twin: Twin, where: str) -> tuple[Action, dict]:
    """A unit bought onto an empty site of `where` (a planet map's prefix, or the solar map's ring): the action and
    the board after it."""
    session = twin.live.session
    layout = session.game.layout(session.state)
    action = next(a for a in _buys(twin) if str(a.get("at")).startswith(where) and not layout.get(str(a.get("at"))))
    return action, dict(session.game.layout(session.game.apply(session.state, action)[0]))


def _set_down(twin: Twin, after: dict, site: str) -> tuple[int, TablePlan]:
    """The counter set down (the grid settled on it): the parts of the photo the table then asks for."""
    observer = twin.live.observer
    assert observer is not None and twin.live.phone is not None
    twin.set_board(after)
    until(lambda: site in (observer.changed_sites() or set()), what="the change in the table's senses")
    until(twin.live.phone.wants_still, what="a photo asked for")
    still, plan = twin.live.phone.wanted()
    assert still and plan is not None and isinstance(plan[1], TablePlan), plan
    return plan[0], plan[1]


@pytest.mark.parametrize("where", ["p", "r"], ids=["a planet map", "the solar map"])
def test_a_change_on_one_board_is_read_from_that_boards_parts_and_booked(twin, where):
    session = twin.live.session
    action, after = _bought(twin, where)
    site = str(action.get("at"))
    number, plan = _set_down(twin, after, site)
    # The changed board's own plan (its site, its own corner markers' looks), only boards with sites to read: a
    # fraction of the picture.
    width, height = plan.size
    assert site in plan.read and plan.nbytes() < width * height / 4
    prefix = site.split(":")[0] + ":" if ":" in site else ""
    own = next(part for at, part in plan.plans if at == prefix)
    assert site.removeprefix(prefix) in own.read and own.board == (f"{GAME}:planet{prefix[1:-1]}" if prefix else GAME)
    to_read = twin.live.observer.sites_to_read()
    assert {at for at, _ in plan.plans} == {s.split(":")[0] + ":" if ":" in s else "" for s in to_read}
    twin.live.phone.push_crops(number, cut(twin.camera.render(after)[0], plan))
    count = len(session.actions)
    until(lambda: len(session.actions) > count, what="the unit booked")
    assert session.actions[-1] == action and session.game.layout(session.state) == after
    assert list(session.store.entries(session.record.id))[-1].source == "board"


def test_a_board_moved_under_the_parts_has_the_next_photo_asked_for_whole(twin):
    session = twin.live.session
    action, after = _bought(twin, "p")
    number, plan = _set_down(twin, after, str(action.get("at")))
    pushed = np.roll(twin.camera.render(after)[0], (30, 45), axis=(0, 1))  # every map pushed across the table
    count = len(session.actions)
    twin.live.phone.push_crops(number, cut(pushed, plan))
    until(twin.live.phone.wants_still, what="the next photo asked for")
    assert twin.live.phone.wanted()[1] is None and len(session.actions) == count  # nothing read: asked for whole
    twin.live.phone.push(twin.camera.render(after)[0], still=True)
    until(lambda: len(session.actions) > count, what="the unit booked")
    assert session.actions[-1] == action
