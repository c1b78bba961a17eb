"""Spaceships on the move: flights with energy, hyper jumps, hyper accelerator cannon and engine flights."""

from __future__ import annotations

from companion.rules.engine import Action, Event, IllegalAction
from companion.rules.orbit.arrival import activate as take_station
from companion.rules.orbit.arrival import arrive, jump_targets
from companion.rules.orbit.common import OFFER_NAMES, Result, active, feature, own_ship, ready, spend, target
from companion.rules.orbit.space import distances, space, straight_lines
from companion.rules.orbit.state import Offer, State, partner_of, with_player, with_ship, with_turn
from companion.rules.orbit.text import plural, ship_name, where, who


def energy_available(state: State, name: str) -> int:
    """Cubes the player may burn: their own and, in a partnership, their partner's."""
    if state.people[name].engine:
        return 0
    partner = partner_of(state, name)
    return state.people[name].energy + (state.people[partner].energy if partner else 0)


def energy_split(state: State, name: str, cubes: int, partner_share: object = None) -> tuple[int, int]:
    """(own cubes, partner's cubes) burnt for a flight needing `cubes`: the active player chooses whose to spend
    (`partner_share`, the partner's part); without a choice, the player's own go first."""
    own_have = state.people[name].energy
    partner = partner_of(state, name)
    partner_have = state.people[partner].energy if partner else 0
    if partner_share is None:
        own = min(cubes, own_have)
        return own, cubes - own
    if partner is None:
        raise IllegalAction("only a partnership spends a partner's energy cubes")
    if not isinstance(partner_share, int) or isinstance(partner_share, bool) or not 0 <= partner_share <= cubes:
        raise IllegalAction(
            f"the partner's share of the energy is a whole number from 0 to {cubes}, not {partner_share!r}"
        )
    if partner_share > partner_have:
        raise IllegalAction(f"{who(partner)} has only {plural(partner_have, 'energy cube')}")
    if cubes - partner_share > own_have:
        raise IllegalAction(
            f"{who(name)} has only {plural(own_have, 'energy cube')} of the "
            f"{cubes - partner_share} to come from {who(name)}'s own board"
        )
    return cubes - partner_share, partner_share


def _burn(state: State, name: str, own: int, theirs: int) -> State:
    """Return cubes to the supply from the player's board and the partner's."""
    state = with_player(state, name, energy=state.people[name].energy - own)
    partner = partner_of(state, name)
    if theirs and partner:
        state = with_player(state, partner, energy=state.people[partner].energy - theirs)
    return state


def fly(state: State, action: Action) -> Result:
    name, turn = ready(state)
    item = feature(turn, "fly", "flight")
    if turn.flown:
        raise IllegalAction(f"{who(name)} used the spaceship's start position instead of flying this turn")
    colour = own_ship(state, name, action)
    site, start = target(state, action), state.ships[colour].site
    if site == start:
        raise IllegalAction("a flight must end on another intersection")
    if site in state.nebulas:
        raise IllegalAction(f"no spaceship may fly onto the artificial nebula on {where(state, site)}")
    steps = distances(state.material, start, frozenset(state.nebulas)).get(site)
    if steps is None:
        raise IllegalAction(f"artificial nebulas block every way to {where(state, site)}")
    card = int(item.split(":")[1])
    cubes = max(0, steps - card)
    have = energy_available(state, name)
    if cubes > have:
        raise IllegalAction(
            f"{where(state, site)} is {plural(steps, 'step')} away: the card flies {card}, so "
            f"{plural(cubes, 'energy cube')} {'is' if cubes == 1 else 'are'} needed and {who(name)} has {have}"
        )
    own, theirs = energy_split(state, name, cubes, action.get("partner_energy"))
    state = with_ship(_burn(state, name, own, theirs), colour, site=site)
    state = with_turn(state, features=spend(turn, item), flown=True)
    burnt = f" and {plural(cubes, 'energy cube')}" if cubes else ""
    if theirs:
        partner = partner_of(state, name)
        burnt += f", {theirs} of them from {who(partner)}'s board" if own else f", all from {who(partner)}'s board"
    events = [
        Event(
            "flew",
            f"{ship_name(state, colour)} flies from {where(state, start)} to {where(state, site)}: "
            f"{plural(steps, 'step')} ({card} from the card{burnt}).",
            {"ship": colour, "from": start, "to": site, "steps": steps, "energy": cubes},
        )
    ]
    return arrive(state, colour, events), events


def engine(state: State, action: Action) -> Result:
    name, turn = ready(state)
    if not state.people[name].engine:
        raise IllegalAction(f"{who(name)} has no hyper accelerator engine")
    if turn.engine_used:
        raise IllegalAction("the hyper accelerator engine works once a turn")
    try:
        item = feature(turn, "energy", "energy feature")
    except IllegalAction:
        item = feature(turn, "max_energy", "energy feature to use the engine with")
    colour = own_ship(state, name, action)
    state, events = _straight(state, colour, target(state, action), "the hyper accelerator engine")
    return with_turn(state, features=spend(turn, item), engine_used=True), events


def _straight(state: State, colour: str, site: str, by: str) -> Result:
    start = state.ships[colour].site
    if site not in straight_lines(state.material, start, frozenset(state.nebulas)):
        raise IllegalAction(f"{where(state, site)} is not on a clear straight line from {where(state, start)}")
    state = with_ship(state, colour, site=site)
    events = [
        Event(
            "accelerated",
            f"{ship_name(state, colour)} flies by {by} from {where(state, start)} to {where(state, site)}.",
            {"ship": colour, "from": start, "to": site},
        )
    ]
    return arrive(state, colour, events), events


def _start_offer(state: State, name: str, action: Action, kind: str) -> Offer:
    """Using the portal or cannon a spaceship began the turn on, instead of flying."""
    _, turn = active(state)
    colour = own_ship(state, name, action)
    site = state.ships[colour].site
    tile = state.stations.get(site)
    here = tile == "portal" or site in space(state.material).portals if kind == "jump" else tile == "cannon"
    if not here or (turn.start or {}).get(colour) != site:
        raise IllegalAction(f"there is no {OFFER_NAMES[kind]} to use: it works where a flight ends")
    if turn.flown:
        raise IllegalAction(f"the {OFFER_NAMES[kind]} at the start position is used only instead of flying")
    return Offer(kind, colour, elsewhere=kind == "jump")  # type: ignore[arg-type]


def _take_offer(state: State, kind: str) -> tuple[State, Offer]:
    name, turn = active(state)
    if not turn.offers and kind == "station":
        raise IllegalAction("there is no space station to activate: a station acts where a flight ends on it")
    if not turn.offers:
        where_ = "start_jump" if kind == "jump" else "start_cannon"
        raise IllegalAction(
            f"there is no {OFFER_NAMES[kind]} to use: it works where a flight ends (or use the start position's with "
            f"{where_})"
        )
    offer = turn.offers[0]
    if offer.kind != kind:
        raise IllegalAction(f"{who(name)} must first use or decline the {OFFER_NAMES[offer.kind]}")
    return with_turn(state, offers=turn.offers[1:]), offer


def _take_start(state: State, action: Action, kind: str) -> tuple[State, Offer]:
    name, _ = ready(state)
    offer = _start_offer(state, name, action, kind)
    return with_turn(state, flown=True), offer


def jump(state: State, action: Action) -> Result:
    state, offer = _take_offer(state, "jump")
    return hyper_jump(state, offer.ship, target(state, action), offer.elsewhere)


def start_jump(state: State, action: Action) -> Result:
    """The portal the spaceship began the turn on, used instead of flying (declared on a phone)."""
    state, offer = _take_start(state, action, "jump")
    return hyper_jump(state, offer.ship, target(state, action), offer.elsewhere)


def start_cannon(state: State, action: Action) -> Result:
    state, offer = _take_start(state, action, "cannon")
    return _straight(state, offer.ship, target(state, action), "the hyper accelerator cannon")


def hyper_jump(state: State, colour: str, site: str, elsewhere: bool) -> Result:
    start = state.ships[colour].site
    if site not in jump_targets(state, start, elsewhere):
        raise IllegalAction(
            f"a hyper jump goes to {'another ' if elsewhere else 'an '}intersection showing the hyper "
            f"jump portal; {where(state, site)} shows none"
        )
    state = with_ship(state, colour, site=site)
    text = f"{ship_name(state, colour)} hyper jumps from {where(state, start)} to {where(state, site)}."
    return state, [Event("jumped", text, {"ship": colour, "from": start, "to": site})]


def cannon(state: State, action: Action) -> Result:
    state, offer = _take_offer(state, "cannon")
    return _straight(state, offer.ship, target(state, action), "the hyper accelerator cannon")


def activate(state: State, action: Action) -> Result:
    """Take the space station the flight ended on (declared on a phone)."""
    state, offer = _take_offer(state, "station")
    return take_station(state, offer.ship)


def decline(state: State, action: Action) -> Result:
    name, turn = active(state)
    if not turn.offers:
        raise IllegalAction("there is nothing to decline")
    offer = turn.offers[0]
    state = with_turn(state, offers=turn.offers[1:])
    return state, [Event("declined", f"{who(name)} does not use the {OFFER_NAMES[offer.kind]}.", {})]
