"""Phones alone, counted: the opening turns of every game played on a 360 x 740 page by taps only (the piece, then
where it goes; a heading, then the card; the dice faces; buying by numbers), each tap counted. The median action
takes at most 3 taps and the median player turn at most 8 in every game; Orbital Battle's starting forces are
bought in at most 12 taps a player; an ORBIT card is found in at most 2; the current player's first action is on
the first screen; and no page error comes up on the way. One server for the file, each game on it in turn."""

from __future__ import annotations

import random
import re
import statistics
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from companion.sim.players import GOAL_SEEKING
from companion.table.session import Session
from companion.web.inputs import inputs as legal_inputs

from .conftest import ARTIFACTS
from .test_play_browser import PhonesOnly, fits, pass_and_play

GAMES = ["trajectory", "orbit", "dakalio", "orbital_battle", "periorbis"]
ACTIONS = {"trajectory": 14, "orbit": 14, "dakalio": 12, "orbital_battle": 26, "periorbis": 14}  # a few turns each
# What the page shows to choose from: the sheet, its note, the map and the places ringed on it.
SHOWN = (
    "[document.querySelector('#pick').hidden, document.querySelector('#pick-list').innerHTML.length, "
    "document.querySelector('#pick-title').textContent, window.orrery.app.surfaces.shown, "
    "[...(window.orrery.app.map.targets || [])].join()].join('|')"
)
GROUP = re.compile(r"^(.*) \((\d+)\)$")  # a picker's button for several actions: "Red's army (3)"


def caught_up(page: Page, session: Session) -> None:
    """The page shows the table's latest state and offers that state's moves, as a player sees them (a list of moves
    is fetched after its state arrives: until it comes, the moves of the state before are shown but take no tap)."""
    table = [session.record.id, session.made_by]
    try:
        page.wait_for_function(
            """([game, by]) => { const app = window.orrery.app, state = app.state;
                return !!state && state.game_id === game && state.made_by === by && app.moves.current(); }""",
            arg=table,
            polling=50,  # on a timer: a page starved of frames on a loaded machine still answers
        )
    except PlaywrightError as error:
        shown = page.evaluate("""(() => { const app = window.orrery.app;
            return [app.state.game_id, app.state.made_by, app.moves.made, app.seated, app.moves.loads]; })()""")
        now = [session.record.id, session.made_by]
        raise AssertionError(
            f"the table at {table} (now {now}), the page at [game, made_by, moves, seated, loads] {shown}"
        ) from error


@dataclass
class Count:
    """Taps per booked action, grouped by the seat that acted, in turns (the same seat acting in a row)."""

    actions: list[tuple[str, int, str]] = field(default_factory=list)  # (seat, taps, type)

    def turns(self) -> list[int]:
        turns: list[list[int]] = []
        seat = object()
        for who, taps, _ in self.actions:
            if who != seat:
                turns.append([])
                seat = who
            turns[-1].append(taps)
        return [sum(turn) for turn in turns]


class Phone:
    """One phone at 360 x 740 that books a chosen action by tapping the page as a player would, counting taps."""

    def __init__(self, page: Page, table: PhonesOnly) -> None:
        self.page, self.table, self.taps = page, table, 0
        self.shot: str | None = None  # a screenshot to take after the next tap (artifacts/web/NAME.png)

    def tap(self, locator: Any) -> None:
        """A tap, then the page's answer: the move booked, or another sheet or map view to choose from."""
        session = self.table.table.session
        booked, before = len(session.actions), self.page.evaluate(SHOWN)
        locator.click()
        self.taps += 1
        for _ in range(100):
            if len(session.actions) > booked or self.page.evaluate(SHOWN) != before:
                break
            self.page.wait_for_timeout(30)
        if self.shot:
            self.page.wait_for_timeout(400)  # the sheet brought to view
            self.page.screenshot(path=ARTIFACTS / f"{self.shot}.png")
            self.shot = None

    def state(self, what: str) -> Any:
        return self.page.evaluate(f"window.orrery.app.{what}")

    def book(self, item: dict[str, Any]) -> int:
        """Tap until `item` is booked; the taps it took."""
        session = self.table.table.session
        before, self.taps = len(session.actions), 0
        caught_up(self.page, session)
        self.reach(item, before)
        assert len(session.actions) == before + 1, f"{item['label']} was not booked"
        assert session.actions[-1].to_json() == item["action"]
        caught_up(self.page, session)  # the map and the moves of the state it made
        return self.taps

    def reach(self, item: dict[str, Any], start: int) -> None:
        page = self.page
        top = page.locator("#primary > button, #declared > button", has_text=item["label"])
        if top.count():  # a button of its own above the map
            self.tap(top.first)
            self.navigate(item, start)
            return
        sites = set(page.evaluate("[...window.orrery.app.map.sites.keys()]"))
        moving = [s for s in item["from"] if s in sites] if not item["chance"] else []
        if moving:
            self.tap(page.locator(f'#map [data-site="{moving[0]}"]'))
        elif not item["chance"] and item["to"] and set(item["to"]) <= sites and not self.panel_first(item):
            self.tap(page.locator(f'#map [data-site="{item["to"][0]}"]'))
        else:
            self.open_group(item)
        self.navigate(item, start)

    def panel_first(self, item: dict[str, Any]) -> bool:
        """An action offered on its own in the panel (a placement among few) is tapped there, not on the map."""
        return self.page.locator("#declared > button", has_text=item["label"]).count() > 0

    def open_group(self, item: dict[str, Any]) -> None:
        page = self.page
        own = page.locator("#declared > button", has_text=item["label"])
        if own.count():
            self.tap(own.first)
            return
        if item["group"]:
            self.tap(
                page.locator(f'#primary .headings[data-title="{item["title"]}"] button', has_text=f"{item['group']} (")
            )
            return
        self.tap(page.locator(f'#declared button[data-title="{item["title"]}"]'))

    def sent(self, start: int) -> bool:
        """Whether the move is booked: the sheet closes as the move is sent, and on a busy table the booking follows
        a moment later (the sheet's buttons are gone from view meanwhile: nothing more to tap)."""
        if self.page.locator("#pick").is_visible():
            return False
        for _ in range(200):
            if len(self.table.table.session.actions) > start:
                return True
            self.page.wait_for_timeout(25)
        return False

    def navigate(self, item: dict[str, Any], start: int) -> None:
        """Through the sheets the page opens until the action is booked (a map target, the dice, a row, a group)."""
        page = self.page
        words = {str(step[2]) for step in item["steps"]} | {item["title"], item["group"] or ""}
        landed = False  # where it goes is tapped once; several moves there are then chosen from the sheet
        for _ in range(10):
            if self.sent(start):
                return
            targets = page.evaluate("[...(window.orrery.app.map.targets || [])]")
            dest = [s for s in item["to"] if s in targets and s not in item["from"]]
            if dest and not landed:
                self.tap(page.locator(f'#map [data-site="{dest[0]}"]'))
                landed = True
                continue
            rows = page.locator("#pick-list button:visible")
            texts = rows.all_inner_texts()
            if item["chance"] and "The companion rolls" in texts:
                self.tap(rows.nth(texts.index("The companion rolls")))
                continue
            if page.locator("#pick-list .dice").count():
                dice = [step[1] for step in item["steps"] if step[3:] == ["Dice"]]
                assert dice, (item, texts)
                # each die by whose it is ("Red's die"), as the table rolled them
                assert page.locator("#pick-list .dice span").all_inner_texts() == [
                    step[0] for step in item["steps"] if step[3:] == ["Dice"]
                ], item["steps"]
                for row, face in zip(page.locator("#pick-list .dice").all(), dice, strict=True):
                    self.tap(row.locator("button.face", has_text=str(face)))
                self.tap(page.locator("#pick-list button.accent"))
                continue
            label = item["label"].lower()
            said = [text.removeprefix("Book: ").lower().rstrip(".") for text in texts]
            exact = [i for i, text in enumerate(said) if not GROUP.match(text) and text in label
                     and len(text) > 8]  # fmt: skip
            if exact:
                self.tap(rows.nth(exact[0]))
                continue
            named = [(i, m[1]) for i, text in enumerate(texts) if (m := GROUP.match(text))]
            asked = re.search(r"which (.+)\?$", page.locator("#pick-title").inner_text())  # the step being chosen
            words = {str(s[2]) for s in item["steps"] if s[0].lower() == asked[1]} if asked else words
            groups = ([i for i, word in named if word in words] or  # a value of its own, else a group of values
                      [i for i, word in named if any(w.startswith(f"{word} ") for w in words)])  # fmt: skip
            if groups:
                self.tap(rows.nth(groups[0]))
                continue
            folds = page.locator("#pick-list details:not([open]) > summary")
            if folds.count():
                self.tap(folds.first)
                continue
            raise AssertionError(f"no way on to {item['label']!r} among {texts}")
        raise AssertionError(f"{item['label']!r} not booked in 10 sheets")


def muster(phone: Phone) -> int:
    """Orbital Battle's starting forces: buy by numbers (one kind changed from the suggestion), then done."""
    page, session = phone.page, phone.table.table.session
    phone.taps = 0
    caught_up(page, session)
    phone.shot = "taps-orbital_battle-muster"
    phone.tap(page.locator("#primary button", has_text="Buy by numbers"))
    expect(page.locator("#pick-list .points")).to_contain_text("of 50 build points left")
    row = page.locator('#pick-list .muster-row[data-kind="militia"]')
    phone.tap(row.locator("button[aria-label^=fewer]"))  # a player adjusts the suggestion
    expect(page.locator("#pick-list .points")).to_be_in_viewport()  # the points left stay in view
    bought, force = len(session.actions), sum(k.suggested for k in session.game.muster(session.state).kinds) - 1
    phone.tap(page.locator("#pick-list button.accent"))
    for _ in range(200):  # every unit of the force, each as its own purchase
        if len(session.actions) == bought + force:
            break
        page.wait_for_timeout(25)
    assert len(session.actions) == bought + force
    caught_up(page, session)
    assert phone.state("moves.muster.points") == session.game.muster(session.state).points
    done = next(i for i in legal_inputs(session.game, session.state, phone.table.table.words()) if i["type"] == "done")
    return phone.taps + phone.book(done)


def first_on_screen(page: Page, item: dict[str, Any]) -> None:
    """The current player's first action can be started without scrolling a 360 x 740 page."""
    page.evaluate("window.scrollTo(0, 0)")
    boxes = page.evaluate("""[...document.querySelectorAll('#primary button, #declared button, #map [data-site]')]
        .filter((e) => e.offsetParent !== null || e.closest('svg'))
        .map((e) => [e.textContent, e.dataset.site || '', e.dataset.title || '', e.getBoundingClientRect().bottom])""")
    starts = {item["title"], *(item["from"] or item["to"])[:1]}
    ways = [
        bottom
        for text, site, title, bottom in boxes
        if item["label"] in text or site in starts or title in starts or (item["group"] and item["group"] in text)
    ]
    assert ways and min(ways) <= 740, f"{item['label']}: its first tap lies below the first screen ({ways}, {boxes})"


def spaced(page: Page) -> None:
    """Neighbouring sites are a finger apart (24 px or more, zoomed in where the board is crowded), and no two
    sites' pieces cover each other by more than a sliver."""
    found = page.evaluate("""(() => {
        const mid = (r) => [r.x + r.width / 2, r.y + r.height / 2];
        const sites = [...document.querySelectorAll('#map [data-site]')].map((e) => mid(e.getBoundingClientRect()));
        let apart = Infinity;
        for (let i = 0; i < sites.length; i++) for (let j = i + 1; j < sites.length; j++)
            apart = Math.min(apart, Math.hypot(sites[i][0] - sites[j][0], sites[i][1] - sites[j][1]));
        const boxes = [...document.querySelectorAll('#map [data-piece] circle.piece, #map [data-piece] rect.piece')]
            .filter((e) => e.parentNode.firstElementChild === e).map((e) => e.getBoundingClientRect());
        let cover = 0;
        for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
            const a = boxes[i], b = boxes[j];
            const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
            const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
            if (w > 0 && h > 0) cover = Math.max(cover, Math.min(w, h) / Math.min(a.width, b.width));
        }
        const small = Math.min(...boxes.map((r) => r.width));
        return {apart, cover, small};
    })()""")
    assert found["apart"] >= 24, found
    assert found["cover"] <= 0.25, found  # pieces of neighbouring sites touch at most
    assert found["small"] >= 20, found


@pytest.fixture(scope="module")
def one_table(tmp_path_factory):
    table = PhonesOnly(tmp_path_factory.mktemp("taps"), "trajectory")
    yield table
    table.stop()


@pytest.mark.parametrize("game", GAMES)
def test_a_few_turns_are_played_in_few_taps_on_a_phone(browser, one_table, game):
    table = one_table
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    table.table.new_game(game, ["red", "green"], {}, 7, guide=False)
    table.table.seats.keep_seats(())  # the seats are free for this test's phone (the last test's phone left)
    session, rng, count = table.table.session, random.Random(7), Count()
    page = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.goto(f"{table.base}/?t={table.table.seats.token}")
    page.locator('#seats input[value="red"]').check()
    page.click("#join-ok")
    expect(page.locator("#link")).to_have_text("live", timeout=5000)
    pass_and_play(page, ["green"])  # the two players pass one phone round
    phone, seat, shots = Phone(page, table), "red", set()
    page.wait_for_function("window.orrery.app.moves.loads > 0")
    spaced(page)
    for _ in range(ACTIONS[game]):
        due = session.game.phase(session.state).actor or seat
        if due != seat:
            seat = due
            page.evaluate(f"window.orrery.app.setSeat({{name: '{seat}', colour: ''}})")
        caught_up(page, session)  # the latest state and its moves, as the player sees them
        page.wait_for_function("window.orrery.app.moves.mine() && !document.querySelector('#moves').hidden")
        listed = legal_inputs(session.game, session.state, table.table.words())
        if game == "orbital_battle" and session.game.phase(session.state).step == "deploy":
            count.actions.append((seat, muster(phone), "muster"))
            continue
        wanted = GOAL_SEEKING[game](session.game, session.state, rng)
        item = next((i for i in listed if i["action"] == wanted.to_json()), None)
        if item is None:  # the companion rolls for it: the action leaves its dice out
            item = next(i for i in listed if i["chance"] and i["type"] == wanted.type)
        if not count.actions or count.actions[-1][0] != seat:
            first_on_screen(page, item)
        if item["type"] == "play" and "play" not in shots:  # ORBIT's cards by their first planet, then a heading's
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=ARTIFACTS / f"taps-{game}-cards.png")
            phone.shot = f"taps-{game}-card"
            shots.add("play")
        count.actions.append((seat, phone.book(item), item["type"]))
        fits(page, 360)
    taps = [taps for _, taps, kind in count.actions if kind != "muster"]
    turns = count.turns()
    print(
        f"{game}: {len(taps)} actions, taps median {statistics.median(taps)} max {max(taps)}; "
        f"{len(turns)} turns, median {statistics.median(turns)} max {max(turns)}"
    )
    assert statistics.median(taps) <= 3, count.actions
    assert statistics.median(turns) <= 8, count.actions
    assert all(taps <= 2 for _, taps, kind in count.actions if kind == "play"), count.actions  # an ORBIT card
    assert all(taps <= 12 for _, taps, kind in count.actions if kind == "muster"), count.actions
    if game == "orbital_battle":
        assert sum(kind == "muster" for *_, kind in count.actions) == 2
    assert not errors, errors
    page.context.close()


def test_a_landing_is_led_from_the_planets_surface(browser, one_table):
    """A transport tapped on the solar map opens the surface of the planet beside it with every hex its unit may
    land on ringed, no hex named by its code; a tap on one lands the unit there, and the map shows it."""
    table = one_table
    table.table.new_game("orbital_battle", ["red", "green"], {}, 5, guide=False)
    session, rng = table.table.session, random.Random(5)
    while not any(a.type == "unload" for a in session.game.legal_actions(session.state)):
        session.submit(GOAL_SEEKING["orbital_battle"](session.game, session.state, rng), "phone",
                       session.game.phase(session.state).actor)  # fmt: skip
    seat = session.game.phase(session.state).actor
    table.table.seats.keep_seats(())  # the seats are free for this test's phone (the last test's phone left)
    page = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
    page.goto(f"{table.base}/?t={table.table.seats.token}")
    page.locator(f'#seats input[value="{seat}"]').check()
    page.click("#join-ok")
    caught_up(page, session)  # the latest state and its moves, as the player sees them
    page.wait_for_function("window.orrery.app.moves.mine() && !document.querySelector('#moves').hidden")
    landings = [i for i in legal_inputs(session.game, session.state, table.table.words()) if i["type"] == "unload"]
    item = landings[0]
    transport = next(u for u in session.state.units if u.uid == item["action"]["transport"])
    phone = Phone(page, table)
    phone.tap(page.locator(f'#map [data-site="{transport.site}"]'))
    if not page.evaluate("window.orrery.app.map.targets.size"):  # several units aboard: which one lands
        phone.tap(page.locator("#pick-list button", has_text=item["steps"][1][2]).first)
    planet = item["to"][0].split(":")[0][1:]
    expect(page.locator("#surface")).to_have_value(planet)
    hexes = {i["to"][0] for i in landings if i["action"]["unit"] == item["action"]["unit"]
             and i["action"]["transport"] == item["action"]["transport"]}  # fmt: skip
    assert set(page.evaluate("[...window.orrery.app.map.targets]")) == hexes
    expect(page.locator("#map .site-label")).to_have_count(0)  # ringed, never named by a hex code
    page.screenshot(path=ARTIFACTS / "taps-orbital_battle-landing.png")
    fits(page, 360)
    before = len(session.actions)
    phone.tap(page.locator(f'#map [data-site="{item["to"][0]}"]'))
    page.wait_for_function(f"window.orrery.app.state.layout['{item['to'][0]}']")
    assert len(session.actions) == before + 1 and session.actions[-1].to_json() == item["action"]
    assert phone.taps <= 3
    expect(page.locator(f'#map .site.moved[data-site="{item["to"][0]}"]')).to_have_count(1)  # what changed
    page.context.close()


def test_an_attack_starts_with_a_tap_on_the_enemy_unit(browser, one_table):
    """In a combat phase every enemy unit that may be attacked is ringed on the map (on the solar map, the planet
    of one on a planet's surface); a tap on one offers its attacks: the companion rolls, or the dice the table
    rolled. Three taps or fewer book it."""
    table = one_table
    table.table.new_game("orbital_battle", ["red", "blue"], {}, 3, guide=False)
    table.table.seats.keep_seats(())  # the seats are free for this test's phone (the last test's phone left)
    session, rng = table.table.session, random.Random(3)
    game = session.game
    while not any(a.type == "attack" and game.aimed_at(session.state, a)[0][:1] == "r"  # one in space
                  for a in game.legal_actions(session.state)):  # fmt: skip
        session.submit(GOAL_SEEKING["orbital_battle"](game, session.state, rng), "phone",
                       game.phase(session.state).actor)  # fmt: skip
    seat = game.phase(session.state).actor
    page = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
    page.goto(f"{table.base}/?t={table.table.seats.token}")
    page.locator(f'#seats input[value="{seat}"]').check()
    page.click("#join-ok")
    caught_up(page, session)  # the latest state and its moves, as the player sees them
    page.wait_for_function("window.orrery.app.moves.mine() && !document.querySelector('#moves').hidden")
    attacks = [i for i in legal_inputs(game, session.state, table.table.words()) if i["type"] == "attack"]
    aimed = {i["at"][0] for i in attacks if not i["at"][0].startswith("p")}
    ringed = set(page.evaluate("[...document.querySelectorAll('#map .site.aim')].map((e) => e.dataset.site)"))
    assert aimed <= ringed, (aimed, ringed)
    item = next(i for i in attacks if i["chance"] and i["at"][0] in aimed)
    # The banner counts game turns, as the rulebook does (section V), not rounds.
    expect(page.locator("#phase-line")).to_contain_text(f"Turn {session.state.turn} · ")
    page.screenshot(path=ARTIFACTS / "taps-orbital_battle-banner.png")
    phone = Phone(page, table)
    page.screenshot(path=ARTIFACTS / "taps-orbital_battle-targets.png")
    phone.shot = "taps-orbital_battle-attack"
    phone.tap(page.locator(f'#map [data-site="{item["at"][0]}"]'))
    expect(page.locator("#pick-title")).to_contain_text(f"Attack {table.table.words().site(item['at'][0])}: ")
    fits(page, 360)
    before = len(session.actions)
    # The dice the table rolled are named by whose they are: the attacker's, then the defender's.
    owner = next(u.owner for u in session.state.units if u.uid == item["action"]["target"])
    told = next(i for i in attacks if not i["chance"] and i["action"]["target"] == item["action"]["target"])
    rollers = [step[0] for step in told["steps"] if step[3:] == ["Dice"]]
    assert rollers == [f"{seat.capitalize()}'s die", f"{owner.capitalize()}'s die"], told["steps"]
    dice_seen = False
    while not phone.sent(before) and phone.taps < 4:  # which unit there, which of ours, then the dice
        if page.locator("#pick-list .dice").count():
            dice_seen = True
            assert page.locator("#pick-list .dice span").all_inner_texts() == rollers
            page.screenshot(path=ARTIFACTS / "taps-orbital_battle-dice.png")
        ways = [page.locator("#pick-list button:visible", has_text=text) for text in
                ("The companion rolls", item["steps"][0][2], item["steps"][1][2])]  # fmt: skip
        phone.tap(next(way.first for way in ways if way.count()))
    assert dice_seen and len(session.actions) == before + 1 and session.actions[-1].type == "attack"
    assert session.actions[-1].get("target") == item["action"]["target"] and phone.taps <= 3
