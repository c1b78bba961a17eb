"""What happens where a spaceship comes to rest: mission markers, space stations, hyper jump portals."""

from __future__ import annotations

from dataclasses import replace

from companion.rules.engine import Event
from companion.rules.orbit.space import space
from companion.rules.orbit.state import (
    CAPACITY_MAX,
    ENERGY_CUBES,
    HAND_MAX,
    PRISM,
    Offer,
    State,
    energy_in_play,
    planet_at,
    ships_of,
    with_player,
    with_ship,
    with_turn,
)
from companion.rules.orbit.text import STATION_NAMES, planet_name, ship_name, where, who

UPGRADES = {"hand": ("hand size", HAND_MAX), "energy": ("energy capacity", CAPACITY_MAX)}


def at_max(state: State, name: str, kind: str) -> bool:
    player = state.people[name]
    if kind == "hand":
        return player.hand_size >= HAND_MAX
    return player.engine or player.capacity >= CAPACITY_MAX


def upgrade(state: State, name: str, kind: str) -> State:
    player = state.people[name]
    if kind == "hand":
        return with_player(state, name, hand_size=player.hand_size + 1)
    return with_player(state, name, capacity=player.capacity + 1)


def fill_energy(state: State, name: str) -> tuple[State, int]:
    """Take cubes up to the capacity, as many as the supply has; a hyper accelerator engine takes none."""
    player = state.people[name]
    if player.engine:
        return state, 0
    gain = max(0, min(player.capacity - player.energy, ENERGY_CUBES - energy_in_play(state)))
    return with_player(state, name, energy=player.energy + gain), gain


def visit(state: State, events: list[Event]) -> State:
    """The active player's spaceships docked on (or standing on) a planet they have not visited yet remove its
    mission marker and apply its feature. Only ever in the player's own turn."""
    if state.turn is None:
        return state
    name = state.turn.player
    markers = state.material.deck.markers
    for colour in ships_of(state, name):
        ship = state.ships[colour]
        planet = planet_at(state, ship.site)
        if planet is None or planet not in ship.markers:
            continue
        state = with_ship(state, colour, markers=tuple(m for m in ship.markers if m != planet))
        text = f"{ship_name(state, colour)} visits {planet_name(planet)}: remove its mission marker"
        gift = markers.get(planet, "")
        if gift in UPGRADES:
            label, _top = UPGRADES[gift]
            if at_max(state, name, gift):
                text += f"; {who(name)}'s {label} is already at its highest, so the marker goes back to the box"
            else:
                state = upgrade(state, name, gift)
                text += f" and cover the lowest {label} number with it ({label} now {_level(state, name, gift)})"
        elif gift in ("jump", "cannon"):
            state = with_turn(state, offers=(*state.turn.offers, Offer(gift, colour)))
            granted = "hyper jump" if gift == "jump" else "hyper accelerator cannon"
            text += f"; it grants a {granted} (use it or decline)"
        events.append(Event("visited", text + ".", {"ship": colour, "planet": planet, "feature": gift}))
    return state


def _level(state: State, name: str, kind: str) -> int:
    player = state.people[name]
    return player.hand_size if kind == "hand" else player.capacity


def arrive(state: State, colour: str, events: list[Event]) -> State:
    """A flight (or a cannon or engine flight) ends: the space station or portal there may be used.

    Every station is an offer the player may take or decline (an upgrade can hurt: capacity 5 brings the hyper
    accelerator engine); one that would do nothing (a row at its highest, a full energy store) is not offered.
    """
    ship = state.ships[colour]
    name, site = ship.owner, ship.site
    tile = state.stations.get(site)
    if tile in UPGRADES:
        label, _ = UPGRADES[tile]
        if at_max(state, name, tile):
            events.append(
                Event("station-kept", f"{who(name)} cannot take the {STATION_NAMES[tile]}: {label} is at its highest.")
            )
        else:
            state = _offer(state, Offer("station", colour))
            events.append(
                Event(
                    "offer",
                    f"{who(name)} may collect the {STATION_NAMES[tile]} on {where(state, site)} "
                    "(activate) or leave it (decline).",
                    {"kind": "station", "station": tile},
                )
            )
    elif tile == "fuel":
        if fill_energy(state, name)[1]:
            state = _offer(state, Offer("station", colour))
            text = f"{who(name)} may fill up with energy at the fuel depot (activate) or decline."
            events.append(Event("offer", text, {"kind": "station", "station": tile}))
    elif tile in ("portal", "cannon"):
        kind = "jump" if tile == "portal" else "cannon"
        state = _offer(state, Offer(kind, colour, elsewhere=kind == "jump"))
        events.append(Event("offer", f"The {STATION_NAMES[tile]} may be used now (or declined).", {"kind": kind}))
    if tile is None and site in space(state.material).portals:
        state = _offer(state, Offer("jump", colour, elsewhere=True))
        events.append(Event("offer", "The hyper jump portal may be used now (or declined).", {"kind": "jump"}))
    return state


def _offer(state: State, offer: Offer) -> State:
    assert state.turn is not None
    return with_turn(state, offers=(*state.turn.offers, offer))


def activate(state: State, colour: str) -> tuple[State, list[Event]]:
    """The player takes the station the spaceship's flight ended on: an upgrade tile, or the fuel depot's cubes."""
    ship = state.ships[colour]
    name, site = ship.owner, ship.site
    tile = state.stations[site]
    if tile == "fuel":
        state, gain = fill_energy(state, name)
        return state, [
            Event(
                "fuel-depot",
                f"The fuel depot fills {who(name)}'s energy: take {gain} cubes.",
                {"player": name, "gain": gain},
            )
        ]
    label, _ = UPGRADES[tile]
    state = upgrade(state, name, tile)
    state = replace(state, stations={k: v for k, v in state.stations.items() if k != site})
    state = with_player(state, name, collected=(*state.people[name].collected, tile))
    text = (
        f"{who(name)} collects the {STATION_NAMES[tile]} on {where(state, site)}: take it off the board "
        f"({label} now {_level(state, name, tile)})."
    )
    return state, [Event("station-collected", text, {"player": name, "station": tile, "site": site})]


def jump_targets(state: State, offer_site: str, elsewhere: bool) -> tuple[str, ...]:
    """Intersections showing the hyper jump symbol: the board's portals and the portal stations."""
    sites = set(space(state.material).portals) | {s for s, t in state.stations.items() if t == "portal"}
    if elsewhere:
        sites.discard(offer_site)
    return tuple(sorted(sites))


__all__ = ["PRISM", "activate", "arrive", "fill_energy", "jump_targets", "visit"]
