"""Partnership tiles (four-player partnership, dual spaceship) and the Nebular expansion's navigation tokens."""

from __future__ import annotations

from dataclasses import replace

from companion.rules.engine import Action, Event, IllegalAction
from companion.rules.orbit.arrival import fill_energy
from companion.rules.orbit.common import Result, own_ship, ready, target
from companion.rules.orbit.flight import hyper_jump
from companion.rules.orbit.state import State, partner_of, ships_of, team_of, with_player, with_ship
from companion.rules.orbit.text import NAV_NAMES, plural, ship_name, where, who
from companion.rules.orbit.turns import draw


def _pair(state: State, name: str, action: Action) -> tuple[str, str]:
    """(the spaceship that moves, the one it joins): the partner's ship, or a dual player's other ship."""
    if state.options.mode == "dual":
        mover = own_ship(state, name, action)
        return mover, next(c for c in ships_of(state, name) if c != mover)
    partner = partner_of(state, name)
    if partner is None:
        raise IllegalAction("partnership tiles are used only in the partnership and dual spaceship games")
    return ships_of(state, name)[0], ships_of(state, partner)[0]


def friendship(state: State, action: Action) -> Result:
    name, _ = ready(state)
    mover, other = _pair(state, name, action)
    if not state.people[name].friendship:
        raise IllegalAction(f"{who(name)} has no friendship tile left")
    site = state.ships[other].site
    if state.ships[mover].site == site:
        raise IllegalAction(f"{ship_name(state, mover)} is already with {ship_name(state, other)}")
    start = state.ships[mover].site
    state = with_ship(with_player(state, name, friendship=False), mover, site=site)
    text = (
        f"{who(name)} uses the friendship tile: {ship_name(state, mover)} flies from {where(state, start)} to "
        f"{ship_name(state, other)} on {where(state, site)}."
    )
    return state, [Event("friendship", text, {"ship": mover, "from": start, "to": site})]


def exchange(state: State, action: Action) -> Result:
    name, _ = ready(state)
    mover, other = _pair(state, name, action)
    team = "+".join(team_of(state, name))
    if team not in state.exchange:
        raise IllegalAction(f"the exchange tile of {team.replace('+', ' and ')} is used up")
    a, b = state.ships[mover].site, state.ships[other].site
    if a == b:
        raise IllegalAction("both spaceships stand on the same intersection: there is nothing to exchange")
    state = with_ship(with_ship(state, mover, site=b), other, site=a)
    state = replace(state, exchange=tuple(t for t in state.exchange if t != team))
    text = (
        f"{who(name)} uses the exchange tile: {ship_name(state, mover)} and {ship_name(state, other)} swap places "
        f"({where(state, a)} and {where(state, b)})."
    )
    return state, [Event("exchange", text, {"ships": [mover, other]})]


def _token(state: State, name: str, kind: str) -> State:
    if kind not in state.people[name].tokens:
        raise IllegalAction(f"{who(name)} has no {NAV_NAMES[kind]} navigation token left")
    return with_player(state, name, tokens=tuple(t for t in state.people[name].tokens if t != kind))


def nav_swap(state: State, action: Action) -> Result:
    name, _ = ready(state)
    state = _token(state, name, "swap")
    hand = state.people[name].hand
    state = with_player(state, name, hand=0)
    state = replace(state, discard_unknown=state.discard_unknown + hand)
    events: list[Event] = []
    state, drawn = draw(state, name, events, hand)
    text = f"{who(name)} swaps the hand: discard {plural(hand, 'card')} and draw {drawn}."
    return state, [*events, Event("swapped", text, {"player": name})]


def nav_jump(state: State, action: Action) -> Result:
    name, _ = ready(state)
    colour = own_ship(state, name, action)
    site = target(state, action)
    state, events = hyper_jump(_token(state, name, "jump"), colour, site, elsewhere=False)
    return state, events


def nav_energy(state: State, action: Action) -> Result:
    name, _ = ready(state)
    if state.people[name].engine:
        raise IllegalAction(f"{who(name)}'s hyper accelerator engine takes no energy cubes")
    state, gain = fill_energy(_token(state, name, "energy"), name)
    text = f"{who(name)} uses the maximum energy token: take {plural(gain, 'energy cube')}."
    return state, [Event("energy", text, {"player": name, "gain": gain})]
