"""Dakalio as a rules engine: the contract of companion.rules.engine over the modules beside this one."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from companion.codec import Maybe, text
from companion.rules.dakalio import judge, placing, play
from companion.rules.dakalio.slide import destinations, ship_routes
from companion.rules.dakalio.state import (
    DELIVERIES_TO_WIN,
    Options,
    State,
    board_of,
    crystal_at,
    fresh_game,
    held,
    other,
)
from companion.rules.dakalio.state import material as read_material
from companion.rules.dakalio.text import who
from companion.rules.engine import (
    Action,
    DataOption,
    Event,
    Game,
    Handler,
    IllegalAction,
    Layout,
    Ledger,
    Outcome,
    Phase,
    SetupError,
    ShowCounter,
    handler_for,
    read_option_words,
)
from companion.rules.engine import read_options as _read_options
from companion.rules.rng import Rng

HANDLERS: dict[str, Handler] = {
    "portals": placing.decide_portals,
    "portal": placing.place_portal,
    "asteroid": placing.place_asteroid,
    "enter": play.enter,
    "move": play.move,
    "dakalio": play.take_dakalio,
    "resign": play.resign,
    "next_game": judge.next_game,
}
# Each action's arguments (engine.Game.actions): spots of the mat by name.
SPOT = text()
ARGS: dict[str, dict[str, Any]] = {
    "portals": {"use": Maybe(bool)},  # a missing choice is refused by the rule, which says what to say
    "portal": {"at": SPOT},
    "asteroid": {"at": SPOT},
    "enter": {"to": SPOT, "at": Maybe(SPOT)},  # `at` is refused by the rule, which says why
    "move": {"from": Maybe(SPOT), "to": Maybe(SPOT)},  # likewise a missing spot
    "dakalio": {"at": SPOT},
    "resign": {},
    "next_game": {},
}
# The table's facts (engine.Game): the mat is a board file of the table's own; the books' labels.
DATA = {"mat": DataOption("file")}
LABELS = {
    "reserve": "Ships in reserve",
    "inside": "Ships on the mat",
    "first": "First player",
    "dakalio_carried": "Carrying Dakalio",
    "dakalio_delivered": "Dakalio delivered",
    "dakalio_taken": "Dakalio taken",
    "game": "Game of the match",
}
SHOWN: dict[str, ShowCounter] = {"portals": lambda use, words: "not chosen yet" if use is None else words(use)}
# Which stage each action belongs to.
STAGES: dict[str, tuple[str, ...]] = {
    "portals": ("portals",),
    "portal": ("portal",),
    "asteroid": ("asteroid", "play"),
    "enter": ("play",),
    "move": ("play",),
    "dakalio": ("play",),
    "resign": ("play",),
    "next_game": ("between",),
}


class Dakalio(Game[State]):
    name = "dakalio"
    title = "Dakalio"
    min_players = 2
    max_players = 2
    state_type = State
    marks: ClassVar[Mapping[str, str]] = {"ship": "S", "asteroid": "A", "portal": "P", "dakalio": "D"}
    board_moves = frozenset({"portal", "asteroid", "enter", "move", "dakalio", "next_game"})
    board_option = "mat"
    data_options = DATA
    option_words = read_option_words(Path(__file__).with_name("options.json"))
    ledger_labels = LABELS
    ledger_shown = SHOWN
    actions = ARGS

    def setup(self, players: Sequence[str], options: Mapping[str, Any], seed: int) -> State:
        opts = _read_options(Options, options)
        if len(players) != 2 or len(set(players)) != 2 or not all(isinstance(p, str) and p for p in players):
            raise SetupError(f"players: Dakalio takes two players with different names, got {list(players)}")
        if "dakalio" in players:
            raise SetupError("players: 'dakalio' names the crystals; choose another player name")
        material = read_material(opts.mat)  # the mat, read now and never again: a bad file is a SetupError now
        rng = Rng.seeded(seed)
        first = opts.first
        if first is None:
            first, rng = rng.choice(tuple(players))  # who drew the asteroid with sticker 1
        elif first not in players:
            raise SetupError(f"options.first: {first!r} is not one of the players ({', '.join(players)})")
        a, b = players
        blank = State(opts, material, (a, b), rng, 1, first, "portals", first, {}, (), (), None, (), {}, {}, {})
        return fresh_game(blank, first)

    def counted(self, state: State, phase: Phase) -> str:
        """Supremacy is a match of games (the rulebook's modes): which game this is; a Simple game counts nothing."""
        return f"Game {phase.round}" if state.options.mode == "supremacy" and phase.round else ""

    def phase(self, state: State) -> Phase:
        actor = state.actor
        name = who(actor) if actor else ""
        if state.stage == "over":
            winner = who(state.winners[-1])
            return Phase("over", None, f"{winner} has won: {state.reason}.", round=state.game)
        if state.stage == "between":
            nxt = who(other(state, state.first))
            prompt = (
                f"{who(state.winners[-1])} won game {state.game}. Clear the mat, put the Dakalio back on their "
                f"bases and start game {state.game + 1}: {nxt} plays first."
            )
            return Phase("between", None, prompt, "next_game", state.game)
        prompts = {
            "portals": f"{name} plays first: decide whether to play with portals.",
            "portal": f"{name}: place a portal (not on an anti-gravity signal, a Station or a Port).",
            "asteroid": f"{name}: place an asteroid (not on a Station or a Port).",
            "play": f"{name}: enter a ship, move a ship, take Dakalio or place an asteroid.",
        }
        phase = "play" if state.stage == "play" else "setup"
        return Phase(phase, actor, prompts[state.stage], state.stage, state.game)

    def legal_actions(self, state: State) -> Iterator[Action]:
        make = Action.make
        board = board_of(state)
        if state.stage == "between":
            yield make("next_game")
            return
        if state.stage == "over":
            return
        if state.stage == "portals":
            yield make("portals", use=True)
            yield make("portals", use=False)
        elif state.stage == "portal":
            yield from (make("portal", at=s) for s in sorted(board.spots) if _placeable(state, s, "portal"))
        actor = state.actor
        assert actor is not None
        if state.stage in ("asteroid", "play") and state.asteroids_left[actor]:
            yield from (make("asteroid", at=s) for s in sorted(board.spots) if _placeable(state, s, "asteroid"))
        if state.stage == "play":
            yield from _turn_actions(state, actor)
            yield make("resign")

    def _check(self, state: State, action: Action) -> None:
        self._handler(state, action)(state, action)

    def _apply(self, state: State, action: Action) -> tuple[State, list[Event]]:
        return self._handler(state, action)(state, action)

    def _handler(self, state: State, action: Action) -> Handler:
        """The rule for an action, if the game is at a stage where that action belongs."""
        handler = handler_for(HANDLERS, self.title, action)
        if state.stage not in STAGES[action.type]:
            raise IllegalAction(f"{_what(action.type)} is not possible now. {self.phase(state).prompt}")
        return handler

    def layout(self, state: State) -> Layout:
        stacks: dict[str, list[str]] = {}
        for base in state.crystals:
            stacks.setdefault(base, []).append(f"{crystal_at(state, base)}-dakalio")
        for spot in state.portals:
            stacks.setdefault(spot, []).append("portal")
        for spot in state.asteroids:
            stacks.setdefault(spot, []).append("asteroid")
        for spot, ship in state.ships.items():
            stacks.setdefault(spot, []).append(f"ship-{ship.owner}")
            if ship.dakalio:
                stacks[spot].append(f"{ship.dakalio}-dakalio")
        return {site: tuple(pieces) for site, pieces in sorted(stacks.items())}

    def ledger(self, state: State) -> Ledger:
        players = {}
        for p in state.players:
            mine = [s for s in state.ships.values() if s.owner == p]
            players[p] = {
                "reserve": state.reserve[p],
                "inside": sum(1 for s in mine if not s.delivered),
                "delivered": sum(1 for s in mine if s.delivered),
                "captured": state.captured[p],
                "dakalio_carried": sum(1 for s in mine if s.dakalio and not s.delivered),
                "dakalio_delivered": sum(1 for s in mine if s.delivered),
                "dakalio_taken": held(state, p),
                "asteroids_left": state.asteroids_left[p],
                "games_won": state.winners.count(p),
            }
        board = board_of(state)
        table = {
            "mode": state.options.mode,
            "game": state.game,
            "first": state.first,
            "portals": state.use_portals,
            "red_dakalio_on_bases": sum(1 for b in state.crystals if b != board.blue_base),
            "blue_dakalio_on_bases": sum(1 for b in state.crystals if b == board.blue_base),
            "match_score": {p: state.winners.count(p) for p in state.players},
            "game_winners": list(state.winners),
            "deliveries_to_win": DELIVERIES_TO_WIN,
        }
        return {"players": players, "table": table}

    def outcome(self, state: State) -> Outcome | None:
        if state.result is None:
            return None
        return Outcome("won", (state.winners[-1],), state.reason)


def _what(action_type: str) -> str:
    return {"next_game": "Starting the next game", "portals": "Deciding on portals"}.get(
        action_type, f"The action {action_type!r}"
    )


def _placeable(state: State, spot: str, piece: str) -> bool:
    try:
        placing.place_check(state, spot, piece)
    except IllegalAction:
        return False
    return True


def _turn_actions(state: State, actor: str) -> Iterator[Action]:
    make = Action.make
    board = board_of(state)
    if state.reserve[actor]:
        reachable = {to for found in play.entries(state).values() for to in found}
        yield from (make("enter", to=to) for to in sorted(reachable))
    for spot in sorted(state.ships):
        ship = state.ships[spot]
        if ship.owner != actor or ship.delivered:
            continue
        for to in sorted(destinations(ship_routes(state, spot))):
            yield make("move", **{"from": spot, "to": to})
        if (spot in board.stations or spot in board.ports) and not ship.dakalio and held(state, actor) < 2:
            base = board.served_by[spot]
            blue_waits = base == board.blue_base and len(state.crystals) > 1
            if base in state.crystals and not blue_waits:
                yield make("dakalio", at=spot)


GAME = Dakalio()
