"""What any ship may do on its turn: fly, refuel, outfit, load and deliver provisions, trade, dump cargo."""

from __future__ import annotations

from dataclasses import replace

from companion.rules.engine import Action, Event, IllegalAction
from companion.rules.trajectory import movement
from companion.rules.trajectory.common import active, goods_of, needs_card, needs_outfit, spend_card
from companion.rules.trajectory.state import (
    OUTFITS,
    RESOURCES,
    Ship,
    State,
    capacity,
    free_slots,
    planet_at,
    station_at,
    supply_left,
    with_ship,
    with_station,
)
from companion.rules.trajectory.text import OUTFIT_NAMES, a, amounts, plural, where, who

Result = tuple[State, list[Event]]


def move(state: State, action: Action) -> Result:
    name, ship = active(state)
    turn = state.turn
    assert turn is not None
    target = action.get("to")
    if not isinstance(target, str) or not movement.board().has_site(target):
        raise IllegalAction(f"there is no space {target!r} on the board")
    extra = turn.moved
    if extra:
        if ship.outfit != "interceptor":
            raise IllegalAction(f"{who(name)} has already moved this turn; only an interceptor may move again")
        needs_card(name, ship)
    if target not in movement.destinations(ship.site):
        raise IllegalAction(f"{where(target)} is not one move from {where(ship.site)}")
    cost = movement.flight_cost(
        ship.hold.weight,
        ship.site,
        target,
        to_planet=planet_at(state, target) is not None,
        from_accelerator=_station_kind(state, ship.site) == "accelerator",
    )
    if cost.fuel > ship.hold.fuel:
        raise IllegalAction(f"{who(name)} needs {cost.why}; {who(name)} has {ship.hold.fuel}")
    if extra:
        state = spend_card(state, name)
    moved = replace(state.ships[name], site=target, hold=ship.hold.minus(fuel=cost.fuel))
    state = replace(with_ship(state, name, moved), turn=replace(turn, moved=True))
    text = f"{who(name)} flies from {where(ship.site)} to {where(target)} for {cost.fuel} fuel"
    if extra:
        text += ", spending an action card on an interceptor's extra move"
    event = Event(
        "moved",
        text + f" ({moved.hold.fuel} left).",
        {"ship": name, "from": ship.site, "to": target, "fuel": cost.fuel, "extra": extra},
    )
    return state, [event]


def _station_kind(state: State, site: str) -> str | None:
    station = station_at(state, site)
    return station.kind if station else None


def _at_home(state: State, ship: Ship) -> bool:
    return state.planets["home"] == ship.site and "home" not in state.infested


def outfit(state: State, action: Action) -> Result:
    name, ship = active(state)
    if not (_at_home(state, ship) or _station_kind(state, ship.site) == "refit"):
        raise IllegalAction(f"{who(name)} can re-outfit only at the home planet or a refit station")
    state = _refit(state, name, action.get("class"))
    text = f"{who(name)} is now {a(OUTFIT_NAMES[state.ships[name].outfit])}."
    return state, [Event("outfitted", text, {"ship": name, "class": state.ships[name].outfit, "by": None})]


def refit(state: State, action: Action) -> Result:
    """The engineer's special action: re-outfit any ship on its space, itself included."""
    name, ship = active(state)
    needs_outfit(name, ship, "engineer")
    needs_card(name, ship)
    other = action.get("ship", name)
    if other not in state.ships:
        raise IllegalAction(f"there is no ship {other!r}")
    if state.ships[other].site != ship.site:
        raise IllegalAction(f"{who(other)} is not on {who(name)}'s space")
    state = spend_card(state, name)
    state = _refit(state, other, action.get("class"))
    outfit_name = OUTFIT_NAMES[state.ships[other].outfit]
    text = f"{who(name)}'s engineer refits {who(other)} as {a(outfit_name)}, spending an action card."
    return state, [Event("outfitted", text, {"ship": other, "class": state.ships[other].outfit, "by": name})]


def _refit(state: State, name: str, outfit_name: object) -> State:
    ship = state.ships[name]
    if outfit_name not in OUTFITS:
        raise IllegalAction(f"there is no ship class {outfit_name!r} (classes: {', '.join(OUTFITS)})")
    if outfit_name == ship.outfit:
        raise IllegalAction(f"{who(name)} is already {a(OUTFIT_NAMES[ship.outfit])}")
    refitted = replace(ship, outfit=outfit_name)
    if free_slots(refitted, state.options) < 0:
        raise IllegalAction(
            f"{who(name)} carries {ship.hold.weight} tokens and {a(OUTFIT_NAMES[outfit_name])} holds only "
            f"{capacity(refitted, state.options)}; unload first"
        )
    return with_ship(state, name, refitted)


def refuel(state: State, action: Action) -> Result:
    name, ship = active(state)
    assert state.turn is not None
    if not (_at_home(state, ship) or _station_kind(state, ship.site) == "fuel_depot"):
        raise IllegalAction(f"{who(name)} can refuel only at the home planet or a fuel depot")
    if state.turn.boosted:
        raise IllegalAction(f"{who(name)} boosted a station this turn and may not refuel until next turn")
    room = min(free_slots(ship, state.options), supply_left(state, "fuel"))
    if room < 1:  # before the amount: a full mat is the reason, not the default amount of 0
        raise IllegalAction(
            f"{who(name)} has no free slot for fuel"
            if free_slots(ship, state.options) < 1
            else "there are no fuel tokens left in the supply"
        )
    wanted = action.get("amount", room)
    if not isinstance(wanted, int) or isinstance(wanted, bool) or wanted < 1:
        raise IllegalAction(f"refuel by a whole number of at least 1, not {wanted!r}")
    if wanted > room:
        raise IllegalAction(f"{who(name)} has room for only {room} more fuel")
    state = with_ship(state, name, replace(ship, hold=ship.hold.plus(fuel=wanted)))
    state = replace(state, turn=replace(state.turn, refuelled=True))
    return state, [
        Event(
            "refuelled",
            f"{who(name)} takes on {wanted} fuel ({ship.hold.fuel + wanted} aboard).",
            {"ship": name, "fuel": wanted},
        )
    ]


def load(state: State, action: Action) -> Result:
    name, ship = active(state)
    if not _at_home(state, ship):
        raise IllegalAction(f"{who(name)} can load colony provisions only at the home planet")
    count = action.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise IllegalAction(f"load a whole number of at least 1 provision, not {count!r}")
    if count > supply_left(state, "provisions"):
        raise IllegalAction(f"only {supply_left(state, 'provisions')} colony provisions are left at home")
    if count > free_slots(ship, state.options):
        raise IllegalAction(f"{who(name)} has only {plural(free_slots(ship, state.options), 'free slot')}")
    state = with_ship(state, name, replace(ship, hold=ship.hold.plus(provisions=count)))
    return state, [Event("loaded", f"{who(name)} loads {count} colony provisions.", {"ship": name, "count": count})]


def deliver(state: State, action: Action) -> Result:
    name, ship = active(state)
    station = station_at(state, ship.site)
    if station is None or station.kind != "habitat":
        raise IllegalAction(f"there is no orbital habitat on {who(name)}'s space")
    if station.provisioned:
        raise IllegalAction("that habitat is already provisioned")
    if ship.hold.provisions < 1:
        raise IllegalAction(f"{who(name)} carries no colony provisions")
    state = with_ship(state, name, replace(ship, hold=ship.hold.minus(provisions=1)))
    state = with_station(state, station, replace(station, provisioned=True))
    return state, [
        Event(
            "delivered",
            f"{who(name)} provisions the habitat on {where(ship.site)}: it is ready.",
            {"ship": name, "site": ship.site},
        )
    ]


def transfer(state: State, action: Action) -> Result:
    """Exchange with another ship, or store in or take from a storage ring, on the same space."""
    name, ship = active(state)
    source, sink = action.get("from"), action.get("to")
    if name not in (source, sink):
        raise IllegalAction(f"{who(name)} can only trade things to or from itself")
    if source == sink:
        raise IllegalAction("a transfer needs two different ends")
    other = sink if source == name else source
    goods = goods_of(action, ("fuel", *RESOURCES, "provisions", "cards"))
    cards = goods.pop("cards", 0)
    if other == "ring":
        ring = station_at(state, ship.site)
        if ring is None or ring.kind != "storage":
            raise IllegalAction(f"there is no storage ring on {who(name)}'s space")
        if cards:
            raise IllegalAction("action cards cannot be kept in a storage ring")
        giver_hold = ship.hold if source == name else ring.hold
        if not giver_hold.covers(**goods):
            raise IllegalAction(f"{'the ring' if source == 'ring' else who(name)} does not hold {amounts(goods)}")
        if source == name:
            state = with_ship(state, name, replace(ship, hold=ship.hold.minus(**goods)))
            state = with_station(state, ring, replace(ring, hold=ring.hold.plus(**goods)))
        else:
            if sum(goods.values()) > free_slots(ship, state.options):
                raise IllegalAction(f"{who(name)} has only {plural(free_slots(ship, state.options), 'free slot')}")
            state = with_ship(state, name, replace(ship, hold=ship.hold.plus(**goods)))
            state = with_station(state, ring, replace(ring, hold=ring.hold.minus(**goods)))
        verb = "stores" if source == name else "takes"
        text = f"{who(name)} {verb} {amounts(goods)} {'in' if source == name else 'from'} the storage ring."
        return state, [Event("stored", text, {"from": source, "to": sink, **goods})]
    if other not in state.ships:
        raise IllegalAction(f"there is no ship {other!r}")
    if state.ships[other].site != ship.site:
        raise IllegalAction(f"{who(other)} is not on {who(name)}'s space")
    giver, taker = state.ships[source], state.ships[sink]
    if not giver.hold.covers(**goods) or giver.cards < cards:
        raise IllegalAction(f"{who(source)} does not have {amounts({**goods, 'action card': cards})}")
    if sum(goods.values()) > free_slots(taker, state.options):
        raise IllegalAction(f"{who(sink)} has only {plural(free_slots(taker, state.options), 'free slot')}")
    state = with_ship(state, source, replace(giver, hold=giver.hold.minus(**goods), cards=giver.cards - cards))
    taker = state.ships[sink]
    state = with_ship(state, sink, replace(taker, hold=taker.hold.plus(**goods), cards=taker.cards + cards))
    text = f"{who(source)} gives {who(sink)} {amounts({**goods, 'action card': cards})}."
    return state, [Event("exchanged", text, {"from": source, "to": sink, "cards": cards, **goods})]


def dump(state: State, action: Action) -> Result:
    name, ship = active(state)
    goods = goods_of(action, (*RESOURCES, "provisions"))
    if not ship.hold.covers(**goods):
        raise IllegalAction(f"{who(name)} does not carry {amounts(goods)}")
    state = with_ship(state, name, replace(ship, hold=ship.hold.minus(**goods)))
    return state, [
        Event("dumped", f"{who(name)} dumps {amounts(goods)} into space; it is lost.", {"ship": name, **goods})
    ]
