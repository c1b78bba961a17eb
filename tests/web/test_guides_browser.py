"""The guides in Debian's Chromium against a real table: `companion serve`'s LiveTable reading a virtual reed grid
over a pty, served by aiohttp. The grid's calibration walk-through run from the page (with a second phone
watching), and the guided setup of a new game; switches are closed as a player's hands would close them, and the
page, the saved profile and the live table are checked. Screenshots of both at phone size go to artifacts/web."""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect

from companion.calibration.grid import load_profile
from companion.rules import Action

from .conftest import ARTIFACTS, BOARD, SCRAMBLED, SWITCHES, TOKEN
from .test_browser import join, live

SITES = [site.id for site in BOARD.sites]


def guide_text(page: Page):
    return page.locator("#guide-text")


def walk_step(served) -> str | None:
    return served.table.guides.walk.status()["site"]


def test_the_grid_is_calibrated_from_the_page_and_the_table_reads_the_board_with_it_at_once(browser, grid_served):
    served = grid_served(SCRAMBLED, calibrated=False)  # a new table: the grid answers but has no profile yet
    assert served.live.senses.mode() == "phones alone"
    player = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
    watcher = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
    try:
        join(player, served, "red")
        watcher.goto(served.base + "/")
        live(watcher)
        player.click('button[data-open="calibration"]')
        expect(player.locator("#grid-note")).to_contain_text("0 of 60 sites have a switch")
        player.click("#grid-start")
        expect(player.locator("#calibration")).to_be_hidden()
        for page in (player, watcher):  # every phone shows the same step
            expect(guide_text(page)).to_have_text("Put a piece on orbit 1 space 0.")
            expect(page.locator('#map circle.site.target[data-site="o1s0"]')).to_have_count(1)
            expect(page.locator("#guide-count")).to_have_text("site 1 of 60 · 0 mapped")
        expect(watcher.locator("#guide-buttons")).to_be_hidden()  # watching, not calibrating
        assert served.table.loop.paused  # calibration pieces are not moves

        served.put("o1s0")
        expect(guide_text(player)).to_have_text("Put a piece on orbit 1 space 1.")
        row, col = SCRAMBLED["o1s0"]
        expect(player.locator("#guide-message")).to_have_text(f"orbit 1 space 0 is switch row {row} column {col}.")

        # o1s0's switch again: lifted and set down while o1s1 is asked. Refused, and o1s1 is asked again.
        served.lift("o1s0")
        served.put("o1s0")
        for page in (player, watcher):
            expect(page.locator("#guide-message")).to_have_text(
                f"Switch row {row} column {col} is already orbit 1 space 0: lift that piece and put one on orbit 1 "
                "space 1.")  # fmt: skip
            expect(page.locator("#guide")).to_have_class("guide refused")
        expect(guide_text(player)).to_have_text("Put a piece on orbit 1 space 1.")

        # A piece that closes two switches at once is refused too.
        served.grid.set_all({SCRAMBLED["o1s0"], SCRAMBLED["o1s1"], SCRAMBLED["o1s2"]})
        expect(player.locator("#guide-message")).to_contain_text("2 switches closed at once")
        expect(guide_text(player)).to_have_text("Put a piece on orbit 1 space 1.")
        served.lift("o1s1", "o1s2")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        player.screenshot(path=ARTIFACTS / "calibration.png", full_page=True)

        # Skip o1s1, map o1s2, go back to o1s2 and set it again, then redo o1s1 by tapping it on the map.
        player.click('#guide-buttons button[data-do="skip"]')
        expect(guide_text(player)).to_have_text("Put a piece on orbit 1 space 2.")
        served.put("o1s2")
        expect(guide_text(player)).to_have_text("Put a piece on orbit 1 space 3.")
        player.click('#guide-buttons button[data-do="back"]')
        expect(guide_text(watcher)).to_have_text("Put a piece on orbit 1 space 2.")
        served.lift("o1s2")
        served.put("o1s2")
        expect(guide_text(player)).to_have_text("Put a piece on orbit 1 space 3.")
        player.locator('#map circle.site[data-site="o1s1"]').dispatch_event("click")
        expect(guide_text(player)).to_have_text("Put a piece on orbit 1 space 1.")
        served.put("o1s1")
        expect(guide_text(player)).to_have_text("Put a piece on orbit 1 space 3.")  # back to where the walk was
        assert not served.profile.exists()  # nothing is saved before the end

        for i, site in enumerate(SITES[3:], 3):
            served.put(site)
            if i + 1 < len(SITES):
                served.until(lambda i=i: walk_step(served) == SITES[i + 1], what=f"the step after {site}")
        for page in (player, watcher):
            expect(guide_text(page)).to_contain_text("60 sites mapped. The table reads the board with it now.")

        # Saved where the table reads it, and read with at once: no restart.
        assert load_profile(served.profile, BOARD).sites == SCRAMBLED
        assert json.loads(served.profile.read_text())["kind"] == "reed-grid"
        assert not served.table.loop.paused
        assert served.observer.switch_sites == {switch: site for site, switch in SCRAMBLED.items()}
        assert served.live.senses.mode() == "grid alone"
        expect(player.locator("#log li").first).to_have_text(
            "The board's grid is calibrated. Refereeing the board now: grid alone."
        )

        # Every site still holds a calibration piece: the referee, back at work, asks for them to be taken off.
        expect(player.locator("#warning")).to_be_visible()
        session = served.session
        served.show(session.game.layout(session.state))
        expect(player.locator("#warning")).to_be_hidden()
        session.submit(Action.make("draw", card="action"), "phone", "red")
        action = Action.make("move", to="o3s1")
        served.show(session.game.layout(session.game.apply(session.state, action)[0]))  # read through the new map
        served.until(lambda: session.actions[-1] == action, what="the move")
        entry = served.get("/api/log")["entries"][-1]
        assert (entry["action"], entry["source"]) == (action.to_json(), "board")
        expect(player.locator("#log li").first).to_have_text(entry["events"][-1]["text"])
    finally:
        player.context.close()
        watcher.context.close()


def test_a_stopped_walk_saves_nothing_and_one_site_is_redone_alone(browser, grid_served):
    served = grid_served(SWITCHES, calibrated=True)
    before = served.profile.read_bytes()
    page = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
    try:
        join(page, served, "red")
        page.click('button[data-open="calibration"]')
        expect(page.locator("#grid-note")).to_contain_text("60 of 60 sites have a switch")
        page.click("#grid-start")
        served.put("o1s1")  # the wrong site's switch: taken as o1s0's for now
        expect(guide_text(page)).to_have_text("Put a piece on orbit 1 space 1.")
        page.click('#guide-buttons button[data-do="stop"]')
        expect(guide_text(page)).to_have_text("Stopped: nothing was saved; the table reads the board as before.")
        assert served.profile.read_bytes() == before
        assert served.observer.switch_sites == {switch: site for site, switch in SWITCHES.items()}
        assert not served.table.loop.paused
        served.lift("o1s1")

        # o1s0's switch is replaced by a spare one (row 7 column 7): redo o1s0 alone from the list of sites.
        served.wiring = {**SWITCHES, "o1s0": (7, 7)}
        page.click('button[data-open="calibration"]')
        page.click("#grid-sites summary")
        expect(page.locator("#grid-list li").first).to_contain_text("orbit 1 space 0: switch row 0 column 0")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=ARTIFACTS / "calibrate-view.png")
        page.click('#grid-list button[data-site="o1s0"]')
        expect(guide_text(page)).to_have_text("Put a piece on orbit 1 space 0.")
        expect(page.locator("#guide-count")).to_have_text("site 1 of 1 · 0 mapped")
        served.put("o1s0")
        expect(guide_text(page)).to_contain_text("60 sites mapped. The table reads the board with it now.")
        assert load_profile(served.profile, BOARD).sites == served.wiring  # the 59 others kept their switches
        assert served.observer.switch_sites[(7, 7)] == "o1s0" and (0, 0) not in served.observer.switch_sites
    finally:
        page.context.close()


def test_a_new_game_is_set_out_piece_by_piece_as_the_sensors_see_it(browser, grid_served):
    served = grid_served(SWITCHES, calibrated=True)
    page = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
    try:
        join(page, served, "red")
        page.click('button[data-open="setup"]')
        page.select_option("#setup-game", "trajectory")
        page.click("#setup-start")
        expect(page.locator("#confirm-title")).to_have_text("Start a new game?")  # the game in play stops
        page.click("#confirm-yes")
        expect(page.locator("#guide-title")).to_have_text("Setting out the pieces")
        order = [tuple(step) for step in served.get("/api/setup")["order"]]
        layout = served.session.game.layout(served.session.state)
        bases = [(piece, site) for piece, site in order if layout[site][0] == piece]
        riders = [(piece, site) for piece, site in order if layout[site][0] != piece]
        assert order == bases + riders and len(riders) == 2  # planets first, then the ships on the home planet
        expect(page.locator("#guide-count")).to_have_text(f"0 of {len(order)} placed")
        expect(page.locator(f'#map circle.site.target[data-site="{order[0][1]}"]')).to_have_count(1)
        assert served.table.loop.paused

        # A piece set down where nothing goes is named, with where the piece asked for belongs.
        first_name = BOARD.site(order[0][1]).name
        # (a site no piece goes on in this game: the companion shuffles where the planets start)
        empty = next(site for site in SWITCHES if not layout.get(site) and site.startswith("o"))
        served.put(empty)
        expect(page.locator("#guide-message")).to_have_text(
            f"Wrong site: nothing goes on {BOARD.site(empty).name}. {guide_piece(order[0][0])} belongs on {first_name}."
        )
        expect(page.locator(f'#map circle.site.mismatch[data-site="{empty}"]')).to_have_count(1)
        served.lift(empty)
        expect(page.locator("#guide-message")).to_be_hidden()

        for n, (piece, site) in enumerate(bases, 1):
            expect(guide_text(page)).to_have_text(f"Put {guide_piece(piece).lower()} on {BOARD.site(site).name}.")
            served.put(site)
            expect(page.locator("#guide-count")).to_have_text(f"{n} of {len(order)} placed")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        # The grid cannot feel a ship set on a planet and this table has no camera: the player taps Placed.
        home = BOARD.site(riders[0][1]).name
        expect(guide_text(page)).to_have_text(f"Put the red ship on {home}, on the home planet, then tap Placed.")
        expect(page.locator('#guide-buttons button[data-do="placed"]')).to_have_class("accent")
        page.screenshot(path=ARTIFACTS / "setup.png", full_page=True)
        for n in (len(order) - 1, len(order)):
            page.click('#guide-buttons button[data-do="placed"]')
            if n < len(order):
                expect(page.locator("#guide-count")).to_have_text(f"{n} of {len(order)} placed")
        expect(guide_text(page)).to_have_text(f"Every piece is placed ({len(order)} of {len(order)}). The companion "
                                              "checks the board now.")  # fmt: skip
        # The referee takes over: the board matches, so no warning, and the first move is read from the board.
        served.until(lambda: not served.table.loop.paused, what="the referee")
        page.wait_for_timeout(500)
        expect(page.locator("#warning")).to_be_hidden()
        assert served.table.loop.warning is None
    finally:
        page.context.close()


def guide_piece(piece: str) -> str:
    from companion.table.setup_guide import piece_words

    return f"The {piece_words(piece)}"


def test_a_spectator_may_watch_a_guide_but_not_run_one(browser, grid_served):
    served = grid_served(SWITCHES, calibrated=True)
    page = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
    try:
        page.goto(served.base + "/")
        live(page)
        refused = page.evaluate("""async () => {
            const r = await fetch('/api/calibration/grid', {method: 'POST',
                headers: {'Content-Type': 'application/json'}, body: JSON.stringify({do: 'start'})});
            return [r.status, (await r.json()).error];
        }""")
        assert refused[0] == 403 and "may only watch" in refused[1]
        assert served.table.guides.walk is None and not served.table.loop.paused
        status, _ = served.post("/api/setup", {"do": "start"}, token=TOKEN)
        assert status == 200
        expect(page.locator("#guide-text")).to_contain_text("Put the")
        expect(page.locator("#guide-buttons")).to_be_hidden()
    finally:
        page.context.close()
