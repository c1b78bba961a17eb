"""A turn's actions: Enter, Move and Dakalio (Asteroid is in placing.py), and resigning.

A ship with Dakalio that stops on a Control Zone spot has delivered it and never moves again.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from companion.rules.dakalio.judge import after_turn, end_game
from companion.rules.dakalio.slide import Route, destinations, entry_routes, obstacles, ship_routes, signal_on
from companion.rules.dakalio.state import DELIVERIES_TO_WIN, Ship, State, board_of, crystal_at, delivered, held, other
from companion.rules.dakalio.text import NOTHING_STOPS, obstacle, spot_role, who, why_not
from companion.rules.engine import Action, Event, IllegalAction


def _spot(state: State, value: object, what: str) -> str:
    board = board_of(state)
    if not isinstance(value, str) or (value not in board.spots and value not in board.load_zone):
        raise IllegalAction(f"say {what} with a spot on the mat (got {value!r})")
    return value


def _how(route: Route) -> str:
    if route.portal is None:
        return ""
    return f" through the portal on {route.portal}"


def entries(state: State) -> dict[str, dict[str, Route]]:
    """For each empty Control Zone spot with entry lines: where an entering ship can stop."""
    board = board_of(state)
    blocked = obstacles(state)
    found = {}
    for at in sorted(board.entries):
        if at not in blocked:
            found[at] = destinations(entry_routes(state, at))
    return found


def enter(state: State, action: Action) -> tuple[State, list[Event]]:
    """The board shows only where the entering ship stopped, so that is the action: any entry line that stops there.

    (One action per outcome: the referee and the phones tell moves apart by what they leave on the mat.)
    """
    player = state.actor
    assert player is not None
    board = board_of(state)
    if state.reserve[player] == 0:
        raise IllegalAction(f"{who(player)} has no ships left to enter")
    if "at" in dict(action.args):
        raise IllegalAction("say only where the entering ship stopped (to); the companion finds its entry line")
    to = _spot(state, action.get("to"), "where the ship stops (to)")
    options = {a: found[to] for a, found in entries(state).items() if to in found}
    if not options:
        raise IllegalAction(_why_no_entry(state, to))
    at = min(options)
    route = options[at]
    state = replace(
        state, ships={**state.ships, to: Ship(player)}, reserve={**state.reserve, player: state.reserve[player] - 1}
    )
    text = f"{who(player)} enters at {at} and slides{_how(route)} to {spot_role(board, to)}."
    state, events = after_turn(state, player)
    return state, [Event("enter", text, {"player": player, "at": at, "to": to}), *events]


def _why_no_entry(state: State, to: str) -> str:
    board = board_of(state)
    blocked = obstacles(state)
    if to in board.load_zone or to in blocked:
        return why_not(board, blocked, "", (), to, ())
    # The shortest entry that would get there but for a signal on its way.
    barred = [
        (len(r.spots), at, r)
        for at in sorted(board.entries)
        if at not in blocked
        for r in entry_routes(state, at, over_signals=True)
        if r.to == to and signal_on(board, r)
    ]
    if barred:
        _, at, route = min(barred, key=lambda b: b[:2])
        signal = signal_on(board, route)
        verb = "stop on" if signal == to else "slide over"
        return (
            f"entering at {at}, the ship would {verb} the anti-gravity signal on {signal}: only ships already "
            "inside may cross or stop on signals"
        )
    blocker = next(_blockers(state, to), None)
    if blocker is not None:  # a piece in the way: said by its spot, which the player can see and clear
        spot, at = blocker
        if spot == at:
            return f"the way in to {to} starts at {at}, and {obstacle(blocked, at)} stands there"
        reason = why_not(board, blocked, at, board.entry_ways(at), to, state.portals)
        return (
            f"entering at {at}: {reason}"
            if spot in reason.split()
            else (f"entering at {at}: {obstacle(blocked, spot)} is in the way to {to}")
        )
    reasons = []
    for at in sorted(board.entries):
        ways = board.entry_ways(at)
        if at not in blocked and at != to and any(to in board.loops[w.loop] for w in ways):
            reasons.append(f"entering at {at}: {why_not(board, blocked, at, ways, to, state.portals)}")
    # The most telling first: a slide that passes over the spot, then one stopped short.
    for clue in ("nothing stops the ship on", NOTHING_STOPS, "the ship would stop on", "cannot move towards", ""):
        for reason in reasons:
            if clue in reason:
                return reason
    return (
        f"no entry line from an empty Control Zone spot leads to {to} (the Control Zone spots on anti-gravity "
        "signals have none)"
    )


def _blockers(state: State, to: str) -> Iterator[tuple[str, str]]:
    """(spot, at): a ship or asteroid on `spot` without which a ship entering at `at` would stop on `to`."""
    pieces = {*state.ships, *state.asteroids} - {to}
    if len(state.portals) != 2:  # no way through the portals: only the pieces on the lines through `to` matter
        pieces &= {spot for loop in board_of(state).loops if to in loop for spot in loop}
    for spot in sorted(pieces):
        cleared = replace(state, ships={k: v for k, v in state.ships.items() if k != spot},
                          asteroids=tuple(a for a in state.asteroids if a != spot))  # fmt: skip
        for at, found in entries(cleared).items():
            if to in found:
                yield spot, at


def move(state: State, action: Action) -> tuple[State, list[Event]]:
    player = state.actor
    assert player is not None
    board = board_of(state)
    start = _spot(state, action.get("from"), "which ship moves (from)")
    to = _spot(state, action.get("to"), "where it stops (to)")
    ship = state.ships.get(start)
    if ship is None or ship.owner != player:
        raise IllegalAction(f"{who(player)} has no ship on {start}")
    if ship.delivered:
        raise IllegalAction(f"the ship on {start} has delivered its Dakalio and never moves again")
    found = destinations(ship_routes(state, start))
    if to not in found:
        blocked = obstacles(state, start)
        raise IllegalAction(why_not(board, blocked, start, board.ways[start], to, state.portals))
    arrived = ship
    text = f"{who(player)} moves from {start}{_how(found[to])} to {spot_role(board, to)}."
    if ship.dakalio and to in board.control:
        arrived = replace(ship, delivered=True)
        count = delivered(state, player) + 1
        text += f" {who(player)} delivers {ship.dakalio} Dakalio ({count} of {DELIVERIES_TO_WIN}); it stays there."
    ships = {spot: s for spot, s in state.ships.items() if spot != start}
    state = replace(state, ships={**ships, to: arrived})
    state, events = after_turn(state, player)
    return state, [Event("move", text, {"player": player, "from": start, "to": to}), *events]


def take_dakalio(state: State, action: Action) -> tuple[State, list[Event]]:
    player = state.actor
    assert player is not None
    board = board_of(state)
    at = _spot(state, action.get("at"), "the Station or Port of the ship (at)")
    if at not in board.stations and at not in board.ports:
        raise IllegalAction(f"{at} is neither a Station nor a Port: Dakalio is taken from a Station or a Port")
    ship = state.ships.get(at)
    if ship is None or ship.owner != player:
        raise IllegalAction(f"{who(player)} has no ship on {at}")
    if ship.dakalio:
        raise IllegalAction(f"the ship on {at} already carries Dakalio")
    if held(state, player) >= DELIVERIES_TO_WIN:
        raise IllegalAction(f"{who(player)} already has two Dakalio: a third is never taken (two deliveries win)")
    base = board.served_by[at]
    colour = crystal_at(state, base)
    if base not in state.crystals:
        raise IllegalAction(f"the {colour} base {base} that serves {at} has no Dakalio left")
    if colour == "blue":
        red_left = sum(1 for b in state.crystals if b != base)
        if red_left:
            raise IllegalAction(f"Blue Dakalio must be taken last: {red_left} red Dakalio still on their bases")
    state = replace(
        state,
        ships={**state.ships, at: replace(ship, dakalio=colour)},
        crystals=tuple(b for b in state.crystals if b != base),
    )
    text = f"{who(player)}'s ship on {at} takes the {colour} Dakalio from the base {base}."
    state, events = after_turn(state, player)
    return state, [Event("dakalio", text, {"player": player, "at": at, "dakalio": colour}), *events]


def resign(state: State, action: Action) -> tuple[State, list[Event]]:
    """Resigning takes the player's turn: the game goes to the opponent (in Supremacy, the match goes on)."""
    player = state.actor
    assert player is not None
    return end_game(state, other(state, player), f"{who(player)} resigned")
