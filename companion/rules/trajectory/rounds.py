"""The round's flow: drawing cards, the infestors' crawl, the end of a turn, and everything orbiting."""

from __future__ import annotations

from dataclasses import replace

from companion.rules.engine import Action, Event, IllegalAction
from companion.rules.trajectory import infestors as crawl
from companion.rules.trajectory.movement import advance
from companion.rules.trajectory.state import (
    HABITATS_NEEDED,
    INFESTED_ALLOWED,
    Infestor,
    Pile,
    State,
    Turn,
    in_play,
    pile_size,
    station_at,
    supply_left,
    with_ship,
)
from companion.rules.trajectory.text import a, plural, where, who

Result = tuple[State, list[Event]]


def start_turn(state: State, index: int) -> State:
    """Hand the turn to the index-th player; with the draw pile gone there is nothing to draw."""
    return replace(state, stage="turn", turn=Turn(state.players[index], drawn=pile_size(state) == 0))


def draw(state: State, action: Action) -> Result:
    turn = state.turn
    if state.stage != "turn" or turn is None:
        raise IllegalAction(f"cards are drawn at the start of a player's turn, not in the {state.stage} phase")
    if pile_size(state) == 0:
        raise IllegalAction("the draw pile is gone: turns now start without drawing")
    if turn.drawn:
        raise IllegalAction(f"{who(turn.ship)} has already drawn this turn")
    index = next(i for i, pile in enumerate(state.deck) if pile.size)
    pile = state.deck[index]
    card, kind, rng = action.get("card"), action.get("infestor"), state.rng
    if card is None:
        # Drawing lazily from the pile's counts is the same chance as shuffling it: every unseen card is alike.
        pick, rng = rng.below(pile.size)
        card = "infestor" if pick < pile.infestors else "action"
        if card == "infestor":
            pick, rng = rng.below(sum(state.infestor_cards.values()))
            for kind, count in state.infestor_cards.items():  # noqa: B007 (kind is the result)
                if pick < count:
                    break
                pick -= count
    elif card == "action":
        if pile.actions < 1:
            raise IllegalAction(f"pile {index + 1} has no action cards left; the card drawn must be an infestor")
    elif card == "infestor":
        if pile.infestors < 1:
            raise IllegalAction(f"pile {index + 1} has no infestor cards left; the card drawn must be an action card")
        if state.infestor_cards.get(kind, 0) < 1:
            raise IllegalAction(
                f"say which infestor card was drawn: one of "
                f"{', '.join(k for k, n in state.infestor_cards.items() if n)}"
            )
    else:
        raise IllegalAction(f"a card is either an action card or an infestor card, not {card!r}")
    taken = Pile(pile.actions - (card == "action"), pile.infestors - (card == "infestor"))
    state = replace(
        state, rng=rng, deck=(*state.deck[:index], taken, *state.deck[index + 1 :]), turn=replace(turn, drawn=True)
    )
    if card == "action":
        ship = state.ships[turn.ship]
        state = with_ship(state, turn.ship, replace(ship, cards=ship.cards + 1))
        return state, [
            Event(
                "drew",
                f"{who(turn.ship)} draws an action card ({ship.cards + 1} in hand).",
                {"ship": turn.ship, "card": "action"},
            )
        ]
    state = replace(state, infestor_cards={**state.infestor_cards, kind: state.infestor_cards[kind] - 1})
    seat = crawl.seat_angles(len(state.players), state.options.seats)[state.players.index(turn.ship)]
    site = crawl.entry_point(seat)
    events = [
        Event(
            "drew",
            f"{who(turn.ship)} draws {a(kind)} infestor card: put {a(kind)} infestor on {where(site)}.",
            {"ship": turn.ship, "card": "infestor", "infestor": kind, "site": site},
        )
    ]
    return _arrive(state, Infestor(kind, kind, site), events)


def _arrive(state: State, infestor: Infestor, events: list[Event]) -> Result:
    """An infestor comes to a space: a trap there destroys it; its target planet there is infested."""
    station = station_at(state, infestor.site)
    if station is not None and station.kind == "trap":
        events.append(
            Event(
                "trapped",
                f"The infestor trap on {where(infestor.site)} destroys the {infestor.kind} "
                "infestor: take it off the board.",
                {"infestor": infestor.kind, "site": infestor.site},
            )
        )
        return state, events
    target = infestor.target
    if state.planets[target] == infestor.site and target not in state.infested:
        infestor = replace(infestor, settled=True)
        state = replace(state, infested=(*state.infested, target))
        events.append(
            Event(
                "infested",
                f"The {infestor.kind} infestor reaches the {target} planet: it is infested and no longer usable.",
                {"planet": target, "site": infestor.site},
            )
        )
    return replace(state, infestors=(*state.infestors, infestor)), events


def move_infestors(state: State, action: Action) -> Result:
    if state.stage != "infestors":
        raise IllegalAction(f"infestors move at the start of a round, not in the {state.stage} phase")
    # Targets are settled before anyone moves: an infestor whose planet is already lost heads for home.
    retargeted = [
        replace(i, target="home") if not i.settled and i.target in state.infested else i for i in state.infestors
    ]
    events: list[Event] = []
    state = replace(state, infestors=tuple(i for i in retargeted if i.settled))
    for infestor in retargeted:
        if infestor.settled:
            continue
        site = crawl.step(infestor, state.planets[infestor.target])
        events.append(
            Event(
                "infestor-moved",
                f"Move the {infestor.kind} infestor from {where(infestor.site)} to {where(site)}.",
                {"infestor": infestor.kind, "from": infestor.site, "to": site, "target": infestor.target},
            )
        )
        state, events = _arrive(state, replace(infestor, site=site), events)
    return start_turn(state, 0), events


def end_turn(state: State, action: Action) -> Result:
    turn = state.turn
    if state.stage != "turn" or turn is None:
        raise IllegalAction(f"there is no player's turn to end in the {state.stage} phase")
    if not turn.drawn:
        raise IllegalAction(f"{who(turn.ship)} must draw a card before ending the turn")
    index = state.players.index(turn.ship)
    events = [Event("turn-ended", f"{who(turn.ship)} ends the turn.", {"ship": turn.ship})]
    if pile_size(state) == 0 and not any(ship.cards for ship in state.ships.values()) and not deliveries_can_win(state):
        reason = "the draw pile is gone, every action card has been used, and deliveries alone cannot win"
        return finish(state, "lost", reason), events
    if index + 1 < len(state.players):
        return start_turn(state, index + 1), events
    return replace(state, stage="orbit", turn=None), events


def deliveries_can_win(state: State) -> bool:
    """Whether delivering provisions, which takes no card, could still win: enough habitats are built, and enough
    crates are left (aboard ships, in storage rings, or at home) to provision those still waiting for one."""
    habitats = [s for s in state.stations if s.kind == "habitat"]
    ready = sum(1 for s in habitats if s.provisioned)
    crates = supply_left(state, "provisions") + in_play(state, "provisions")
    return ready + min(len(habitats) - ready, crates) >= HABITATS_NEEDED[state.options.difficulty]


def concede(state: State, action: Action) -> Result:
    """The table gives up: with cards in hand the game could otherwise go on as long as the players hold them."""
    if state.stage == "over":
        raise IllegalAction("the game is over")
    ship = state.turn.ship if state.turn else None
    text = f"{who(ship)} concedes for the table." if ship else "The table concedes."
    return finish(state, "lost", "the players gave up"), [Event("conceded", text, {"ship": ship})]


def orbit(state: State, action: Action) -> Result:
    if state.stage != "orbit":
        raise IllegalAction(f"everything orbits at the end of a round, not in the {state.stage} phase")
    state = replace(
        state,
        ships={name: replace(ship, site=advance(ship.site)) for name, ship in state.ships.items()},
        planets={name: advance(site) for name, site in state.planets.items()},
        stations=tuple(replace(s, site=advance(s.site)) for s in state.stations),
        infestors=tuple(replace(i, site=advance(i.site)) for i in state.infestors),
        round=state.round + 1,
    )
    events = [
        Event(
            "orbited",
            "Everything orbits one space counter-clockwise: planets, ships, stations and "
            f"infestors. Round {state.round} begins.",
            {"round": state.round},
        )
    ]
    if any(not i.settled for i in state.infestors):
        return replace(state, stage="infestors", turn=None), events
    return start_turn(state, 0), events


def finish(state: State, result: str, reason: str) -> State:
    return replace(state, stage="over", turn=None, result=result, reason=reason)


def judge(state: State) -> State:
    """Win or loss the moment it happens: habitats provisioned, or too many planets infested."""
    if state.result is not None:
        return state
    difficulty = state.options.difficulty
    if "home" in state.infested:
        state = finish(state, "lost", "the home planet is infested")
    elif len(state.infested) > INFESTED_ALLOWED[difficulty]:
        state = finish(
            state,
            "lost",
            f"{len(state.infested)} planets are infested; {difficulty} allows {INFESTED_ALLOWED[difficulty]}",
        )
    else:
        ready = sum(1 for s in state.stations if s.kind == "habitat" and s.provisioned)
        if ready < HABITATS_NEEDED[difficulty]:
            return state
        state = finish(state, "won", f"{plural(ready, 'orbital habitat')} built and provisioned")
    return state
