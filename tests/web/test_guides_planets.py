"""The grid under an Orbital Battle planet map calibrated from the phones over real HTTP: `companion serve`'s table
with the solar map's grid calibrated and planet 3's grid not yet; the walk-through asks planet 3's hexes by the
layout's names ("p3:0000"), a hand sets a magnet on each, and once saved the table reads planet 3's hexes (and still
the solar map's)."""

from __future__ import annotations

import time

import pytest

from companion.cli.serve import _web_table
from companion.sim.table_grids import TableGrids
from companion.table.config import BoardGrid, TableConfig
from companion.table.live import LiveTable
from companion.web.serve import start_server

from .conftest import TOKEN, GridServed, WebSettings, free_port

PLANET = "orbital_battle:planet3"


@pytest.fixture
def planets_served(tmp_path):
    with TableGrids(tmp_path, [("orbital_battle", ""), (PLANET, "p3:")]) as grids:
        solar, planet = grids.boards
        planet.profile.unlink()  # planet 3's grid is not calibrated yet
        config = TableConfig(game="orbital_battle", players=("red", "blue"), db=str(tmp_path / "t.db"),
                             serial=solar.grid.port, grid_profile=str(solar.profile), settle=0.1,
                             boards=(BoardGrid(PLANET, planet.grid.port, str(planet.profile)),))  # fmt: skip
        live = LiveTable(config).start(wait=10)
        table = _web_table(live)
        table.token = TOKEN
        server = start_server(table, "127.0.0.1", free_port(), WebSettings(heartbeat=0.3, retry_ms=300), threads=8)
        served = GridServed(table, server, live.observer, live.store, live=live, grid=planet.grid,
                            profile=planet.profile, wiring=planet.sites)  # fmt: skip
        try:
            yield served, grids
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
    assert status == 200 and walk["board"] == PLANET and walk["site"] == "p3:0000"
    assert walk["name"] == "planet 3 hex 0000" and walk["total"] == len(planet.board.sites)
    magnet = None
    deadline = time.monotonic() + 60
    while (walk := served.table.walk.status())["state"] == "walking":
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
    from playwright.sync_api import expect

    from .conftest import ARTIFACTS
    from .test_browser import join

    served, grids = planets_served
    planet = grids.boards[1]
    page = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
    try:
        join(page, served, "red")
        page.click('button[data-open="calibration"]')
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
    finally:
        page.context.close()
