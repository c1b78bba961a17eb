"""The counter mix: every kind of unit with its box quantity, cost and ratings (the rulebook's unit table)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Domain = Literal["land", "space", "structure"]


@dataclass(frozen=True)
class Kind:
    name: str
    qty: int  # counters of this kind each side has in the box
    cost: int
    attack: int
    defense: int
    speed: int
    domain: Domain


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind("army", 10, 2, 2, 2, 1, "land"),
        Kind("mech_infantry", 3, 3, 2, 2, 3, "land"),
        Kind("marines", 6, 3, 2, 1, 1, "land"),
        Kind("armor", 2, 4, 3, 3, 2, "land"),
        Kind("artillery", 2, 3, 2, 1, 1, "land"),
        Kind("air_force", 2, 3, 2, 1, 5, "land"),
        Kind("militia", 6, 1, 1, 1, 1, "land"),
        Kind("transport", 6, 3, 0, 1, 2, "space"),
        Kind("destroyer", 6, 4, 2, 1, 4, "space"),
        Kind("light_cruiser", 2, 6, 3, 2, 3, "space"),
        Kind("missile_cruiser", 1, 8, 3, 2, 3, "space"),
        Kind("heavy_cruiser", 2, 8, 4, 3, 3, "space"),
        Kind("battle_cruiser", 1, 10, 5, 4, 3, "space"),
        Kind("battleship", 2, 12, 6, 6, 2, "space"),
        Kind("planet_defense", 4, 8, 4, 3, 0, "structure"),
        Kind("factory", 16, 5, 0, 1, 0, "structure"),
    )
}
LAND = tuple(k for k, v in KINDS.items() if v.domain == "land")
SPACE = tuple(k for k, v in KINDS.items() if v.domain == "space")
STRUCTURES = tuple(k for k, v in KINDS.items() if v.domain == "structure")
# Land units that cannot enter swamps or resource clusters.
HEAVY = frozenset({"mech_infantry", "armor", "artillery"})
TRANSPORT_CAPACITY = 3
AIR_RANGE = 5
START_POINTS = 50
PLANETS_TO_WIN = 6
