"""The turn's frame: setup, the hire employees phase, the end of a player's actions, and the bureaucracy phase."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from companion.rules.engine import Action, Event, IllegalAction
from companion.rules.periorbis import draws, order
from companion.rules.periorbis.staff import whole
from companion.rules.periorbis.state import (
    HIRE_MULTIPLIERS,
    Books,
    Employee,
    Material,
    Offer,
    Options,
    Ship,
    State,
    Turn,
    acting_order,
    card,
    data,
    open_slots,
    ship_card,
    top_number,
    turns,
    wage_bill,
    wages_due,
    with_books,
)
from companion.rules.periorbis.text import card_name, employee, money, plural, ship_name, vp, who
from companion.rules.rng import Rng


def new_game(players: Sequence[str], options: Options, material: Material, rng: Rng) -> State:
    facts = material.data
    count = 6 if options.length == "short" else len(facts.asteroids)
    ore = {a.name: a.ore for a in facts.asteroids[:count]}
    employee_decks = []
    for deck in facts.decks:
        shuffled, rng = rng.shuffled([c.number for c in deck])
        employee_decks.append(shuffled)
    ship_decks = []
    for deck in facts.ship_decks:
        shuffled_ships, rng = rng.shuffled([s.id for s in deck])
        ship_decks.append(shuffled_ships)
    team = {str(i): Employee(number) for i, number in enumerate(facts.setup.start_team, start=1)}
    books = {p: Books(facts.setup.credits, team, fleet=facts.setup.fleet) for p in players}
    state = State(
        options=options,
        material=material,
        players=tuple(players),
        # The first player named acts first: they sit furthest from position 1 of the player order track.
        order=tuple(reversed(players)),
        turn=1,
        stage="actions",
        seat=0,
        books=books,
        ore=ore,
        ships=(),
        ship_decks=tuple(ship_decks),
        pool=(),
        employee_decks=tuple(employee_decks),
        rng=rng,
    )
    state, _ = draws.fill_ships(state)
    return replace(state, active=Turn(acting_order(state)[0]))


def hiring_player(state: State) -> str:
    if state.stage != "hire":
        raise IllegalAction(f"hiring is done in the hire employees phase; it is the {state.stage} phase now")
    return acting_order(state)[state.seat]


def hire_price(state: State, offer: Offer) -> int:
    return offer.multiplier * card(state, offer.card).wage


def hire(state: State, action: Action) -> tuple[State, list[Event]]:
    player = hiring_player(state)
    number = action.get("card")
    offer = next((o for o in state.pool if o.card == number), None)
    if offer is None:
        pool = ", ".join(str(o.card) for o in state.pool) or "empty"
        raise IllegalAction(f"employee card {number!r} is not in the pool (pool: {pool})")
    slot = whole(action, "slot")
    books = state.books[player]
    if slot not in open_slots(books, data(state).setup.hq_open):
        raise IllegalAction(f"HQ slot {slot} is not open: develop it first")
    old = books.employees.get(str(slot))
    if old is not None and old.where != "hq":
        raise IllegalAction(f"{employee(slot)} is on a mining base and cannot be replaced")
    price = hire_price(state, offer)
    if books.credits < price:
        hired = card_name(card(state, offer.card))
        raise IllegalAction(f"{who(player)} needs {money(price)} to hire the {hired}; has {books.credits}")
    books = replace(
        books, credits=books.credits - price, employees={**books.employees, str(slot): Employee(offer.card)}
    )
    state = replace(with_books(state, player, books), pool=tuple(o for o in state.pool if o is not offer))
    replaced = " (the employee there leaves the game)" if old is not None else ""
    hired = card_name(card(state, offer.card))
    text = f"{who(player)} hires the {hired} into HQ slot {slot} for {money(price)}{replaced}."
    state, events = _next_hirer(state)
    return state, [Event("hire", text, {"player": player, "card": offer.card, "slot": slot, "price": price}), *events]


def pass_hire(state: State, action: Action) -> tuple[State, list[Event]]:
    player = hiring_player(state)
    state, events = _next_hirer(state)
    return state, [Event("pass", f"{who(player)} hires nobody this turn.", {"player": player}), *events]


def _next_hirer(state: State) -> tuple[State, list[Event]]:
    if state.seat + 1 < len(state.players):
        return replace(state, seat=state.seat + 1), []
    # Unhired cards get cheaper: 5x -> 4x -> 3x, then leave the pool.
    last = HIRE_MULTIPLIERS[-1]
    pool = tuple(replace(o, multiplier=o.multiplier - 1) for o in state.pool if o.multiplier > last)
    events = [Event("pool", f"The employee pool gets cheaper; {plural(len(pool), 'card')} stay.", {})]
    if state.turn == 2:
        state, changed = order.update(state)
        events += changed
    state = replace(state, pool=pool, stage="actions", seat=0)
    state = replace(state, active=Turn(acting_order(state)[0]))
    return state, events


def end_turn(state: State, action: Action) -> tuple[State, list[Event]]:
    if state.stage != "actions" or state.active is None:
        raise IllegalAction(f"there is no player's turn to end in the {state.stage} phase")
    player = state.active.player
    due = wages_due(state)
    books = state.books[player]
    if books.credits < due:
        raise IllegalAction(
            f"{who(player)} owes {money(due)} of wages and has {books.credits}: sell research data or ore with an "
            "employee who has not acted, then end the turn"
        )
    state = with_books(state, player, replace(books, credits=books.credits - due))
    text = f"{who(player)} pays {money(due)} of wages for {plural(len(state.active.acted), 'employee')}."
    events = [Event("wages", text, {"player": player, "wages": due})]
    if state.seat + 1 < len(state.players):
        seat = state.seat + 1
        return replace(state, seat=seat, active=Turn(acting_order(state)[seat])), events
    events.append(Event("phase", "Bureaucracy: trading ships leave, new ships and employees arrive.", {}))
    return replace(state, stage="bureaucracy", seat=0, active=None), events


def score(state: State, ship: Ship) -> tuple[State, list[Event]]:
    """Pay and score every contract on a ship that leaves (or stays to the end of the game)."""
    terms, name = ship_card(state, ship), ship_name(state, ship.card)
    events = []
    for row, contract in enumerate(ship.rows):
        if contract is None:
            continue
        size = terms.rows[row].size
        credits = contract.crates * (terms.price + contract.bonus)
        gained = min(contract.crates, size)
        lost = max(0, size - contract.crates - contract.bonus)
        if contract.crates == 0:
            lost = max(1, lost)
        books = state.books[contract.player]
        state = with_books(
            state, contract.player, replace(books, credits=books.credits + credits, vp=books.vp + gained - lost)
        )
        text = (
            f"{who(contract.player)} supplied {plural(contract.crates, 'crate')} on row {row + 1} of the {name}: "
            f"{money(credits)}, {vp(gained)} gained and {lost} lost."
        )
        data_ = {"player": contract.player, "ship": ship.card, "row": row + 1, "credits": credits, "vp": gained - lost}
        events.append(Event("contract", text, data_))
    return state, events


def _ships_leave(state: State, action: Action, final: bool) -> tuple[State, list[Event]]:
    """Ships that are full enough leave (every ship, after the last turn) and their contracts are scored."""
    if state.stage != "bureaucracy":
        raise IllegalAction(f"the bureaucracy comes after every player's actions; it is the {state.stage} phase now")
    last = state.turn >= turns(state)
    if last and not final:
        raise IllegalAction(
            f"turn {state.turn} is the last: the turn marker stays, and the game is scored (score) on a phone"
        )
    if final and not last:
        raise IllegalAction(f"the game is scored after turn {turns(state)}; this bureaucracy moves the turn marker")
    events: list[Event] = []
    staying = []
    for ship in state.ships:
        if final or ship.crates >= ship_card(state, ship).minimum:
            text = f"The {ship_name(state, ship.card)} leaves."
            events.append(Event("ship-leaves", text, {"ship": ship.card}))
            state, scored = score(state, ship)
            events += scored
        else:
            staying.append(ship)
    return replace(state, ships=tuple(staying)), events


def score_game(state: State, action: Action) -> tuple[State, list[Event]]:
    """The last turn's bureaucracy: every ship still in orbit is scored, full or not, and the game ends. Nothing
    moves on the board, so the table declares it on a phone."""
    state, events = _ships_leave(state, action, final=True)
    return finish(state, events)


def bureaucracy(state: State, action: Action) -> tuple[State, list[Event]]:
    state, events = _ships_leave(state, action, final=False)
    state, drawn = draws.fill_ships(state)
    events += drawn
    state, drawn = draws.fill_pool(state)
    events += drawn
    if state.turn >= 2:
        state, changed = order.update(state)
        events += changed
    state = replace(state, turn=state.turn + 1, stage="hire", seat=0)
    events.append(Event("turn", f"The turn marker moves to turn {state.turn}; hire employees.", {"turn": state.turn}))
    return state, events


def final_key(state: State, player: str) -> tuple[int, int, int, int]:
    books = state.books[player]
    return (books.vp, books.credits, wage_bill(state, player), top_number(state, player))


def finish(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    best = max(final_key(state, p) for p in state.players)
    winners = tuple(p for p in state.players if final_key(state, p) == best)
    names = " and ".join(who(p) for p in winners)
    reason = f"{names} {'wins' if len(winners) == 1 else 'share the win'} with {vp(best[0])} and {money(best[1])}"
    state = replace(state, stage="over", winners=winners, reason=reason)
    events.append(Event("game-over", f"The game is over: {reason}.", {"winners": list(winners)}))
    return state, events
