"""The order of play: the setup's die roll, home worlds and starting forces, then each turn's phases in order,
player 1 alternating, ending each turn with the victory phase."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

from companion.rules.engine import Action, Event, IllegalAction
from companion.rules.orbital_battle.control import victory
from companion.rules.orbital_battle.state import PLANETS, STEPS, State, actor, other, phase_name
from companion.rules.orbital_battle.text import who

Result = tuple[State, list[Event]]

PHASE_NAMES = {
    "orbit": "orbit",
    "build": "build",
    "load": "loading/unloading",
    "space_move": "space movement",
    "space_combat": "space combat",
    "bombard": "bombardment",
    "land_move": "land movement",
    "land_combat": "land combat",
}


def roll(state: State, action: Action) -> Result:
    if state.stage != "roll":
        raise IllegalAction("the die for the first pick of a home world is rolled once, before the game")
    dice = action.get("dice")
    rng = state.rng
    if dice is None:
        a, rng = rng.below(6)
        b, rng = rng.below(6)
        dice, roller = (a + 1, b + 1), "the companion rolled"
    elif not (isinstance(dice, tuple) and len(dice) == 2 and all(isinstance(x, int) and 1 <= x <= 6 for x in dice)):
        raise IllegalAction("dice: give each player's die in player order, each 1 to 6")
    else:
        roller = "the table rolled"
    state = replace(state, rng=rng)
    first, second = state.players
    said = f"{who(first)} {dice[0]}, {who(second)} {dice[1]} ({roller})"
    if dice[0] == dice[1]:
        return state, [Event("rolled", f"{said}: a tie, roll again.", {"dice": list(dice), "roller": roller})]
    chooser = first if dice[0] > dice[1] else second
    state = replace(state, stage="home", chooser=chooser, first=chooser)
    return state, [
        Event(
            "rolled",
            f"{said}: {who(chooser)} picks a home world first.",
            {"dice": list(dice), "roller": roller, "chooser": chooser},
        )
    ]


def home(state: State, action: Action) -> Result:
    if state.stage != "home":
        raise IllegalAction("home worlds are picked before the game, after the die roll")
    planet = str(action.get("planet"))
    homes = state.homes or {}
    if planet not in PLANETS:
        raise IllegalAction(f"planets are numbered 1 to 8, not {action.get('planet')!r}")
    if planet in homes.values():
        raise IllegalAction(f"planet {planet} is already a home world; pick a vacant planet")
    player = state.first
    homes = {**homes, player: planet}
    event = Event("home", f"{who(player)} takes planet {planet} as home world.", {"player": player, "planet": planet})
    if len(homes) < 2:
        return replace(state, homes=homes, first=other(state, player)), [event]
    # The player who picked second moves first, and buys first.
    return replace(state, homes=homes, stage="deploy", first=player), [event]


def done(state: State, action: Action) -> Result:
    player = actor(state)
    if state.stage == "deploy" and not state.retreats:
        if player == state.chooser:
            return start_turn(replace(state, first=other(state, player)), 1), [
                Event("deployed", f"{who(player)} is deployed. The game begins.", {"player": player})
            ]
        return replace(state, first=other(state, state.first)), [
            Event(
                "deployed",
                f"{who(state.first)} is deployed; {who(state.chooser)} buys starting forces now.",
                {"player": state.first},
            )
        ]
    if state.stage != "turn" or player is None or state.retreats:
        raise IllegalAction("there is no player's phase to end now")
    return advance(state)


def start_turn(state: State, turn: int) -> State:
    return replace(state, stage="turn", turn=turn, step=0, acted=(), fought=(), loaded=(), unloaded=())


def advance(state: State) -> Result:
    """End the current phase: the next one, or after the last the victory phase and a new turn."""
    ended = f"{who(actor(state) or '')} ends the {PHASE_NAMES[phase_name(state)]} phase."
    events = [Event("phase-ended", ended, {"phase": phase_name(state)})]
    if state.step + 1 < len(STEPS):
        return replace(state, step=state.step + 1, acted=()), events
    state, more = victory(state)
    if state.stage == "over":
        return state, events + more
    state = start_turn(replace(state, first=other(state, state.first)), state.turn + 1)
    begins = Event(
        "turn", f"Turn {state.turn} begins; {who(state.first)} is player 1.", {"turn": state.turn, "first": state.first}
    )
    return state, [*events, begins]


def skip_idle(state: State, events: list[Event], options: Callable[[State], Iterator[Action]]) -> Result:
    """Phases where the player has nothing to do but end them pass by themselves, with an announcement."""
    while state.stage == "turn" and not state.retreats and actor(state) is not None:
        if any(a.type != "done" for a in options(state)):
            break
        phase, player = phase_name(state), actor(state) or ""
        state, more = advance(state)
        events.append(
            Event(
                "phase-skipped",
                f"{who(player)} has nothing to do in the {PHASE_NAMES[phase]} phase.",
                {"phase": phase, "player": player},
            )
        )
        events.extend(more[1:])
    return state, events
