"""Trajectory as a rules engine: the contract of companion.rules.engine over the modules beside this one."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

from companion.boards import trajectory as geometry
from companion.codec import Maybe, text, whole
from companion.rules import engine
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
    read_option_words,
)
from companion.rules.engine import read_options as _read_options
from companion.rules.rng import Rng
from companion.rules.trajectory import movement, rounds, ship_actions, specials
from companion.rules.trajectory.state import (
    ACTION_CARDS_PER_PILE,
    BLANK,
    GOODS,
    HABITATS_NEEDED,
    INFESTED_ALLOWED,
    INFESTOR_CARDS_PER_KIND,
    INFESTOR_CARDS_PER_PILE,
    OUTFITS,
    PLANET_ORBIT,
    PLANETS,
    RESOURCES,
    SEARCH_FINDS,
    Hold,
    Options,
    Pile,
    Ship,
    State,
    capacity,
    free_slots,
    pile_size,
    sector_shows,
    station_at,
    supply_left,
)
from companion.rules.trajectory.state import material as read_material
from companion.rules.trajectory.text import who

SHIP_COLOURS = ("red", "green", "blue", "yellow", "orange", "purple")

HANDLERS: dict[str, Handler] = {
    "draw": rounds.draw,
    "move_infestors": rounds.move_infestors,
    "end_turn": rounds.end_turn,
    "concede": rounds.concede,
    "orbit": rounds.orbit,
    "move": ship_actions.move,
    "outfit": ship_actions.outfit,
    "refit": ship_actions.refit,
    "refuel": ship_actions.refuel,
    "load": ship_actions.load,
    "deliver": ship_actions.deliver,
    "transfer": ship_actions.transfer,
    "dump": ship_actions.dump,
    "search": specials.search,
    "extract": specials.extract,
    "build": specials.build,
    "upgrade": specials.upgrade,
    "disassemble": specials.disassemble,
    "destroy": specials.destroy,
    "boost": specials.boost,
}
# Each action's arguments (engine.Game.actions): amounts are bounded whole numbers, names short strings.
NAME = text()
AMOUNT = Maybe(whole(1))
ARGS: dict[str, dict[str, Any]] = {
    "draw": {"card": Maybe(Literal["action", "infestor"]), "infestor": Maybe(NAME)},
    "move_infestors": {},
    "end_turn": {},
    "concede": {},
    "orbit": {},
    "move": {"to": NAME},
    "outfit": {"class": NAME},
    "refit": {"ship": Maybe(NAME), "class": NAME},
    "refuel": {"amount": AMOUNT},
    "load": {"count": AMOUNT},
    "deliver": {},
    "transfer": {"from": NAME, "to": NAME, **{good: AMOUNT for good in (*GOODS, "cards")}},
    "dump": {good: AMOUNT for good in (*RESOURCES, "provisions")},
    "search": {"spin": Maybe(NAME)},
    "extract": {},
    "build": {"station": NAME},
    "upgrade": {"station": NAME},
    "disassemble": {},
    "destroy": {"infestor": NAME},
    "boost": {"to": NAME},
}


# The table's facts (engine.Game): a copy of the board is a file of the table's own; the books' labels.
DATA = {"board": DataOption("file")}
LABELS = {
    "site": "Where",
    "class": "Ship class",
    "weight": "Cargo weight",
    "piles": "Cards in the piles",
    "planets_infested": "Infested planets",
}


class Trajectory(Game[State]):
    name = "trajectory"
    title = "Trajectory"
    min_players = 1
    max_players = 6
    state_type = State
    marks: ClassVar[Mapping[str, str]] = {
        "planet-home": "Ho",
        "planet-metal": "Me",
        "planet-helium": "He",
        "planet-ice": "Ic",
        "ship": "S",
        "infestor": "X",
        "station-storage": "SR",
        "station-habitat": "Hb",
        "station-fuel-depot": "FD",
        "station-refit": "RS",
        "station-accelerator": "AR",
        "station-trap": "Tr",
    }
    board_moves = frozenset({"move", "boost", "move_infestors", "orbit"})
    board_option = "board"
    fixed_sites = True
    data_options = DATA
    option_words = read_option_words(Path(__file__).with_name("options.json"))
    ledger_labels = LABELS
    # Kept by games saved before the end of the game stopped counting rounds without a card played.
    _RETIRED = frozenset({"pile_empty_at_round_start", "cards_played_this_round"})

    def state_from_json(self, data: Any, material: engine.Material | None = None) -> State:
        if isinstance(data, dict):
            data = {key: value for key, value in data.items() if key not in self._RETIRED}
        return super().state_from_json(data, material)

    actions = ARGS

    def setup(self, players: Sequence[str], options: Mapping[str, Any], seed: int) -> State:
        opts = _read_options(Options, options)
        _validate(players, opts)
        found = read_material(opts.board)  # the board, read now and never again
        rng = Rng.seeded(seed)
        planets = {}
        for planet in PLANETS:
            orbit = PLANET_ORBIT[planet]
            space = (opts.planets or {}).get(planet)
            if space is None:
                space, rng = rng.below(geometry.ORBIT_SIZES[orbit - 1])
            planets[planet] = geometry.site_id(orbit, space)
        ship = Ship(planets["home"], Hold(fuel=opts.slots))
        state = State(
            options=opts,
            material=found,
            players=tuple(players),
            round=1,
            stage="turn",
            turn=None,
            ships={name: ship for name in players},
            planets=planets,
            infested=(),
            stations=(),
            infestors=(),
            deck=tuple(Pile(ACTION_CARDS_PER_PILE, n) for n in INFESTOR_CARDS_PER_PILE),
            infestor_cards={planet: INFESTOR_CARDS_PER_KIND for planet in PLANETS},
            rng=rng,
        )
        return rounds.start_turn(state, 0)

    def phase(self, state: State) -> Phase:
        if state.stage == "over":
            return Phase("over", None, f"The game is {state.result}: {state.reason}.", round=state.round)
        if state.stage == "infestors":
            _, events = rounds.move_infestors(state, Action.make("move_infestors"))
            moves = " ".join(e.text for e in events)
            return Phase("infestors", None, f"Infestors move. {moves}", "move", state.round)
        if state.stage == "orbit":
            return Phase(
                "orbit",
                None,
                "Everything orbits one space counter-clockwise: planets, ships, stations and infestors.",
                "orbit",
                state.round,
            )
        assert state.turn is not None
        ship = who(state.turn.ship)
        if not state.turn.drawn:
            return Phase("turn", state.turn.ship, f"{ship}: draw a card.", "draw", state.round)
        return Phase("turn", state.turn.ship, f"{ship}: fly, trade, build, then end your turn.", "act", state.round)

    def legal_actions(self, state: State) -> Iterator[Action]:
        return (action for action in _candidates(state) if self.is_legal(state, action))

    def _check(self, state: State, action: Action) -> None:
        self._apply(state, action)

    def _apply(self, state: State, action: Action) -> tuple[State, list[Event]]:
        state, events = handler_for(HANDLERS, self.title, action)(state, action)
        judged = rounds.judge(state)
        if judged.result is not None:  # check() refuses actions once the game is over, so this is new
            events.append(
                Event(
                    f"game-{judged.result}",
                    f"The game is {judged.result}: {judged.reason}.",
                    {"result": judged.result, "reason": judged.reason},
                )
            )
        return judged, events

    def layout(self, state: State) -> Layout:
        stacks: dict[str, list[str]] = {}
        for planet, site in state.planets.items():
            stacks.setdefault(site, []).append(f"planet-{planet}")
        for station in state.stations:
            stacks.setdefault(station.site, []).append(f"station-{station.kind.replace('_', '-')}")
        for infestor in sorted(state.infestors, key=lambda i: not i.settled):
            stacks.setdefault(infestor.site, []).append(f"infestor-{infestor.kind}")
        for name, ship in state.ships.items():
            stacks.setdefault(ship.site, []).append(f"ship-{name}")
        return {site: tuple(pieces) for site, pieces in stacks.items()}

    def ledger(self, state: State) -> Ledger:
        players = {}
        for name, ship in state.ships.items():
            players[name] = {
                "site": ship.site,
                "class": ship.outfit,
                **ship.hold.items(),
                "weight": ship.hold.weight,
                "capacity": capacity(ship, state.options),
                "cards": ship.cards,
            }
        habitats = [s for s in state.stations if s.kind == "habitat"]
        difficulty = state.options.difficulty
        table = {
            "round": state.round,
            "difficulty": difficulty,
            "habitats_built": len(habitats),
            "habitats_provisioned": sum(1 for s in habitats if s.provisioned),
            "habitats_needed": HABITATS_NEEDED[difficulty],
            "planets_infested": list(state.infested),
            "infestations_allowed": INFESTED_ALLOWED[difficulty],
            "cards_in_deck": pile_size(state),
            "piles": [p.size for p in state.deck],
            "infestors_on_board": len(state.infestors),
            "stations": len(state.stations),
            **{f"supply_{good}": supply_left(state, good) for good in GOODS},
        }
        return {"players": players, "table": table}

    def outcome(self, state: State) -> Outcome | None:
        if state.result is None:
            return None
        winners = state.players if state.result == "won" else ()
        return Outcome(state.result, winners, state.reason)


def _validate(players: Sequence[str], opts: Options) -> None:
    if not 1 <= len(players) <= 6:
        raise SetupError(f"players: Trajectory takes 1 to 6 ships, got {len(players)}")
    for name in players:
        if name not in SHIP_COLOURS:
            raise SetupError(f"players: {name!r} is not a ship colour ({', '.join(SHIP_COLOURS)})")
    if len(set(players)) != len(players):
        raise SetupError("players: each ship colour may be used once")
    if opts.seats is not None and len(opts.seats) != len(players):
        raise SetupError(f"options.seats: {len(opts.seats)} seats for {len(players)} players")
    if opts.slots < 1 or opts.heavy_lift_extra_slots < 0:
        raise SetupError("options.slots: a ship mat needs at least 1 slot (and no negative extra slots)")
    if not opts.spinner:
        raise SetupError("options.spinner: the spinner needs at least one sector")
    for n, sector in enumerate(opts.spinner):
        shows = sector_shows(sector)
        if any(r not in SEARCH_FINDS.values() for r in shows) or len(set(shows)) != len(shows):
            raise SetupError(
                f"options.spinner[{n}]: {sector!r} is no sector: name metal, helium or ice, two joined "
                f"by '+' (ice+helium), or {BLANK!r}"
            )
    for planet, space in (opts.planets or {}).items():
        if planet not in PLANET_ORBIT:
            raise SetupError(f"options.planets: no planet {planet!r} (planets: {', '.join(PLANETS)})")
        size = geometry.ORBIT_SIZES[PLANET_ORBIT[planet] - 1]
        if not 0 <= space < size:
            raise SetupError(f"options.planets.{planet}: space {space} is not on its orbit (0 to {size - 1})")


def _candidates(state: State) -> Iterator[Action]:
    """Every action worth checking: each kind with each argument the state makes possible (amounts one good at a
    time: a transfer of several goods at once is legal too, but is the same as several single transfers)."""
    make = Action.make
    if state.stage == "infestors":
        yield make("move_infestors")
        return
    if state.stage == "orbit":
        yield make("orbit")
        return
    if state.stage != "turn" or state.turn is None:
        return
    if not state.turn.drawn:
        yield make("draw")
        yield make("draw", card="action")
        for kind, count in state.infestor_cards.items():
            if count:
                yield make("draw", card="infestor", infestor=kind)
        return
    name = state.turn.ship
    ship = state.ships[name]
    yield make("end_turn")
    yield make("concede")
    for site in movement.destinations(ship.site):
        yield make("move", to=site)
        yield make("boost", to=site)
    for outfit in OUTFITS:
        yield make("outfit", **{"class": outfit})
        for other, other_ship in state.ships.items():
            if other_ship.site == ship.site:
                yield make("refit", ship=other, **{"class": outfit})
    # Every amount, a full mat included, named: a phone offers partial refuels, and each choice reads as its amount.
    for amount in range(1, free_slots(ship, state.options) + 1):
        yield make("refuel", amount=amount)
    for count in range(1, 7):
        yield make("load", count=count)
    yield make("deliver")
    holders: dict[str, tuple[Hold, int]] = {
        other: (s.hold, s.cards) for other, s in state.ships.items() if other != name and s.site == ship.site
    }
    ring = station_at(state, ship.site)
    if ring is not None and ring.kind == "storage":
        holders["ring"] = (ring.hold, 0)
    for other, (hold, cards) in holders.items():
        for good in (*GOODS, "cards"):
            mine, theirs = (ship.cards, cards) if good == "cards" else (getattr(ship.hold, good), getattr(hold, good))
            for count in range(1, mine + 1):
                yield make("transfer", **{"from": name, "to": other, good: count})
            for count in range(1, theirs + 1):
                yield make("transfer", **{"from": other, "to": name, good: count})
    for good in GOODS[1:]:
        for count in range(1, getattr(ship.hold, good) + 1):
            yield make("dump", **{good: count})
    yield make("search")
    for sector in dict.fromkeys(state.options.spinner):
        yield make("search", spin=sector)
    yield make("extract")
    for kind in specials.BUILD_COST:
        yield make("build", station=kind)
        yield make("upgrade", station=kind)
    yield make("disassemble")
    for kind in PLANETS:
        yield make("destroy", infestor=kind)


GAME = Trajectory()
