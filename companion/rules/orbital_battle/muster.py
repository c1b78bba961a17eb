"""Buying by numbers: a starting force (or a build phase's purchases) chosen as how many of each kind, placed by a
rule players can follow, and bought as the legal purchases one at a time (the engine's `buy`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from companion.boards.orbital_battle import planet_distance
from companion.rules.engine import Action, Event, IllegalAction, Muster, MusterKind
from companion.rules.orbital_battle import build
from companion.rules.orbital_battle.geo import planet_map
from companion.rules.orbital_battle.state import State, actor, next_number, phase_name
from companion.rules.orbital_battle.text import KIND_NAMES, plural
from companion.rules.orbital_battle.units import KINDS

Apply = Callable[[State, Action], tuple[State, list[Event]]]
# The order purchases are placed in: structures and air forces first (they have the fewest places), heavy units
# before the units that may stand anywhere, militia last among land units (they never leave), then the ships.
PLACING = (
    "planet_defense",
    "factory",
    "air_force",
    "armor",
    "artillery",
    "mech_infantry",
    "army",
    "marines",
    "militia",
    "transport",
    "destroyer",
    "light_cruiser",
    "missile_cruiser",
    "heavy_cruiser",
    "battle_cruiser",
    "battleship",
)
# A starting force that can fight, carry troops and land them (49 of the rulebook's 50 points), bought in this
# order, one at a time round the list, while points, counters and room last.
OPENING = (
    ("transport", 2),
    ("army", 4),
    ("marines", 2),
    ("destroyer", 2),
    ("armor", 1),
    ("light_cruiser", 1),
    ("mech_infantry", 1),
    ("artillery", 1),
    ("air_force", 1),
    ("militia", 2),
)


def offer(state: State) -> Muster | None:
    """What the player to act may buy by numbers now: in the starting purchases and the build phase."""
    player = actor(state)
    if player is None or state.retreats or phase_name(state) not in ("deploy", "build"):
        return None
    points = state.points[player]
    kinds = []
    for kind in KINDS:  # as the unit table lists them: land units, ships, structures
        cost = KINDS[kind].cost
        left = KINDS[kind].qty - sum(u.owner == player and u.kind == kind for u in state.units)
        room = sum(1 for _ in build.placements(state, player, kind)) if next_number(state, player, kind) else 0
        kinds.append(MusterKind(kind, KIND_NAMES[kind], cost, min(left, room, points // cost)))
    suggested = _opening({k.kind: k.most for k in kinds}, points) if state.stage == "deploy" else {}
    kinds = [MusterKind(k.kind, k.name, k.cost, k.most, suggested.get(k.kind, 0)) for k in kinds]
    return Muster(points, tuple(k for k in kinds if k.most or k.suggested))


def _opening(most: Mapping[str, int], points: int) -> dict[str, int]:
    """The suggested force: OPENING's kinds in turn while they fit, then armies and militia with what is left."""
    chosen: dict[str, int] = {}
    wanted = [kind for kind, n in OPENING for _ in range(n)] + ["army"] * 10 + ["militia"] * 6
    for kind in wanted:
        cost = KINDS[kind].cost
        if cost <= points and chosen.get(kind, 0) < most.get(kind, 0):
            chosen[kind] = chosen.get(kind, 0) + 1
            points -= cost
    return chosen


def actions(apply: Apply, state: State, counts: Mapping[str, int]) -> tuple[Action, ...]:
    """The purchases that buy `counts`, in PLACING's order, each on the first place of its kind's preference (a
    land unit as near a starport as it may stand, so that it can board a transport; a ship or a structure on the
    first free place), each applied by the game's `apply` before the next is placed; IllegalAction naming what
    does not fit."""
    player = actor(state)
    if player is None or offer(state) is None:
        raise IllegalAction("units are bought by numbers in the build phase (and before the first turn)")
    unknown = [kind for kind in counts if kind not in KINDS]
    if unknown:
        raise IllegalAction(f"there is no unit called {unknown[0]!r} (units: {', '.join(KINDS)})")
    cost = sum(KINDS[kind].cost * n for kind, n in counts.items())
    if cost > state.points[player]:
        raise IllegalAction(
            f"that force costs {plural(cost, 'build point')}; {player.capitalize()} has {state.points[player]}"
        )
    bought: list[Action] = []
    for kind in PLACING:
        for i in range(counts.get(kind, 0)):
            sites = sorted(build.placements(state, player, kind), key=lambda site: _preference(state, kind, site))
            if not sites or next_number(state, player, kind) is None:
                raise IllegalAction(f"there is room or a counter for only {plural(i, KIND_NAMES[kind])} now")
            action = Action.make("buy", kind=kind, at=sites[0])
            state = apply(state, action)[0]
            bought.append(action)
    return tuple(bought)


def _preference(state: State, kind: str, site: str) -> tuple[int, str]:
    """A land unit's place by how far it stands from the nearest starport (militia, which never board, the
    farthest); anything else in site order."""
    if KINDS[kind].domain != "land" or not site.startswith("p"):
        return 0, site
    planet, hex_ = site[1:].split(":")
    ports = planet_map(state, planet).starports
    far = min(planet_distance(hex_, port) for port in ports)
    return (-far if kind == "militia" else far), site
