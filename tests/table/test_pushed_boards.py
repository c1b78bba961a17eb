"""A phone on a stand over a table of several boards (Orbital Battle's solar map with the planet maps beside it, each
on a grid of its own), as `companion serve` assembles it (the twin's table and grids, the phone's photos over HTTP to
the production server): a settled change on a planet map, or on the solar map, is read from the parts of the photo
the table names for the boards with sites to read and booked; a board that moved under the parts has the next photo
asked for whole."""

from __future__ import annotations

import http.client
import json
import random
from collections.abc import Iterator

import numpy as np
import pytest

from companion.rules import Action
from companion.sensing.vision_crops import CropPlan, TablePlan
from companion.sim.phone_crops import cut
from companion.sim.players import scripted_action
from companion.sim.table_setup import TOKEN, make_twin
from companion.sim.twin import Twin
from companion.sim.twin_spread import SpreadCamera
from companion.web.context import WebSettings
from companion.web.serve import start_server
from tests.table.conftest import until
from tests.web.conftest import free_port

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
        server = start_server(twin.web, "127.0.0.1", free_port(), WebSettings(), threads=4)
        twin.server = server  # type: ignore[attr-defined]
        try:
            phone = twin.live.phone
            assert phone is not None and isinstance(twin.camera, SpreadCamera)
            layout = session.game.layout(session.state)
            first = _wanted(twin)
            assert "crops" not in first  # nothing read yet: the whole photo first
            phone.push(twin.camera.render(layout)[0], still=True, ask=first["ask"])  # (as the camera page sends it)
            until(lambda: phone.wants_still() or not twin.live.wants_frame(), what="the first photo read")
            yield twin
        finally:
            server.stop()


def _request(twin: Twin, method: str, path: str, body: bytes | None = None, kind: str = "") -> tuple[int, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", twin.server.port, timeout=10)  # type: ignore[attr-defined]
    connection.request(method, path, body, {"X-Orrery-Token": TOKEN, "Content-Type": kind})
    response = connection.getresponse()
    answer = response.status, json.loads(response.read())
    connection.close()
    return answer


def _wanted(twin: Twin) -> dict:
    """What the table asks the phone for once it wants a photo."""
    return until(lambda: (w := _request(twin, "GET", "/api/camera/wanted")[1])["still"] and w, what="a photo asked for")


def _send_parts(twin: Twin, wanted: dict, photo: np.ndarray) -> tuple[int, dict]:
    """The parts of `photo` the table named in `wanted`, cut as the camera page cuts them, sent as it sends them."""
    crops = wanted["crops"]
    plan = CropPlan("", frozenset(), 0, (crops["width"], crops["height"]), tuple(map(tuple, crops["boxes"])))
    body = cut(photo, plan)
    return _request(twin, "POST", f"/api/camera/frame?crops={crops['plan']}", body, "application/octet-stream")


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


def _set_down(twin: Twin, after: dict, site: str) -> tuple[dict, TablePlan]:
    """The counter set down (the grid settled on it): what the table then asks the phone for, and its plan."""
    observer = twin.live.observer
    assert observer is not None and twin.live.phone is not None
    twin.set_board(after)
    until(lambda: site in (observer.changed_sites() or set()), what="the change in the table's senses")
    wanted = _wanted(twin)
    assert "crops" in wanted, wanted
    plan = twin.live.phone.plan(wanted["crops"]["plan"])
    assert isinstance(plan, TablePlan), plan
    return wanted, plan


@pytest.mark.parametrize("where", ["p", "r"], ids=["a planet map", "the solar map"])
def test_a_change_on_one_board_is_read_from_that_boards_parts_and_booked(twin, where):
    session = twin.live.session
    action, after = _bought(twin, where)
    site = str(action.get("at"))
    wanted, plan = _set_down(twin, after, site)
    # The changed board's own plan (its site, its own corner markers' looks), only boards with sites to read: a
    # fraction of the picture.
    width, height = plan.size
    assert site in plan.read and plan.nbytes() < width * height / 4
    prefix = site.split(":")[0] + ":" if ":" in site else ""
    own = next(part for at, part in plan.plans if at == prefix)
    assert site.removeprefix(prefix) in own.read and own.board == (f"{GAME}:planet{prefix[1:-1]}" if prefix else GAME)
    changed, held = twin.live.observer.sites_to_read()
    assert {at for at, _ in plan.plans} == {s.split(":")[0] + ":" if ":" in s else "" for s in changed | held}
    count = len(session.actions)
    status, answer = _send_parts(twin, wanted, twin.camera.render(after)[0])
    assert status == 200, answer
    until(lambda: len(session.actions) > count, what="the unit booked")
    assert session.actions[-1] == action and session.game.layout(session.state) == after
    assert list(session.store.entries(session.record.id))[-1].source == "board"


def test_a_board_moved_under_the_parts_has_the_next_photo_asked_for_whole(twin):
    session = twin.live.session
    action, after = _bought(twin, "p")
    wanted, _ = _set_down(twin, after, str(action.get("at")))
    pushed = np.roll(twin.camera.render(after)[0], (30, 45), axis=(0, 1))  # every map pushed across the table
    count = len(session.actions)
    # Parts of another length are refused from the request's head, before the body is read; then the parts as asked.
    crops = wanted["crops"]
    status, answer = _request(
        twin, "POST", f"/api/camera/frame?crops={crops['plan']}", b"\0", "application/octet-stream"
    )
    assert status == 400 and "where the table asked for" in answer["error"], answer
    assert _send_parts(twin, wanted, pushed)[0] == 200
    whole = _wanted(twin)
    assert "crops" not in whole and len(session.actions) == count  # nothing read: asked for whole
    twin.live.phone.push(twin.camera.render(after)[0], still=True, ask=whole["ask"])
    until(lambda: len(session.actions) > count, what="the unit booked")
    assert session.actions[-1] == action


def test_parts_that_arrive_after_another_board_changed_are_dropped_and_the_next_photo_is_read(twin):
    """A counter bought onto a planet map, its photo's parts asked for, and a second one set down on the solar map
    before they arrive: the parts show a table the grids no longer have, so nothing is read from them; the second
    counter taken back up, the next photo's parts book the first."""
    session = twin.live.session
    action, after = _bought(twin, "p")
    site = str(action.get("at"))
    wanted, plan = _set_down(twin, after, site)
    solar = next(s.id for s in twin.live.board.sites if not after.get(s.id) and s.id not in plan.read)
    twin.set_board({**after, solar: ("transport-red",)})
    until(lambda: solar in (twin.live.observer.changed_sites() or set()), what="the second change")
    count = len(session.actions)
    assert _send_parts(twin, wanted, twin.camera.render(after)[0])[0] == 200  # (the photo of the plan's moment)
    until(twin.live.phone.wants_still, what="the parts read through")
    assert len(session.actions) == count and {site, solar} <= twin.live.observer.changed_sites()  # neither read
    wanted, plan = _set_down(twin, after, site)
    assert site in plan.read
    assert _send_parts(twin, wanted, twin.camera.render(after)[0])[0] == 200
    until(lambda: len(session.actions) > count, what="the unit booked")
    assert session.actions[-1] == action
