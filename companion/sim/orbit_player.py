"""A goal-seeking scripted player for ORBIT: it races to visit every planet, then flies home and stays docked.

Uniformly random ORBIT players almost never win (a random four-player game runs to thousands of actions, and a
partnership or dual-spaceship game needs two ships home at once, which chance alone does not arrange), so the twin
plays ORBIT as people do: hold a hand of cards, play the one that helps most, and use its features greedily
(companion.sim.players mixes in random picks).

The measure of a position is the team's distance from winning: for each of its spaceships, a heavy weight per mission
marker left plus the flight steps to the nearest planet it has not visited, or, with none left, the steps home. The
player minimises it, counting a few energy cubes in reserve a little in its favour.
"""

from __future__ import annotations

import random

from companion.rules import Action, Game
from companion.rules.orbit.space import distances
from companion.rules.orbit.state import PRISM, State, ships_of, team_of

MARKER_WEIGHT = 40.0  # a marker is worth more than any flight: a ship never gives one up for a shorter way
ENERGY_WORTH = 0.4  # a cube saves a step later, but a step now is worth more
ENERGY_KEPT = 3
FAR = 60  # steps to a site no flight reaches (cut off by nebulas)
IMPROVES = 1e-6


def distance_to_win(state: State, name: str) -> float:
    """How far `name`'s team is from winning: 0 once every marker is gone and every spaceship is docked at home."""
    material, blocked = state.material, frozenset(state.nebulas)
    total = 0.0
    for member in team_of(state, name):
        for colour in ships_of(state, member):
            ship = state.ships[colour]
            steps = distances(material, ship.site, blocked)
            if ship.markers:
                targets = [_marker_site(state, m) for m in ship.markers]
                total += MARKER_WEIGHT * len(ship.markers) + min(steps.get(t, FAR) for t in targets if t)
            else:
                total += steps.get(state.planets[colour].site, FAR)
    return total


def _score(state: State, name: str) -> float:
    """What the player minimises: the distance to winning, less a little for cubes kept in reserve."""
    reserve = sum(min(state.people[m].energy, ENERGY_KEPT) for m in team_of(state, name))
    return distance_to_win(state, name) - ENERGY_WORTH * reserve


def _marker_site(state: State, marker: str) -> str | None:
    if marker == PRISM:
        return next((site for site, tile in state.stations.items() if tile == PRISM), None)
    return state.planets[marker].site


def choose(game: Game, state: State, rng: random.Random) -> Action:
    """The player's next action: the card in hand that brings the team nearest to winning, then its features one by
    one while they help, then the end of the turn."""
    assert state.turn is not None, "the game is over"
    actions = list(game.legal_actions(state))
    if not actions:
        raise RuntimeError(f"orbit: no legal action in phase {game.phase(state)}")
    plays = [a for a in actions if a.type == "play"]
    if plays:
        return _best_card(game, state, _hand(state, plays, rng), rng)
    return _best_step(game, state, actions, rng)[0]


def _hand(state: State, plays: list[Action], rng: random.Random) -> list[Action]:
    """The cards the player holds: as many as the hand counts, drawn from the copies not in the discard pile (the
    companion counts hands but cannot see them, so the scripted player draws its own)."""
    assert state.turn is not None
    deck = state.material.deck.by_id
    copies = [a for a in plays for _ in range(deck[a.get("card")].count - state.discard.get(a.get("card"), 0))]
    size = min(state.people[state.turn.player].hand, len(copies))
    return rng.sample(copies, size) or plays


def _best_card(game: Game, state: State, hand: list[Action], rng: random.Random) -> Action:
    name = state.turn.player if state.turn else ""
    scored = []
    for card in hand:
        after = game.apply(state, card)[0]
        scored.append((_score(_finish_turn(game, after, rng), name), rng.random(), card))
    return min(scored, key=lambda item: item[:2])[2]


def _finish_turn(game: Game, state: State, rng: random.Random) -> State:
    """The state at the end of the turn if the player goes on greedily (the lookahead for choosing a card)."""
    player = state.turn.player if state.turn else None
    for _ in range(20):
        if state.turn is None or state.turn.player != player:
            return state
        action, after = _best_step(game, state, list(game.legal_actions(state)), rng)
        if action.type == "end_turn":
            return state
        state = after
    return state


def _best_step(game: Game, state: State, actions: list[Action], rng: random.Random) -> tuple[Action, State]:
    """The action that most reduces the distance to winning; the end of the turn when none helps (and it is
    allowed); otherwise the least harmful of what must be done (an advance, an offer, an arrow)."""
    assert state.turn is not None
    name = state.turn.player
    now = _score(state, name)
    scored = []
    for action in actions:
        if action.type not in ("play", "end_turn"):
            after = game.apply(state, action)[0]
            scored.append((_score(after, name), rng.random(), action, after))
    best = min(scored, key=lambda item: item[:2], default=None)
    end = next((a for a in actions if a.type == "end_turn"), None)
    if end is not None and (best is None or best[0] > now - IMPROVES):
        return end, state
    if best is None:
        return actions[0], game.apply(state, actions[0])[0]
    return best[2], best[3]
