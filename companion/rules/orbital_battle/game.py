"""Orbital Battle as a rules engine: the contract of companion.rules.engine over the modules beside this one."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, ClassVar

from companion.boards import Board, BoardFileError, load_board
from companion.boards.orbital_battle import all_hexes, planet_board, sites_in, start_sites
from companion.boards.solar_map import SolarMap, SolarMapError, read_solar, solar_board
from companion.codec import MaxLength, Maybe, text, whole
from companion.jsonfile import file_stamp
from companion.rules.engine import (
    Action,
    Beside,
    DataOption,
    Event,
    Game,
    Handler,
    Layout,
    Ledger,
    Muster,
    Outcome,
    Phase,
    SetupError,
    Surface,
    handler_for,
    read_option_words,
)
from companion.rules.engine import read_options as _read_options
from companion.rules.orbital_battle import build, combat, flow, moves, muster, orbit, transport
from companion.rules.orbital_battle.control import conquests, contested, controlled, income
from companion.rules.orbital_battle.geo import planet_map, read_planet
from companion.rules.orbital_battle.movement import retreats as retreat_ends
from companion.rules.orbital_battle.state import (
    PLANETS,
    Material,
    Options,
    State,
    Unit,
    actor,
    cargo,
    next_number,
    phase_name,
    planet_site,
    unit,
)
from companion.rules.orbital_battle.text import plural, who
from companion.rules.orbital_battle.units import KINDS, STRUCTURES, TRANSPORT_CAPACITY
from companion.rules.rng import Rng

HANDLERS: dict[str, Handler] = {
    "roll": flow.roll,
    "home": flow.home,
    "done": flow.done,
    "orbit": orbit.orbit,
    "buy": build.buy,
    "scrap": build.scrap,
    "load": transport.load,
    "unload": transport.unload,
    "fly": moves.fly,
    "march": moves.march,
    "attack": combat.attack,
    "withdraw": combat.retreat,
    "retreat": combat.retreat,
}
# Each action's arguments (engine.Game.actions): units by id (`red-army-3`), sites by name, dice 1 to 6.
NAME = text()
DICE = Maybe(tuple[whole(1, 6), whole(1, 6)])
ARGS: dict[str, dict[str, Any]] = {
    "roll": {"dice": DICE},
    "home": {"planet": NAME},
    "done": {},
    "orbit": {"shove": Maybe(Annotated[tuple[NAME, ...], MaxLength(16)])},
    "buy": {"kind": NAME, "at": NAME},
    "scrap": {"unit": NAME},
    "load": {"transport": NAME, "unit": NAME},
    "unload": {"transport": NAME, "unit": NAME, "at": NAME},
    "fly": {"unit": NAME, "to": NAME},
    "march": {"unit": NAME, "to": NAME},
    "attack": {"target": NAME, "with": Annotated[tuple[NAME, ...], MaxLength(32)], "dice": DICE},
    "withdraw": {"unit": Maybe(NAME), "to": NAME},
    "retreat": {"unit": Maybe(NAME), "to": NAME},
}
DICE = tuple((a, d) for a in range(1, 7) for d in range(1, 7))
PROMPTS = {
    "orbit": "Move every planet one hex clockwise along its orbit, planet 1 first (push any ship in its way ahead "
    "of it).",
    "build": "{p}: buy units and structures, or scrap structures; then end the build phase.",
    "load": "{p}: load land units into transports beside a planet, or unload them; then end the phase.",
    "space_move": "{p}: move spaceships; then end space movement.",
    "space_combat": "{p}: attack enemy spaceships with ships and planet defenses; then end space combat.",
    "bombard": "{p}: bombard enemy land units and structures from ships beside their planet; then end the phase.",
    "land_move": "{p}: move land units on the planet maps (declare each on a phone); then end land movement.",
    "land_combat": "{p}: attack with land units; then end land combat.",
}


# The table's facts (engine.Game): the table's own solar map and planet terrain files; the books' labels.
DATA = {"planet_files": DataOption("files", keys={p: f"planet {p}" for p in PLANETS}), "solar_map": DataOption("file")}
# The planet maps lie beside the solar map, each on a grid of its own, and the page opens their surfaces.
BESIDE = tuple(Beside(f"orbital_battle:planet{p}", planet_site(p, ""), f"planet {p}") for p in PLANETS)
SURFACES = tuple(Surface(p, f"Planet {p}") for p in PLANETS)
LABELS = {
    "build_points": "Build points",
    "home": "Home world",
    "player_1": "First player",
    "phase": None,
    "planets": "Planets",
}
# The home world by the planet's number as its map prints it, never a bare number.
SHOWN = {"home": lambda planet, words: "not picked yet" if planet is None else f"planet {planet}"}


class OrbitalBattle(Game[State]):
    name = "orbital_battle"
    title = "Orbital Battle"
    min_players = 2
    max_players = 2
    state_type = State
    # Landings and land moves are board moves too: a table with its planet maps on grids of their own follows them
    # by hand (a table that senses the solar map alone does not see them, and they are declared on a phone).
    marks: ClassVar[Mapping[str, str]] = {
        "planet": "",
        "army": "Ar",
        "mech-infantry": "MI",
        "marines": "Ma",
        "armor": "Tk",
        "artillery": "Gn",
        "air-force": "AF",
        "militia": "Mi",
        "transport": "T",
        "destroyer": "D",
        "light-cruiser": "LC",
        "missile-cruiser": "MC",
        "heavy-cruiser": "HC",
        "battle-cruiser": "BC",
        "battleship": "BB",
        "planet-defense": "PD",
        "factory": "F",
    }
    board_moves = frozenset({"orbit", "fly", "withdraw", "unload", "march"})
    actions = ARGS
    board_option = "solar_map"
    board_words = "the solar map"
    fixed_sites = True
    data_options = DATA
    option_words = read_option_words(Path(__file__).with_name("options.json"))
    beside = BESIDE
    surfaces = SURFACES
    ledger_labels = LABELS
    ledger_shown = SHOWN

    def own_board(self, side: str = "") -> Board:
        return solar_board()

    def surface(self, state: State, surface: str) -> Board | None:
        """A planet's surface: its hexes by terrain, with its starports, resources and armory."""
        if surface not in PLANETS:
            return None
        pmap = planet_map(state, surface)
        board = planet_board(int(surface), pmap.terrain, {h: pmap.feature(h) for h in all_hexes() if pmap.feature(h)})
        prefix = planet_site(surface, "")
        return replace(
            board,
            sites=tuple(replace(site, id=prefix + site.id) for site in board.sites),
            links=tuple(replace(link, a=prefix + link.a, b=prefix + link.b) for link in board.links),
            orbits={},
        )

    def setup(self, players: Sequence[str], options: Mapping[str, Any], seed: int) -> State:
        opts = _read_options(Options, options)
        starts = None
        if opts.solar_map:
            solar = _solar_map(opts.solar_map)
            opts, starts = replace(opts, rings=solar.rings, radius=solar.radius), solar.starts
        _validate(players, opts)
        return State(
            options=opts,
            material=read_material(opts),  # the maps, read now and never again: a bad file is a setup error
            players=tuple(players),
            stage="roll",
            planets=starts or start_sites(opts.rings),
            points={p: opts.start_points for p in players},
            rng=Rng.seeded(seed),
        )

    def counted(self, state: State, phase: Phase) -> str:
        """Section V: the game counts game turns (both players' phases); none while setting up."""
        return f"Turn {phase.round}" if phase.round else ""

    def phase(self, state: State) -> Phase:
        player = actor(state)
        if state.stage == "over":
            return Phase("over", None, f"The game is over: {state.reason}.", round=state.turn)
        if state.retreats:
            owed = state.retreats[0]
            u = unit(state, owed.unit)
            kind = "ship" if u is not None and u.domain == "space" else "land unit"
            return Phase(
                phase_name(state),
                player,
                f"{who(player or '')}: retreat your {kind} {owed.unit} "
                f"{owed.hexes} {'hex' if owed.hexes == 1 else 'hexes'}.",
                "retreat",
                state.turn,
            )
        if state.stage == "roll":
            return Phase("setup", None, "Each player rolls a die: the higher picks a home world first.", "roll")
        if state.stage == "home":
            return Phase("setup", player, f"{who(player or '')}: pick a vacant planet as your home world.", "home")
        if state.stage == "deploy":
            points = plural(state.points[player or ""], "build point")
            return Phase(
                "setup",
                player,
                f"{who(player or '')}: buy your starting forces (on and around your home "
                f"world) with your {points}, then say done.",
                "deploy",
            )
        name = phase_name(state)
        prompt = PROMPTS[name].format(p=who(player or ""))
        return Phase(name, player, prompt, "orbit" if name == "orbit" else "act", state.turn)

    def legal_actions(self, state: State) -> Iterator[Action]:
        if self.outcome(state) is not None:
            return
        # The candidates are built from the same predicates the handlers check, so they are exactly the legal
        # actions (the property tests hold them to that).
        yield from _candidates(state)

    def _check(self, state: State, action: Action) -> None:
        # Each action's rule refuses it when illegal; what follows a legal one (conquests, idle phases ended) never
        # refuses, so it is left to _apply.
        handler_for(HANDLERS, self.title, action)(state, action)

    def _apply(self, state: State, action: Action) -> tuple[State, list[Event]]:
        state, events = handler_for(HANDLERS, self.title, action)(state, action)
        state, more = conquests(state)
        events += more
        return flow.skip_idle(state, events, _candidates)

    def layout(self, state: State) -> Layout:
        return _stacks(state)

    def board_after(self, state: State, action: Action, before: Layout) -> tuple[Layout, State | None]:
        # Only the action's own rule and the conquests it may bring move pieces (ending idle phases moves none, and
        # costs most: it asks the next phases for their moves); only the sites of the units and planets that
        # changed are laid out again.
        if action.type in ("fly", "march") and (u := unit(state, action.get("unit") or "")) is not None:
            moved = _moved_board(state, u, action.get("to") or "", before)
            if moved is not None:
                return moved, None
        result = conquests(handler_for(HANDLERS, self.title, action)(state, action)[0])[0]
        return _relaid(state, result, before), None

    def parts(self, state: State, action: Action, key: str) -> tuple[str, ...] | None:
        """The dice by whose they are: the setup's roll in player order, an attack's the attacker's then the
        defender's."""
        if key != "dice":
            return None
        if action.type == "attack":
            target = unit(state, action.get("target") or "")
            rollers = (actor(state) or "", target.owner if target is not None else "")
        else:
            rollers = state.players
        return tuple(f"{who(p)}'s die" if p else "a die" for p in rollers)

    def aimed_at(self, state: State, action: Action) -> tuple[str, ...]:
        target = unit(state, action.get("target") or "") if action.type == "attack" else None
        return (target.site,) if target is not None else ()

    def muster(self, state: State) -> Muster | None:
        return muster.offer(state)

    def muster_actions(self, state: State, counts: Mapping[str, int]) -> tuple[Action, ...]:
        return muster.actions(self.apply, state, counts)

    def ledger(self, state: State) -> Ledger:
        players = {}
        for p in state.players:
            mine = [u for u in state.units if u.owner == p]
            players[p] = {
                "build_points": state.points[p],
                "income": income(state, p),
                "home": (state.homes or {}).get(p),
                "planets_controlled": list(controlled(state, p)),
                "planets_contested": [q for q in PLANETS if contested(state, q)],
                "units": {k: n for k in KINDS if k not in STRUCTURES and (n := sum(u.kind == k for u in mine))},
                "structures": {k: n for k in STRUCTURES if (n := sum(u.kind == k for u in mine))},
            }
        table = {
            "turn": state.turn,
            "player_1": state.first if state.stage == "turn" else None,
            "phase": phase_name(state),
            "planets": dict(state.planets),
            "retreats_owed": [r.unit for r in state.retreats],
        }
        return {"players": players, "table": table}

    def outcome(self, state: State) -> Outcome | None:
        if state.stage != "over":
            return None
        if state.winner is None:
            return Outcome("drawn", (), state.reason)
        return Outcome("won", (state.winner,), state.reason)


def piece(kind: str, owner: str) -> str:
    return f"{kind.replace('_', '-')}-{owner}"


def _stacks(state: State, only: set[str] | None = None) -> Layout:
    """Site -> its pieces bottom to top (planets, then each unit over the cargo it carries), on every site or on
    the sites `only`."""
    stacks: dict[str, list[str]] = {}
    for planet, site in state.planets.items():
        if only is None or site in only:
            stacks.setdefault(site, []).append(f"planet-{planet}")
    holds: dict[str, list[str]] = {}  # a transport's hold -> its cargo, bottom to top
    standing = []
    for u in state.units:
        if u.site.startswith("in:"):
            holds.setdefault(u.site, []).append(piece(u.kind, u.owner))
        elif only is None or u.site in only:
            standing.append(u)
    for u in standing:
        pieces = holds.get(f"in:{u.uid}", []) if u.kind == "transport" else []
        stacks.setdefault(u.site, []).extend([*pieces, piece(u.kind, u.owner)])
    return {site: tuple(p) for site, p in stacks.items()}


def _relaid(state: State, result: State, before: Layout) -> Layout:
    """layout(result) from `before` = layout(state): the stacks of the sites where a unit or planet changed are
    laid out again. Units an action leaves alone are the very objects of the state before (states share them), so
    a unit not among those objects has moved, arrived, left or been named anew."""
    if len(state.units) == len(result.units):  # a unit moved in place: compared position by position
        changed = [u for pair in zip(state.units, result.units, strict=True) if pair[0] is not pair[1] for u in pair]
    else:
        kept, now = set(map(id, state.units)), set(map(id, result.units))
        changed = [u for u in result.units if id(u) not in kept] + [u for u in state.units if id(u) not in now]
    sites = {site for planet, site in state.planets.items() if result.planets.get(planet) != site}
    sites |= {site for planet, site in result.planets.items() if state.planets.get(planet) != site}
    for u in changed:
        if u.site.startswith("in:"):  # cargo: its transport's stack changes, wherever the transport stands
            sites |= {t.site for t in (*state.units, *result.units) if f"in:{t.uid}" == u.site}
        else:
            sites.add(u.site)
    layout = dict(before)
    for site in sites:
        layout.pop(site, None)
    layout.update(_stacks(result, sites))
    return layout


def _moved_board(state: State, u: Unit, to: str, before: Layout) -> Layout | None:
    """layout(result) after the legal move of u to `to` (a flight or a march), worked out from the two sites alone;
    None when a conquest is already due in `state` (the full rule then runs). A move changes no planet's holders
    (a ship holds none, a march stays on its planet), so it brings no conquest of its own, and each of up to 400
    moves on a full board is spared building its state."""
    standing, holds = state.places
    here = standing.get(u.site, ())
    if state.conquest_due or not any(x is u for _, x in here):
        return None
    # The unit keeps its place among the units: it is stacked at `to` in that order (the same unit and cargo).
    position = next(p for p, x in here if x is u)
    arrived = sorted([*standing.get(to, ()), (position, u)], key=lambda entry: entry[0])
    layout = dict(before)
    for site, there in ((u.site, [x for _, x in here if x is not u]), (to, [x for _, x in arrived])):
        pieces = [f"planet-{planet}" for planet, at in state.planets.items() if at == site]
        for x in there:
            aboard = holds.get(f"in:{x.uid}", ()) if x.kind == "transport" else ()
            pieces += [*(piece(c.kind, c.owner) for c in aboard), piece(x.kind, x.owner)]
        if pieces:
            layout[site] = tuple(pieces)
        else:
            layout.pop(site, None)
    return layout


def _solar_board(path: str) -> Board:
    try:
        return load_board(path)
    except (BoardFileError, OSError) as error:
        raise SetupError(f"options.solar_map: {error}") from None


def _solar_map(path: str) -> SolarMap:
    """The table's own solar map; SetupError naming the file and the hex, orbit or planet that is wrong."""
    try:
        return read_solar(_solar_board(path))
    except SolarMapError as error:
        raise SetupError(f"options.solar_map: {path}: {error}") from None


def read_material(opts: Options) -> Material:
    """The solar map and the planets' terrain the options name (ours where they name none), read now; setup's
    alone. `opts` are read options, the table's solar map already checked."""
    files = opts.planet_files or {}
    return _material(
        opts.solar_map,
        file_stamp(opts.solar_map),
        opts.rings,
        opts.radius,
        tuple((planet, files.get(planet), file_stamp(files.get(planet))) for planet in PLANETS),
    )


@lru_cache(maxsize=16)
def _material(
    solar: str | None, stamp: int, rings: tuple[int, ...], radius: int, planets: tuple[tuple[str, str | None, int], ...]
) -> Material:
    board = _solar_board(solar) if solar else solar_board(rings, radius)
    return Material.of(board=board, planets={planet: read_planet(planet, path) for planet, path, _ in planets})


def _validate(players: Sequence[str], opts: Options) -> None:
    if len(players) != 2 or len(set(players)) != 2:
        raise SetupError("players: Orbital Battle is for 2 players with different names")
    rings = opts.rings
    if len(rings) != 7 or any(b <= a for a, b in itertools.pairwise(rings)) or rings[0] < 1:
        raise SetupError("options.rings: seven ring numbers, growing outwards from 1 (the last holds planets 7 and 8)")
    if rings[-1] > opts.radius:
        raise SetupError(f"options.rings: ring {rings[-1]} lies outside a map of radius {opts.radius}")
    if sites_in(opts.radius) > 256:
        raise SetupError(
            f"options.radius: {sites_in(opts.radius)} hexes do not fit the 16 x 16 reed grid (radius 8 at most)"
        )
    if opts.start_points < 0 or opts.turn_limit < 0:
        raise SetupError("options.start_points and options.turn_limit cannot be negative")
    for planet in opts.planet_files or {}:
        if planet not in PLANETS:
            raise SetupError(f"options.planet_files: no planet {planet!r} (planets 1 to 8)")


def _candidates(state: State) -> Iterator[Action]:
    """Every action worth checking in this state."""
    make = Action.make
    if state.stage == "over":
        return
    if state.retreats:
        owed = state.retreats[0]
        u = unit(state, owed.unit)
        if u is not None:
            kind = "withdraw" if u.domain == "space" else "retreat"
            for site in sorted(retreat_ends(state, u, owed.hexes, owed.away)):
                yield make(kind, unit=u.uid, to=site)
        return
    if state.stage == "roll":
        yield make("roll")
        for dice in DICE:
            yield make("roll", dice=dice)
        return
    if state.stage == "home":
        for planet in PLANETS:
            if planet not in (state.homes or {}).values():
                yield make("home", planet=planet)
        return
    player = actor(state) or ""
    name = phase_name(state)
    if name == "orbit":
        for plan in orbit.shove_plans(state):
            yield make("orbit", shove=plan) if plan else make("orbit")
        return
    yield make("done")
    mine = [u for u in state.units if u.owner == player]
    if name in ("deploy", "build"):
        for kind, info in KINDS.items():
            if info.cost <= state.points[player] and next_number(state, player, kind) is not None:
                for site in build.placements(state, player, kind):
                    yield make("buy", kind=kind, at=site)
        if name == "build":
            for u in mine:
                if u.domain == "structure":
                    yield make("scrap", unit=u.uid)
    elif name == "load":
        yield from _transport_actions(state, mine)
    elif name == "space_move":
        for u in mine:
            if u.domain == "space" and u.uid not in state.acted:
                for site in sorted(moves.flights(state, u)):
                    yield make("fly", unit=u.uid, to=site)
    elif name == "land_move":
        for u in mine:
            if u.domain == "land" and u.uid not in state.acted and not u.site.startswith("in:"):
                for site in sorted(moves.destinations(state, u)):
                    yield make("march", unit=u.uid, to=site)
    else:
        for target, able in combat.targets(state, player, name):
            for gang in combat.gangs(able):
                yield make("attack", target=target.uid, **{"with": gang})
                if not (name == "bombard" and target.kind == "factory"):
                    for dice in DICE:
                        yield make("attack", target=target.uid, dice=dice, **{"with": gang})


def _transport_actions(state: State, mine: list) -> Iterator[Action]:
    make = Action.make
    for ship in mine:
        if ship.kind != "transport":
            continue
        aboard = cargo(state, ship)
        near = transport.beside(state, ship)
        if ship.uid not in state.unloaded and len(aboard) < TRANSPORT_CAPACITY:
            for u in mine:
                if u.domain == "land" and u.planet in near and transport.boarding_problem(state, ship, u) is None:
                    yield make("load", transport=ship.uid, unit=u.uid)
        if ship.uid not in state.loaded:
            for u in aboard:
                for planet in near:
                    for hex_ in planet_map(state, planet).hexes:
                        site = f"p{planet}:{hex_}"
                        if transport.landing_problem(state, ship, u, site) is None:
                            yield make("unload", transport=ship.uid, unit=u.uid, at=site)


GAME = OrbitalBattle()
