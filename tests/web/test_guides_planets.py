"""The grid under an Orbital Battle planet map calibrated from the phones over real HTTP: `companion serve`'s table
with the solar map's grid calibrated and planet 3's grid not yet; the walk-through asks planet 3's hexes by the
layout's names ("p3:0000"), a hand sets a magnet on each, and once saved the table reads planet 3's hexes (and still
the solar map's)."""

from __future__ import annotations

import contextlib
import time

import pytest
from playwright.sync_api import expect

from companion.calibration.grid_probe import marked_site
from companion.sim.table_grids import TableGrids
from companion.table.config import BoardGrid, TableConfig, load_config
from companion.table.live import LiveTable
from companion.web.serve import start_server, web_table

from .conftest import ARTIFACTS, TOKEN, GridServed, WebSettings, free_port

PLANET = "orbital_battle:planet3"


@pytest.fixture
def planets_served(tmp_path):
    with TableGrids(tmp_path, [("orbital_battle", ""), (PLANET, "p3:")]) as grids:
        solar, planet = grids.boards
        planet.profile.unlink()  # planet 3's grid is not calibrated yet
        config = TableConfig(game="orbital_battle", players=("red", "blue"), db=str(tmp_path / "t.db"),
                             serial=solar.grid.port, grid_profile=str(solar.profile), settle=0.1,
                             boards=(BoardGrid(PLANET, planet.grid.port, str(planet.profile)),))  # fmt: skip
        with _serving(LiveTable(config), grid=planet.grid, profile=planet.profile, wiring=planet.sites) as served:
            yield served, grids


@contextlib.contextmanager
def _serving(live: LiveTable, **grid):
    """`companion serve`'s table for a LiveTable, over HTTP on a free port."""
    live.start(wait=10)
    table = web_table(live)
    table.seats.token = TOKEN
    server = start_server(table, "127.0.0.1", free_port(), WebSettings(heartbeat=0.3, retry_ms=300), threads=8)
    try:
        yield GridServed(table, server, live.observer, live.store, live=live, **grid)
    finally:
        server.stop()
        live.stop()


def test_a_planet_maps_grid_is_walked_from_the_phones_and_read_at_once(planets_served):
    served, grids = planets_served
    solar, planet = grids.boards
    status = served.get("/api/calibration/grid")
    assert status["board"] == "orbital_battle" and len(status["mapped"]) == len(solar.board.sites)
    assert [b["title"] for b in status["boards"]] == ["the solar map", "planet 3's map"]
    assert served.get(f"/api/calibration/grid?board={PLANET}")["mapped"] == {}
    status, answer = served.post("/api/calibration/grid", {"do": "start", "board": "orbital_battle:planet9"})
    assert (status, answer) == (400, {"error": "board: no grid at this table lies under 'orbital_battle:planet9'"})

    status, walk = served.post("/api/calibration/grid", {"do": "start", "board": PLANET})
    assert status == 200 and walk["board"] == PLANET and walk["site"] == "p3:0000", walk
    assert walk["name"] == "planet 3 hex 0000" and walk["total"] == len(planet.board.sites)
    magnet = None
    deadline = time.monotonic() + 60
    while (walk := served.table.guides.walk.status())["state"] == "walking":
        assert time.monotonic() < deadline, walk
        site = walk["site"].removeprefix("p3:")
        if site != magnet:  # a hand moves the one magnet to the hex asked
            if magnet is not None:
                planet.grid.open_switch(*planet.sites[magnet])
            planet.grid.close_switch(*planet.sites[site])
            magnet = site
        time.sleep(0.02)
    planet.grid.open_switch(*planet.sites[magnet])
    assert walk["state"] == "saved" and walk["mapped"] == len(planet.board.sites), walk
    assert served.profile.exists()
    status = served.get(f"/api/calibration/grid?board={PLANET}")
    assert status["mapped"] == {f"p3:{site}": list(switch) for site, switch in planet.sites.items()}
    # The table reads planet 3's hexes now, and the solar map's as before.
    switches = dict(served.observer.switch_sites)
    assert switches[(0, *planet.sites["0403"])] == "p3:0403" and switches[solar.sites["sun"]] == "sun"
    assert not served.table.loop.paused


def test_the_page_walks_a_planet_maps_grid_on_that_planets_surface(browser, planets_served):
    served, grids = planets_served
    planet = grids.boards[1]
    with _calibration_view(browser, served) as page:
        expect(page.locator("#grid-board")).to_be_visible()
        page.select_option("#grid-board", PLANET)
        expect(page.locator("#grid-note")).to_contain_text("0 of 63 sites have a switch")
        expect(page.locator("#grid-list li").first).to_contain_text("planet 3 hex 0000: no switch yet")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=ARTIFACTS / "calibration-planet-dialog.png")
        page.click("#grid-start")
        expect(page.locator("#calibration")).to_be_hidden()
        # The map turns to planet 3's surface and marks the hex asked.
        expect(page.locator("#guide-text")).to_have_text("Put a piece on planet 3 hex 0000.")
        expect(page.locator("#svg-title")).to_have_text("Planet 3")
        expect(page.locator('#map .site.target[data-site="p3:0000"]')).to_have_count(1)
        planet.grid.close_switch(*planet.sites["0000"])
        expect(page.locator("#guide-text")).to_have_text("Put a piece on planet 3 hex 0001.")
        row, col = planet.sites["0000"]
        expect(page.locator("#guide-message")).to_have_text(f"planet 3 hex 0000 is switch row {row} column {col}.")
        expect(page.locator('#map .site.target[data-site="p3:0001"]')).to_have_count(1)
        page.screenshot(path=ARTIFACTS / "calibration-planet.png", full_page=True)
        page.click('#guide-buttons button[data-do="stop"]')
        expect(page.locator("#guide-text")).to_contain_text("Stopped: nothing was saved")
        assert not served.profile.exists()


@contextlib.contextmanager
def _calibration_view(browser, served):
    """A player's phone at 360 px, joined as Red, with the calibration view open."""
    from .test_browser import join

    page = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
    try:
        join(page, served, "red")
        page.click('button[data-open="calibration"]')
        yield page
    finally:
        page.context.close()


class Magnet:
    """A hand with one magnet, moved to the site a walk-through asks for on whichever board's grid lies under it."""

    def __init__(self, grids: TableGrids) -> None:
        self.boards = {on.prefix: on for on in grids.boards}
        self.at: str | None = None

    def _switch(self, site: str):
        prefix = site.split(":")[0] + ":" if ":" in site else ""
        on = self.boards[prefix]
        return on.grid, on.sites[site.removeprefix(prefix)]

    def onto(self, site: str | None) -> None:
        if site == self.at:
            return
        if self.at is not None:
            grid, switch = self._switch(self.at)
            grid.open_switch(*switch)
        if site is not None:
            grid, switch = self._switch(site)
            grid.close_switch(*switch)
        self.at = site


@pytest.fixture
def swapped_served(tmp_path):
    """A table whose config has the grids under planets 2 and 5 the wrong way round (the hub enumerated them so)."""
    planets = ["orbital_battle:planet2", "orbital_battle:planet5"]
    with TableGrids(tmp_path, [("orbital_battle", ""), *((p, f"p{p[-1]}:") for p in planets)]) as grids:
        solar, planet2, planet5 = grids.boards
        path = tmp_path / "table.toml"
        path.write_text(f'game = "orbital_battle"\nplayers = ["red", "blue"]\nsettle = 0.1\n'
                        f'db = "{tmp_path / "t.db"}"\n'
                        f'[grid]\nserial = "{solar.grid.port}"\nprofile = "{solar.profile}"\n'
                        f'[[boards]]\nboard = "{planets[0]}"\nserial = "{planet5.grid.port}"\n'
                        f'profile = "{planet2.profile}"\n'
                        f'[[boards]]\nboard = "{planets[1]}"\nserial = "{planet2.grid.port}"\n'
                        f'profile = "{planet5.profile}"\n')  # fmt: skip
        live = LiveTable(load_config(path))
        live.config_path = path
        with _serving(live, grid=solar.grid, profile=path) as served:
            yield served, grids


def test_the_phones_find_which_grid_lies_under_which_planet_map(swapped_served):
    served, grids = swapped_served
    solar, planet2, planet5 = grids.boards
    assert served.get("/api/calibration/grid")["probe"] is True
    status, walk = served.post("/api/calibration/grid", {"do": "probe"})
    assert status == 200 and walk["total"] == 3 and walk["site"] == marked_site(solar.board).id
    assert walk["text"].startswith("Put a piece on the marked hex of the solar map (")
    assert served.table.loop.paused
    hand = Magnet(grids)
    deadline = time.monotonic() + 30
    while (walk := served.table.guides.walk.status())["state"] == "walking":
        assert time.monotonic() < deadline, walk
        hand.onto(walk["site"])
        time.sleep(0.02)
    assert walk["state"] == "saved", walk
    # The grid the config had under planet 5's map answered for planet 2's: named in one line.
    assert (f"The grid at {planet2.grid.port} answered for planet 2's map, but the config had it under planet 5's "
            "map.") in walk["message"]  # fmt: skip
    config = load_config(served.profile)
    assert {g.board: g.serial for g in config.boards} == {
        "orbital_battle:planet2": planet2.grid.port,
        "orbital_battle:planet5": planet5.grid.port,
    }
    # The table reads planet 2's map from the grid that answered for it, at once.
    hand.onto(None)
    planet2.grid.close_switch(*planet2.sites["0000"])
    live = served.live
    deadline = time.monotonic() + 5
    while "p2:0000" not in {dict(live.observer.switch_sites).get(k) for k in (live.switches() or ())}:
        assert time.monotonic() < deadline, "planet 2's hex not read from its grid"
        time.sleep(0.02)
    assert not served.table.loop.paused


def test_the_page_finds_each_maps_grid_and_names_the_swapped_one(browser, swapped_served):
    served, grids = swapped_served
    planet2 = grids.boards[1]
    with _calibration_view(browser, served) as page:
        page.click("#grid-probe")
        expect(page.locator("#calibration")).to_be_hidden()
        expect(page.locator("#guide-title")).to_have_text("Finding each map's grid")
        expect(page.locator("#guide-count")).to_have_text("map 1 of 3 · 0 found")
        hand = Magnet(grids)
        hand.onto(served.table.guides.walk.status()["site"])
        expect(page.locator("#guide-text")).to_contain_text("Put a piece on the marked hex of planet 2's map")
        expect(page.locator("#svg-title")).to_have_text("Planet 2")
        site = served.table.guides.walk.status()["site"]
        expect(page.locator(f'#map .site.target[data-site="{site}"]')).to_have_count(1)
        hand.onto(site)
        expect(page.locator("#guide-message")).to_contain_text(
            f"The grid at {planet2.grid.port} answered for planet 2's map, but the config had it under planet 5's map."
        )
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=ARTIFACTS / "calibration-probe.png", full_page=True)
        hand.onto(served.table.guides.walk.status()["site"])
        expect(page.locator("#guide-text")).to_contain_text("Each board is read from the grid that answered for it")
        hand.onto(None)
