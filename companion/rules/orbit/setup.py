"""Setting up a game: planets spread over the board, stations drawn from the bag, ships on their home planets."""

from __future__ import annotations

import math
from collections.abc import Sequence

from companion.rules.engine import SetupError
from companion.rules.orbit.data import STATION_KINDS, DeckFile
from companion.rules.orbit.space import Space
from companion.rules.orbit.state import (
    COLOURS,
    HAND_START,
    NAV_TOKENS,
    PRISM,
    SEAT_COLOURS,
    Options,
    Planet,
    Player,
    Ship,
)
from companion.rules.rng import Rng


def seat_colours(players: Sequence[str], opts: Options) -> dict[str, tuple[str, ...]]:
    """Each player's spaceship colours: their own, and in the dual spaceship game a second one."""
    counts = {"standard": (2, 4), "partnership": (4, 4), "dual": (2, 2)}[opts.mode]
    if not counts[0] <= len(players) <= counts[1]:
        raise SetupError(f"players: the {opts.mode} game takes {counts[0]} to {counts[1]} players, got {len(players)}")
    for name in players:
        if name not in COLOURS:
            raise SetupError(f"players: {name!r} is not a planet colour ({', '.join(COLOURS)})")
    if len(set(players)) != len(players):
        raise SetupError("players: each colour may be chosen once")
    if opts.mode != "dual":
        if opts.second_colours:
            raise SetupError("options.second_colours: only the dual spaceship game gives players a second colour")
        return {name: (name,) for name in players}
    seconds = list(opts.second_colours or [])
    free = [c for c in SEAT_COLOURS if c not in players and c not in seconds]
    while len(seconds) < len(players):
        seconds.append(free.pop(0))
    taken = [*players, *seconds]
    if len(seconds) != len(players) or len(set(taken)) != len(taken) or not set(seconds) <= set(COLOURS):
        raise SetupError("options.second_colours: one more planet colour per player, none chosen twice")
    return {name: (name, second) for name, second in zip(players, seconds, strict=True)}


def place_planets(sp: Space, opts: Options, rng: Rng) -> tuple[dict[str, Planet], Rng]:
    """Each planet on a random symbol of its orbit, one planet to each eighth of the board where its orbit allows,
    its arrow pointing a random way along the orbit; the `planets` and `headings` options fix any of these."""
    missing = [c for c in COLOURS if c not in sp.positions]
    if missing:
        raise SetupError(f"options.board: no orbit for {', '.join(missing)}")
    given, headings = opts.planets or {}, opts.headings or {}
    board = sp.board
    cx, cy = board.width / 2, board.height / 2
    sectors, rng = rng.shuffled(range(8))
    planets = {}
    for colour, sector in zip(COLOURS, sectors, strict=True):
        site = given.get(colour)
        if site is None:

            def angle(s: str) -> float:
                p = board.site(s)
                return math.degrees(math.atan2(p.y - cy, p.x - cx)) % 360

            spots = [s for s in sp.positions[colour] if sector * 45 <= angle(s) < sector * 45 + 45]
            site, rng = rng.choice(sorted(spots or sp.positions[colour]))
        elif site not in sp.positions[colour]:
            raise SetupError(f"options.planets.{colour}: {site!r} is not a planet symbol of the {colour} orbit")
        heading = headings.get(colour)
        if heading is None:
            heading, rng = rng.choice(sorted(sp.orbit[site]))
        elif heading not in sp.orbit[site]:
            raise SetupError(f"options.headings.{colour}: {heading!r} is not next to {site} on the {colour} orbit")
        planets[colour] = Planet(site, heading)
    return planets, rng


def place_stations(sp: Space, deck: DeckFile, opts: Options, rng: Rng) -> tuple[dict[str, str], Rng]:
    """A tile from the bag on every station site; with PRISM one of them is swapped for the PRISM disc."""
    if opts.stations is not None:
        for site, kind in opts.stations.items():
            if site not in sp.station_sites:
                raise SetupError(f"options.stations: {site!r} is not a space station site")
            if kind not in (*STATION_KINDS, PRISM):
                raise SetupError(f"options.stations.{site}: {kind!r} is not a station ({', '.join(STATION_KINDS)})")
        return dict(opts.stations), rng
    bag = [kind for kind, count in deck.stations.items() for _ in range(count)]
    if len(bag) < len(sp.station_sites):
        raise SetupError(f"the deck file has {len(bag)} station tiles for {len(sp.station_sites)} station sites")
    tiles, rng = rng.shuffled(bag)
    stations = dict(zip(sp.station_sites, tiles, strict=False))
    if opts.prism and stations:
        site, rng = rng.choice(sorted(stations))
        stations[site] = PRISM
    return stations, rng


def people_and_ships(
    players: Sequence[str], colours: dict[str, tuple[str, ...]], planets: dict[str, Planet], opts: Options
) -> tuple[dict[str, Player], dict[str, Ship]]:
    tiles = opts.mode in ("partnership", "dual")
    tokens = NAV_TOKENS if opts.navigation else ()
    people = {name: Player(HAND_START, friendship=tiles, tokens=tokens) for name in players}
    ships = {}
    for name in players:
        for colour in colours[name]:
            markers = tuple(c for c in COLOURS if c != colour) + ((PRISM,) if opts.prism else ())
            ships[colour] = Ship(name, planets[colour].site, markers)
    return people, ships


def exchange_tiles(players: Sequence[str], opts: Options) -> tuple[str, ...]:
    if opts.mode == "partnership":
        return (f"{players[0]}+{players[2]}", f"{players[1]}+{players[3]}")
    if opts.mode == "dual":
        return tuple(players)
    return ()
