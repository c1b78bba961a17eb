"""Combat: who may attack whom in each combat phase, the opposed roll with its modifiers, the result, retreats.

Space combat, bombardment and land combat are one procedure (the rulebook resolves them identically); they differ
in who may attack, the modifiers, and which results the attackers may ignore.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations
from typing import Any

from companion.boards.orbital_battle import planet_distance
from companion.rules.engine import Action, Event, IllegalAction
from companion.rules.orbital_battle.control import contested
from companion.rules.orbital_battle.geo import distance, near, planet_map, planets_beside, solid
from companion.rules.orbital_battle.movement import retreats as retreat_ends
from companion.rules.orbital_battle.state import (
    Retreat,
    State,
    Unit,
    actor,
    moved,
    on_planet,
    phase_name,
    removed,
    unit,
)
from companion.rules.orbital_battle.text import name, place, who
from companion.rules.orbital_battle.units import AIR_RANGE, KINDS

Result = tuple[State, list[Event]]
COMBAT_PHASES = ("space_combat", "bombard", "land_combat")


def line_clear(state: State, a: str, b: str) -> bool:
    """A missile cruiser's line of fire two hexes out: through the hex between, or along the edge between two
    hexes, never touching a planet or the star."""
    between = set(near(state, a)) & set(near(state, b))
    return not any(solid(state, s) for s in between)


def reach(state: State, attacker: Unit, target: Unit, phase: str) -> str | None:
    """How the attacker can strike the target in this phase: "adjacent", "ranged" (beyond the next hex) or None."""
    kind = attacker.kind
    if KINDS[kind].attack == 0 or attacker.owner == target.owner or attacker.site.startswith("in:"):
        return None
    if phase == "space_combat":
        if target.domain != "space" or target.site.startswith("in:"):
            return None
        if kind == "planet_defense":
            return "adjacent" if state.planets[attacker.planet or ""] in near(state, target.site) else None
        if attacker.domain != "space":
            return None
        gap = distance(state, attacker.site, target.site)
        if gap == 1:
            return "adjacent"
        if gap == 2 and kind == "missile_cruiser" and line_clear(state, attacker.site, target.site):
            return "ranged"
        return None
    if phase == "bombard":
        if attacker.domain != "space" or target.planet is None or attacker.uid in state.fought:
            return None
        return "adjacent" if target.planet in planets_beside(state, attacker.site) else None
    if attacker.domain != "land" or target.planet is None or target.planet != attacker.planet:
        return None
    gap = planet_distance(attacker.hex, target.hex)
    if kind == "air_force":
        return ("adjacent" if gap == 1 else "ranged") if gap <= AIR_RANGE else None
    hills = planet_map(state, attacker.planet).terrain[attacker.hex] == "hills"
    longest = (2 if kind == "artillery" else 1) + (1 if hills else 0)
    if gap > longest:
        return None
    return "adjacent" if gap == 1 else "ranged"


def attackers(state: State, player: str, phase: str) -> list[Unit]:
    """The player's units that may still attack in this phase: ships (and planet defenses) in space combat,
    ships in bombardment, land units in land combat; never cargo, never a unit with no attack rating."""

    def fits(u: Unit) -> bool:
        if phase == "land_combat":
            return u.domain == "land"
        return u.domain == "space" or (phase == "space_combat" and u.kind == "planet_defense")

    return [
        u
        for u in state.units
        if u.owner == player
        and u.uid not in state.acted
        and KINDS[u.kind].attack > 0
        and not u.site.startswith("in:")
        and fits(u)
    ]


def targets(state: State, player: str, phase: str) -> list[tuple[Unit, list[Unit]]]:
    """Each enemy unit this player can attack now, with the units that can join that attack."""
    mine = attackers(state, player, phase)
    out = []
    for target in state.units:
        if target.owner == player:
            continue
        able = [a for a in mine if reach(state, a, target, phase)]
        if able:
            out.append((target, able))
    return out


def gangs(able: list[Unit]) -> list[tuple[str, ...]]:
    return [tuple(u.uid for u in combo) for n in range(1, len(able) + 1) for combo in combinations(able, n)]


def _roll(state: State, action: Action) -> tuple[int, int, State, str]:
    dice: Any = action.get("dice")
    if dice is None:
        a, rng = state.rng.below(6)
        d, rng = rng.below(6)
        return a + 1, d + 1, replace(state, rng=rng), "the companion rolled"
    if not (isinstance(dice, tuple) and len(dice) == 2 and all(isinstance(x, int) and 1 <= x <= 6 for x in dice)):
        raise IllegalAction(
            "dice: give the attacker's and the defender's die, each 1 to 6 (or leave them out and the companion rolls)"
        )
    return dice[0], dice[1], state, "the table rolled"


def _modifiers(state: State, gang: list[Unit], target: Unit, phase: str) -> tuple[int, int, list[str]]:
    """(attacker's modifier, defender's modifier, the reasons in words)."""
    att, dfn, why = 0, 0, []
    if phase == "bombard":
        att -= 2
        why.append("-2 for bombarding")
        shield = any(
            u.kind == "planet_defense" and u.owner == target.owner for u in on_planet(state, target.planet or "")
        )
        if shield and target.kind != "planet_defense":
            dfn += 2
            why.append("+2 to the defender from its planet defense")
        return att, dfn, why
    if phase != "land_combat":
        return att, dfn, why
    planet = target.planet or ""
    if contested(state, planet) and not any(
        u.owner == gang[0].owner and u.domain == "space" and planet in planets_beside(state, u.site)
        for u in state.units
        if not u.site.startswith(("in:", "p"))
    ):
        att -= 1
        why.append("-1 to the attacker, out of supply")
    pmap = planet_map(state, planet)
    if pmap.feature(target.hex) in ("starport", "armory"):
        dfn += 1
        why.append(f"+1 to the defender in the {pmap.feature(target.hex)}")
    crater = pmap.craters.get(target.hex)
    if crater and not any(pmap.craters.get(a.hex) == crater for a in gang):
        dfn += 1
        why.append("+1 to the defender in a crater")
    return att, dfn, why


def _solar_place(state: State, u: Unit) -> str:
    """Where a unit stands for a retreat's 'away from': a planet's structures count from the planet's hex."""
    return state.planets[u.planet or ""] if u.domain == "structure" else u.site


def attack(state: State, action: Action) -> Result:
    player = actor(state)
    phase = phase_name(state)
    if player is None or state.retreats or phase not in COMBAT_PHASES:
        raise IllegalAction("attacks are made in a combat or bombardment phase")
    target = unit(state, action.get("target") or "")
    if target is None or target.owner == player or target.site.startswith("in:"):
        raise IllegalAction("name an enemy unit or structure on the map to attack")
    names = action.get("with")
    if not isinstance(names, tuple) or not names or len(set(names)) != len(names):
        raise IllegalAction("name the attacking units (each once) with 'with'")
    gang = []
    for uid in names:
        u = unit(state, uid)
        if u is None or u.owner != player:
            raise IllegalAction(f"{uid} is not one of {who(player)}'s units")
        if u.uid in state.acted:
            raise IllegalAction(f"{name(u)} has already attacked this phase")
        if u not in attackers(state, player, phase) or reach(state, u, target, phase) is None:
            raise IllegalAction(_why_not(state, u, target, phase))
        gang.append(u)
    acted = (*state.acted, *names)
    fought = (*state.fought, *names) if phase == "space_combat" else state.fought
    state = replace(state, acted=acted, fought=fought)
    if phase == "bombard" and target.kind == "factory":
        if action.get("dice") is not None:
            raise IllegalAction("a bombarded factory is destroyed outright: no roll")
        state = removed(state, target)
        return state, [
            Event(
                "destroyed",
                f"{', '.join(name(u) for u in gang)} bombard {name(target)}: a factory "
                f"under bombardment is destroyed (take it off {place(target.site)}).",
                {"unit": target.uid},
            )
        ]
    a_die, d_die, state, roller = _roll(state, action)
    att_mod, def_mod, why = _modifiers(state, gang, target, phase)
    a_total = sum(KINDS[u.kind].attack for u in gang) + a_die + att_mod
    d_total = KINDS[target.kind].defense + d_die + def_mod
    margin = a_total - d_total
    verb = "attack" if len(gang) > 1 else "attacks"
    text = (
        f"{' and '.join(name(u) for u in gang)} {verb} {name(target)} ({roller} {a_die} and {d_die}"
        f"{'; ' + ', '.join(why) if why else ''}): {a_total} against {d_total}. "
    )
    data = {
        "attackers": list(names),
        "target": target.uid,
        "dice": [a_die, d_die],
        "roller": roller,
        "attack": a_total,
        "defense": d_total,
    }
    if margin == 0:
        return state, [Event("combat", text + "A tie: nothing happens.", data)]
    events: list[Event] = []
    owed: list[Retreat] = []
    if margin > 0:
        state, line = _hit(state, target, margin, tuple(_solar_place(state, u) for u in gang), owed, phase)
        return _settle(state, owed, [Event("combat", text + line, data), *events])
    lines = []
    for u in gang:
        immune = _immune(state, u, target, phase)
        if immune:
            lines.append(f"{name(u)} {immune}.")
            continue
        size = -margin
        if size >= 3 and u.domain == "land" and target.domain == "structure":
            size = 2  # a land unit beaten off by a structure falls back instead of dying
        state, line = _hit(state, u, size, (_solar_place(state, target),), owed, phase, as_attacker=True)
        lines.append(line)
    return _settle(state, owed, [Event("combat", text + " ".join(lines), data)])


def _immune(state: State, u: Unit, target: Unit, phase: str) -> str:
    """Why an attacker ignores a result against it ("" when it does not)."""
    if phase == "bombard" and target.kind != "planet_defense":
        return "bombards from orbit and is untouched"
    how = reach(state, u, target, phase)
    if how == "ranged" and u.kind == "artillery" and target.kind != "artillery":
        return "fires from two hexes away and is untouched"
    if how == "ranged" and u.kind == "missile_cruiser" and target.kind != "missile_cruiser":
        return "fires from two hexes away and is untouched"
    return ""


def _hit(
    state: State, u: Unit, size: int, away: tuple[str, ...], owed: list[Retreat], phase: str, as_attacker: bool = False
) -> tuple[State, str]:
    if size >= 3:
        state = removed(state, u)
        cargo = " with everything aboard" if u.kind == "transport" else ""
        return state, f"{name(u)} is destroyed{cargo} (take it off {place(u.site)})."
    if u.kind == "planet_defense":
        return state, f"{name(u)} ignores the retreat."
    if u.kind == "air_force" and as_attacker:
        return state, f"{name(u)} flies home to its starport."
    if u.domain == "structure" or u.kind == "air_force":
        state = removed(state, u)
        return state, f"{name(u)} cannot move, so it is destroyed instead of retreating (take it off {place(u.site)})."
    owed.append(Retreat(u.uid, size, away))
    return state, f"{name(u)} must retreat {size} {'hex' if size == 1 else 'hexes'}."


def _settle(state: State, owed: list[Retreat], events: list[Event]) -> Result:
    state = replace(state, retreats=(*state.retreats, *owed))
    return settle_retreats(state, events)


def settle_retreats(state: State, events: list[Event]) -> Result:
    """Units owing a retreat that has nowhere to end are destroyed, until one can retreat or none is owed."""
    while state.retreats:
        owed = state.retreats[0]
        u = unit(state, owed.unit)
        if u is not None and retreat_ends(state, u, owed.hexes, owed.away):
            break
        state = replace(state, retreats=state.retreats[1:])
        if u is not None:
            state = removed(state, u)
            events.append(
                Event(
                    "destroyed",
                    f"{name(u)} cannot retreat {owed.hexes} and is destroyed (take it off {place(u.site)}).",
                    {"unit": u.uid},
                )
            )
    return state, events


def retreat(state: State, action: Action) -> Result:
    if not state.retreats:
        raise IllegalAction("no unit owes a retreat")
    owed = state.retreats[0]
    u = unit(state, owed.unit)
    assert u is not None
    if action.get("unit", owed.unit) != owed.unit:
        raise IllegalAction(f"{name(u)} retreats first")
    kind = "withdraw" if u.domain == "space" else "retreat"
    if action.type != kind:
        raise IllegalAction(f"{name(u)} is a {'ship' if kind == 'withdraw' else 'land unit'}: use {kind}")
    ends = retreat_ends(state, u, owed.hexes, owed.away)
    site = action.get("to")
    if site not in ends:
        raise IllegalAction(
            f"{name(u)} must retreat exactly {owed.hexes} from {place(u.site)}, no closer to its "
            f"enemies, to an empty hex: one of {', '.join(sorted(ends))}"
        )
    state = replace(moved(state, u, site), retreats=state.retreats[1:])
    return settle_retreats(
        state,
        [Event("retreated", f"{name(u)} retreats from {place(u.site)} to {place(site)}.", {"unit": u.uid, "to": site})],
    )


def _why_not(state: State, u: Unit, target: Unit, phase: str) -> str:
    if phase == "bombard" and u.uid in state.fought:
        return f"{name(u)} attacked spaceships this turn and cannot bombard"
    if phase == "bombard" and u.domain == "space":
        return f"{name(u)} must be next to planet {target.planet} to bombard it"
    if KINDS[u.kind].attack == 0:
        return f"{name(u)} has no attack rating"
    if phase == "space_combat" and u.kind == "missile_cruiser":
        return f"{name(u)} needs {name(target)} within two hexes with a clear line past planets and the star"
    return f"{name(u)} cannot reach {name(target)} in this phase"
