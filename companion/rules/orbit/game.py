"""ORBIT as a rules engine: the contract of companion.rules.engine over the modules beside this one."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Annotated, Any, ClassVar

from companion.boards import Board
from companion.boards.orbit import build as build_side
from companion.codec import MaxLength, Maybe, text, whole
from companion.rules.engine import (
    Action,
    DataOption,
    Event,
    Game,
    Handler,
    Layout,
    Ledger,
    Outcome,
    Phase,
    SetupError,
    handler_for,
    pointing,
    read_option_words,
)
from companion.rules.engine import read_options as _read_options
from companion.rules.orbit import flight, partners, planets, turns
from companion.rules.orbit.arrival import jump_targets, visit
from companion.rules.orbit.common import OFFER_ACTIONS, OFFER_NAMES
from companion.rules.orbit.data import describe, feature_words, heading
from companion.rules.orbit.setup import exchange_tiles, people_and_ships, place_planets, place_stations, seat_colours
from companion.rules.orbit.space import distances, space, straight_lines
from companion.rules.orbit.state import (
    ENERGY_CUBES,
    NEBULA_CHIPS,
    PRISM,
    Options,
    State,
    energy_in_play,
    partner_of,
    ships_of,
)
from companion.rules.orbit.state import material as read_material
from companion.rules.orbit.text import markers_words, who
from companion.rules.rng import Rng

HANDLERS: dict[str, Handler] = {
    "play": turns.play,
    "advance": planets.advance,
    "reverse": planets.reverse,
    "energy": turns.energy,
    "max_energy": turns.max_energy,
    "fly": flight.fly,
    "jump": flight.jump,
    "cannon": flight.cannon,
    "start_jump": flight.start_jump,
    "start_cannon": flight.start_cannon,
    "steer": planets.steer,
    "activate": flight.activate,
    "decline": flight.decline,
    "engine": flight.engine,
    "nebula": planets.nebula,
    "friendship": partners.friendship,
    "exchange": partners.exchange,
    "nav_swap": partners.nav_swap,
    "nav_jump": partners.nav_jump,
    "nav_energy": partners.nav_energy,
    "end_turn": turns.end_turn,
}
# Each action's arguments (engine.Game.actions); `ship` names one of a dual player's two spaceships.
NAME = text()
SHIP = Maybe(NAME)
ARGS: dict[str, dict[str, Any]] = {
    "play": {"card": NAME},
    "advance": {"planet": NAME, "wild": Maybe(bool), "route": Maybe(Annotated[tuple[NAME, ...], MaxLength(20)])},
    "reverse": {"planet": NAME, "heading": NAME},
    "energy": {},
    "max_energy": {},
    "fly": {"to": NAME, "ship": SHIP, "partner_energy": Maybe(whole(0, 99))},
    "jump": {"to": NAME},
    "cannon": {"to": NAME},
    "start_jump": {"to": NAME, "ship": SHIP},
    "start_cannon": {"to": NAME, "ship": SHIP},
    "steer": {"heading": NAME},
    "activate": {},
    "decline": {},
    "engine": {"to": NAME, "ship": SHIP},
    "nebula": {"site": NAME},
    "friendship": {"ship": SHIP},
    "exchange": {"ship": SHIP},
    "nav_swap": {},
    "nav_jump": {"to": NAME, "ship": SHIP},
    "nav_energy": {},
    "end_turn": {},
}


def _card_words(state: State) -> str | None:
    """The card in play as its features read (the box's cards carry no number a player would know)."""
    if state.turn is None or state.turn.card is None:
        return None
    return describe(state.material.deck.by_id[state.turn.card])


def piece(state: State, colour: str) -> str:
    """A spaceship's piece name: "ship-red", or "ship-blue-red" for Red's second (blue) ship in a dual game."""
    owner = state.ships[colour].owner
    return f"ship-{colour}" if owner == colour else f"ship-{colour}-{owner}"


# The table's facts (engine.Game): the board's two sides, the options a table may give files of its own, the books.
SIDES = {"front": "ORBIT's front side", "back": "ORBIT's back side"}
DATA = {"board": DataOption("file", tuple(SIDES)), "deck": DataOption("file", ("",))}
SHOWN = {"markers": markers_words}  # by the planets' colours
LABELS = {
    "hand": "Cards in hand",
    "sites": "Where",
    "markers": "Markers to place",
    "engine": "Engine fitted",
    "friendship_tile": "Friendship tile",
    "deck": "Cards in the deck",
}


class Orbit(Game[State]):
    name = "orbit"
    title = "ORBIT"
    min_players = 2
    max_players = 4
    state_type = State
    # Moves whose board outcome tells them apart. Tiles, tokens, the engine and the start position's portal or
    # cannon can leave the same board as a flight would, so they are declared on a phone.
    marks: ClassVar[Mapping[str, str]] = {
        "planet": "",
        "ship": "S",
        "station-hand": "H",
        "station-energy": "E",
        "station-portal": "J",
        "station-cannon": "C",
        "station-fuel": "F",
        "prism": "◆",
        "nebula": "N",
    }
    board_moves = frozenset({"advance", "fly", "jump", "cannon", "nebula"})
    actions = ARGS
    board_option = "board"
    board_sides = SIDES
    data_options = DATA
    option_words = read_option_words(Path(__file__).with_name("options.json"))
    ledger_labels = LABELS
    ledger_shown = SHOWN

    def own_board(self, side: str = "") -> Board:
        return build_side(side if side in SIDES else "front")

    def setup(self, players: Sequence[str], options: Mapping[str, Any], seed: int) -> State:
        opts = _read_options(Options, options)
        colours = seat_colours(players, opts)
        material = read_material(opts.board, opts.deck)  # the board and the deck, read now and never again
        sp, deck = space(material), material.deck
        if deck.size < 3 * len(players) + 1:
            raise SetupError(f"the deck has {deck.size} cards: too few to deal three to each player")
        rng = Rng.seeded(seed)
        planet_sites, rng = place_planets(sp, opts, rng)
        stations, rng = place_stations(sp, deck, opts, rng)
        people, ships = people_and_ships(players, colours, planet_sites, opts)
        state = State(
            options=opts,
            material=material,
            players=tuple(players),
            ships=ships,
            planets=planet_sites,
            stations=stations,
            people=people,
            deck=deck.size - 3 * len(players),
            discard={},
            discard_unknown=0,
            turn=None,
            exchange=exchange_tiles(players, opts),
        )
        return turns.start_turn(state, players[0], [])

    def phase(self, state: State) -> Phase:
        turn = state.turn
        rounds = (state.turns - 1) // len(state.players) + 1  # a round: every player's turn once
        if turn is None:
            return Phase("over", None, f"The game is won: {state.reason}.", round=rounds)
        name = who(turn.player)
        if turn.steer:
            prompt = f"{name}: say where the {turn.steer} planet's arrow points at its fork."
            return Phase("turn", turn.player, prompt, "steer", rounds)
        if turn.offers:
            kind = turn.offers[0].kind
            prompt = f"{name}: use the {OFFER_NAMES[kind]} ({OFFER_ACTIONS[kind]}) or decline it."
            return Phase("turn", turn.player, prompt, "offer", rounds)
        if turn.card is None:
            return Phase("turn", turn.player, f"{name}: play a card.", "play", rounds)
        left = turns.mandatory_left(turn)
        prompt = f"{name}: {left} first, then" if left else f"{name}: apply the card's features you want, then"
        return Phase("turn", turn.player, prompt + " end the turn.", "features", rounds)

    def legal_actions(self, state: State) -> Iterator[Action]:
        return filter(partial(self.is_legal, state), _candidates(state))

    def _check(self, state: State, action: Action) -> None:
        self._apply(state, action)  # every refusal comes from the handler, so applying is the check

    def _apply(self, state: State, action: Action) -> tuple[State, list[Event]]:
        state, events = handler_for(HANDLERS, self.title, action)(state, action)
        return visit(state, events), events  # a spaceship now on a new planet visits it, whatever brought it there

    def layout(self, state: State) -> Layout:
        stacks: dict[str, list[str]] = {}
        for site, tile in state.stations.items():
            stacks.setdefault(site, []).append(PRISM if tile == PRISM else f"station-{tile}")
        for site in state.nebulas:
            stacks.setdefault(site, []).append("nebula")
        for colour, planet in state.planets.items():
            # The arrow is part of the piece: a camera that sees the planet's sticker reads which way it points.
            stacks.setdefault(planet.site, []).append(pointing(f"planet-{colour}", planet.heading))
        for colour, ship in state.ships.items():
            stacks.setdefault(ship.site, []).append(piece(state, colour))
        return {site: tuple(pieces) for site, pieces in stacks.items()}

    def physical_piece(self, name: str) -> str:
        """A dual game's second spaceship is named for its owner too (`ship-blue-red`); the piece is the blue ship."""
        kind, _, rest = name.partition("-")
        return f"ship-{rest.partition('-')[0]}" if kind == "ship" else name

    def group(self, state: State, action: Action) -> str | None:
        if action.type != "play":
            return None
        card = state.material.deck.by_id.get(action.get("card") or "")
        return heading(card) if card is not None else None

    def said(self, state: State, key: str, value: Any) -> str | None:
        if key == "card":
            card = state.material.deck.by_id.get(str(value))
            return describe(card) if card is not None else None
        if key == "planet" and isinstance(value, str):
            return value  # a planet by its colour, never a seat's name ("red", not "Red")
        return None

    def ledger(self, state: State) -> Ledger:
        players = {}
        for name, person in state.people.items():
            mine = ships_of(state, name)
            players[name] = {
                "hand": person.hand,
                "hand_size": person.hand_size,
                "energy": person.energy,
                "capacity": person.capacity,
                "engine": person.engine,
                "markers": {c: list(state.ships[c].markers) for c in mine},
                "markers_left": sum(len(state.ships[c].markers) for c in mine),
                "sites": {c: state.ships[c].site for c in mine},
                "stations_collected": list(person.collected),
                "friendship_tile": person.friendship,
                "navigation_tokens": list(person.tokens),
            }
        table = {
            "turn": state.turns,
            "deck": state.deck,
            "discard": sum(state.discard.values()) + state.discard_unknown,
            "energy_supply": ENERGY_CUBES - energy_in_play(state),
            "stations_on_board": len(state.stations),
            "nebulas_left": NEBULA_CHIPS - len(state.nebulas),
            "exchange_tiles": list(state.exchange),
            "card_in_play": _card_words(state),
            "features_left": [feature_words(f) for f in state.turn.features] if state.turn else [],
        }
        return {"players": players, "table": table}

    def outcome(self, state: State) -> Outcome | None:
        if not state.winners:
            return None
        return Outcome("won", state.winners, state.reason)


def _candidates(state: State) -> Iterator[Action]:
    """Every action worth checking, with every argument the state makes possible."""
    make, turn = Action.make, state.turn
    if turn is None:
        return
    material, blocked = state.material, frozenset(state.nebulas)
    sp = space(material)
    mine = ships_of(state, turn.player)

    def ship(colour: str) -> str | None:
        return colour if len(mine) > 1 else None

    if turn.steer:
        for heading in planets.steer_ways(state):
            yield make("steer", heading=heading)
        return
    if turn.offers:
        offer = turn.offers[0]
        site = state.ships[offer.ship].site
        if offer.kind == "station":
            yield make("activate")
        else:
            targets = (
                jump_targets(state, site, offer.elsewhere)
                if offer.kind == "jump"
                else straight_lines(material, site, blocked)
            )
            for to in targets:
                yield make(offer.kind, to=to)
        yield make("decline")
        return
    if turn.card is None:
        for card in state.material.deck.cards:
            yield make("play", card=card.id)
    else:
        yield from _feature_actions(state, mine, ship)
        yield make("end_turn")
    for colour in mine:
        site = state.ships[colour].site
        if turn.start and turn.start.get(colour) == site and not turn.flown:
            for to in jump_targets(state, site, True):
                yield make("start_jump", to=to, ship=ship(colour))
            if state.stations.get(site) == "cannon":
                for to in straight_lines(material, site, blocked):
                    yield make("start_cannon", to=to, ship=ship(colour))
        if state.options.mode != "standard":
            yield make("friendship", ship=ship(colour))
            yield make("exchange", ship=ship(colour))
        for to in sp.portals + tuple(s for s, t in state.stations.items() if t == "portal"):
            yield make("nav_jump", to=to, ship=ship(colour))
    yield make("nav_swap")
    yield make("nav_energy")


def _feature_actions(state: State, mine: tuple[str, ...], ship: Callable[[str], str | None]) -> Iterator[Action]:
    make, turn = Action.make, state.turn
    assert turn is not None
    material, blocked = state.material, frozenset(state.nebulas)
    sp = space(material)
    items = set(turn.features)
    own = {f.split(":")[1]: int(f.split(":")[2]) for f in items if f.startswith("advance:")}
    for colour in state.planets:
        for wild in (False, True):
            if (wild and "wild" not in items) or (not wild and colour not in own and "wild" not in items):
                continue
            if wild and colour not in own:
                continue  # without a symbol of its own, a plain advance already uses the wild one
            for route in planets.routes(state, colour, 1 if wild or colour not in own else own[colour]):
                yield make("advance", planet=colour, wild=wild or None, route=list(route) or None)
    if "reverse" in items:
        for colour, planet in state.planets.items():
            for heading in sp.orbit[planet.site]:
                yield make("reverse", planet=colour, heading=heading)
    yield make("energy")
    yield make("max_energy")
    fly = next((int(f.split(":")[1]) for f in items if f.startswith("fly:")), None)
    if fly is not None and not turn.flown:
        reach = fly + flight.energy_available(state, turn.player)
        for colour in mine:
            for site, steps in distances(material, state.ships[colour].site, blocked).items():
                if 0 < steps <= reach:
                    yield make("fly", to=site, ship=ship(colour))
                    yield from _shares(state, make("fly", to=site, ship=ship(colour)), steps - fly)
    if state.people[turn.player].engine:
        for colour in mine:
            for site in straight_lines(material, state.ships[colour].site, blocked):
                yield make("engine", to=site, ship=ship(colour))
    if "nebula" in items:
        for site in sp.colour_of:
            yield make("nebula", site=site)


def _shares(state: State, plain: Action, cubes: int) -> Iterator[Action]:
    """A partnership flight's other ways to split the cubes between the partners (the plain action burns the
    player's own first): whose cubes go is the active player's choice, which the board cannot show."""
    assert state.turn is not None
    name = state.turn.player
    if cubes < 1 or partner_of(state, name) is None:
        return
    default = flight.energy_split(state, name, cubes)[1]
    for share in range(cubes + 1):
        if share != default:
            yield Action.make(plain.type, **dict(plain.args), partner_energy=share)


GAME = Orbit()
