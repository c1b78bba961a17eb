"""Setup and the pieces placed by hand: the portals decision, portals, asteroids.

Setup order (the rulebook's): Dakalio on the bases (done by setup itself); the first player decides on portals and,
with portals, each player places one, first player first; then each places an asteroid. Nothing goes on a Station
or a Port during setup, portals never on an anti-gravity signal, and asteroids never on Stations or Ports at all.
"""

from __future__ import annotations

from dataclasses import replace

from companion.rules.dakalio.judge import after_turn
from companion.rules.dakalio.slide import obstacles
from companion.rules.dakalio.state import State, board_of, other
from companion.rules.dakalio.text import a, obstacle, who
from companion.rules.engine import Action, Event, IllegalAction


def decide_portals(state: State, action: Action) -> tuple[State, list[Event]]:
    use = action.get("use")
    if not isinstance(use, bool):
        raise IllegalAction('say whether to play with portals: {"type": "portals", "use": true} or false')
    first = who(state.first)
    if use:
        text = f"{first} chose to play with portals: {first} places one, then {who(other(state, state.first))}."
        return replace(state, use_portals=True, stage="portal"), [Event("portals", text, {"use": True})]
    text = f"{first} chose to play without portals: {first} places an asteroid."
    return replace(state, use_portals=False, stage="asteroid"), [Event("portals", text, {"use": False})]


def place_check(state: State, at: object, piece: str) -> str:
    """The spot a portal or asteroid may go on, or IllegalAction saying why not."""
    board = board_of(state)
    if not isinstance(at, str) or (at not in board.spots and at not in board.load_zone):
        raise IllegalAction(f"there is no spot {at!r} on the mat")
    if at in board.load_zone:
        raise IllegalAction(f"no {piece} can go in the Load Zone")
    if at in board.stations or at in board.ports:
        kind = "Station" if at in board.stations else "Port"
        raise IllegalAction(f"{at} is {a(kind)}: no {piece} can be placed on Stations or Ports")
    if piece == "portal" and at in board.signals:
        raise IllegalAction(f"{at} is on an anti-gravity signal: portals cannot be placed there")
    blocked = obstacles(state)
    if at in blocked:
        raise IllegalAction(f"{at} is not empty: {obstacle(blocked, at)} is there")
    if at in state.portals:
        raise IllegalAction(f"{at} already holds a portal")
    return at


def place_portal(state: State, action: Action) -> tuple[State, list[Event]]:
    at = place_check(state, action.get("at"), "portal")
    player = state.actor
    assert player is not None
    state = replace(state, portals=(*state.portals, at))
    if player == state.first:
        state = replace(state, actor=other(state, player))
    else:
        state = replace(state, stage="asteroid", actor=state.first)
    return state, [Event("portal", f"{who(player)} places a portal on {at}.", {"player": player, "at": at})]


def place_asteroid(state: State, action: Action) -> tuple[State, list[Event]]:
    player = state.actor
    assert player is not None
    left = state.asteroids_left[player]
    if left == 0:
        raise IllegalAction(f"{who(player)} has no asteroids left")
    at = place_check(state, action.get("at"), "asteroid")
    state = replace(state, asteroids=(*state.asteroids, at), asteroids_left={**state.asteroids_left, player: left - 1})
    event = Event(
        "asteroid", f"{who(player)} places an asteroid on {at} ({left - 1} left).", {"player": player, "at": at}
    )
    if state.stage == "play":
        state, events = after_turn(state, player)
        return state, [event, *events]
    if player == state.first:
        return replace(state, actor=other(state, player)), [event]
    return replace(state, stage="play", actor=state.first), [event]
