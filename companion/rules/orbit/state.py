"""ORBIT's state as immutable values, and the fixed facts of its box."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from typing import Literal

from companion.boards import Board
from companion.jsonfile import file_stamp
from companion.rules import engine
from companion.rules.orbit.data import DeckFile, load_deck
from companion.rules.orbit.space import read_board

COLOURS = ("red", "orange", "yellow", "green", "blue", "purple", "brown", "gray")
# The order a dual-spaceship game hands out second colours when the options name none.
SEAT_COLOURS = ("red", "green", "blue", "yellow", "orange", "purple", "brown", "gray")
PRISM = "prism"
ENERGY_CUBES = 20
NEBULA_CHIPS = 18
HAND_START, HAND_MAX = 3, 6
CAPACITY_START, CAPACITY_MAX = 2, 5
NAV_TOKENS = ("swap", "jump", "energy")

Mode = Literal["standard", "partnership", "dual"]


@dataclass(frozen=True)
class Options:
    # "front", "back" (Alternate Dimension), or the path of a board file of the same form.
    board: str = "front"
    # The path of a deck file; "" is the default deck (companion/rules/orbit/deck.json).
    deck: str = ""
    mode: Mode = "standard"
    # Dual spaceship: each player's second colour, in player order (default: the first colours nobody has).
    second_colours: tuple[str, ...] | None = None
    prism: bool = False
    navigation: bool = False
    engine: bool = False
    nebulas: bool = False
    # A table that set up its own board names what it did: planet sites, the site each arrow points to, and the
    # station tile on each station site ("prism" for the PRISM disc).
    planets: dict[str, str] | None = None
    headings: dict[str, str] | None = None
    stations: dict[str, str] | None = None


@dataclass(frozen=True, eq=False)
class Material(engine.Material):
    """The board and the deck the game is played with, as read at setup."""

    board: Board
    deck: DeckFile


def material(board: str, deck: str) -> Material:
    """The material of a game on the board the `board` option names, with the deck at `deck` ("": ours), read now;
    setup's alone."""
    return _material(board, 0 if board in ("front", "back") else file_stamp(board), deck, file_stamp(deck))


@cache
def _material(board: str, board_stamp: int, deck: str, deck_stamp: int) -> Material:
    return Material.of(board=read_board(board), deck=load_deck(deck))


@dataclass(frozen=True)
class Planet:
    site: str
    heading: str  # the neighbouring position the planet's arrow points to


@dataclass(frozen=True)
class Ship:
    owner: str
    site: str
    markers: tuple[str, ...]  # mission markers still on its board: planets (and PRISM) not yet visited


@dataclass(frozen=True)
class Player:
    hand: int
    hand_size: int = HAND_START
    energy: int = 0
    capacity: int = CAPACITY_START
    engine: bool = False
    friendship: bool = False  # an unused friendship tile
    tokens: tuple[str, ...] = ()  # unused navigation tokens
    collected: tuple[str, ...] = ()  # upgrade station tiles taken from the board


@dataclass(frozen=True)
class Offer:
    """A feature the active player may now use or decline: a hyper jump, a hyper accelerator cannon, or the space
    station where a flight ended (`activate`)."""

    kind: Literal["jump", "cannon", "station"]
    ship: str
    # True for a hyper jump portal: the ship must go to *another* portal; a mission marker's jump may stay.
    elsewhere: bool = False


@dataclass(frozen=True)
class Turn:
    player: str
    card: str | None = None
    features: tuple[str, ...] = ()  # the played card's features not yet applied ("advance:red:2", "fly:3", ...)
    flown: bool = False  # the card's flight (or using the start site's portal or cannon instead) is spent
    engine_used: bool = False
    offers: tuple[Offer, ...] = ()
    start: dict[str, str] | None = None  # where the player's ships stood when the turn began
    steer: str | None = None  # a planet stopped at a fork whose arrow the player must point next
    ways: tuple[str, ...] = ()  # the two ways on from that fork (never back the way the planet came)


@dataclass(frozen=True)
class State:
    options: Options
    material: Material
    players: tuple[str, ...]
    ships: dict[str, Ship]  # by colour
    planets: dict[str, Planet]
    stations: dict[str, str]  # site -> the tile on it (collected tiles leave the board)
    people: dict[str, Player]
    deck: int  # cards in the face-down draw pile
    discard: dict[str, int]  # known cards in the discard pile, by kind
    discard_unknown: int  # cards discarded face-down into the pile unseen (a swapped hand)
    turn: Turn | None
    exchange: tuple[str, ...] = ()  # teams ("red+blue") with an unused exchange tile
    nebulas: tuple[str, ...] = ()
    turns: int = 1
    winners: tuple[str, ...] = ()
    reason: str = ""


def with_ship(state: State, colour: str, **changes: object) -> State:
    """The state with one spaceship changed; a ship that moves goes to the end, so stacks list ships in the order
    they arrived (bottom to top)."""
    ship = replace(state.ships[colour], **changes)
    if ship.site == state.ships[colour].site:
        return replace(state, ships={**state.ships, colour: ship})
    return replace(state, ships={**{c: s for c, s in state.ships.items() if c != colour}, colour: ship})


def with_player(state: State, name: str, **changes: object) -> State:
    return replace(state, people={**state.people, name: replace(state.people[name], **changes)})


def with_turn(state: State, **changes: object) -> State:
    assert state.turn is not None
    return replace(state, turn=replace(state.turn, **changes))


def ships_of(state: State, name: str) -> tuple[str, ...]:
    return tuple(colour for colour, ship in state.ships.items() if ship.owner == name)


def team_of(state: State, name: str) -> tuple[str, ...]:
    """The players who win together: partners sitting opposite in a partnership game, else the player alone."""
    if state.options.mode != "partnership":
        return (name,)
    i = state.players.index(name)
    return (state.players[i % 2], state.players[i % 2 + 2])


def partner_of(state: State, name: str) -> str | None:
    team = team_of(state, name)
    return next((p for p in team if p != name), None)


def planet_at(state: State, site: str) -> str | None:
    """The planet (or the PRISM disc) standing on a site."""
    for colour, planet in state.planets.items():
        if planet.site == site:
            return colour
    return PRISM if state.stations.get(site) == PRISM else None


def energy_in_play(state: State) -> int:
    return sum(p.energy for p in state.people.values())
