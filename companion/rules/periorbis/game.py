"""Periorbis as a rules engine: the contract of companion.rules.engine over the modules beside this one."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from companion.codec import Maybe, text, whole
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
    handler_for,
    read_option_words,
)
from companion.rules.engine import read_options as _read_options
from companion.rules.periorbis import agents, draws, engineering, labour, transport, turns
from companion.rules.periorbis.datafiles import ORES, TOP_CARD_NUMBER
from companion.rules.periorbis.staff import can_still_pay
from companion.rules.periorbis.state import (
    DEVELOP_COST,
    Options,
    State,
    acting_order,
    card,
    data,
    open_slots,
    reach,
    top_number,
    wage_bill,
    wages_due,
)
from companion.rules.periorbis.state import material as read_material
from companion.rules.periorbis.text import (
    card_name,
    contracts_words,
    employees_words,
    money,
    plural,
    pool_words,
    ship_card_words,
    ship_name,
    ships_words,
    who,
)
from companion.rules.rng import Rng

HANDLERS: dict[str, Handler] = {
    "hire": turns.hire,
    "pass": turns.pass_hire,
    "build": engineering.build,
    "develop": engineering.develop,
    "upgrade_fleet": engineering.upgrade_fleet,
    "upgrade_drive": engineering.upgrade_drive,
    "sign": agents.sign,
    "sell_ore": agents.sell_ore,
    "transport": transport.transport,
    "carry": transport.carry,
    "ship_ore": transport.ship_ore,
    "research": labour.research,
    "sell_research": labour.sell_research,
    "mine": labour.mine,
    "end_turn": turns.end_turn,
    "bureaucracy": turns.bureaucracy,
    "score": turns.score_game,
    "reveal": draws.reveal,
}
# Each action's arguments (engine.Game.actions): employees by HQ slot, counts as bounded whole numbers.
NAME = text()
EMPLOYEE = whole(1, 7)
COUNT = whole(1, 99)
CARD = whole(0, TOP_CARD_NUMBER)
ARGS: dict[str, dict[str, Any]] = {
    "hire": {"card": CARD, "slot": whole(1, 7)},
    "pass": {},
    "build": {"employee": EMPLOYEE, "asteroid": NAME},
    "develop": {"employee": EMPLOYEE, "slot": whole(1, 7)},
    "upgrade_fleet": {"employee": EMPLOYEE},
    "upgrade_drive": {"employee": EMPLOYEE},
    "sign": {"employee": EMPLOYEE, "ship": NAME, "row": whole(1, 9)},
    "sell_ore": {"employee": EMPLOYEE, "crates": COUNT},
    "transport": {"employee": EMPLOYEE},
    "carry": {"employee": EMPLOYEE, "to": NAME},
    "ship_ore": {"from": NAME, "to": NAME, "crates": COUNT},
    "research": {"employee": EMPLOYEE},
    "sell_research": {"employee": EMPLOYEE, "data": COUNT},
    "mine": {"employee": EMPLOYEE, "ore": NAME},
    "end_turn": {},
    "bureaucracy": {},
    "score": {},
    "reveal": {"ship": Maybe(NAME), "card": Maybe(CARD)},
}
# Actions that add cargo to an open Transport Cargo action; anything else closes it.
CARGO = frozenset({"carry", "ship_ore"})


# The table's facts (engine.Game): a folder of the table's own data files; the books' labels and the employees said
# by role and place.
DATA = {"data": DataOption("folder")}
LABELS = {
    "vp": "Victory points",
    "hq_slots": "HQ slots",
    "top_employee": None,
    "order": "Turn order",
    "fleet_used": "Fleet used",
    "wages_due": "Wages due",
}
SHOWN = {"employees": employees_words, "pool": pool_words, "ships": ships_words, "contracts": contracts_words}


class Periorbis(Game[State]):
    name = "periorbis"
    title = "Periorbis"
    min_players = 2
    max_players = 6
    state_type = State
    # The sensed board is the orbit track (the turn marker) and the asteroid bases (employee discs): an employee
    # carried to or from a base, and the bureaucracy moving the turn marker. All else is declared on a phone.
    marks: ClassVar[Mapping[str, str]] = {
        "base": "B",
        "disc1": "1",
        "disc2": "2",
        "disc3": "3",
        "disc4": "4",
        "disc5": "5",
        "turn-marker": "T",
    }
    board_moves = frozenset({"carry", "bureaucracy"})
    actions = ARGS
    data_options = DATA
    option_words = read_option_words(Path(__file__).with_name("options.json"))
    ledger_labels = LABELS
    ledger_shown = SHOWN

    def setup(self, players: Sequence[str], options: Mapping[str, Any], seed: int) -> State:
        opts = _read_options(Options, options)
        if not self.min_players <= len(players) <= self.max_players:
            raise SetupError(f"players: Periorbis takes 2 to 6 players, got {len(players)}")
        if len(set(players)) != len(players) or not all(isinstance(p, str) and p.isidentifier() for p in players):
            raise SetupError("players: each player needs a different one-word name (a colour)")
        found = read_material(opts.data)  # the data, read now and never again: a bad file is a one-line error
        return turns.new_game(players, opts, found, Rng.seeded(seed))

    def counted(self, state: State, phase: Phase) -> str:
        """The turn marker on the orbit track: turn 3 of 12 (of 6 in the shorter game)."""
        return f"Turn {phase.round} of {turns.turns(state)}" if phase.round else ""

    def phase(self, state: State) -> Phase:
        if state.stage == "over":
            return Phase("over", None, f"The game is over: {state.reason}.", round=state.turn)
        if state.owed:
            left = plural(len(state.owed), "card")
            prompt = f"Draw {draws.A_CARD[state.owed[0]]} and say which it is ({left} to draw)."
            return Phase("draw", None, prompt, "reveal", state.turn)
        if state.stage == "bureaucracy" and state.turn >= turns.turns(state):
            prompt = "Last bureaucracy: every trading ship still in orbit is scored and the game ends; say so (score)."
            return Phase("bureaucracy", None, prompt, "score", state.turn)
        if state.stage == "bureaucracy":
            prompt = (
                "Bureaucracy: ships that are full enough leave, new ships and employees arrive, the turn marker moves."
            )
            return Phase("bureaucracy", None, prompt, "bureaucracy", state.turn)
        player = acting_order(state)[state.seat]
        if state.stage == "hire":
            return Phase(
                "hire", player, f"{who(player)}: hire one employee from the pool, or pass.", "hire", state.turn
            )
        assert state.active is not None
        if state.active.captain is not None:
            prompt = f"{who(player)}: say what employee {state.active.captain} carries, or act with another employee."
            return Phase("actions", player, prompt, "transport", state.turn)
        prompt = f"{who(player)}: act with your employees one at a time, then end your turn and pay wages."
        return Phase("actions", player, prompt, "act", state.turn)

    def legal_actions(self, state: State) -> Iterator[Action]:
        return (action for action in _candidates(state) if self.is_legal(state, action))

    def _check(self, state: State, action: Action) -> None:
        self._apply(state, action)

    def _apply(self, state: State, action: Action) -> tuple[State, list[Event]]:
        handler = handler_for(HANDLERS, self.title, action)
        if state.owed and action.type != "reveal":
            raise IllegalAction(f"first say which {draws.NOUNS[state.owed[0]]} the table drew")
        if action.type not in CARGO and state.active is not None and state.active.captain is not None:
            state = replace(state, active=replace(state.active, captain=None, carried=0))
        state, events = handler(state, action)
        # Cargo moves no one who acts, but may carry off the employee or the ore that would have paid the wages.
        if action.type in CARGO and not can_still_pay(state):
            assert state.active is not None
            raise IllegalAction(
                f"{who(state.active.player)} could not then pay the {money(wages_due(state))} of wages due at the end "
                "of the turn: sell research or ore first"
            )
        return state, events

    def hidden(self, state: State) -> Any:
        return state.rng, state.ship_decks, state.employee_decks  # the decks shuffled at setup: their order is hidden

    def conceal(self, state: State, rng: Rng) -> State:
        ships, employees = [], []
        for deck in state.ship_decks:
            shuffled, rng = rng.shuffled(deck)
            ships.append(shuffled)
        for cards in state.employee_decks:
            dealt, rng = rng.shuffled(cards)
            employees.append(dealt)
        return replace(state, rng=rng, ship_decks=tuple(ships), employee_decks=tuple(employees))

    def layout(self, state: State) -> Layout:
        stacks: dict[str, list[str]] = {f"turn-{state.turn}": ["turn-marker"]}
        for player in state.players:
            books = state.books[player]
            for asteroid, base in books.bases.items():
                stack = stacks.setdefault(f"{asteroid}-{base.slot}", [])
                stack.append(f"base-{player}")
                for slot, hired in sorted(books.employees.items(), key=lambda kv: int(kv[0])):
                    if hired.where == asteroid:
                        stack.append(f"disc{slot}-{player}")
        return {site: tuple(pieces) for site, pieces in stacks.items()}

    def said(self, state: State, key: str, value: Any) -> str | None:
        """An employee card by its role and number, a trading ship by its level and price (in orbit) or by what its
        card shows (drawn by the table)."""
        if key == "card" and isinstance(value, int) and value in data(state).cards:
            return card_name(card(state, value))
        if key in ("ship", "to") and isinstance(value, str) and value in data(state).ships:
            if any(ship.card == value for ship in state.ships):
                return f"the {ship_name(state, value)}"
            return ship_card_words(state, data(state).ships[value])
        return None

    def ledger(self, state: State) -> Ledger:
        players = {}
        position = {p: i + 1 for i, p in enumerate(state.order)}
        for name in state.players:
            books = state.books[name]
            acted = state.active.acted if state.active is not None and state.active.player == name else ()
            contracts = [
                {
                    "ship": ship.card,
                    "name": ship_name(state, ship.card),
                    "row": row + 1,
                    "crates": c.crates,
                    "bonus": c.bonus,
                }
                for ship in state.ships
                for row, c in enumerate(ship.rows)
                if c is not None and c.player == name
            ]
            players[name] = {
                "credits": books.credits,
                "vp": books.vp,
                "wages": wage_bill(state, name),
                "wages_due": wages_due(state) if acted else 0,
                "research": books.research,
                "storage": books.storage,
                "crates": {asteroid: base.crates for asteroid, base in books.bases.items()},
                "bases": sorted(books.bases),
                "fleet": books.fleet,
                "fleet_used": state.active.cargo if acted else 0,
                "drive": books.drive,
                "hq_slots": list(open_slots(books, data(state).setup.hq_open)),
                "employees": {
                    slot: {
                        "card": e.card,
                        "role": card(state, e.card).role,
                        "where": e.where,
                        "acted": int(slot) in acted,
                    }
                    for slot, e in books.employees.items()
                },
                "top_employee": top_number(state, name),
                "contracts": contracts,
                "order": position[name],
            }
        table = {
            "turn": state.turn,
            "turns": turns.turns(state),
            "stage": state.stage,
            "reachable": reach(state) if state.stage != "over" else {},
            "ore": {name: {o: getattr(ore, o) for o in ORES} for name, ore in state.ore.items()},
            "ships": [
                {
                    "ship": s.card,
                    "name": ship_name(state, s.card),
                    "crates": s.crates,
                    "minimum": data(state).ships[s.card].minimum,
                }
                for s in state.ships
            ],
            "pool": [
                {"card": o.card, "name": card_name(card(state, o.card)), "price": turns.hire_price(state, o)}
                for o in state.pool
            ],
            "acting_order": list(acting_order(state)),
            "employee_cards_left": sum(len(d) for d in state.employee_decks),
            "ship_cards_left": sum(len(d) for d in state.ship_decks),
            "cards_to_draw": list(state.owed),
        }
        return {"players": players, "table": table}

    def outcome(self, state: State) -> Outcome | None:
        if state.stage != "over":
            return None
        return Outcome("won" if len(state.winners) == 1 else "drawn", state.winners, state.reason)


def _candidates(state: State) -> Iterator[Action]:
    """Every action worth checking, each kind with each argument the state makes possible."""
    make = Action.make
    if state.owed:
        yield from draws.reveals(state)
        return
    if state.stage == "bureaucracy":
        yield make("score" if state.turn >= turns.turns(state) else "bureaucracy")
        return
    if state.stage == "hire":
        yield make("pass")
        player = acting_order(state)[state.seat]
        for offer in state.pool:
            for slot in open_slots(state.books[player], data(state).setup.hq_open):
                yield make("hire", card=offer.card, slot=slot)
        return
    if state.stage != "actions" or state.active is None:
        return
    yield make("end_turn")
    turn = state.active
    books = state.books[turn.player]
    if turn.captain is not None:
        for slot in books.employees:
            for to in ("hq", *books.bases):
                yield make("carry", employee=int(slot), to=to)
        for source in ("storage", *books.bases):
            have = books.storage if source == "storage" else books.bases[source].crates
            for to in ("storage", *(s.card for s in state.ships)):
                for crates in range(1, min(have, books.fleet - turn.cargo) + 1):
                    yield make("ship_ore", crates=crates, to=to, **{"from": source})
    for slot_text, hired in books.employees.items():
        slot = int(slot_text)
        if slot in turn.acted:
            continue
        if hired.where != "hq":
            for ore in ORES:
                yield make("mine", employee=slot, ore=ore)
            continue
        skills = card(state, hired.card).skills
        for asteroid in state.ore:
            yield make("build", employee=slot, asteroid=asteroid)
        for hq_slot in DEVELOP_COST:
            yield make("develop", employee=slot, slot=hq_slot)
        yield make("upgrade_fleet", employee=slot)
        yield make("upgrade_drive", employee=slot)
        for ship in state.ships:
            for row in range(1, len(ship.rows) + 1):
                yield make("sign", employee=slot, ship=ship.card, row=row)
        for crates in range(1, min(skills.sell, books.storage) + 1):
            yield make("sell_ore", employee=slot, crates=crates)
        yield make("transport", employee=slot)
        yield make("research", employee=slot)
        for amount in range(1, min(skills.research, books.research) + 1):
            yield make("sell_research", employee=slot, data=amount)


GAME = Periorbis()
