"""A game on a board of the table's library is refereed by the grid under that board: `companion serve`'s LiveTable
on a virtual grid over a pty, the web table on its production server, real SQLite. A small ORBIT board of the
group's own is kept in the library; a game on it starts from a phone; the grid has not learnt it, so the phones are
told and the calibration walk walks that board's sites and writes that board's profile; then moves made with the
pieces are booked, and one no rule allows is named by the board's own site names."""

from __future__ import annotations

import itertools
import json
import re
import time

import jsonschema
from playwright.sync_api import expect

from companion.table.footprint import footprint
from tests.web.conftest import Stream
from tests.web.test_editor_browser import (
    PLANETS,
    enter,
    keep_as,
    lay_out_over_a_photo,
    open_editor,
    shot,
    start_from_the_form,
    symbols,
)
from tests.web.test_openapi import SPEC
from tests.web.test_play_browser import fits as fits_a_phone_page

ID = re.compile(r"\bsite\d+\b")  # the board's site ids (the editor's): never said to players


def small_orbit_board() -> dict:
    """The board a group lays over its photo in the editor (three planet symbols an orbit, each orbit round the
    centre, a flight line from each orbit's first symbol to the next orbit's), as the editor sends it."""
    spots = symbols()
    sites, links, orbits = [], [], {}
    for planet in PLANETS:
        ids = []
        for x, y in spots[planet]:
            n = len(sites) + 1
            sites.append({"id": f"site{n}", "x": round(x, 1), "y": round(y, 1), "kind": "intersection",
                          "label": f"site {n}", "tags": [f"planet-{planet}"]})  # fmt: skip
            ids.append(f"site{n}")
        links += [{"a": a, "b": b, "kind": "orbit", "directed": False} for a, b in itertools.pairwise([*ids, ids[0]])]
        orbits[planet] = ids
    for inner, outer in itertools.pairwise(PLANETS):
        links.append({"a": orbits[inner][0], "b": orbits[outer][0], "kind": "line", "directed": False})
    return {"name": "orbit", "width": 700.0, "height": 700.0, "sites": sites, "links": links, "orbits": orbits}


def wired(board: dict) -> dict[str, tuple[int, int]]:
    """The switch under each site of the group's board as its grid is built: switches in the order the sites lie
    on the table (bottom row first, left to right), wired to the 8 x 8 matrix out of order. A model of the
    physical board: it knows where the sites are, not what any profile says."""
    placed = sorted(board["sites"], key=lambda s: (round(s["y"] / 20), s["x"]))
    return {site["id"]: (7 - i // 8, (3 * i + 5) % 8) for i, site in enumerate(placed)}


def walk_by_hand(gs, asked) -> None:
    """A person follows the walk-through: a piece set down on each site asked (its own switch closes), then lifted
    once the next site is asked; until the walk-through saves."""
    for _ in range(100):
        status = gs.table.guides.walk.status()
        if status["state"] != "walking":
            return
        site = asked()
        assert site == status["site"]
        gs.put(site)
        walk = gs.table.guides.walk
        gs.until(
            lambda step=status["step"], walk=walk: walk.status()["step"] != step or walk.status()["state"] != "walking",
            what=f"the walk-through to take {site}",
        )
        gs.lift(site)
    raise AssertionError("the walk-through did not end")


def grid_tells_apart(gs, wiring):
    """A board move whose board no other legal action leaves to the grid (worked out from the rules alone)."""
    session = gs.session
    game, state = session.game, session.state
    closed = lambda layout: frozenset(wiring[s] for s, pieces in layout.items() if pieces)  # noqa: E731
    before = game.layout(state)
    afters = [(action, game.layout(game.apply(state, action)[0])) for action in game.legal_actions(state)]
    seen = [closed(after) for _, after in afters]
    for action, after in afters:
        if action.type in game.board_moves and closed(after) != closed(before) and seen.count(closed(after)) == 1:
            return action, after
    return None


def book_moves_by_hand(gs, wiring) -> None:
    """The game's pieces set out on the board; red plays a card on a phone; then up to three moves made with the
    pieces (the switches under them), each one the grid tells apart, and each booked from the board."""
    gs.show(gs.session.game.layout(gs.session.state))
    time.sleep(0.4)
    assert gs.loop.warning is None
    inputs = gs.get("/api/inputs")
    play = next(item for item in inputs["phone"] if item["action"]["type"] == "play")
    assert gs.post("/api/act", {"action": play["action"], "actor": "red"})[0] == 200
    for _ in range(3):
        found = grid_tells_apart(gs, wiring)
        if found is None:
            break
        action, after = found
        count = len(gs.session.actions)
        gs.show(after)
        gs.until(lambda count=count: len(gs.session.actions) > count, what=f"{action} to be booked")
        assert gs.session.actions[-1] == action and gs.table.logbook.entries()[-1]["source"] == "board"
    assert len(gs.session.actions) > 1 and any(a.type in gs.session.game.board_moves for a in gs.session.actions)


def refused_by_hand(gs, wiring) -> str:
    """A ship set down where no rule takes it: nothing booked, the phones warned; put back. Returns the warning."""
    session = gs.session
    game, state = session.game, session.state
    before = game.layout(state)
    touched = {site for action in game.legal_actions(state)
               for site in footprint(before, game.layout(game.apply(state, action)[0])).sites}  # fmt: skip
    ship = next(site for site, pieces in before.items() if pieces and pieces[-1].startswith("ship-"))
    empty = next(site for site in wiring if not before.get(site) and site not in touched)
    wrong = {**before, ship: before[ship][:-1], empty: (before[ship][-1],)}
    count = len(session.actions)
    gs.show(wrong)
    warning = gs.until(lambda: gs.loop.warning, what="the warning")
    said = " ".join([warning.text, *warning.advice])
    assert gs.session.game.name == "orbit" and len(session.actions) == count
    assert f"site {empty[4:]}" in said, said  # the site the ship stands on, by its name on the group's board
    gs.show(before)
    gs.until(lambda: gs.loop.warning is None, what="the warning to clear")
    return said


def test_a_game_on_a_library_board_is_refereed_by_that_boards_grid_profile(grid_served, tmp_path):
    board = small_orbit_board()
    wiring = wired(board)
    gs = grid_served(wiring, calibrated=False, game="orbit", options={})
    status, kept = gs.post("/api/editor/save", {"game": "orbit", "name": "my-copy", "board": board})
    assert status == 201, kept
    assert gs.live.observer.switch_sites == {}  # the table's own board (ORBIT's) has no profile either
    markers = json.loads((tmp_path / "datasets/orbit/board/my-copy").read_text())["fiducials"]
    assert len(markers) == 10 and all(0 <= f["x"] <= 700 and 0 <= f["y"] <= 700 for f in markers)  # for the camera

    status, _ = gs.post("/api/games", {"game": "orbit", "players": ["red", "blue"], "options": {"board": "my-copy"}})
    assert status == 201
    entries = gs.table.logbook.entries(game_id=gs.session.record.id)
    notes = [e["events"][0]["text"] for e in entries if e["kind"] == "note"]
    assert "The grid has not learnt the board “my-copy” yet: walk it from Calibrate" in " ".join(notes), notes
    assert gs.table.guides.grid_status()["mapped"] == {} and gs.live.senses.status()["grid"] == "absent"
    assert gs.get("/api/setup")["state"] == "waiting"  # the walk-through first (test below); here from Calibrate

    status, walk = gs.post("/api/calibration/grid", {"do": "start"})
    assert status == 200, walk
    assert walk["total"] == 24 and walk["site"] in wiring and walk["name"].startswith("site ")
    walk_by_hand(gs, lambda: gs.table.guides.walk.status()["site"])
    assert gs.table.guides.walk.status()["state"] == "saved"
    profile = tmp_path / "grid.orbit.my-copy.json"
    assert profile.exists() and not (tmp_path / "grid.json").exists()  # its own profile; the table's own untouched
    assert gs.live.observer.switch_sites == {switch: site for site, switch in wiring.items()}
    assert gs.live.senses.status()["grid"] == "up"
    assert gs.get("/api/setup")["state"] == "placing"  # the guided setup followed: stopped, the pieces set out at once
    assert gs.post("/api/setup", {"do": "stop"})[0] == 200

    # The pieces set out; red plays a card on a phone; then moves made with the pieces are booked from the grid.
    book_moves_by_hand(gs, wiring)
    said = refused_by_hand(gs, wiring)
    assert "site " in said and not ID.search(said), said


def test_a_walk_of_the_old_board_ends_when_a_game_on_another_board_starts(grid_served, tmp_path):
    board = small_orbit_board()
    gs = grid_served(wired(board), calibrated=False, game="orbit", options={"board": "back"})
    assert gs.post("/api/editor/save", {"game": "orbit", "name": "my-copy", "board": board})[0] == 201
    assert gs.live.grid.profile == tmp_path / "grid.orbit.back.json"
    status, walk = gs.post("/api/calibration/grid", {"do": "start", "sites": ["r1s0", "r1s1"]})
    assert status == 200 and walk["site"] == "r1s0", walk  # a few sites of ORBIT's back side
    gs.post("/api/games", {"game": "orbit", "players": ["red", "blue"], "options": {"board": "my-copy"}})
    assert gs.table.guides.walk.status()["state"] == "stopped"
    assert gs.live.grid.profile == tmp_path / "grid.orbit.my-copy.json"
    assert not (tmp_path / "grid.orbit.back.json").exists()
    assert gs.get("/api/setup")["state"] == "waiting"
    status, walk = gs.post("/api/calibration/grid", {"do": "start"})
    assert status == 200 and walk["total"] == 24 and walk["site"] in wired(board), walk  # the new board's sites


def test_a_new_game_on_a_board_the_grid_has_not_learnt_leads_with_the_walk_and_the_guide_follows(grid_served):
    """Every phone is told the first step (the walk-through) instead of a guide the grid could not follow; the
    referee waits; a walk stopped half-way offers the step again; one saved starts the guided setup at once, and
    the guide follows the pieces on the newly learnt switches. A game on a learnt board is guided straight away."""
    board = small_orbit_board()
    wiring = wired(board)
    gs = grid_served(wiring, calibrated=False, game="orbit", options={})
    assert gs.post("/api/editor/save", {"game": "orbit", "name": "my-copy", "board": board})[0] == 201
    phone = Stream(gs.port)
    try:
        start = {"game": "orbit", "players": ["red", "blue"], "options": {"board": "my-copy"}}
        assert gs.post("/api/games", start)[0] == 201
        first = phone.until("setup", lambda data: data is not None and data["state"] == "waiting")["data"]
        assert first["text"] == "First, teach the grid your board: 24 sites, a piece on each in turn."
        assert first["count"] == "24 sites" and first["message"] is None and gs.get("/api/setup") == first
        assert gs.table.loop.paused and gs.table.guides.guide is None
        setup = {**SPEC["components"]["schemas"]["Setup"], "components": SPEC["components"]}
        jsonschema.validate(first, setup, cls=jsonschema.Draft202012Validator)  # as docs/openapi.json says
        status, answer = gs.post("/api/setup", {"do": "placed"})
        assert (status, answer) == (409, {"error": "the grid is learning the board first: walk it, or start the "
                                                   "guide without it"})  # fmt: skip
        late = Stream(gs.port)  # a phone that joins now sees the same step
        assert late.until("setup")["data"] == first
        late.close()

        # A walk started and stopped: the step is offered again, saying so; the referee still waits.
        assert gs.post("/api/calibration/grid", {"do": "start"})[0] == 200
        phone.until("calibration", lambda data: data is not None and data["state"] == "walking")
        assert gs.post("/api/calibration/grid", {"do": "stop"})[0] == 200
        again = phone.until("setup", lambda data: data["state"] == "waiting" and data["message"])["data"]
        assert again["message"] == "The walk-through stopped before it was saved: the grid still cannot feel " \
                                   "the pieces."  # fmt: skip
        assert gs.table.loop.paused

        # Walked to the end: the guided setup follows at once, the first piece on a site the grid now feels.
        assert gs.post("/api/calibration/grid", {"do": "start"})[0] == 200
        walk_by_hand(gs, lambda: gs.table.guides.walk.status()["site"])
        guide = phone.until("setup", lambda data: data["state"] == "placing")["data"]
        assert guide["count"].startswith("0 of ") and guide["how"] == "sensors" and guide["text"].startswith("Put ")
        assert gs.table.loop.paused and gs.get("/api/setup")["state"] == "placing"
        site = guide["order"][0][1]
        gs.put(site)
        phone.until("setup", lambda data: data["placed"] == 1)
        gs.lift(site)

        # A game on the learnt board now: guided straight away, no walk-through offered.
        assert gs.post("/api/games", start)[0] == 201
        assert phone.until("setup", lambda data: data["state"] == "placing" and data["placed"] == 0)["data"]
        assert gs.table.guides.first is None
    finally:
        phone.close()


def test_a_game_started_while_its_board_is_being_walked_is_guided_once_the_walk_is_saved(grid_served):
    board = small_orbit_board()
    wiring = wired(board)
    gs = grid_served(wiring, calibrated=False, game="orbit", options={})
    assert gs.post("/api/editor/save", {"game": "orbit", "name": "my-copy", "board": board})[0] == 201
    start = {"game": "orbit", "players": ["red", "blue"], "options": {"board": "my-copy"}}
    assert gs.post("/api/games", start)[0] == 201
    assert gs.post("/api/setup", {"do": "stop"})[0] == 200  # the group walks it from Calibrate later
    assert gs.post("/api/calibration/grid", {"do": "start"})[0] == 200
    assert gs.post("/api/games", start)[0] == 201  # the same board: its walk goes on, and the new game waits for it
    assert gs.table.guides.walk.running and gs.get("/api/setup")["state"] == "waiting"
    walk_by_hand(gs, lambda: gs.table.guides.walk.status()["site"])
    assert gs.get("/api/setup")["state"] == "placing" and gs.table.loop.paused


def test_the_group_may_set_out_by_taps_or_stop_guiding_instead_of_walking(grid_served):
    """The group may set out by taps without the grid, or stop guiding; either ends the wait for the walk."""
    board = small_orbit_board()
    gs = grid_served(wired(board), calibrated=False, game="orbit", options={})
    assert gs.post("/api/editor/save", {"game": "orbit", "name": "my-copy", "board": board})[0] == 201
    start = {"game": "orbit", "players": ["red", "blue"], "options": {"board": "my-copy"}}
    assert gs.post("/api/games", start)[0] == 201
    status, guide = gs.post("/api/setup", {"do": "start"})
    assert status == 200 and guide["state"] == "placing" and guide["how"] == "tap"
    assert gs.post("/api/games", start)[0] == 201
    status, stopped = gs.post("/api/setup", {"do": "stop"})
    assert status == 200 and stopped["state"] == "stopped" and stopped["text"].startswith("The guide has stopped.")
    assert gs.get("/api/setup") == stopped and gs.table.guides.guide is not None and not gs.table.guides.guide.running
    gs.until(lambda: not gs.table.loop.paused, what="the referee")


def test_from_the_page_a_copy_is_laid_over_its_photo_its_grid_walked_and_its_moves_refereed(
        browser, grid_served, tmp_path):  # fmt: skip
    """All of it from the page, as a group with its own ORBIT board does it: the board laid over a photo of it and
    kept, a deck entered and kept, a new game on both from the form; the page leads with the grid's walk-through
    (the grid has not learnt the board), done with pieces set on the switches; the guided setup follows at once
    and the pieces are set out; then moves made with them are booked and one no rule allows is refused in the
    board's own site names."""
    gs = grid_served({}, calibrated=False, game="orbit", options={})
    page, errors = open_editor(browser, gs, tmp_path, "/editor")
    lay_out_over_a_photo(page, tmp_path)
    keep_as(page, "my-copy", "ORBIT: board “my-copy”")
    gs.wiring = wiring = wired(json.loads((tmp_path / "datasets/orbit/board/my-copy").read_text()))
    page.goto(f"{gs.base}/editor/deck")
    expect(page.locator("#problems li")).to_have_text("The game can deal this deck.")
    enter(page.locator("fieldset.card").first, "Copies", "3")
    keep_as(page, "club", "ORBIT: deck “club”")
    assert errors == []

    phone = page.context.new_page()  # the host's own phone, at phone size: it kept the board and starts the game
    phone.set_viewport_size({"width": 360, "height": 740})

    def ours(options) -> None:
        options.locator("[data-option=board]").select_option("my-copy")
        options.locator("[data-option=deck]").select_option("club")

    start_from_the_form(phone, gs, "orbit", ours, stop_guide=False)
    assert gs.session.state.deck > 0 and gs.live.playing.sites[0].id == "site1"
    expect(phone.locator("#log")).to_contain_text("The grid has not learnt the board “my-copy” yet")
    # The page leads with the walk-through: the grid could not feel the pieces being set out.
    first = "First, teach the grid your board: 24 sites, a piece on each in turn."
    watcher = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
    watcher.goto(f"{gs.base}/")  # a phone that joins now sees the same step, without the buttons
    for page in (phone, watcher):
        expect(page.locator("#guide-title")).to_have_text("A board new to the grid")
        expect(page.locator("#guide-text")).to_have_text(first)
        expect(page.locator("#guide-count")).to_have_text("24 sites")
    expect(watcher.locator("#guide-buttons")).to_be_hidden()
    watcher.context.close()
    teach = phone.locator('#guide-buttons button[data-do="walk"]')
    expect(teach).to_have_text("Teach the grid")
    assert teach.bounding_box()["height"] >= 44
    shot(phone, "#guide", "grid-first-phone.png")
    phone.click('button[data-open="calibration"]')  # Calibrate says the same
    expect(phone.locator("#grid-note")).to_contain_text(
        "The grid has not learnt the board “my-copy” yet: moves are declared on a phone until it is walked. "
        "0 of 24 sites have a switch."
    )
    shot(phone, "#grid-note", "calibrate-copy-phone.png")
    phone.click('#calibration button[value="close"]')
    teach.click()
    # A person looks at the site the phone's map rings and sets a piece on it.
    walking = "window.orrery.app.guides.latest.calibration"
    for _ in range(24):
        expect(phone.locator("#guide-text")).to_contain_text("Put a piece on site ")
        asked = phone.evaluate(f"{walking}.site")
        assert phone.locator("#guide-text").inner_text() == f"Put a piece on {gs.live.playing.site(asked).name}."
        step = phone.evaluate(f"{walking}.step")
        gs.put(asked)
        gs.until(lambda step=step: phone.evaluate(f"{walking}.step") != step
                 or phone.evaluate(f"{walking}.state") != "walking", what=f"the walk to take {asked}")  # fmt: skip
        gs.lift(asked)
        if phone.evaluate(f"{walking}.state") != "walking":
            break
    assert (tmp_path / "grid.orbit.my-copy.json").exists()
    expect(phone.locator("#log")).to_contain_text("The board's grid is calibrated. Refereeing the board now: grid")
    # The guided setup follows at once, each piece seen on its site by the switches just learnt.
    expect(phone.locator("#guide-title")).to_have_text("Setting out the pieces")
    expect(phone.locator("#guide-text")).to_contain_text("Put the ")
    setup = "window.orrery.app.guides.latest.setup"
    order = phone.evaluate(f"{setup}.order")
    expect(phone.locator("#guide-count")).to_have_text(f"0 of {len(order)} placed")
    shot(phone, "#guide", "grid-first-setup-phone.png")
    layout = gs.session.game.layout(gs.session.state)
    for placed, (_, site) in enumerate(order):
        if layout[site][0] != order[placed][0]:
            break  # a piece on another: a tap
        gs.show({s: layout[s][:1] for _, s in order[: placed + 1]})
        expect(phone.locator("#guide-count")).to_have_text(f"{placed + 1} of {len(order)} placed")
    while phone.evaluate(f"{setup}.state") == "placing":  # the ships on their planets: a tap each
        placed = phone.evaluate(f"{setup}.placed")
        phone.click('#guide-buttons button[data-do="placed"]')
        gs.until(lambda placed=placed: phone.evaluate(f"{setup}.placed") != placed
                 or phone.evaluate(f"{setup}.state") != "placing", what="the tap to count")  # fmt: skip
    gs.until(lambda: not gs.table.loop.paused, what="the referee after the setup")

    phone.evaluate("window.orrery.app.send('/api/seats/leave', {seat: 'red'})")  # Red plays on from another phone
    gs.until(lambda: gs.table.seats.holder("red") is None, what="the seat free")
    assert gs.post("/api/seats/take", {"seat": "red", "together": True})[0] == 200
    book_moves_by_hand(gs, wiring)
    booked = gs.table.logbook.entries()[-1]["events"][0]["text"]
    expect(phone.locator("#log li").first).to_contain_text(booked[:30])
    said = refused_by_hand(gs, wiring)
    assert not ID.search(said)
    fits_a_phone_page(phone, 360)
