"""Phones alone, every game, in Debian's Chromium: a turn played by taps on the map and the pickers (no sensors, no
override), at 360 x 740 and 1280 x 800 with no horizontal overflow, every control at least 44 px, no script error,
and a restart of the companion after which every phone is still joined (the token kept in the table's folder)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from companion.boards import default_board
from companion.rules.words import verdict
from companion.table.config import TableConfig
from companion.table.live import LiveTable
from companion.table.token import token_file
from companion.web.context import WebSettings
from companion.web.serve import start_server, web_table

from .conftest import ARTIFACTS, free_port

GAMES = ["trajectory", "orbit", "dakalio", "orbital_battle", "periorbis"]
SIZES = {"phone": (360, 740), "desktop": (1280, 800)}


class PhonesOnly:
    """`companion serve`'s table with no grid and no camera: the phones are its only input. Its token is kept beside
    the log."""

    def __init__(self, folder: Path, game: str, port: int | None = None) -> None:
        self.folder, self.game = folder, game
        config = TableConfig(game=game, players=("red", "green"), seed=7, db=str(folder / "table.db"), serial="none",
                             camera="none")  # fmt: skip
        self.live = LiveTable(config).start()
        self.store = self.live.store
        self.table = web_table(self.live)
        self.server = start_server(self.table, "127.0.0.1", port or free_port(), WebSettings(0.3, 300), threads=24)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"

    def restart(self) -> PhonesOnly:
        port = self.server.port
        self.stop()
        return PhonesOnly(self.folder, self.game, port)

    def stop(self) -> None:
        self.server.stop()
        self.live.stop()


@pytest.fixture
def tables(tmp_path):
    started: list[PhonesOnly] = []

    def start(game: str) -> PhonesOnly:
        started.append(PhonesOnly(tmp_path, game))
        return started[-1]

    yield start
    for table in started:
        table.stop()


def open_phone(browser: Any, table: PhonesOnly, seat: str, size: str = "phone") -> tuple[Page, list[str]]:
    width, height = SIZES[size]
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.goto(f"{table.base}/?t={table.table.seats.token}")
    page.locator(f'#seats input[value="{seat}"]').check()
    page.click("#join-ok")
    expect(page.locator("#link")).to_have_text("live", timeout=5000)
    expect(page.locator("body.seated")).to_have_count(1)
    return page, errors


def pass_and_play(page: Page, seats: list[str]) -> None:
    """The phone plays these seats too, by pass and play (chosen in the join dialog, one seat at a time)."""
    for seat in seats:
        page.click('button[data-open="settings"]')
        page.click("#change-seat")
        page.locator(f'#seats input[value="{seat}"]').check()
        page.locator("#together").check()
        page.click("#join-ok")
        expect(page.locator(f'#seats input[value="{seat}"]')).to_have_count(1)
        page.wait_for_function(f"window.orrery.app.mySeats().includes('{seat}')")


def due(table: PhonesOnly) -> str:
    session = table.table.session
    return session.game.phase(session.state).actor or "red"


def fits(page: Page, width: int) -> None:
    """Nothing runs off the side, and every visible control outside the map is at least 44 px each way."""
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    small = page.evaluate("""[...document.querySelectorAll('button, select, input, summary')]
        .filter((e) => e.offsetParent && !e.closest('dialog') && !e.closest('#map'))
        .map((e) => [e.textContent.trim().slice(0, 40), e.getBoundingClientRect()])
        .filter(([, r]) => r.height < 44 || (r.width < 44 && r.width > 0))
        .map(([t, r]) => `${t} ${Math.round(r.width)}x${Math.round(r.height)}`)""")
    assert not small, small
    header_is_tidy(page, width)


def header_is_tidy(page: Page, width: int) -> None:
    """The header is one line on a wide screen and two deliberate ones on a phone: the game, the seat and the link
    side by side (a long name cut short, never wrapped), then every button in one row."""
    header = page.evaluate("""(() => {
        const box = (e) => e.getBoundingClientRect(), mid = (r) => r.top + r.height / 2;
        const buttons = [...document.querySelectorAll('header nav button')].filter((b) => b.offsetParent);
        const head = [document.querySelector('header h1'), document.querySelector('#link')].map(box);
        return {rows: new Set(buttons.map((b) => Math.round(box(b).top))).size,
                apart: Math.abs(mid(head[0]) - mid(head[1])), height: box(document.querySelector('header')).height,
                title: head[0].height};
    })()""")
    assert header["rows"] == 1 and header["apart"] < 4, header
    assert header["height"] <= (100 if width < 760 else 70), header
    assert header["title"] < 40, header  # the game and the seat on one line


def tap_a_move(page: Page, table: PhonesOnly) -> dict[str, Any]:
    """Book one legal move by taps only, as tests/web/test_taps_browser.py's phone does: a piece on the map and
    where it goes (or a site to place on) when the game offers one, else through the panel and its pickers.
    Returns the booked input."""
    from .test_taps_browser import Phone, caught_up

    caught_up(page, table.table.session)  # the moves of the latest state, as the player sees them
    inputs = page.evaluate("window.orrery.app.moves.items")
    sites = page.evaluate("[...window.orrery.app.map.sites.keys()]")
    on_map = [i for i in inputs if not i["chance"] and i["from"] and set(i["from"] + i["to"]) <= set(sites)]
    placed = [i for i in inputs if not i["chance"] and not i["from"] and i["to"] and set(i["to"]) <= set(sites)]
    ends = ("end", "pass", "done", "resign", "concede")  # the end of a turn; the end of the game asks first
    others = [i for i in inputs if not i["chance"] and not i["type"].startswith(ends)]
    # A move to another site first: a piece turned where it stands (an ORBIT planet's arrow) is one of its choices.
    declared = (others[-2] if len(others) > 1 else others[0]) if others else next(i for i in inputs if not i["chance"])
    moved = min(on_map, key=lambda i: bool(set(i["to"]) & set(i["from"]))) if on_map else None
    item = moved or (placed[0] if placed else declared)
    Phone(page, table).book(item)
    entry = table.table.logbook.entries()[-1]
    assert entry["kind"] == "action"
    return item


@pytest.mark.parametrize("game", GAMES)
def test_a_turn_is_played_by_taps_alone_and_the_page_fits_a_phone(browser, tables, game):
    table = tables(game)
    page, errors = open_phone(browser, table, due(table))
    pass_and_play(page, [seat for seat in table.table.session.record.players if seat != due(table)])
    booked: list[dict[str, Any]] = []
    while len(booked) < 3 or not any(item["from"] or item["to"] for item in booked):  # until a move on the map
        assert len(booked) < 8, booked
        seat = due(table)
        if page.evaluate("window.orrery.app.seat.name") != seat:
            page.evaluate(f"window.orrery.app.setSeat({{name: '{seat}', colour: ''}})")
        expect(page.locator("#moves")).to_be_visible()
        actor = table.table.session.game.phase(table.table.session.state).actor
        page.wait_for_function(f"window.orrery.app.state.phase.actor === {json.dumps(actor)}")  # the page is current
        fits(page, 360)
        booked.append(tap_a_move(page, table))
        entry = table.table.logbook.entries()[-1]
        assert (entry["source"], entry["actor"]) == ("phone", seat)
    assert any(item["from"] or item["to"] for item in booked), booked  # at least one move on the map
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"play-{game}-phone.png", full_page=True)
    assert not errors, errors
    page.context.close()


@pytest.mark.parametrize("game", GAMES)
def test_the_desktop_page_fits_and_a_watcher_cannot_act(browser, tables, game):
    table = tables(game)
    page, errors = open_phone(browser, table, due(table), "desktop")
    fits(page, 1280)
    page.screenshot(path=ARTIFACTS / f"play-{game}-desktop.png", full_page=True)
    other = "green" if due(table) == "red" else "red"
    second, _ = open_phone(browser, table, other, "desktop")  # the other seat's phone, on the other's turn
    if table.table.session.game.phase(table.table.session.state).actor:
        expect(second.locator("#not-yours")).to_be_visible()
        expect(second.locator("#moves")).to_be_hidden()
    assert not errors, errors
    page.context.close()
    second.context.close()


def test_every_phone_stays_joined_across_a_restart(browser, tables):
    table = tables("dakalio")
    first, errors = open_phone(browser, table, "green")
    second, _ = open_phone(browser, table, "red")
    table = table.restart()
    try:
        for page in (first, second):
            expect(page.locator("#link")).to_have_text("live", timeout=8000)
        tap_a_move(first, table)  # Green's phone acts after the restart with the token it already held
        expect(second.locator("#log li").first).to_contain_text("Green")
        # While the companion was down the stream's reconnections failed; no script error came of it.
        assert not [e for e in errors if not e.startswith("Failed to load resource")], errors
    finally:
        table.stop()
        for page in (first, second):
            page.context.close()


def test_a_phone_passed_round_names_the_seat_whose_turn_it_is(browser, tables):
    table = tables("dakalio")
    first = due(table)
    other = next(seat for seat in table.table.session.record.players if seat != first)
    page, _ = open_phone(browser, table, other)  # the phone was picked up as the other seat
    pass_and_play(page, [first])
    expect(page.locator("#phase-line")).to_contain_text("your turn")
    expect(page.locator("#seat")).to_have_text(first.capitalize())  # the seat due, not the one picked last
    for _ in range(8):  # the seat's turn may be several actions (a roll, then its move)
        tap_a_move(page, table)
        if due(table) != first:
            break
    assert due(table) == other
    expect(page.locator("#seat")).to_have_text(other.capitalize())


def test_names_beside_colours_a_confirmed_undo_and_a_new_table_code(browser, tables):
    table = tables("trajectory")
    page, errors = open_phone(browser, table, "red")
    page.evaluate("window.orrery.app.send('/api/seat', {seat: 'red', name: 'Ann'})")
    expect(page.locator("#phase-line")).to_contain_text("your turn")
    expect(page.locator("#ledger .card.own b")).to_have_text("Ann (Red) · you")
    expect(page.locator("#seat")).to_have_text("Ann")
    long = "Maximiliana Wiśniewska"  # 24 characters at most
    page.evaluate(f"window.orrery.app.send('/api/seat', {{seat: 'red', name: '{long}'}})")
    expect(page.locator("#seat")).to_have_text(long)
    fits(page, 360)  # a long name and the phase's own name keep the header to its two lines
    tap_a_move(page, table)
    page.click("#undo")
    expect(page.locator("#confirm")).to_be_visible()
    page.click("#confirm button[value=no]")
    assert len(table.table.session.actions) == 1  # nothing undone without a yes
    page.click("#undo")
    page.click("#confirm-yes")
    page.wait_for_function("document.querySelector('#log li.undone') !== null")
    assert not table.table.session.actions
    old = table.table.seats.token
    page.click('button[data-open="invite"]')
    expect(page.locator("#qr svg")).to_be_visible()  # a phone holding the token shows the join code
    page.click("#rotate")
    page.click("#confirm-yes")
    expect(page.locator("#qr-url")).not_to_contain_text(old)
    expect(page.locator("#qr-url")).to_contain_text(table.table.seats.token)
    token = table.table.seats.token
    assert token != old and token_file(table.store.path).read_text().strip() == token
    assert page.evaluate("localStorage.getItem('orrery.token')") == table.table.seats.token  # this phone acts on
    assert not errors, errors
    page.context.close()


def test_the_end_of_a_game_its_summary_the_past_games_and_the_export(browser, tables):
    table = tables("dakalio")
    page, errors = open_phone(browser, table, "green")
    session = table.table.session
    while "resign" not in {a.type for a in session.game.legal_actions(session.state)}:  # the asteroids set out
        session.submit(next(iter(session.game.legal_actions(session.state))), "phone", due(table))
    resigns = due(table)
    pass_and_play(page, ["red"])
    page.locator("#declared button", has_text="Resign…").click()  # it asks first: no game ends by a stray tap
    expect(page.locator("#confirm")).to_be_visible()
    page.click("#confirm button[value=no]")
    assert session.game.outcome(session.state) is None
    # A move half chosen on this phone when the game ends elsewhere (the same seat resigns on another phone): the
    # sheet it opened goes, and nothing invites a move.
    page.locator("#declared button[data-title=Enter]").click()
    expect(page.locator("#pick")).to_be_visible()
    session.submit(next(a for a in session.game.legal_actions(session.state) if a.type == "resign"), "phone", resigns)
    winner = "Red" if resigns == "green" else "Green"
    expect(page.locator("#summary")).to_be_visible()
    outcome = session.game.outcome(session.state)
    expect(page.locator("#summary-result")).to_have_text(verdict(outcome.result, outcome.winners, outcome.reason))
    expect(page.locator("#summary-result")).to_contain_text(f"{winner} wins: ")  # who won, and why
    expect(page.locator("#summary-cards .card").first).to_contain_text(f"{winner} · winner")
    expect(page.locator("#pick")).to_be_hidden()
    expect(page.locator("#map-hint")).to_be_hidden()
    shown = page.locator("body").inner_text()
    assert "Tap a piece" not in shown and "Tap where" not in shown
    exported = page.evaluate("fetch(document.querySelector('#summary-export').href).then((r) => r.json())")
    assert exported["game"] == "dakalio" and exported["status"] == "over" and exported["entries"]
    # The summary as a picture to share: headless Chromium has no share sheet, so the page downloads the PNG.
    with page.expect_download() as download:
        page.click("#summary-share")
    png = Path(download.value.path()).read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(png[16:20], "big") == 960  # 480 px drawn at 2x
    assert download.value.suggested_filename.endswith(".png")
    assert page.get_attribute("#summary-page", "href") == f"/games/{session.record.id}"
    table.table.new_game("trajectory", ["red", "green"], {}, 3, guide=False)
    expect(page.locator("#summary")).to_be_hidden()
    # New game, new map: Trajectory's orbits, every site of its board and none of Dakalio's mat.
    page.wait_for_function("window.orrery.app.map.board && window.orrery.app.map.board.name === 'trajectory'")
    expect(page.locator("#map .site")).to_have_count(len(default_board("trajectory").sites))
    expect(page.locator("#map .orbit-ring").first).to_be_attached()
    page.locator("#history > summary").click()
    past = page.locator("#history-list > details")
    expect(past).to_have_count(2)
    expect(past.nth(1)).to_contain_text("Dakalio")
    past.nth(1).locator("summary").click()
    expect(past.nth(1).locator(".card").first).to_contain_text(f"{winner} · winner")
    fits(page, 360)
    assert not errors, errors
    page.context.close()


def test_orbital_battles_planet_surfaces_are_drawn_and_played_by_taps(browser, tables):
    """A tap on a planet of the solar map opens its surface: hexes by terrain, the units on them; a land move is
    played there by taps (the unit, then where it goes); the choice above the map leads back to the solar map."""
    import random

    from companion.sim.players import random_action
    from companion.web.inputs import inputs as legal_inputs

    table = tables("orbital_battle")
    session, rng = table.table.session, random.Random(7)

    def land_moves() -> list[dict[str, Any]]:
        listed = legal_inputs(session.game, session.state, table.table.words())
        surface = lambda sites: bool(sites) and all(re.fullmatch(r"p\d:\d{4}", s) for s in sites)  # noqa: E731
        return [item for item in listed if surface(item["from"]) and surface(item["to"])]

    while not land_moves():
        session.submit(random_action(session.game, session.state, rng), "phone", due(table))
    item = land_moves()[0]
    planet = item["from"][0][1]
    page, errors = open_phone(browser, table, due(table))
    expect(page.locator("#surfaces")).to_be_visible()
    solar = next(site for site, stack in session.game.layout(session.state).items() if f"planet-{planet}" in stack)
    page.locator(f'#map [data-site="{solar}"]').click()
    expect(page.locator("#surface")).to_have_value(planet)
    expect(page.locator("#map polygon.terrain")).to_have_count(63)  # the planet's 9 x 7 hexes by terrain
    stacks = sum(1 for site in session.game.layout(session.state) if site.startswith(f"p{planet}:"))
    expect(page.locator("#map [data-piece]")).to_have_count(stacks)  # a piece a hex: units never stack there
    expect(page.locator("#terrain-key")).to_be_visible()
    fits(page, 360)
    before = len(session.actions)
    page.locator(f'#map [data-site="{item["from"][0]}"]').click()
    expect(page.locator(f'#map .dest[data-site="{item["to"][0]}"]')).to_have_count(1)
    page.locator(f'#map [data-site="{item["to"][0]}"]').click()  # the unit and where it goes: booked
    page.wait_for_function(f"window.orrery.app.state && window.orrery.app.state.layout['{item['to'][0]}']")
    assert len(session.actions) == before + 1 and session.actions[-1].to_json() == item["action"]
    page.screenshot(path=ARTIFACTS / "play-orbital_battle-surface-phone.png")
    page.select_option("#surface", "")
    expect(page.locator("#map polygon.terrain")).to_have_count(0)
    expect(page.locator(f'#map [data-site="{solar}"]')).to_have_count(1)
    assert not errors, errors
    page.context.close()


def test_a_phone_that_watches_sees_no_control_that_acts_and_the_host_s_are_the_host_s(browser, tables):
    table = tables("trajectory")
    host, errors = open_phone(browser, table, "red")  # the first phone: the host
    player, _ = open_phone(browser, table, "green")
    watcher = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
    watcher.on("pageerror", lambda error: errors.append(str(error)))
    watcher.goto(f"{table.base}/?t={table.table.seats.token}")  # it holds the link, and chooses to watch
    expect(watcher.locator("#seats label").first).to_have_text("Red · another phone's: ask for it")
    watcher.click("#join button[value=watch]")
    expect(watcher.locator("#link")).to_have_text("live", timeout=5000)
    for page in (watcher, player, host):
        expect(page.locator("#phase-line")).to_contain_text("Round")
    acting = "#controls, #undo, #pause, #override-open, #guide-buttons, #not-yours, #moves, #declared button"
    assert watcher.locator(acting).evaluate_all("(els) => els.filter((e) => e.offsetParent).length") == 0
    for control in ('button[data-open="setup"]', "#rotate"):  # the host's controls: the host's phone only
        assert watcher.locator(control).evaluate("(e) => e.offsetParent === null")
        assert player.locator(control).evaluate("(e) => e.offsetParent === null")
    expect(host.locator('button[data-open="setup"]')).to_be_visible()
    expect(player.locator("#undo")).to_be_visible()  # a seat's own controls on the seat's phone
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    watcher.screenshot(path=ARTIFACTS / "watch-phone.png", full_page=True)
    join = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
    join.goto(f"{table.base}/?t={table.table.seats.token}")
    expect(join.locator("#join")).to_be_visible()
    join.screenshot(path=ARTIFACTS / "join-phone.png")
    assert not errors, errors
    for page in (host, player, watcher, join):
        page.context.close()


def test_a_seat_changes_phones_only_once_its_phone_agrees(browser, tables):
    """A phone asks for a seat another phone plays in the join dialog; the seat's phone is asked in words, with
    buttons a thumb can tap; the seat moves only when that phone agrees, and shows on the phone that asked."""
    table = tables("trajectory")
    host, errors = open_phone(browser, table, "red")
    green, _ = open_phone(browser, table, "green")
    asker = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
    asker.on("pageerror", lambda error: errors.append(str(error)))
    asker.goto(f"{table.base}/?t={table.table.seats.token}")
    expect(asker.locator("#join-full")).to_be_visible()  # every seat is another phone's
    asker.locator("#seats input[value=green]").check()
    expect(asker.locator("#join-ok")).to_have_text("Ask for it")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    asker.screenshot(path=ARTIFACTS / "join-ask-phone.png")
    asker.click("#join-ok")
    ask = green.locator("#asks .ask")
    expect(ask).to_contain_text("A watching phone asks to play Green.")
    expect(asker.locator("#asks")).to_contain_text("Waiting for Green's phone to agree.")
    # The seat's phone agrees; the host's may only give the seat at once (for a phone that is lost).
    expect(host.locator("#asks button")).to_have_text(["Give Green now"])
    fits(green, 360)  # the question's buttons are 44 px at least
    green.screenshot(path=ARTIFACTS / "handover-phone.png")
    green_phone = table.table.seats.holder("green")
    green.locator("#asks button", has_text="Refuse").click()  # not yet: the seat stays where it is
    expect(asker.locator("#asks")).to_be_hidden()
    assert table.table.seats.holder("green") == green_phone
    asker.click('button[data-open="settings"]')
    asker.click("#change-seat")
    asker.locator("#seats input[value=green]").check()
    asker.click("#join-ok")
    expect(ask).to_contain_text("A watching phone asks to play Green.")
    green.locator("#asks button", has_text="Agree").click()
    asker.wait_for_function("window.orrery.app.mySeats().includes('green')")
    expect(asker.locator("body.seated")).to_have_count(1)
    expect(asker.locator("#seat")).to_have_text("Green")
    expect(green.locator("body.seated")).to_have_count(0)  # Green's old phone watches now
    expect(green.locator("#asks")).to_be_hidden()
    asker.screenshot(path=ARTIFACTS / "handover-given-phone.png")
    assert not errors, errors
    for page in (host, green, asker):
        page.context.close()
