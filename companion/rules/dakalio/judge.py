"""After every action of the game: deliveries, blocks and captures decide; games end and matches are scored.

Ships without Dakalio that cannot move are captured, all at once, as part of the move. Then a ship with Dakalio that
cannot move is blocked and its owner loses (whoever caused it; players may block their own ships). Both players
blocked at once is a double block: the player who caused it wins. Delivered ships are out of play: they stand as
obstacles and nothing more.
"""

from __future__ import annotations

from dataclasses import replace

from companion.rules.dakalio.slide import can_move
from companion.rules.dakalio.state import (
    DELIVERIES_TO_WIN,
    WINS_IN_A_ROW,
    State,
    delivered,
    fresh_game,
    other,
)
from companion.rules.dakalio.text import who
from companion.rules.engine import Action, Event


def after_turn(state: State, mover: str) -> tuple[State, list[Event]]:
    """Judge the position `mover` has just made, then pass the turn (or end the game).

    Captures are part of the move, so blocks are judged on the position they leave: a ship with Dakalio that a
    capture frees is not blocked, as its owner can move it in the next turn.
    """
    if delivered(state, mover) >= DELIVERIES_TO_WIN:
        return end_game(state, mover, f"{who(mover)} delivered a second Dakalio")
    state, events = _captures(state)
    stuck = sorted(
        spot for spot, ship in state.ships.items() if ship.dakalio and not ship.delivered and not can_move(state, spot)
    )
    losers = sorted({state.ships[s].owner for s in stuck})
    if len(losers) == 2:
        done, end = end_game(state, mover, f"{who(mover)} made a double block: both ships with Dakalio are blocked")
        return done, [*events, *end]
    if losers:
        loser = losers[0]
        spot = next(s for s in stuck if state.ships[s].owner == loser)
        done, end = end_game(state, other(state, loser), f"{who(loser)}'s ship with Dakalio on {spot} is blocked")
        return done, [*events, *end]
    return replace(state, actor=other(state, mover)), events


def _captures(state: State) -> tuple[State, list[Event]]:
    """Take off every ship without Dakalio that cannot move, all at once; again while taking them off leaves
    another such ship with nowhere to go (a slide it made stopped only against a captured ship)."""
    events = []
    while True:
        stuck = sorted(
            spot
            for spot, ship in state.ships.items()
            if not ship.dakalio and not ship.delivered and not can_move(state, spot)
        )
        if not stuck:
            return state, events
        captured = dict(state.captured)
        for spot in stuck:
            owner = state.ships[spot].owner
            captured[owner] += 1
            events.append(
                Event(
                    "capture",
                    f"{who(owner)}'s ship on {spot} is blocked and captured: take it off the mat.",
                    {"player": owner, "spot": spot},
                )
            )
        ships = {spot: ship for spot, ship in state.ships.items() if spot not in stuck}
        state = replace(state, ships=ships, captured=captured)


def end_game(state: State, winner: str, reason: str) -> tuple[State, list[Event]]:
    """Score a finished game; in Supremacy the match goes on until someone wins two games in a row."""
    winners = (*state.winners, winner)
    score = ", ".join(f"{who(p)} {winners.count(p)}" for p in state.players)
    text = f"{who(winner)} wins: {reason}."
    if state.options.mode == "supremacy":
        text = f"{who(winner)} wins game {state.game}: {reason}. Games won: {score}."
    streak = winners[-WINS_IN_A_ROW:]
    if state.options.mode == "simple" or (len(streak) == WINS_IN_A_ROW and len(set(streak)) == 1):
        match_reason = reason
        if state.options.mode == "supremacy":
            match_reason = f"{who(winner)} won {WINS_IN_A_ROW} games in a row (the last: {reason})"
            text += f" {who(winner)} wins the match."
        done = replace(state, winners=winners, stage="over", actor=None, reason=match_reason, result="won")
        return done, [Event("game-won", text, {"winner": winner, "reason": match_reason, "game": state.game})]
    done = replace(state, winners=winners, stage="between", actor=None, reason=reason)
    return done, [Event("game-end", text, {"winner": winner, "reason": reason, "game": state.game})]


def next_game(state: State, action: Action) -> tuple[State, list[Event]]:
    """Supremacy: the table clears the mat for the next game; the other player goes first."""
    first = other(state, state.first)
    state = replace(fresh_game(state, first), game=state.game + 1, reason="")
    text = f"Game {state.game} begins: put the Dakalio back on their bases; {who(first)} plays first."
    return state, [Event("game-start", text, {"game": state.game, "first": first})]
