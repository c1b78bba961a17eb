"""Cards arriving: trading ships into orbit and employees into the pool, drawn by the companion or by the table.

With `cards: "companion"` (the default) the companion draws from the decks it shuffled at setup and says which cards
to put out. With `cards: "table"` the players shuffle and draw their own cards: the draw is owed (`State.owed`), and
the table says which card came up (`reveal`), one at a time, before anything else happens; the companion checks it
is a card still in the deck being drawn from.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from companion.rules.engine import Action, Event, IllegalAction
from companion.rules.periorbis.state import (
    POOL_FIRST_DRAW,
    POOL_OVER_PLAYERS,
    SHIPS_IN_PLAY,
    Offer,
    Ship,
    State,
    card,
    data,
)
from companion.rules.periorbis.text import card_name, plural, ship_card_words

Result = tuple[State, list[Event]]
NOUNS = {"ship": "trading ship card", "employee": "employee card"}
A_CARD = {"ship": "a trading ship card", "employee": "an employee card"}
ARGUMENT = {"ship": "ship", "employee": "card"}  # what a `reveal` names the card by


def fill_ships(state: State) -> Result:
    """Ships arrive until the player count's number are in orbit (while the ship decks last), level 1 first."""
    count = min(SHIPS_IN_PLAY[len(state.players)] - len(state.ships), sum(map(len, state.ship_decks)))
    return _fill(state, "ship", max(0, count))


def fill_pool(state: State) -> Result:
    """The pool gets its first draw for the player count, then more until it holds the players plus two."""
    players = len(state.players)
    wanted = max(POOL_FIRST_DRAW[players], players + POOL_OVER_PLAYERS - len(state.pool))
    return _fill(state, "employee", min(wanted, sum(map(len, state.employee_decks))))


def _fill(state: State, kind: str, count: int) -> Result:
    if state.options.cards == "table":
        if not count:
            return state, []
        text = f"Draw {plural(count, NOUNS[kind])} and say which came up, one at a time."
        return replace(state, owed=(*state.owed, *(kind,) * count)), [Event("draw", text, {"kind": kind})]
    arrived = []
    for _ in range(count):
        decks = _decks(state, kind)
        level = next(i for i, deck in enumerate(decks) if deck)
        state, event = _arrive(state, kind, level, decks[level][0])
        arrived.append(event)
    if kind == "employee":  # one line for the whole draw: the pool is laid out at once
        cards = [e.data["card"] for e in arrived]
        names = ", ".join(card_name(card(state, number)) for number in cards)
        text = f"New employee cards in the pool: {names or 'none (the decks are empty)'}."
        return state, [Event("pool", text, {"cards": cards})]
    return state, arrived


def reveals(state: State) -> Iterator[Action]:
    """Every card the table may say it drew now: those left in the deck the owed card comes from."""
    if state.owed:
        kind = state.owed[0]
        for value in next(deck for deck in _decks(state, kind) if deck):
            yield Action.make("reveal", **{ARGUMENT[kind]: value})


def reveal(state: State, action: Action) -> Result:
    """The table says which card it drew: `ship` (a trading ship card's id) or `card` (an employee card's number)."""
    if not state.owed:
        raise IllegalAction("no card is waiting to be drawn")
    kind = state.owed[0]
    wanted, given = ARGUMENT[kind], ARGUMENT["employee" if kind == "ship" else "ship"]
    if action.get(given) is not None or action.get(wanted) is None:
        raise IllegalAction(f"the table draws {NOUNS[kind]} now: say which with {wanted!r}")
    decks = _decks(state, kind)
    level = next(i for i, deck in enumerate(decks) if deck)
    value = action.get(wanted)
    if value not in decks[level]:
        elsewhere = next((i for i, deck in enumerate(decks) if value in deck), None)
        if elsewhere is not None:
            raise IllegalAction(f"{NOUNS[kind]} {value} is in deck {elsewhere + 1}; deck {level + 1} is drawn first")
        raise IllegalAction(f"{NOUNS[kind]} {value!r} is not in the deck (already out, or no such card)")
    state, event = _arrive(replace(state, owed=state.owed[1:]), kind, level, value)
    return state, [event]


def _decks(state: State, kind: str) -> tuple[tuple, ...]:
    return state.ship_decks if kind == "ship" else state.employee_decks


def _arrive(state: State, kind: str, level: int, value: str | int) -> tuple[State, Event]:
    """The card leaves its deck and comes into play."""
    decks = list(_decks(state, kind))
    decks[level] = tuple(c for c in decks[level] if c != value)
    if kind == "ship":
        ship = Ship(str(value), (None,) * len(data(state).ships[str(value)].rows))
        state = replace(state, ships=(*state.ships, ship), ship_decks=tuple(decks))
        text = f"A {ship_card_words(state, data(state).ships[str(value)])} arrives."
        return state, Event("ship-arrives", text, {"ship": value})
    state = replace(state, pool=(*state.pool, Offer(int(value))), employee_decks=tuple(decks))
    text = f"The {card_name(card(state, int(value)))} comes into the pool."
    return state, Event("employee-arrives", text, {"card": value})
