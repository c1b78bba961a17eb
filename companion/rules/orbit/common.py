"""Guards shared by the actions of a turn: whose turn, what is pending, which card feature is used."""

from __future__ import annotations

from companion.rules.engine import Action, Event, IllegalAction
from companion.rules.orbit.state import State, Turn, ships_of
from companion.rules.orbit.text import who

Result = tuple[State, list[Event]]
OFFER_NAMES = {"jump": "hyper jump", "cannon": "hyper accelerator cannon", "station": "space station"}
OFFER_ACTIONS = {"jump": "jump", "cannon": "cannon", "station": "activate"}  # the action that takes each offer


def active(state: State) -> tuple[str, Turn]:
    if state.turn is None:
        raise IllegalAction("the game is over")
    return state.turn.player, state.turn


def ready(state: State) -> tuple[str, Turn]:
    """The active player, when no hyper jump or cannon waits to be used or declined."""
    name, turn = active(state)
    if turn.steer:
        raise IllegalAction(f"{who(name)} must first say where the {turn.steer} planet's arrow points (steer)")
    if turn.offers:
        offer = turn.offers[0]
        raise IllegalAction(
            f"{who(name)} must first use or decline the {OFFER_NAMES[offer.kind]} ({OFFER_ACTIONS[offer.kind]} or "
            "decline)"
        )
    return name, turn


def feature(turn: Turn, prefix: str, what: str) -> str:
    """The first unused feature of the played card starting with `prefix`, or a refusal naming `what`."""
    if turn.card is None:
        raise IllegalAction(f"play a card first: {what} comes from the card's features")
    for item in turn.features:
        if item == prefix or item.startswith(prefix + ":"):
            return item
    raise IllegalAction(f"the card played has no {what} left to apply")


def spend(turn: Turn, item: str) -> tuple[str, ...]:
    i = turn.features.index(item)
    return turn.features[:i] + turn.features[i + 1 :]


def own_ship(state: State, name: str, action: Action) -> str:
    """The spaceship an action moves: the `ship` named (dual spaceship), else the player's own."""
    mine = ships_of(state, name)
    colour = action.get("ship")
    if colour is None:
        return mine[0]
    if colour not in mine:
        raise IllegalAction(f"the {colour} spaceship is not {who(name)}'s")
    return colour


def target(state: State, action: Action) -> str:
    from companion.rules.orbit.space import space

    site = action.get("to")
    if not isinstance(site, str) or site not in space(state.material).neighbours:
        raise IllegalAction(f"there is no intersection {site!r} on the board")
    return site
