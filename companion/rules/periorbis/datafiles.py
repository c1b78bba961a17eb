"""The parts of Periorbis the rulebook shows only in pictures, read from JSON data files.

The orbit track, the asteroids (ore tracks and base slot costs), the employee cards, the trading ship cards and the
starting position ship as documented defaults in data/. A table with its own copy of the game names a folder (the
`data` option) holding any of the same files; each file found there replaces the default one. A bad file is one
line naming the file and the field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import Any, Literal

from companion import codec
from companion.boards.periorbis import ASTEROIDS_FILE
from companion.jsonfile import file_stamp, read_json
from companion.rules.engine import SetupError

DEFAULTS = Path(__file__).parent / "data"
FILES = ("asteroids.json", "orbit.json", "employees.json", "ships.json", "setup.json")
ORES = ("black", "grey", "white")
Role = Literal["basic", "agent", "captain", "engineer", "scientist", "miner"]


# Deck cards are numbered 0 to this (the hire and reveal actions read a card number within it); start cards may be
# numbered below 0, so that they rank under every deck card in the tie-breaks.
TOP_CARD_NUMBER = 9999


class DataError(SetupError):
    """A data file that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class Ore:
    black: int = 0
    grey: int = 0
    white: int = 0


@dataclass(frozen=True)
class Asteroid:
    name: str
    title: str
    ore: Ore
    slots: tuple[int, ...]  # the base slots' building costs, in the order bases are taken


@dataclass(frozen=True)
class Skills:
    """What an employee does with each action; the defaults are a basic employee's."""

    build: int = 0  # credits off a base or an HQ slot
    upgrade: int = 0  # research data off an upgrade
    contract: int = 0  # agent bonus cubes on a contract, and extra credits per crate sold
    sell: int = 2  # crates sold from storage in one action
    captain: int = 2  # cargo carried in one transport action
    research: int = 1  # research data made, or sold, in one action
    black: int = 1  # crates made mining one black ore
    grey: int = 1
    white: int = 0  # only specialist miners mine white ore


@dataclass(frozen=True)
class Card:
    number: int
    role: Role
    wage: int
    skills: Skills = Skills()


@dataclass(frozen=True)
class Row:
    size: int  # the contract size: crates that earn victory points
    advance: int  # credits paid on signing


@dataclass(frozen=True)
class ShipCard:
    id: str
    price: int  # the standard price per crate
    spaces: int  # cargo spaces in all
    minimum: int  # minimum fulfilment (III) spaces: filled, the ship leaves
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Setup:
    credits: int = 40
    start_team: tuple[int, ...] = (0, -1, -2)  # card numbers from employees.json "start", in HQ slots 1, 2, ...
    hq_open: int = 5  # HQ slots open at the start; slots 6 and 7 are developed
    fleet: int = 3
    fleet_max: int = 8
    drive_levels: int = 3  # basic drive is level 1; asteroids in band n need level n


@dataclass(frozen=True)
class Data:
    asteroids: tuple[Asteroid, ...]
    orbit: tuple[dict[str, int], ...]  # per turn: asteroid -> the drive level that reaches it
    short_orbit: dict[str, dict[str, int]]  # turn (as text) -> placements the short game adds
    start_cards: tuple[Card, ...]
    decks: tuple[tuple[Card, ...], ...]  # employee decks 1 and 2
    ship_decks: tuple[tuple[ShipCard, ...], ...]  # trading ship decks by level
    setup: Setup

    @cached_property
    def cards(self) -> dict[int, Card]:
        """Every employee card by number (checked unique when the files were read)."""
        return {card.number: card for group in (self.start_cards, *self.decks) for card in group}

    @cached_property
    def ships(self) -> dict[str, ShipCard]:
        """Every trading ship card by id."""
        return {ship.id: ship for deck in self.ship_decks for ship in deck}

    def asteroid(self, name: str) -> Asteroid:
        return next(a for a in self.asteroids if a.name == name)


@dataclass(frozen=True)
class _AsteroidsFile:
    asteroids: tuple[Asteroid, ...]


@dataclass(frozen=True)
class _OrbitFile:
    turns: tuple[dict[str, int], ...]
    short_game: dict[str, dict[str, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class _EmployeesFile:
    start: tuple[Card, ...]
    decks: tuple[tuple[Card, ...], ...]


@dataclass(frozen=True)
class _ShipsFile:
    decks: tuple[tuple[ShipCard, ...], ...]


def default_path(name: str) -> Path:
    """Where the shipped file of that name is: the asteroids live with the board, which is drawn from them."""
    return ASTEROIDS_FILE if name == "asteroids.json" else DEFAULTS / name


def _read(folder: Path | None, name: str, kind: type) -> tuple[Any, str]:
    path = folder / name if folder is not None and (folder / name).exists() else default_path(name)
    raw = read_json(path, DataError)
    try:
        return codec.from_json(kind, raw, name.removesuffix(".json")), str(path)
    except codec.CodecError as error:
        raise DataError(f"{path}: {error}") from None


def _need(ok: bool, source: str, where: str, problem: str) -> None:
    if not ok:
        raise DataError(f"{source}: {where}: {problem}")


def load(folder: str | None = None) -> Data:
    """The game's data: the defaults, with each file found in `folder` replacing its default (read again once a
    file there changes: a table may replace its data under the same name)."""
    return _load(folder, file_stamp(folder))


@cache
def _load(folder: str | None, stamp: int) -> Data:
    base = None
    if folder is not None:
        base = Path(folder)
        if not base.is_dir():
            raise DataError(f"options.data: {folder!r} is not a folder")
    asteroids, a_src = _read(base, "asteroids.json", _AsteroidsFile)
    orbit, o_src = _read(base, "orbit.json", _OrbitFile)
    employees, e_src = _read(base, "employees.json", _EmployeesFile)
    ships, s_src = _read(base, "ships.json", _ShipsFile)
    setup, u_src = _read(base, "setup.json", Setup)
    names = _check_asteroids(asteroids, a_src)
    _check_orbit(orbit, names, o_src)
    _check_employees(employees, setup, e_src, u_src)
    ship_cards = _check_ships(ships, s_src)
    for ship_id in ship_cards:
        _need(ship_id not in names, s_src, "ships.decks", f"ship {ship_id!r} has an asteroid's name")
    _need(setup.credits >= 0, u_src, "setup.credits", "cannot be negative")
    _need(1 <= setup.hq_open <= 5, u_src, "setup.hq_open", "must be 1 to 5 (slots 6 and 7 are developed)")
    _need(1 <= setup.fleet <= setup.fleet_max, u_src, "setup.fleet", "must be at least 1 and at most fleet_max")
    _need(setup.drive_levels >= 1, u_src, "setup.drive_levels", "must be at least 1")
    for turn, placed in enumerate(orbit.turns):
        for name, level in placed.items():
            where = f"orbit.turns[{turn}].{name}"
            _need(1 <= level <= setup.drive_levels, o_src, where, f"drive level must be 1 to {setup.drive_levels}")
    return Data(
        asteroids=asteroids.asteroids,
        orbit=orbit.turns,
        short_orbit=orbit.short_game,
        start_cards=employees.start,
        decks=employees.decks,
        ship_decks=ships.decks,
        setup=setup,
    )


def _check_asteroids(file: _AsteroidsFile, source: str) -> list[str]:
    names: list[str] = []
    for i, asteroid in enumerate(file.asteroids):
        where = f"asteroids.asteroids[{i}]"
        _need(
            asteroid.name.isidentifier() and asteroid.name.islower(),
            source,
            f"{where}.name",
            f"{asteroid.name!r} must be one lower-case word",
        )
        _need(asteroid.name not in ("hq", "storage"), source, f"{where}.name", f"{asteroid.name!r} is reserved")
        _need(asteroid.name not in names, source, f"{where}.name", f"{asteroid.name!r} is used twice")
        _need(
            bool(asteroid.slots) and min(asteroid.slots) >= 0,
            source,
            f"{where}.slots",
            "needs at least one base slot, no cost below 0",
        )
        _need(
            min(asteroid.ore.black, asteroid.ore.grey, asteroid.ore.white) >= 0,
            source,
            f"{where}.ore",
            "no ore track below 0",
        )
        names.append(asteroid.name)
    _need(len(names) >= 6, source, "asteroids.asteroids", "needs at least 6 asteroids (the short game uses 6)")
    return names


def _check_orbit(file: _OrbitFile, names: list[str], source: str) -> None:
    _need(len(file.turns) == 12, source, "orbit.turns", f"needs 12 turns, got {len(file.turns)}")
    for turn, placed in enumerate(file.turns):
        for name in placed:
            _need(name in names, source, f"orbit.turns[{turn}]", f"no asteroid {name!r} in asteroids.json")
    for turn, placed in file.short_game.items():
        _need(turn.isdigit() and 1 <= int(turn) <= 6, source, f"orbit.short_game.{turn}", "must be a turn 1 to 6")
        for name in placed:
            _need(name in names[:6], source, f"orbit.short_game.{turn}", f"{name!r} is not a short-game asteroid")


def _check_employees(file: _EmployeesFile, setup: Setup, source: str, setup_source: str) -> dict[int, Card]:
    cards: dict[int, Card] = {}
    _need(len(file.decks) >= 1, source, "employees.decks", "needs at least one deck")
    groups = [("start", file.start), *((f"decks[{d}]", deck) for d, deck in enumerate(file.decks))]
    for label, group in groups:
        for i, card in enumerate(group):
            where = f"employees.{label}[{i}]"
            _need(card.number not in cards, source, f"{where}.number", f"card {card.number} is used twice")
            _need(card.wage >= 1, source, f"{where}.wage", "must be at least 1")
            if label != "start":
                _need(0 <= card.number <= TOP_CARD_NUMBER, source, f"{where}.number", f"must be 0 to {TOP_CARD_NUMBER}")
            _need(min(vars(card.skills).values()) >= 0, source, f"{where}.skills", "no skill below 0")
            _need(
                card.skills.captain >= 1 and card.skills.sell >= 1 and card.skills.research >= 1,
                source,
                f"{where}.skills",
                "every employee carries, sells and researches at least 1",
            )
            cards[card.number] = card
    starters = {card.number for card in file.start}
    _need(
        bool(setup.start_team),
        setup_source,
        "setup.start_team[0]",
        "empty: a player would start with no employee and could do nothing",
    )
    for i, number in enumerate(setup.start_team):
        _need(number in starters, setup_source, f"setup.start_team[{i}]", f"no start card {number} in employees.json")
    _need(len(setup.start_team) <= setup.hq_open, setup_source, "setup.start_team", "more employees than open HQ slots")
    return cards


def _check_ships(file: _ShipsFile, source: str) -> dict[str, ShipCard]:
    ships: dict[str, ShipCard] = {}
    _need(len(file.decks) >= 1 and bool(file.decks[0]), source, "ships.decks", "needs a level 1 deck")
    for level, deck in enumerate(file.decks):
        for i, ship in enumerate(deck):
            where = f"ships.decks[{level}][{i}]"
            _need(ship.id not in ships and ship.id != "storage", source, f"{where}.id", f"{ship.id!r} is used twice")
            _need(1 <= ship.minimum <= ship.spaces, source, f"{where}.minimum", "must be 1 to the ship's spaces")
            _need(bool(ship.rows), source, f"{where}.rows", "needs at least one contract row")
            for r, row in enumerate(ship.rows):
                _need(
                    row.size >= 1 and row.advance >= 0,
                    source,
                    f"{where}.rows[{r}]",
                    "size must be at least 1, the advance at least 0",
                )
            _need(ship.price >= 0, source, f"{where}.price", "cannot be negative")
            ships[ship.id] = ship
    return ships
