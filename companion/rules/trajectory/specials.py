"""The special actions of each ship class; every one costs the ship an action card."""

from __future__ import annotations

from dataclasses import replace

from companion.rules.engine import Action, Event, IllegalAction
from companion.rules.trajectory import movement
from companion.rules.trajectory.common import active, needs_card, needs_outfit, spend_card
from companion.rules.trajectory.state import (
    EXTRACTS,
    FUEL_REFIT_TOKENS,
    HABITAT_TOKENS,
    RINGS,
    SEARCH_FINDS,
    State,
    Station,
    free_slots,
    planet_at,
    sector_shows,
    station_at,
    supply_left,
    with_ship,
    with_station,
)
from companion.rules.trajectory.text import STATION_NAMES, a, amounts, where, who

Result = tuple[State, list[Event]]

BUILD_COST: dict[str, dict[str, int]] = {
    "storage": {"metal": 1},
    "trap": {"helium": 1},
    "accelerator": {"metal": 1, "helium": 1},
    "fuel_depot": {"metal": 1, "helium": 2},
    "refit": {"metal": 1, "helium": 1, "ice": 1},
    "habitat": {"metal": 1, "helium": 1, "ice": 2, "provisions": 1},
}
# What each class may build from scratch.
BUILDERS = {"miner": ("storage",), "engineer": tuple(BUILD_COST)}
BOOST_FUEL = 3


def _room_for_one(state: State, name: str, good: str) -> None:
    if free_slots(state.ships[name], state.options) < 1:
        raise IllegalAction(f"{who(name)} has no free slot for the {good}")
    if supply_left(state, good) < 1:
        raise IllegalAction(f"there are no {good} tokens left in the supply")


def _gain_one(state: State, name: str, good: str) -> State:
    _room_for_one(state, name, good)
    ship = state.ships[name]
    return with_ship(state, name, replace(ship, hold=ship.hold.plus(**{good: 1})))


def search(state: State, action: Action) -> Result:
    name, ship = active(state)
    needs_outfit(name, ship, "miner")
    needs_card(name, ship)
    if planet_at(state, ship.site) or station_at(state, ship.site) or any(i.site == ship.site for i in state.infestors):
        raise IllegalAction("a miner can search only empty space: no planet, station or infestor on it")
    orbit = movement.orbit_number(ship.site)
    find = SEARCH_FINDS.get(orbit)
    if find is None:
        raise IllegalAction(
            f"there is nothing to find on orbit {orbit}; search orbits 1 (metal), 3 (helium) or 4 (ice)"
        )
    # Checked before spinning, so whether a search is allowed never depends on what the spinner shows.
    _room_for_one(state, name, find)
    spin = action.get("spin")
    rng = state.rng
    if spin is None:
        spin, rng = rng.choice(state.options.spinner)
    else:
        spin = _sector(state, spin)
    state = spend_card(replace(state, rng=rng), name)
    shows = sector_shows(spin)
    if find not in shows:
        seen = " and ".join(shows) or "a blank sector"
        text = f"{who(name)} searches {where(ship.site)} for {find}: the spinner shows {seen}, nothing found."
        return state, [Event("searched", text, {"ship": name, "spin": spin, "found": None})]
    state = _gain_one(state, name, find)
    text = f"{who(name)} searches {where(ship.site)} for {find} and finds some: 1 {find} aboard."
    return state, [Event("searched", text, {"ship": name, "spin": spin, "found": find})]


def _sector(state: State, spin: object) -> str:
    """The spinner's sector a table declares, named as the options name it (resources in either order)."""
    sectors = {frozenset(sector_shows(s)): s for s in state.options.spinner}
    if isinstance(spin, str) and frozenset(sector_shows(spin)) in sectors:
        return sectors[frozenset(sector_shows(spin))]
    names = ", ".join(dict.fromkeys(sectors.values()))
    raise IllegalAction(f"the spinner has no sector {spin!r} (its sectors: {names})")


def extract(state: State, action: Action) -> Result:
    name, ship = active(state)
    needs_outfit(name, ship, "miner")
    needs_card(name, ship)
    planet = planet_at(state, ship.site)
    if planet not in EXTRACTS:
        raise IllegalAction(f"{who(name)} is not at the metal, helium or ice planet")
    if planet in state.infested:
        raise IllegalAction(f"the {planet} planet is infested and can no longer be mined")
    good = EXTRACTS[planet]
    state = _gain_one(spend_card(state, name), name, good)
    return state, [
        Event("extracted", f"{who(name)} extracts 1 {good} from the {planet} planet.", {"ship": name, "good": good})
    ]


def _check_pieces(state: State, kind: str, replacing: Station | None = None) -> None:
    others = [s for s in state.stations if s is not replacing]
    if replacing is None and len(state.stations) >= RINGS:
        raise IllegalAction(f"all {RINGS} ring pieces are on the board")
    if kind in ("fuel_depot", "refit") and sum(s.kind in ("fuel_depot", "refit") for s in others) >= FUEL_REFIT_TOKENS:
        raise IllegalAction(f"all {FUEL_REFIT_TOKENS} fuel depot / refit station tokens are on the board")
    if kind == "habitat" and sum(s.kind == "habitat" for s in others) >= HABITAT_TOKENS:
        raise IllegalAction(f"all {HABITAT_TOKENS} habitat tokens are on the board")


def _pay(state: State, name: str, cost: dict[str, int], what: str) -> State:
    ship = state.ships[name]
    if not ship.hold.covers(**cost):
        raise IllegalAction(
            f"{who(name)} needs {amounts(cost)} for {what}; {who(name)} carries "
            f"{amounts({k: getattr(ship.hold, k) for k in cost})}"
        )
    return with_ship(state, name, replace(ship, hold=ship.hold.minus(**cost)))


def build(state: State, action: Action) -> Result:
    name, ship = active(state)
    needs_outfit(name, ship, *BUILDERS)
    kind = action.get("station")
    if kind not in BUILD_COST:
        raise IllegalAction(f"there is no station {kind!r} (stations: {', '.join(BUILD_COST)})")
    if kind not in BUILDERS[ship.outfit]:
        raise IllegalAction(f"a miner can build only a storage ring, not {a(STATION_NAMES[kind])}")
    needs_card(name, ship)
    if station_at(state, ship.site):
        raise IllegalAction(f"{where(ship.site)} already has a station")
    _check_pieces(state, kind)
    state = _pay(spend_card(state, name), name, BUILD_COST[kind], a(STATION_NAMES[kind]))
    state = replace(state, stations=(*state.stations, Station(kind, ship.site)))
    text = f"{who(name)} builds {a(STATION_NAMES[kind])} on {where(ship.site)}: put it there."
    return state, [Event("built", text, {"ship": name, "station": kind, "site": ship.site})]


def upgrade(state: State, action: Action) -> Result:
    name, ship = active(state)
    needs_outfit(name, ship, "miner", "engineer")
    kind = action.get("station")
    if kind not in BUILD_COST or kind == "storage":
        raise IllegalAction(f"a storage ring upgrades to one of {', '.join(k for k in BUILD_COST if k != 'storage')}")
    if ship.outfit == "miner" and kind != "fuel_depot":
        raise IllegalAction(f"a miner can upgrade a storage ring only to a fuel depot, not {a(STATION_NAMES[kind])}")
    needs_card(name, ship)
    ring = station_at(state, ship.site)
    if ring is None or ring.kind != "storage":
        raise IllegalAction(f"there is no storage ring on {where(ship.site)} to upgrade")
    if not ring.hold.is_empty():
        raise IllegalAction("empty the storage ring before upgrading it")
    _check_pieces(state, kind, replacing=ring)
    cost = {k: v for k, v in BUILD_COST[kind].items() if k != "metal"}
    state = _pay(spend_card(state, name), name, cost, f"upgrading to {a(STATION_NAMES[kind])}")
    state = with_station(state, ring, replace(ring, kind=kind))
    text = f"{who(name)} upgrades the storage ring on {where(ship.site)} to {a(STATION_NAMES[kind])}."
    return state, [Event("upgraded", text, {"ship": name, "station": kind, "site": ship.site})]


def disassemble(state: State, action: Action) -> Result:
    name, ship = active(state)
    needs_outfit(name, ship, "engineer")
    needs_card(name, ship)
    station = station_at(state, ship.site)
    if station is None:
        raise IllegalAction(f"there is no station on {where(ship.site)}")
    if not station.hold.is_empty():
        raise IllegalAction("empty the storage ring before taking it apart")
    if station.provisioned:
        raise IllegalAction("a provisioned habitat is home to colonists and cannot be taken apart")
    state = with_station(spend_card(state, name), station, None)
    recovered = "metal" in BUILD_COST[station.kind]
    if recovered:
        state = _gain_one(state, name, "metal")
    text = f"{who(name)} takes apart the {STATION_NAMES[station.kind]} on {where(ship.site)}: remove it"
    text += ", 1 metal recovered." if recovered else "."
    return state, [Event("disassembled", text, {"ship": name, "station": station.kind, "site": ship.site})]


def destroy(state: State, action: Action) -> Result:
    name, ship = active(state)
    needs_outfit(name, ship, "interceptor")
    needs_card(name, ship)
    kind = action.get("infestor")
    index = next(
        (i for i, inf in enumerate(state.infestors) if inf.site == ship.site and inf.kind == kind and not inf.settled),
        None,
    )
    if index is None:
        raise IllegalAction(f"there is no {kind} infestor on {who(name)}'s space that can be destroyed")
    state = spend_card(state, name)
    state = replace(state, infestors=state.infestors[:index] + state.infestors[index + 1 :])
    text = f"{who(name)} destroys the {kind} infestor on {where(ship.site)}: take it off the board."
    return state, [Event("destroyed", text, {"ship": name, "infestor": kind, "site": ship.site})]


def boost(state: State, action: Action) -> Result:
    """The heavy lift flies a station to a new orbit with it; this is the ship's move for the turn."""
    name, ship = active(state)
    turn = state.turn
    assert turn is not None
    needs_outfit(name, ship, "heavy_lift")
    needs_card(name, ship)
    station = station_at(state, ship.site)
    if station is None:
        raise IllegalAction(f"there is no station on {where(ship.site)} to boost")
    if station.kind == "storage" and not station.hold.is_empty():
        raise IllegalAction("a storage ring must be empty to be boosted")
    if turn.refuelled:
        raise IllegalAction(f"{who(name)} refuelled this turn and may not boost a station in the same turn")
    if turn.moved:
        raise IllegalAction(f"{who(name)} has already moved this turn; a boost is the ship's move")
    target = action.get("to")
    if target not in movement.destinations(ship.site) or movement.orbit_number(target) == movement.orbit_number(
        ship.site
    ):
        raise IllegalAction(f"a boost takes the station along a transfer path to a new orbit; {target!r} is not one")
    if station_at(state, target):
        raise IllegalAction(f"{where(target)} already has a station")
    flight = movement.flight_cost(
        ship.hold.weight, ship.site, target, planet_at(state, target) is not None, station.kind == "accelerator"
    )
    fuel = BOOST_FUEL + flight.fuel
    if fuel > ship.hold.fuel:
        raise IllegalAction(
            f"{who(name)} needs {fuel} fuel to boost ({BOOST_FUEL} plus {flight.why}); {who(name)} has {ship.hold.fuel}"
        )
    state = spend_card(state, name)
    state = with_ship(state, name, replace(state.ships[name], site=target, hold=ship.hold.minus(fuel=fuel)))
    state = with_station(state, station, replace(station, site=target))
    state = replace(state, turn=replace(turn, moved=True, boosted=True))
    text = (
        f"{who(name)} boosts the {STATION_NAMES[station.kind]} from {where(ship.site)} to {where(target)} "
        f"for {fuel} fuel: move both."
    )
    return state, [
        Event("boosted", text, {"ship": name, "station": station.kind, "from": ship.site, "to": target, "fuel": fuel})
    ]
