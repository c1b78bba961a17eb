"""The board editor in Chromium, as a person with their own ORBIT board uses it: a photo of the board taken at a
slant, its corners dragged into place, eight small orbits laid over it site by site, the board kept on the table,
a game started on it and played; then the page at phone size."""

from __future__ import annotations

import itertools
import json
import math
import time

import cv2
import numpy as np
from playwright.sync_api import expect

from companion.table.datasets import DataSets, set_path
from tests.web.conftest import ARTIFACTS
from tests.web.test_browser import join

PLANETS = ("red", "orange", "yellow", "green", "blue", "purple", "brown", "gray")
BGR = {
    "red": (40, 40, 220),
    "orange": (30, 140, 250),
    "yellow": (40, 220, 240),
    "green": (60, 180, 60),
    "blue": (220, 90, 40),
    "purple": (160, 50, 140),
    "brown": (40, 70, 120),
    "gray": (150, 150, 150),
}
SIZE_MM = 700.0
# Where the test's photo has the board's corners (top-left, top-right, bottom-right, bottom-left), in pixels.
PHOTO_CORNERS = [(260, 120), (1010, 160), (1100, 840), (180, 800)]


def symbols() -> dict[str, list[tuple[float, float]]]:
    """Three planet symbols per orbit, each orbit a triangle round the centre, in board mm (y up)."""
    out = {}
    for k, planet in enumerate(PLANETS):
        radius = 50 + 38 * k
        out[planet] = [(350 + radius * math.cos(math.radians(k * 15 + 120 * i)),
                        350 + radius * math.sin(math.radians(k * 15 + 120 * i))) for i in range(3)]  # fmt: skip
    return out


def photo() -> bytes:
    """A slanted photo of a printed board: the board drawn flat, then seen in perspective on a dark table."""
    return slanted({(x, y): BGR[planet] for planet, spots in symbols().items() for x, y in spots}, SIZE_MM)


def slanted(marks: dict[tuple[float, float], tuple[int, int, int]], size_mm: float) -> bytes:
    """A board `size_mm` square with a coloured disc at each mark (board mm, y up), photographed at a slant."""
    scale = 1000 / size_mm
    flat = np.full((1000, 1000, 3), 235, np.uint8)
    for (x, y), colour in marks.items():
        cv2.circle(flat, (round(x * scale), round((size_mm - y) * scale)), 16, colour, -1)
    matrix = cv2.getPerspectiveTransform(
        np.float32([(0, 0), (999, 0), (999, 999), (0, 999)]), np.float32(PHOTO_CORNERS)
    )
    scene = cv2.warpPerspective(flat, matrix, (1280, 960), borderValue=(30, 25, 20))
    return cv2.imencode(".jpg", scene, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()


def tap_board(page, x: float, y: float) -> None:
    """Tap the board where its point (x, y) in mm is shown."""
    point = page.evaluate(
        """([x, y]) => {
        const svg = document.getElementById("board");
        svg.scrollIntoView({ block: "center" });
        const p = svg.createSVGPoint(); p.x = x; p.y = svg.viewBox.baseVal.height - y;
        const s = p.matrixTransform(svg.getScreenCTM()); return [s.x, s.y]; }""",
        [x, y],
    )
    page.mouse.click(point[0], point[1])


def drag_corner(page, index: int, to: tuple[float, float]) -> None:
    page.locator("#photo-frame").scroll_into_view_if_needed()
    frame = page.locator("#photo-view").bounding_box()
    handle = page.locator(".corner").nth(index).bounding_box()
    page.mouse.move(handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2)
    page.mouse.down()
    page.mouse.move(frame["x"] + frame["width"] * to[0] / 1280, frame["y"] + frame["height"] * to[1] / 960, steps=4)
    page.mouse.up()


def over_a_photo(page, picture, path, empty: bool = True, size_mm: float | None = None) -> None:
    """The photo taken (from an empty board if `empty`), its corners dragged onto the board's, the board's size in mm
    given (if `size_mm`), and flattened."""
    if empty:
        page.select_option("#start", "empty")
        page.click("#load")
        expect(page.locator("#board .hit")).to_have_count(0)
    path.write_bytes(picture)
    page.locator("#photo").set_input_files(str(path))
    expect(page.locator(".corner")).to_have_count(4)
    for i, corner in enumerate(PHOTO_CORNERS):
        drag_corner(page, i, corner)
    if size_mm is not None:
        page.fill("#width", str(size_mm))
        page.fill("#height", str(size_mm))
    page.click("#flatten")
    expect(page.locator("#message")).to_contain_text("The photo is flat")


def open_editor(browser, served, tmp_path, path: str, size=(1280, 900)):
    """The editor at `path` in Chromium at `size`, the table keeping data sets in `tmp_path`, its phone joined; and its
    errors."""
    served.table.datasets = DataSets(tmp_path / "datasets")
    page = browser.new_context(viewport={"width": size[0], "height": size[1]}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{served.base}{path}{'&' if '?' in path else '?'}t={served.table.seats.token}")
    # The page has joined (the page's load does not wait for it): the table's first phone, so its host, who keeps
    # and adds sets; a request of the tests' own phone before it would make that phone the host.
    page.wait_for_function("localStorage.getItem('orrery.phone')")
    return page, errors


def lay_out_over_a_photo(page, tmp_path) -> dict[str, list[tuple[float, float]]]:
    """A small ORBIT board laid over its slanted photo from an empty board, as a person does it: eight orbits, each
    symbol placed where the photo shows it, given its planet, then joined round; a flight line from each orbit to the
    next. Returns where the symbols are (board mm)."""
    expect(page.locator("#problems li")).to_have_text("The game can be played on this board.")
    over_a_photo(page, photo(), tmp_path / "board.jpg")
    page.click('[data-tool="site"]')
    spots = symbols()
    for planet in PLANETS:
        for x, y in spots[planet]:
            tap_board(page, x, y)
    page.click('[data-tool="move"]')
    for planet in PLANETS:
        for x, y in spots[planet]:
            tap_board(page, x, y)
            page.select_option("#site-planet", planet)
    for planet in PLANETS:
        page.click('[data-tool="orbit"]')
        for x, y in [*spots[planet], spots[planet][0]]:
            tap_board(page, x, y)
    page.click('[data-tool="line"]')
    for inner, outer in itertools.pairwise(PLANETS):
        tap_board(page, *spots[inner][0])
        tap_board(page, *spots[outer][0])
    expect(page.locator("#problems li")).to_have_text("The game can be played on this board.", timeout=5000)
    return spots


def test_a_board_is_built_over_a_photo_kept_and_played_on(browser, served, tmp_path):
    page, errors = open_editor(browser, served, tmp_path, "/editor")
    spots = lay_out_over_a_photo(page, tmp_path)

    # The flattened photo shows each symbol's colour where the site was placed over it.
    seen = page.evaluate("""async () => {
        const image = document.querySelector("#board image");
        const bitmap = await createImageBitmap(await (await fetch(image.getAttribute("href"))).blob());
        const canvas = new OffscreenCanvas(bitmap.width, bitmap.height), g = canvas.getContext("2d");
        g.drawImage(bitmap, 0, 0);
        const svg = document.getElementById("board"), W = svg.viewBox.baseVal.width, H = svg.viewBox.baseVal.height;
        return [...document.querySelectorAll("#board .hit")].map((hit) => {
            const x = Number(hit.getAttribute("cx")) * bitmap.width / W;
            const y = Number(hit.getAttribute("cy")) * bitmap.height / H;
            return Array.from(g.getImageData(Math.round(x), Math.round(y), 1, 1).data.slice(0, 3)); }); }""")
    wanted = [BGR[p][::-1] for p in PLANETS for _ in range(3)]
    assert len(seen) == 24
    for rgb, want in zip(seen, wanted, strict=True):
        assert max(abs(a - b) for a, b in zip(rgb, want, strict=True)) < 60, (rgb, want)

    page.fill("#name", "my-copy")
    page.click("#save")
    expect(page.locator("#message")).to_contain_text("Kept on the table as “my-copy”")
    expect(page.locator("#library li")).to_contain_text(["ORBIT: board “my-copy”"])
    kept = json.loads((tmp_path / "datasets/orbit/board/my-copy").read_text())
    assert len(kept["sites"]) == 24 and set(kept["orbits"]) == set(PLANETS)
    for site, (x, y) in zip(kept["sites"], [s for p in PLANETS for s in spots[p]], strict=True):
        assert math.hypot(site["x"] - x, site["y"] - y) < 3

    # A game on it, from the new-game form's choice, and played through the phones' API.
    served.host_now()  # the tests' own phone starts the next game: the console made it the host
    status, state = served.post("/api/games", {"game": "orbit", "players": ["red", "blue"],
                                               "options": {"board": "my-copy"}})  # fmt: skip
    assert status == 201, state
    assert {s["id"] for s in served.get("/api/board")["sites"]} == {s["id"] for s in kept["sites"]}
    set_out(served)
    play(served, 3)

    # The draft survives a reload (this browser's storage).
    page.reload()
    expect(page.locator("#message")).to_contain_text("Your draft from last time is back")
    expect(page.locator("#board .hit")).to_have_count(24)
    expect(page.locator("#board image")).to_have_count(1)  # the flattened photo is kept with the draft
    wide = page.evaluate("""() => [document.documentElement.scrollWidth, ...[...document.querySelectorAll('body *')]
        .filter(e => e.getBoundingClientRect().right > 1280).map(e => e.tagName + ' ' + e.id)]""")
    assert wide == [1280]
    assert errors == []

    phone = browser.new_context(viewport={"width": 360, "height": 780}).new_page()
    phone.goto(f"{served.base}/editor?t={served.table.seats.token}")
    expect(phone.locator("#board .hit")).to_have_count(217)
    fits_a_phone(phone)
    phone.click("#zoom-in")
    frame = phone.locator("#board-editor .board-frame").bounding_box()["width"]
    assert phone.locator("#board").bounding_box()["width"] > 1.9 * frame  # larger than the screen, to scroll over
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360
    phone.click("#zoom-out")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=ARTIFACTS / "editor-desktop.png", full_page=True)
    phone.screenshot(path=ARTIFACTS / "editor-phone.png", full_page=True)


def fits_a_phone(page) -> None:
    """Nothing runs off a 360 px screen, and every control shown is a finger's 44 px high."""
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    small = page.evaluate("""() => [...document.querySelectorAll("button, select, input, a.button, label.button")]
        .filter((e) => e.offsetParent && e.type !== "checkbox" && e.type !== "file")
        .map((e) => [e.id || e.textContent.trim(), e.getBoundingClientRect().height])
        .filter(([, h]) => h < 44)""")
    assert small == []


def keep_as(page, name: str, listed: str) -> None:
    """Keep what is edited on the table under `name`; the library lists it as `listed`."""
    page.fill("#name", name)
    page.click("#save")
    expect(page.locator("#message")).to_contain_text(f"Kept on the table as “{name}”")
    expect(page.locator("#library li")).to_contain_text([listed])


def shot(page, at: str, name: str) -> None:
    """A screenshot of what the screen shows with the element `at` at its top (the pictures docs/editor.md uses)."""
    page.locator(at).evaluate("(e) => e.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(100)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=ARTIFACTS / name)


def open_phone_editor(browser, served, tmp_path, path: str):
    """An editor's page on a phone-sized Chromium, the table keeping data sets in `tmp_path`; and its errors."""
    return open_editor(browser, served, tmp_path, path, (360, 780))


def first_move(served) -> tuple[int, dict]:
    """The first move the game lists, declared through the phones' API: the answer."""
    inputs = served.get("/api/inputs")
    move = next(item for item in inputs["phone"] + inputs["board"] if not item.get("chance"))
    return served.post("/api/act", {"action": move["action"], "actor": inputs["actor"]})


def set_out(served) -> None:
    """A new game on a board the table's grid has not learnt (the table's grid knows its own Trajectory board) begins
    with the guide's step for a board new to the grid; the group sets the pieces out on its own copy and stops the
    guide, as its Stop guiding button does: the phones declare the moves."""
    setup = served.get("/api/setup")
    assert setup["state"] == "waiting", setup
    status, answer = served.post("/api/setup", {"do": "stop"})
    assert status == 200 and answer["state"] == "stopped", answer


def play(served, moves: int) -> None:
    """Make `moves` moves of the game in play through the phones' API, each the first the game lists."""
    for _ in range(moves):
        status, answer = first_move(served)
        assert status == 200, answer
    assert len(served.session.actions) == moves


def enter(box, label: str, value: str) -> None:
    """Type a number into the field of that label in `box`, as a person does: it changes once they leave it."""
    box.get_by_label(label).fill(value)
    box.get_by_label(label).dispatch_event("change")


def start_from_the_form(page, served, game: str, choose, stop_guide: bool = True) -> None:
    """The host starts a new game of `game` from the phone page's new-game form, `choose` setting its options; the
    page leads with the guide's step for a board new to the grid (the table's grid knows its own Trajectory board),
    which is stopped on the page (the group has set the pieces out on its own copy), unless `stop_guide` is False
    (the caller follows what the page leads with)."""
    join(page, served, "red")
    page.click('button[data-open="setup"]')
    page.select_option("#setup-game", game)
    choose(page.locator("#setup-options"))
    assert page.evaluate("document.getElementById('setup').scrollWidth") <= 360
    page.click("#setup-start")
    page.click("#confirm-yes")
    expect(page.locator("#setup")).to_be_hidden()
    assert served.session.game.name == game
    if not stop_guide:
        return
    expect(page.locator("#guide-title")).to_have_text("A board new to the grid")
    page.locator("#guide-buttons button", has_text="Stop guiding").click()
    expect(page.locator("#guide-text")).to_contain_text("The guide has stopped")


def test_a_deck_is_entered_card_by_card_kept_and_dealt(browser, served, tmp_path):
    page, errors = open_phone_editor(browser, served, tmp_path, "/editor/deck")
    expect(page.locator("#problems li")).to_have_text("The game can deal this deck.")
    expect(page.locator("#size")).to_have_text("56 cards in all.")
    first = page.locator("fieldset.card").first
    expect(first.locator(".does")).to_contain_text("advance red 1, orange 1")
    enter(first, "Copies", "0")
    expect(page.locator("#problems li")).to_have_text(
        "card c01: counts are at least 1 and planets advance 1 or 2 positions"
    )
    enter(first, "Copies", "3")
    page.click("#add-card")
    added = page.locator("fieldset.card").last
    expect(added.locator("legend")).to_have_text("Card c29")
    added.get_by_role("button", name="Add a planet to advance").click()
    added = page.locator("fieldset.card").last
    added.get_by_label("Advance", exact=True).select_option("gray")
    added.get_by_label("by", exact=True).select_option("2")
    enter(added, "Flight steps", "2")
    expect(added.locator(".does")).to_have_text("advance gray 2; fly 2")
    expect(page.locator("#size")).to_have_text("58 cards in all.")
    page.fill("#name", "club")
    page.click("#save")
    expect(page.locator("#message")).to_contain_text("Kept on the table as “club”")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=ARTIFACTS / "editor-deck-phone.png")
    first.scroll_into_view_if_needed()
    page.screenshot(path=ARTIFACTS / "editor-deck-card-phone.png")
    # Kept again under a name the table holds: the page asks first, as for a library file.
    page.click("#save")
    expect(page.locator("#import-ask-text")).to_have_text(
        "ORBIT's deck “club” is already on this table: keep it under another name, or say to replace it."
    )
    expect(page.locator("#import-as")).to_have_text("Keep under this name")
    expect(page.locator("#import-name")).to_have_value("club-2")
    page.set_viewport_size({"width": 360, "height": 740})
    page.screenshot(path=ARTIFACTS / "editor-save-ask-phone.png")
    page.click("#import-ask button[value=cancel]")
    expect(page.locator("#message")).to_have_text("Nothing kept: the table's sets are as they were.")
    page.click("#save")
    page.click("#import-as")
    expect(page.locator("#message")).to_contain_text("Kept on the table as “club-2”")
    expect(page.locator("#name")).to_have_value("club-2")
    page.fill("#name", "club")
    page.click("#save")
    page.click("#import-replace")
    expect(page.locator("#message")).to_contain_text("Kept on the table as “club”")
    expect(page.locator("#library li")).to_have_count(2)
    assert errors == []

    served.host_now()  # the tests' own phone starts the next game: the console made it the host
    status, state = served.post("/api/games", {"game": "orbit", "players": ["red", "blue"],
                                               "options": {"deck": "club"}})  # fmt: skip
    assert status == 201, state
    assert served.session.state.deck == 58 - 6
    set_out(served)
    play(served, 2)


def test_a_planet_map_is_painted_hex_by_hex_kept_and_played_on(browser, served, tmp_path):
    page, errors = open_phone_editor(browser, served, tmp_path, "/editor/planet")
    expect(page.locator("#problems li")).to_have_text("The game can be played on this map.")
    expect(page.locator("#planet polygon")).to_have_count(63)
    page.click('[data-paint="water"]')
    page.click('#planet polygon[data-hex="0000"]')
    page.click('[data-paint="forest"]')
    page.click('#planet polygon[data-hex="0101"]')
    page.click('[data-paint="starports"]')
    page.click('#planet polygon[data-hex="0000"]')  # a fourth starport, on water: the game refuses it
    expect(page.locator("#problems li")).to_contain_text("starports: expected a list of 3 hexes")
    page.click('[data-paint="clear"]')
    page.click('#planet polygon[data-hex="0000"]')
    expect(page.locator("#problems li")).to_have_text("The game can be played on this map.")
    page.fill("#name", "our-first")
    page.click("#save")
    expect(page.locator("#message")).to_contain_text("Kept on the table as “our-first”")
    expect(page.locator("#library li")).to_contain_text(["Orbital Battle: planet map “our-first”"])
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.locator("#planet").scroll_into_view_if_needed()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=ARTIFACTS / "editor-planet-phone.png")
    assert errors == []
    kept = json.loads((tmp_path / "datasets/orbital_battle/planet_files/our-first").read_text())
    assert kept["rows"][0][0] == "W" and kept["rows"][1][1] == "F"

    # The host starts a game on it from the new-game form: planet 1 on the map kept, the others the game's own.
    def planet_one(options) -> None:
        planets = options.locator('fieldset[data-option="planet_files"]')
        expect(planets.locator("select")).to_have_count(8)
        expect(planets.get_by_label("planet 1")).to_contain_text("the game's own")
        planets.get_by_label("planet 1").select_option(label="our-first")

    start_from_the_form(page, served, "orbital_battle", planet_one)
    chosen = served.session.state.options.planet_files
    assert list(chosen) == ["1"] and str(set_path(chosen["1"])).endswith("orbital_battle/planet_files/our-first")
    from companion.rules.orbital_battle.geo import planet_map

    assert planet_map(served.session.state, "1").terrain["0000"] == "water"
    play(served, 2)


def test_periorbis_cards_track_and_team_are_entered_kept_and_played_on(browser, served, tmp_path):
    page, errors = open_phone_editor(browser, served, tmp_path, "/editor/periorbis")
    ok = "The game can start on these cards, track and team."
    # about a hundred cards are built and checked before the first verdict: allow for a busy machine
    expect(page.locator("#problems li")).to_have_text(ok, timeout=20_000)
    slow = 20_000  # each check and the saving set a game up on about a hundred cards
    captain = page.locator("fieldset.card", has=page.locator("legend", has_text="Start card 3: captain, paid 2"))
    expect(captain.locator(".does")).to_have_text("captain, paid 2: carries 3 cargo")
    enter(captain, "Cargo carried", "4")
    expect(captain.locator(".does")).to_have_text("captain, paid 2: carries 4 cargo")
    card = page.locator("fieldset.card", has=page.locator("legend", has_text="Card 3, deck 1"))
    enter(card, "Wage", "0")
    expect(page.locator("#problems li")).to_have_text("employee card 3 (deck 1), wage: must be at least 1")
    enter(card, "Wage", "3")
    ship = page.locator("fieldset.card", has=page.locator("legend", has_text="Ship 1-1"))
    enter(ship, "Leaves once filled", "13")
    expect(page.locator("#problems li")).to_have_text("ship card 1-1, minimum: must be 1 to the ship's spaces")
    enter(ship, "Leaves once filled", "4")
    expect(ship.locator(".does")).to_contain_text("leaves once 4 are filled")
    second = page.locator("fieldset.card", has=page.locator("legend", has_text="Ship 1-2"))
    enter(second, "Name on the card", "1-1")  # a card's name is its own: the table says which is taken twice
    expect(page.locator("#problems li")).to_have_text("ship card 1-1, id: '1-1' is used twice")
    enter(
        page.locator("fieldset.card", has=page.locator("legend", has_text="Ship 1-1")).nth(1),
        "Name on the card",
        "1-twelve",
    )
    expect(page.locator("fieldset.card legend", has_text="Ship 1-twelve")).to_have_count(1)
    turn = page.locator("#periorbis-orbit fieldset.card").first
    turn.get_by_label("hygiea", exact=True).select_option(label="reached with drive 2")
    team = page.locator("fieldset.card", has=page.locator("legend", has_text="Start team"))
    expect(team.get_by_label("HQ slot 1").locator("option:checked")).to_have_text("basic employee, paid 1")
    expect(team.get_by_label("HQ slot 2").locator("option:checked")).to_have_text("engineer, paid 2")
    team.get_by_label("HQ slot 3").select_option(label="nobody")
    expect(page.locator("#problems li")).to_have_text(ok, timeout=slow)
    page.fill("#name", "club")
    page.click("#save")
    expect(page.locator("#message")).to_contain_text("Kept on the table as “club”", timeout=slow)
    expect(page.locator("#library li")).to_contain_text(["Periorbis: cards, track and start team “club”"])
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    small = page.evaluate("""() => [...document.querySelectorAll("#periorbis-editor :is(button, input, select)")]
        .filter((e) => e.getBoundingClientRect().height < 44).map((e) => e.textContent || e.ariaLabel)""")
    assert small == []
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    captain.evaluate("(card) => card.scrollIntoView()")
    page.screenshot(path=ARTIFACTS / "editor-periorbis-phone.png")
    assert errors == []

    start_from_the_form(
        page, served, "periorbis", lambda options: options.locator("[data-option=data]").select_option("club")
    )
    from companion.rules.periorbis.datafiles import load

    data = load(served.session.state.options.data)
    assert data.cards[-2].skills.captain == 4 and data.ships["1-1"].minimum == 4
    assert data.setup.start_team == (0, -1) and data.orbit[0]["hygiea"] == 2
    # Red's first move, made on Red's phone: an employee set to research, tapped among the moves the page offers.
    expect(page.locator("#your-turn")).to_be_visible()
    page.locator("#declared button", has_text="Red's employee 1 researches").click()
    deadline = time.monotonic() + 10
    while not served.session.actions and time.monotonic() < deadline:
        time.sleep(0.05)
    entry = served.get("/api/log")["entries"][-1]
    assert entry["action"]["type"] != "end_turn" and entry["action"]["employee"] == 1
    assert (entry["actor"], entry["source"]) == ("red", "phone") and len(served.session.actions) == 1


def test_a_library_file_over_a_set_of_the_same_name_is_added_only_as_the_host_answers(browser, served, tmp_path):
    """At 360 x 780: the page asks, and adds the file under a new name, or over the set, or not at all."""
    from companion.table import library

    page, errors = open_phone_editor(browser, served, tmp_path, "/editor/deck")
    mat = served.get("/api/editor/board?game=dakalio&start=own")["board"]
    library.save(served.table.datasets, "dakalio", "mat", "ours", mat)
    shared = tmp_path / "friends.json"
    shared.write_text(json.dumps(served.get("/api/library/export?set=dakalio/mat/ours")))
    page.reload()
    expect(page.locator("#library li")).to_have_text(["Dakalio: mat “ours”Share"])
    page.locator("#import").set_input_files(str(shared))
    expect(page.locator("#import-ask")).to_be_visible()
    expect(page.locator("#import-ask-text")).to_have_text(
        "Dakalio's mat “ours” is already on this table: add it under another name, or say to replace it."
    )
    expect(page.locator("#import-name")).to_have_value("ours-2")
    fits_a_phone(page)
    page.screenshot(path=ARTIFACTS / "editor-import-ask-phone.png")
    page.fill("#import-name", "friends")
    page.click("#import-as")
    expect(page.locator("#message")).to_have_text("Added: friends.")
    assert served.table.datasets.names("dakalio", "mat") == ["friends", "ours"]
    page.locator("#import").set_input_files(str(shared))
    page.click("#import-ask button[value=cancel]")
    expect(page.locator("#message")).to_have_text("Nothing added: the table's sets are as they were.")
    page.locator("#import").set_input_files(str(shared))
    page.click("#import-replace")
    expect(page.locator("#message")).to_have_text("Added: ours.")
    assert served.table.datasets.names("dakalio", "mat") == ["friends", "ours"] and not errors


def test_a_photos_corners_are_placed_on_a_phone_with_zoom_and_a_magnifier(browser, served, tmp_path):
    """At 360 x 740 the whole photo gives about four of its pixels to a screen pixel: zoomed in, one; a magnifier shows
    the photo under the finger while a ring is dragged. The corners land on the board's to a pixel of the photo."""
    page, errors = open_editor(browser, served, tmp_path, "/editor", (360, 740))
    page.select_option("#start", "empty")
    page.click("#load")
    (tmp_path / "board.jpg").write_bytes(photo())
    page.locator("#photo").set_input_files(str(tmp_path / "board.jpg"))
    expect(page.locator(".corner")).to_have_count(4)
    whole = page.locator("#photo-view").bounding_box()["width"]
    assert 1280 / whole > 3.5  # a screen pixel: over 3.5 pixels of the photo, about 2 mm of a 700 mm board
    shot(page, "#corners-title", "editor-corners-whole-phone.png")
    page.click("#corners-zoom")
    expect(page.locator("#corners-zoom")).to_have_text("Whole photo")
    assert 1280 / page.locator("#photo-view").bounding_box()["width"] <= 1.0  # now one, or less
    assert page.evaluate("document.documentElement.scrollWidth") <= 360  # the photo scrolls in its own box
    for index, (x, y) in enumerate(PHOTO_CORNERS):
        ring = page.locator(".corner").nth(index)
        # The photo's box scrolled to show the ring and where it goes, as a finger scrolls it.
        page.evaluate(
            """([i, x, y]) => {
            const box = document.getElementById("photo-scroll"), ring = document.querySelectorAll(".corner")[i];
            const w = document.getElementById("photo-view").clientWidth / 1280;
            box.scrollIntoView({ block: "start" });
            box.scrollLeft = (ring.offsetLeft + x * w) / 2 - box.clientWidth / 2;
            box.scrollTop = (ring.offsetTop + y * w) / 2 - box.clientHeight / 2; }""",
            [index, x, y],
        )
        held = ring.bounding_box()
        view = page.locator("#photo-view").bounding_box()
        page.mouse.move(held["x"] + held["width"] / 2 + 7, held["y"] + held["height"] / 2 - 5)  # off the ring's centre
        page.mouse.down()
        page.mouse.move(view["x"] + view["width"] * x / 1280 + 7, view["y"] + view["height"] * y / 960 - 5, steps=6)
        expect(page.locator("#loupe")).to_be_visible()
        loupe = page.locator("#loupe").bounding_box()
        finger = view["y"] + view["height"] * y / 960
        assert loupe["y"] + loupe["height"] <= finger - 20 or loupe["y"] >= finger + 20  # never under the finger
        if index == 0:
            page.screenshot(path=ARTIFACTS / "editor-corners-phone.png")
        page.mouse.up()
        expect(page.locator("#loupe")).to_be_hidden()
    with page.expect_request("**/api/editor/flatten*") as flattened:
        page.click("#flatten")
    expect(page.locator("#message")).to_contain_text("The photo is flat")
    query = flattened.value.url.split("corners=")[1].split("&")[0]
    placed = list(zip(*[iter(float(v) for v in query.split(","))] * 2, strict=True))
    for (px, py), (x, y) in zip(placed, PHOTO_CORNERS, strict=True):
        assert math.hypot(px - x, py - y) <= 1.5, (placed, PHOTO_CORNERS)
    fits_a_phone(page)
    assert errors == []
