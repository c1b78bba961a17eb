"""A phone on a stand over a table with a reed grid, as `companion serve` assembles it (LiveTable with its own threads,
the grid a virtual one on a pty, the phone's photos over HTTP): a settled change is read from the parts of the photo
the table names and booked; parts that arrive after the grid changed again are dropped, and the next photo is read
right."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import pytest

from companion.calibration.grid import GridProfile, save_profile
from companion.rules import Action
from companion.sensing.vision_crops import CropPlan
from companion.sensing.vision_profile import save_profile as save_camera
from companion.sim.phone_crops import cut
from companion.sim.render_camera import sim_profile
from companion.sim.simavr_grid import GridProcess, virtual_grid
from companion.table.config import TableConfig
from companion.table.live import LiveTable
from companion.web.context import WebSettings
from companion.web.serve import start_server, web_table
from companion.web.server import WebServer
from tests.table.conftest import until

from .conftest import BOARD, OPTIONS, SWITCHES, TOKEN, free_port, rendered_camera

Layout = dict[str, tuple[str, ...]]


@pytest.fixture(scope="module")
def grid_device() -> Iterator[GridProcess]:
    with virtual_grid(8, 8) as grid:
        grid.go()
        yield grid


@dataclass
class PhoneOnStand:
    """The table, its server and grid, and the tests' hands and phone: pieces set on the grid, photos rendered by
    the twin's camera and sent as the camera page sends them."""

    live: LiveTable
    server: WebServer
    grid: GridProcess

    def request(self, method: str, path: str, body: bytes | None = None, kind: str = "") -> tuple[int, Any]:
        connection = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=10)
        connection.request(method, path, body, {"X-Orrery-Token": TOKEN, "Content-Type": kind})
        response = connection.getresponse()
        answer = response.status, json.loads(response.read())
        connection.close()
        return answer

    def show(self, layout: Layout, before: Layout | None = None) -> None:
        """The board as `layout` has it (changed from `before`), and the grid's word for it settled: the table has
        the sites whose switch changed as ones to read, and its switches have been quiet for the window."""
        closed = {SWITCHES[site] for site, pieces in layout.items() if pieces and site in SWITCHES}
        self.grid.set_all(closed)
        observer = self.live.observer
        assert self.live.link is not None and observer is not None
        until(lambda: self.live.link.occupancy() == closed, what="the grid's report")
        if before is not None:
            changed = {site for site in SWITCHES if bool(layout.get(site)) != bool(before.get(site))}
            until(lambda: changed <= (observer.changed_sites() or set()), what="the change in the table's senses")
        until(lambda: observer.grid_quiet(time.monotonic()), what="the grid settling")

    def wanted(self) -> dict:
        """What the table asks the phone for once it wants a photo."""
        return until(
            lambda: (w := self.request("GET", "/api/camera/wanted")[1])["still"] and w, what="a photo asked for"
        )

    def photo(self, layout: Layout) -> np.ndarray:
        return rendered_camera().render(layout)[0]

    def send_whole(self, layout: Layout) -> None:
        """The whole photo, and the table's camera thread through with it."""
        png = cv2.imencode(".png", self.photo(layout))[1].tobytes()
        status, answer = self.request("POST", "/api/camera/frame?still=1", png, "image/png")
        assert status == 200, answer
        self.read_through()

    def send_parts(self, wanted: dict, photo: np.ndarray) -> None:
        """The parts of `photo` the table named in `wanted`, cut as the camera page cuts them."""
        crops = wanted["crops"]
        plan = CropPlan("", frozenset(), 0, (crops["width"], crops["height"]), tuple(map(tuple, crops["boxes"])))
        path = f"/api/camera/frame?crops={crops['plan']}"
        status, answer = self.request("POST", path, cut(photo, plan), "application/octet-stream")
        assert status == 200, answer

    def read_through(self) -> None:
        """Wait until the table's camera thread has taken what was sent (it then waits for the next photo)."""
        assert self.live.phone is not None
        until(self.live.phone.wants_still, what="the photo read")

    def booked(self) -> list[dict]:
        session = self.live.session
        return [entry.action for entry in session.store.entries(session.record.id) if entry.source == "board"]


@pytest.fixture
def table(tmp_path, grid_device) -> Iterator[tuple[PhoneOnStand, Layout]]:
    """`companion serve`'s table with the grid and a phone on a stand (the twin's rendered camera), Red having
    drawn, its board set out and read whole from the phone's first photo: the table and the board."""
    grid_profile, camera_profile = tmp_path / "grid.json", tmp_path / "camera.json"
    save_profile(GridProfile(BOARD.name, 8, 8, SWITCHES), grid_profile)
    save_camera(sim_profile(rendered_camera().camera, BOARD.name), camera_profile)
    config = TableConfig(game="trajectory", players=("red", "blue"), seed=1, options=OPTIONS,
                         db=str(tmp_path / "table.db"), serial=grid_device.port, grid_profile=str(grid_profile),
                         camera="phone", camera_profile=str(camera_profile), settle=0.3)  # fmt: skip
    live = LiveTable(config).start(wait=10)
    server = start_server(web_table(live, TOKEN), "127.0.0.1", free_port(), WebSettings(), threads=8)
    stand = PhoneOnStand(live, server, grid_device)
    try:
        live.session.submit(Action.make("draw", card="action"), "phone", "red")
        layout = dict(live.session.game.layout(live.session.state))
        stand.show(layout)
        assert "crops" not in stand.wanted()  # nothing read yet: the whole photo first
        # (asked for whole again should it have been read before the grid's first report reached the table)
        until(lambda: "crops" in stand.wanted() or stand.send_whole(layout), what="the board read whole")
        yield stand, layout
    finally:
        server.stop()
        live.stop()


def _flown(layout: Layout, to: str) -> Layout:
    """Red's ship flown from the home planet (where Blue's stays) to `to`."""
    return {**layout, "o2s0": ("planet-home", "ship-blue"), to: ("ship-red",)}


def test_a_settled_change_is_read_from_the_parts_the_phone_sends_and_booked(table):
    stand, layout = table
    after = _flown(layout, "o2s1")
    stand.show(after, layout)
    wanted = stand.wanted()
    assert "crops" in wanted and "o2s1" in stand.live.phone.plan(wanted["crops"]["plan"]).read
    stand.send_parts(wanted, stand.photo(after))
    assert until(stand.booked, what="the move booked") == [{"type": "move", "to": "o2s1"}]
    session = stand.live.session
    until(lambda: session.game.layout(session.state).get("o2s1") == ("ship-red",), what="the ship in the game")


def test_parts_that_arrive_after_the_grid_changed_again_are_dropped_and_the_next_photo_is_read(table):
    """Red's ship set on one space, the photo's parts asked for, and the ship moved on before they arrive: the parts
    show a board the grid no longer has, so nothing is read from them (no reading, nothing booked, no warning);
    the table asks for the next photo, which reads the ship where it now is."""
    stand, layout = table
    first = _flown(layout, "o2s1")
    stand.show(first, layout)
    wanted = stand.wanted()
    plan = stand.live.phone.plan(wanted["crops"]["plan"])
    later = next(site for site in ("o2s7", "o3s1", "o3s2") if site not in plan.read)
    moved = _flown(layout, later)
    stand.show(moved, first)
    stand.send_parts(wanted, stand.photo(first))  # the photo taken when the plan was made
    stand.read_through()
    time.sleep(2 * stand.live.config.settle)  # the referee's looks at the board go on meanwhile
    assert {"o2s1", later} <= stand.live.observer.changed_sites()  # neither site read
    assert stand.booked() == [] and stand.live.loop.warning is None
    wanted = stand.wanted()
    assert later in stand.live.phone.plan(wanted["crops"]["plan"]).read
    stand.send_parts(wanted, stand.photo(moved))
    assert until(stand.booked, what="the move booked") == [{"type": "move", "to": later}]
