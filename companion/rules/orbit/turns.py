"""A turn's frame: playing a card, taking energy, drawing up at the end, the start-of-turn check and the win."""

from __future__ import annotations

from dataclasses import replace

from companion.rules.engine import Action, Event, IllegalAction
from companion.rules.orbit.arrival import fill_energy, visit
from companion.rules.orbit.common import Result, feature, ready, spend
from companion.rules.orbit.data import describe, features
from companion.rules.orbit.state import (
    CAPACITY_MAX,
    ENERGY_CUBES,
    State,
    Turn,
    energy_in_play,
    ships_of,
    team_of,
    with_player,
    with_turn,
)
from companion.rules.orbit.text import POSITIONS, plural, who


def play(state: State, action: Action) -> Result:
    name, turn = ready(state)
    if turn.card is not None:
        raise IllegalAction(f"{who(name)} has already played a card this turn")
    deck = state.material.deck
    kind = action.get("card")
    card = deck.by_id.get(kind)
    if card is None:
        raise IllegalAction(f"there is no card {kind!r} in the deck (cards {deck.cards[0].id} to {deck.cards[-1].id})")
    if card.count - state.discard.get(kind, 0) < 1:
        raise IllegalAction(f"every copy of card {kind} is in the discard pile")
    if state.people[name].hand < 1:
        raise IllegalAction(f"{who(name)} has no card in hand")
    items = features(card, state.options.nebulas, deck.all_order)
    state = with_player(state, name, hand=state.people[name].hand - 1)
    state = with_turn(state, card=kind, features=items)
    text = f"{who(name)} plays card {kind}: {describe(card)}."
    return state, [Event("played", text, {"player": name, "card": kind, "features": list(items)})]


def _no_engine(state: State, name: str) -> None:
    if state.people[name].engine:
        raise IllegalAction(
            f"{who(name)}'s hyper accelerator engine takes no energy cubes: use the engine with this feature instead"
        )


def energy(state: State, action: Action) -> Result:
    name, turn = ready(state)
    item = feature(turn, "energy", "take-energy feature")
    _no_engine(state, name)
    player = state.people[name]
    wanted = int(item.split(":")[1])
    gain = max(0, min(wanted, player.capacity - player.energy, ENERGY_CUBES - energy_in_play(state)))
    state = with_turn(with_player(state, name, energy=player.energy + gain), features=spend(turn, item))
    text = f"{who(name)} takes {plural(gain, 'energy cube')} ({player.energy + gain} of {player.capacity})"
    if gain < wanted:
        text += f": the card offers {wanted}, the rest would exceed the capacity"
    return state, [Event("energy", text + ".", {"player": name, "gain": gain})]


def max_energy(state: State, action: Action) -> Result:
    name, turn = ready(state)
    item = feature(turn, "max_energy", "take-the-maximum feature")
    _no_engine(state, name)
    state, gain = fill_energy(state, name)
    state = with_turn(state, features=spend(turn, item))
    text = f"{who(name)} takes {plural(gain, 'energy cube')}, up to the capacity of {state.people[name].capacity}."
    return state, [Event("energy", text, {"player": name, "gain": gain})]


def mandatory_left(turn: Turn) -> str | None:
    for item in turn.features:
        if item.startswith("advance:"):
            _, colour, n = item.split(":")
            return f"advance {colour} {POSITIONS[int(n)]}"
        if item == "wild":
            return "advance a planet of your choice one position (the wild planet symbol)"
    return None


def end_turn(state: State, action: Action) -> Result:
    name, turn = ready(state)
    if turn.card is None:
        raise IllegalAction(f"{who(name)} must play a card before ending the turn")
    left = mandatory_left(turn)
    if left:
        raise IllegalAction(f"advancing planets is not optional: first {left}")
    events = []
    state = replace(state, discard={**state.discard, turn.card: state.discard.get(turn.card, 0) + 1})
    player = state.people[name]
    if state.options.engine and not player.engine and player.capacity >= CAPACITY_MAX:
        state = with_player(state, name, engine=True, energy=0)
        events.append(
            Event(
                "engine",
                f"{who(name)}'s energy capacity reached {CAPACITY_MAX}: the spaceship gets a hyper accelerator engine; "
                "return the energy cubes and cover the third row with it.",
                {"player": name},
            )
        )
    state, drawn = draw(state, name, events)
    text = f"{who(name)} ends the turn and draws {plural(drawn, 'card')}."
    events.append(Event("turn-ended", text, {"player": name}))
    winners = won(state, name)
    if winners:
        reason = (
            " and ".join(who(w) for w in winners)
            + (" have" if len(winners) > 1 else " has")
            + " visited every planet and ended the turn docked at home"
        )
        events.append(Event("game-won", f"{reason}: the game is won!", {"winners": list(winners)}))
        return replace(state, turn=None, winners=winners, reason=reason), events
    index = (state.players.index(name) + 1) % len(state.players)
    return start_turn(replace(state, turns=state.turns + 1), state.players[index], events), events


def draw(state: State, name: str, events: list[Event], count: int | None = None) -> tuple[State, int]:
    """Draw up to the hand size (or `count` cards); an empty draw pile is refilled from the discard pile."""
    player = state.people[name]
    need = max(0, player.hand_size - player.hand) if count is None else count
    take = min(need, state.deck)
    state = replace(state, deck=state.deck - take)
    if take < need and (state.discard or state.discard_unknown):
        pile = sum(state.discard.values()) + state.discard_unknown
        state = replace(state, deck=state.deck + pile, discard={}, discard_unknown=0)
        events.append(Event("reshuffled", f"Shuffle the discard pile ({plural(pile, 'card')}) into a new deck.", {}))
        more = min(need - take, state.deck)
        state, take = replace(state, deck=state.deck - more), take + more
    return with_player(state, name, hand=player.hand + take), take


def start_turn(state: State, name: str, events: list[Event]) -> State:
    """The next player's turn; a spaceship docked on a planet it has not visited removes the marker now."""
    start = {c: state.ships[c].site for c in ships_of(state, name)}
    state = replace(state, turn=Turn(name, start=start))
    return visit(state, events)


def won(state: State, name: str) -> tuple[str, ...]:
    """The player's team, if every one of its spaceships has visited everything and is docked at home."""
    team = team_of(state, name)
    for member in team:
        for colour in ships_of(state, member):
            ship = state.ships[colour]
            if ship.markers or state.planets[colour].site != ship.site:
                return ()
    return team
