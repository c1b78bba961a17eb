"""How the rules name things to players."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.rules.periorbis.datafiles import Card, ShipCard
from companion.rules.periorbis.state import State, data
from companion.rules.words import a as a
from companion.rules.words import plural as plural

ROLE_NAMES = {
    "basic": "basic employee",
    "agent": "specialist agent",
    "captain": "specialist captain",
    "engineer": "specialist engineer",
    "scientist": "specialist scientist",
    "miner": "specialist miner",
}


def who(player: str) -> str:
    return player.capitalize()


def employee(slot: int) -> str:
    return f"employee {slot}"


def place(where: str) -> str:
    """ "the HQ", "storage", or an asteroid's name."""
    if where in ("hq", "storage"):
        return "the HQ" if where == "hq" else "the HQ storage"
    return where.capitalize()


def money(n: int) -> str:
    """ "1 credit", "12 credits"."""
    return plural(n, "credit")


def vp(n: int) -> str:
    return plural(n, "victory point")


def employees_words(employees: dict[str, Any], words: Callable[[Any], str]) -> str:
    """The books' employees by HQ slot: each one's role and where the disc stands ("2: engineer at HQ"); the card
    numbers stay out (a starting employee's card has none printed). `words` names a site."""
    if not employees:
        return "none"
    said = []
    for slot, hired in employees.items():
        where = hired.get("where", "hq")
        at = "at HQ" if where == "hq" else f"on {words(where)}"
        acted = ", has acted" if hired.get("acted") else ""
        said.append(f"{slot}: {hired.get('role', 'employee')} {at}{acted}")
    return "; ".join(said)


def card_name(card: Card) -> str:
    """An employee card as printed: its role, then its number ("specialist miner no. 17")."""
    return f"{ROLE_NAMES[card.role]} no. {card.number}"


def ship_level(state: State, ship_id: str) -> int:
    return next((i + 1 for i, deck in enumerate(data(state).ship_decks) if any(c.id == ship_id for c in deck)), 1)


def ship_card_words(state: State, ship: ShipCard) -> str:
    """A trading ship card by what is printed on it, for the table to find it among its cards."""
    sizes = [str(row.size) for row in ship.rows]
    rows = " and ".join([", ".join(sizes[:-1]), sizes[-1]] if len(sizes) > 1 else sizes)
    return (
        f"level {ship_level(state, ship.id)} ship paying {ship.price} a crate, {ship.spaces} spaces "
        f"({ship.minimum} to leave), contracts of {rows} crates"
    )


def ship_name(state: State, ship_id: str) -> str:
    """A trading ship in orbit as players tell it from the others there: its level and standard price ("level 1
    ship paying 8 a crate"), with its spaces or its place in the row where another ship shares them."""
    cards = data(state).ships
    ship = cards[ship_id]
    name = f"level {ship_level(state, ship_id)} ship paying {ship.price} a crate"
    alike = [
        s.card
        for s in state.ships
        if s.card != ship_id
        and ship_level(state, s.card) == ship_level(state, ship_id)
        and cards[s.card].price == ship.price
    ]
    if alike and all(cards[other].spaces != ship.spaces for other in alike):
        return f"{name}, {ship.spaces} spaces"
    if alike:
        place = next((i for i, s in enumerate(state.ships) if s.card == ship_id), len(state.ships))
        return f"{name} ({_ORDINALS[min(place, len(_ORDINALS) - 1)]} in orbit)"
    return name


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh")


def pool_words(pool: list[dict[str, Any]], words: Callable[[Any], str]) -> str:
    """The books' employee pool: each card by its role and number as printed, with its price."""
    return "; ".join(f"{offer['name']}, {money(offer['price'])}" for offer in pool) or "none"


def ships_words(ships: list[dict[str, Any]], words: Callable[[Any], str]) -> str:
    """The books' trading ships in orbit by their names, with their crates against the minimum that sends them."""
    return "; ".join(f"{ship['name']}: {ship['crates']} of {ship['minimum']} crates" for ship in ships) or "none"


def contracts_words(contracts: list[dict[str, Any]], words: Callable[[Any], str]) -> str:
    """The books' contracts: each by its row and the ship's name, with the crates supplied and any bonus."""
    said = []
    for c in contracts:
        bonus = f", bonus {c['bonus']}" if c.get("bonus") else ""
        said.append(f"row {c['row']} of the {c['name']}, {plural(c['crates'], 'crate')}{bonus}")
    return "; ".join(said) or "none"
