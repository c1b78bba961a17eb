"""Dakalio's mat and Orbital Battle's solar map made in the board editor in Chromium, as a group with its own box
does it: a small Orbix mat laid spot by spot over a slanted photo of it, and a small solar map of seven rings with a
planet moved to another start hex; each kept on the table, chosen in the New game form and played on, a legal move
booked by taps and an illegal one refused in the players' words."""

from __future__ import annotations

import json
import math
import re

from playwright.sync_api import expect

from tests.web.test_editor_browser import (
    fits_a_phone,
    keep_as,
    open_editor,
    over_a_photo,
    shot,
    slanted,
    start_from_the_form,
    tap_board,
)
from tests.web.test_play_browser import due, tap_a_move

UNIT = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
RED_BASES = (UNIT[0], UNIT[2], UNIT[4])
MAT = [(q, r) for r in range(2, -3, -1) for q in range(-2, 3) if max(abs(q), abs(r), abs(q + r)) <= 2]
STATION = (2, -1)  # beside the red base at (1, 0)


def ring(h: tuple[int, int]) -> int:
    return max(abs(h[0]), abs(h[1]), abs(h[0] + h[1]))


def mm(h: tuple[int, int]) -> tuple[float, float]:
    """Where a spot of the small mat is, in mm on its 600 mm square (a spot every 100 mm)."""
    return 300 + 100 * (h[0] + h[1] / 2), 300 + 100 * h[1] * math.sqrt(3) / 2


def lines() -> list[list[tuple[int, int]]]:
    """The mat's straight lines in the grid's three directions, each from one edge to the other."""
    out = []
    for step in ((1, 0), (0, 1), (-1, 1)):
        for h in MAT:
            if (h[0] - step[0], h[1] - step[1]) in MAT:
                continue
            line = [h]
            while (line[-1][0] + step[0], line[-1][1] + step[1]) in MAT:
                line.append((line[-1][0] + step[0], line[-1][1] + step[1]))
            if len(line) > 1:
                out.append(line)
    return out


def opposite_pairs() -> list[tuple[list[tuple[int, int]], list[tuple[int, int]]]]:
    """Each line that misses the centre with the line opposite it: a ship leaving by the first's last spot comes
    back in by the second's first spot (the two are one loop round the planet)."""
    pairs = []
    for line in lines():
        mirrored = {(-q, -r) for q, r in line}
        other = next(o for o in lines() if set(o) == mirrored)
        if other != line and line < other:
            pairs.append((line, other))
    return pairs


def along(a: tuple[int, int], b: tuple[int, int], share: float = 0.25) -> tuple[float, float]:
    """A point on the line from spot a towards spot b, `share` of the way (where a finger taps a line, not a spot)."""
    (ax, ay), (bx, by) = mm(a), mm(b)
    return ax + share * (bx - ax), ay + share * (by - ay)


def colour(h: tuple[int, int]) -> tuple[int, int, int]:
    return (220, 90, 40) if h == (0, 0) else (40, 40, 220) if h in RED_BASES else (90, 90, 90)


def at_phone_size(page, path: str):
    """The same browser (its drafts) opening the editor again on a 360 x 740 screen."""
    phone = page.context.new_page()
    phone.set_viewport_size({"width": 360, "height": 740})
    phone.goto(f"{page.url.split('/editor')[0]}{path}")
    return phone


def refused_in_words(page, served, ids: re.Pattern) -> str:
    """A move the rules do not allow, sent from the phone as its taps would send it: refused, said in words."""
    session = served.table.session
    legal = [a.to_json() for a in session.game.legal_actions(session.state)]
    sites = [s["id"] for s in served.get("/api/board")["sites"]]
    for action in legal:
        for key, value in action.items():
            if value in sites:
                for other in reversed(sites):
                    wrong = {**action, key: other}
                    if wrong not in legal:
                        break
                before = len(session.actions)
                status, error = page.evaluate(
                    """async ([action, actor]) => {
                    const r = await fetch("/api/act", {method: "POST", headers: {"Content-Type": "application/json",
                        "X-Orrery-Token": localStorage.getItem("orrery.token"),
                        "X-Orrery-Phone": localStorage.getItem("orrery.phone")},
                        body: JSON.stringify({action, actor})});
                    return [r.status, (await r.json()).error]; }""",
                    [wrong, due(served)],
                )
                assert status == 400 and error and "\n" not in error, (status, error)
                assert not ids.search(error), error  # the spot's or hex's name, never its id
                assert len(session.actions) == before
                return error
    raise AssertionError("no move on the map to make wrong")


def play_on_the_map(page, served, moves: int) -> None:
    """Book `moves` legal moves by taps, the page following the seat whose turn it is; one at least on the map."""
    placed, count = page.locator('#guide-buttons button[data-do="placed"]'), page.locator("#guide-count")
    while placed.is_visible():  # the guide has the pieces set out, one by one, on the group's own sites
        done, total = (int(n) for n in re.findall(r"\d+", count.inner_text())[:2])
        placed.click()
        if done + 1 == total:
            expect(page.locator("#guide")).to_contain_text(f"Every piece is placed ({total} of {total})")
            break
        expect(count).to_have_text(f"{done + 1} of {total} placed")
    for seat in served.session.record.players:  # the group plays by passing this phone round (pass and play)
        page.evaluate(f"window.orrery.app.send('/api/seats/take', {{seat: '{seat}', together: true}})")
        page.wait_for_function(f"window.orrery.app.mySeats().includes('{seat}')")
    booked = []
    while len(booked) < moves or not any(item["from"] or item["to"] for item in booked):
        assert len(booked) < moves + 6, booked
        seat = due(served)
        if page.evaluate("window.orrery.app.seat.name") != seat:
            page.evaluate(f"window.orrery.app.setSeat({{name: '{seat}', colour: ''}})")
        expect(page.locator("#moves")).to_be_visible()
        booked.append(tap_a_move(page, served))
        assert served.table.logbook.entries()[-1]["source"] == "phone"


def test_a_small_dakalio_mat_is_laid_over_its_photo_kept_and_played_on(browser, served, tmp_path):
    page, errors = open_editor(browser, served, tmp_path, "/editor?game=dakalio", (1280, 800))
    expect(page.locator("#problems li")).to_have_text("The game can be played on this mat.")
    expect(page.locator("#board .hit")).to_have_count(61)
    over_a_photo(page, slanted({mm(h): colour(h) for h in MAT}, 600), tmp_path / "mat.jpg")

    page.click('[data-tool="site"]')
    for h in MAT:
        tap_board(page, *mm(h))
    expect(page.locator("#board .hit")).to_have_count(19)
    page.click('[data-tool="move"]')
    for h in MAT:
        if ring(h) == 2 or h == (0, 0) or h in RED_BASES or ring(h) == 1:
            tap_board(page, *mm(h))
        if h == (0, 0):
            page.select_option("#site-role", "blue")
            page.fill("#site-name", "home base")
            page.dispatch_event("#site-name", "change")
        elif h in RED_BASES:
            page.select_option("#site-role", "red")
        elif ring(h) == 1:
            page.select_option("#site-role", "load")
        else:
            page.check("#site-control")
    page.click('[data-tool="orbit"]')
    for line in lines():
        for h in [*line, line[-1]]:  # the last spot again ends the line
            tap_board(page, *mm(h))
    # A line leaving the mat comes back on the far side: each line off the centre joined to the one opposite it.
    page.click('[data-tool="join"]')
    for leaves, comes in opposite_pairs():
        tap_board(page, *along(leaves[-1], leaves[-2]))  # near the end it leaves by
        expect(page.locator("#board polyline.orbit.chosen")).to_have_count(1)
        tap_board(page, *along(comes[0], comes[1]))  # near the end it comes back by
    expect(page.locator("#board polyline.orbit[data-line$='/1']")).to_have_count(len(opposite_pairs()))
    first, second = opposite_pairs()[0]
    tap_board(page, *along(first[-1], first[-2]))  # the same two again part them; undo joins them again
    tap_board(page, *along(second[0], second[1]))
    expect(page.locator("#board polyline.orbit[data-line$='/1']")).to_have_count(len(opposite_pairs()) - 1)
    page.click("#undo")
    expect(page.locator("#board polyline.orbit[data-line$='/1']")).to_have_count(len(opposite_pairs()))
    page.click('[data-tool="entry"]')
    for line in lines():
        for outer, inner in ((line[0], line[1]), (line[-1], line[-2])):
            if ring(outer) == 2 and ring(inner) < 2:
                tap_board(page, *mm(outer))
                tap_board(page, *mm(inner))
    expect(page.locator("#problems li")).to_have_text("The game can be played on this mat.", timeout=5000)

    # A Station needs the red base that serves it: the table names the spot, by its name, until it has one.
    page.click('[data-tool="move"]')
    tap_board(page, *mm(STATION))
    station = page.input_value("#site-name")
    page.check("#site-station")
    expect(page.locator("#problems li")).to_have_text(re.compile(rf"^{station} needs a 'serves' link from its red"))
    page.click('[data-tool="serves"]')
    tap_board(page, *mm((1, 0)))
    tap_board(page, *mm(STATION))
    expect(page.locator("#problems li")).to_have_text("The game can be played on this mat.")
    page.click("#undo")
    expect(page.locator("#problems li")).to_contain_text(station)
    page.click('[data-tool="serves"]')
    tap_board(page, *mm((1, 0)))
    tap_board(page, *mm(STATION))
    expect(page.locator("#problems li")).to_have_text("The game can be played on this mat.")
    expect(page.locator("#diff")).to_have_text(
        "Against the game's own mat: 19 spots added, 61 spots taken away, 15 lines added, 33 lines taken away."
    )
    keep_as(page, "our-mat", "Dakalio: mat “our-mat”")
    page.click('[data-tool="move"]')
    tap_board(page, *mm(STATION))
    shot(page, "#edit-title", "editor-dakalio-desktop.png")
    assert errors == []

    phone = at_phone_size(page, "/editor")
    expect(phone.locator("#board .hit")).to_have_count(19)  # this browser's draft: the mat, the game it was for
    expect(phone.locator("#board image")).to_have_count(1)
    shot(phone, "#edit-title", "editor-dakalio-phone.png")
    x, y = mm((0, 0))
    tap_board(phone, x + 20, y)  # a finger beside the spot, on a mat drawn 310 px wide: the spot it meant
    expect(phone.locator("#site-title")).to_have_text("home base")
    expect(phone.locator("#site-role")).to_have_value("blue")
    fits_a_phone(phone)

    def our_mat(options) -> None:
        expect(phone.locator("#setup-editor")).to_have_attribute("href", "/editor?game=dakalio")  # the form's way back
        options.locator("[data-option=mat]").select_option("our-mat")

    start_from_the_form(phone, served, "dakalio", our_mat)
    board = served.get("/api/board")
    assert {s["id"] for s in board["sites"]} == {f"spot{n}" for n in range(1, 20)}
    spot = {h: f"spot{n}" for n, h in enumerate(MAT, 1)}
    joined = {
        (tuple(board["orbits"][f"{loop}/1"]), tuple(board["orbits"][f"{loop}/2"]))
        for loop in {name.split("/")[0] for name in board["orbits"] if "/" in name}
    }
    assert joined == {(tuple(spot[h] for h in a), tuple(spot[h] for h in b)) for a, b in opposite_pairs()}
    play_on_the_map(phone, served, 4)
    error = refused_in_words(phone, served, re.compile(r"\bspot\d+\b"))
    assert "spot " in error or "home base" in error, error


def test_a_small_solar_map_is_laid_out_a_planet_moved_kept_and_played_on(browser, served, tmp_path):
    page, errors = open_editor(browser, served, tmp_path, "/editor?game=orbital_battle", (1280, 800))
    expect(page.locator("#problems li")).to_have_text("The game can be played on this solar map.")
    expect(page.locator("#board .hit")).to_have_count(217)
    # A photo of a map 600 mm square: the star in the middle, the hexes round it.
    over_a_photo(page, slanted({(300.0, 300.0): (40, 210, 250)}, 600), tmp_path / "map.jpg", empty=False, size_mm=600)
    page.select_option("#radius", "7")
    expect(page.locator("#ring-1")).to_have_value("1")
    page.fill("#hex-mm", "14")
    page.click("#lay-out")
    expect(page.locator("#board .hit")).to_have_count(169)
    page.click('[data-tool="start"]')
    page.select_option("#start-planet", "3")
    page.click('#board .hit[data-site="r1s0"]')
    expect(page.locator("#problems li")).to_have_text(
        "planet 3: its start hex ring 1 hex 0 is not on its orbit (ring 3)"
    )
    page.click('#board .hit[data-site="r3s9"]')
    expect(page.locator("#problems li")).to_have_text("The game can be played on this solar map.")
    keep_as(page, "small", "Orbital Battle: solar map “small”")
    shot(page, "#edit-title", "editor-solar-desktop.png")
    assert errors == []

    phone = at_phone_size(page, "/editor?game=orbital_battle")
    expect(phone.locator("#board .hit")).to_have_count(169)
    fits_a_phone(phone)
    phone.click('[data-tool="start"]')
    shot(phone, "#edit-title", "editor-solar-phone.png")

    start_from_the_form(
        phone,
        served,
        "orbital_battle",
        lambda options: options.locator("[data-option=solar_map]").select_option("small"),
    )
    kept = json.loads((tmp_path / "datasets/orbital_battle/solar_map/small").read_text())
    sun = next(s for s in kept["sites"] if s["id"] == "sun")
    assert kept["width"] == 600 and (sun["x"], sun["y"]) == (300, 300)  # laid out over the photo, centred
    state = served.session.state
    assert (state.options.radius, state.planets["3"]) == (7, "r3s9")
    assert len(served.get("/api/board")["sites"]) == 169
    play_on_the_map(phone, served, 4)
    refused_in_words(phone, served, re.compile(r"\br\d+s\d+\b"))


def test_a_copy_of_trajectorys_board_has_a_space_dragged_to_where_it_is_printed(browser, served, tmp_path):
    page, errors = open_editor(browser, served, tmp_path, "/editor?game=trajectory", (360, 740))
    expect(page.locator("#problems li")).to_have_text("The game can be played on this board.")
    expect(page.locator("#board .hit")).to_have_count(60)
    page.click("#zoom-in")
    space = page.locator('#board .hit[data-site="o4s0"]')
    space.scroll_into_view_if_needed()
    box = space.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 - 30, box["y"] + box["height"] / 2, steps=4)
    page.mouse.up()
    expect(page.locator("#diff")).to_have_text("Against the game's own board: 1 space moved.")
    page.click("#zoom-out")
    fits_a_phone(page)
    shot(page, "#edit-title", "editor-trajectory-phone.png")
    keep_as(page, "ours", "Trajectory: board “ours”")
    assert errors == []
    start_from_the_form(
        page, served, "trajectory", lambda options: options.locator("[data-option=board]").select_option("ours")
    )
    moved = next(s for s in served.get("/api/board")["sites"] if s["id"] == "o4s0")
    assert moved["x"] < 575  # where it was dragged to (the printed board has it at 580 mm), on the phones' map too
