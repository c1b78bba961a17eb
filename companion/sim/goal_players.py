"""Goal-seeking scripted players for Dakalio, Trajectory, Orbital Battle and Periorbis.

Random players finish these games but rarely play them: a random Periorbis player never mines, a random Orbital
Battle fleet never meets the enemy, a random Trajectory crew never builds a station. The twin's benches must meet
the moves real tables make (captures, landings, stations set down, ore carried), so each game has a player here that
pursues what the game rewards, as a plain plan: what it most wants to do now, scored per legal action, the best
taken (ties broken at random). Each is a pure function of the game, the state and the random generator, and reads
the state only through the engine's contract (legal actions, apply, layout, ledger) plus a few of the game's
own geometry helpers, so it plays what the rules allow and nothing else.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

from companion.rules import Action, Game

Score = Callable[[Action], float]
# Variants where the table enters a die, a spin or a drawn card: the companion's own draw is as good a choice and
# keeps the lookahead small.
TABLE_CHANCE = ("dice", "spin")


def best(actions: Iterable[Action], score: Score, rng: random.Random) -> Action:
    """The action with the highest score, ties broken at random."""
    scored = [(score(a), rng.random(), a) for a in actions if not any(k in dict(a.args) for k in TABLE_CHANCE)]
    if not scored:
        raise RuntimeError("no legal action to choose from")
    return max(scored, key=lambda item: item[:2])[2]


def _actor(game: Game, state: Any) -> str:
    return game.phase(state).actor or ""


LOOKAHEAD = ("move", "enter", "dakalio", "next_game")


# Dakalio: look one action ahead; a win first, then a capture, then taking Dakalio; else what keeps ships safe.
def dakalio(game: Game, state: Any, rng: random.Random) -> Action:
    me = _actor(game, state)

    def score(action: Action) -> float:
        if action.type not in LOOKAHEAD:
            return 0.0  # setting out portals and asteroids: anywhere will do
        after, events = game.apply(state, action)
        kinds = {e.type for e in events}
        outcome = game.outcome(after)
        if outcome is not None:
            return 1000.0 if me in outcome.winners else -1000.0
        if action.type in ("resign", "concede"):
            return -500.0
        return 50.0 * ("capture" in kinds) + 20.0 * ("dakalio" in kinds) + 5.0 * (action.type == "enter")

    return best(game.legal_actions(state), score, rng)


# Trajectory: a miner extracts and builds storage rings, an engineer builds the stations the others' cargo pays for.
def trajectory(game: Game, state: Any, rng: random.Random) -> Action:
    from companion.rules.trajectory.movement import destinations
    from companion.rules.trajectory.state import EXTRACTS, planet_at, station_at

    actions = list(game.legal_actions(state))
    if state.turn is None or state.turn.ship not in state.ships:
        return best(actions, lambda a: 0.0, rng)
    name = state.turn.ship
    ship = state.ships[name]
    hold = ship.hold
    # Where a miner goes: a planet that gives what it still lacks for a station (metal first), not infested.
    wanted = "metal" if hold.metal < 1 else "helium" if hold.helium < 1 else "ice"
    target = next((s for p, s in state.planets.items() if EXTRACTS.get(p) == wanted and p not in state.infested), None)
    far = _steps(destinations, ship.site, target) if target else {}
    here_free = station_at(state, ship.site) is None and planet_at(state, ship.site) is None

    def score(action: Action) -> float:
        kind = action.type
        if kind == "build":
            return 100.0 if here_free else -1.0
        if kind == "extract":
            return 90.0
        if kind == "destroy":
            return 85.0
        if kind == "outfit":
            return 80.0 if ship.outfit == "none" and action.get("class") in ("miner", "engineer") else -5.0
        if kind == "draw":
            return 70.0
        if kind == "refuel":
            return 60.0 if hold.fuel < 4 else -5.0
        if kind == "move":
            # Towards the planet it wants, or (holding metal) off to an empty space to build.
            to = action.get("to")
            if hold.metal >= 1 and station_at(state, to) is None and planet_at(state, to) is None:
                return 55.0
            return 50.0 - far.get(to, 20)
        if kind == "end_turn":
            return 10.0
        if kind in ("move_infestors", "orbit"):
            return 0.0
        return -10.0 - rng.random()  # transfers, dumps, searches, take-aparts: now and then, by WANDER

    return best(actions, score, rng)


def _steps(neighbours: Callable[[str], Iterable[str]], start: str, goal: str | None) -> dict[str, int]:
    """Steps from every site to `goal` over the move graph (a breadth-first search from the goal; the graph is
    symmetric), so a site's score is how near it is."""
    if goal is None:
        return {}
    dist, frontier = {goal: 0}, [goal]
    while frontier:
        nxt = []
        for site in frontier:
            for other in neighbours(site):
                if other not in dist:
                    dist[other] = dist[site] + 1
                    nxt.append(other)
        frontier = nxt
    return dist


# Orbital Battle: buy a fleet with troops, fly at the enemy and the free planets, land, attack whenever possible.
def hex_steps(a: str, b: str) -> int:
    """Steps between two hexes of a planet map, terrain aside (how near a land unit would come to a foe)."""
    from companion.boards.orbital_battle import planet_neighbours

    seen, ring, steps = {a}, {a}, 0
    while b not in seen and ring:
        ring = {n for hex_ in ring for n in planet_neighbours(hex_)} - seen
        seen |= ring
        steps += 1
    return steps


def orbital_battle(game: Game, state: Any, rng: random.Random) -> Action:
    from companion.rules.orbital_battle.control import controller
    from companion.rules.orbital_battle.geo import distance
    from companion.rules.orbital_battle.state import cargo, unit

    me = _actor(game, state)
    enemy_ships = [u.site for u in state.units if u.owner != me and u.domain == "space" and u.site.startswith("r")]
    free_planets = [site for planet, site in state.planets.items() if controller(state, planet) != me]
    home_site = state.planets.get((state.homes or {}).get(me, ""), None)
    bought = sum(1 for u in state.units if u.owner == me)
    contested_planets = {u.planet for u in state.units if u.owner != me and u.domain == "land"}

    def nearest(site: str, targets: list[str]) -> int:
        return min((distance(state, site, t) for t in targets), default=0)

    def score(action: Action) -> float:
        kind = action.type
        if kind == "attack":
            return 100.0 + len(action.get("with") or ())
        if kind == "unload":
            return 95.0
        if kind == "load":
            return 90.0
        if kind in ("withdraw", "retreat", "orbit", "roll", "home"):
            return 50.0
        if kind == "buy":
            what = action.get("kind")
            # A mix: transports and troops to land, warships to fight, while the points last.
            wish = {
                "transport": 30,
                "army": 28,
                "marines": 27,
                "armor": 26,
                "destroyer": 25,
                "light_cruiser": 24,
                "heavy_cruiser": 22,
                "missile_cruiser": 21,
            }.get(what, 5)
            return wish - 0.5 * sum(1 for u in state.units if u.owner == me and u.kind == what) - 0.05 * bought
        if kind == "fly":
            u = unit(state, action.get("unit"))
            to = action.get("to")
            if u is None:
                return 0.0
            if u.kind == "transport":
                goal = free_planets if cargo(state, u) else [home_site] if home_site else free_planets
                return 60.0 - nearest(to, goal)
            return 60.0 - nearest(to, enemy_ships or free_planets)
        if kind == "march":
            # Towards a fight: only where the enemy holds ground on the same planet, the nearer the better.
            u = unit(state, action.get("unit"))
            if u is None or u.planet not in contested_planets:
                return 10.0
            to = str(action.get("to")).split(":")[1]
            foes = [v.site.split(":")[1] for v in state.units
                    if v.owner != me and v.domain == "land" and v.planet == u.planet]  # fmt: skip
            return 45.0 - min(hex_steps(to, foe) for foe in foes)
        if kind == "done":
            return 20.0
        return 0.0

    return best(game.legal_actions(state), score, rng)


# Periorbis: build bases, carry employees out to mine, sign contracts and ship the ore to them.
def periorbis(game: Game, state: Any, rng: random.Random) -> Action:
    actions = list(game.legal_actions(state))
    me = _actor(game, state)
    books = game.ledger(state)["players"].get(me, {})
    crates = sum((books.get("crates") or {}).values())
    bases = books.get("bases") or []
    contracts = books.get("contracts") or []
    open_contracts = sum(1 for c in contracts if not c.get("crates"))
    at_base = {e["where"] for e in (books.get("employees") or {}).values()} - {"hq"}
    idle_hq = any(e["where"] == "hq" and not e["acted"] for e in (books.get("employees") or {}).values())
    unmanned = [b for b in bases if b not in at_base]

    def score(action: Action) -> float:
        kind = action.type
        if kind == "ship_ore":
            return 100.0 + action.get("crates", 0) if action.get("to") != "storage" else 60.0
        if kind == "mine":
            return 95.0
        if kind == "carry":
            return 85.0 if action.get("to") != "hq" else 5.0
        if kind == "transport":
            return 80.0 if (crates and contracts) or (unmanned and idle_hq) else -1.0
        if kind == "sign":
            return 70.0 - 25.0 * open_contracts
        if kind == "build":
            return 65.0 - 30.0 * len(bases)
        if kind == "sell_ore":
            return 45.0
        if kind in ("upgrade_fleet", "upgrade_drive"):
            return 40.0
        if kind == "sell_research":
            return 35.0
        if kind == "hire":
            return 30.0 - rng.random() * 20
        if kind == "research":
            return 25.0
        if kind == "pass":
            return 15.0
        if kind == "end_turn":
            return 0.0
        return 1.0

    return best(actions, score, rng)


PLAYERS: dict[str, Callable[[Game, Any, random.Random], Action]] = {
    "dakalio": dakalio,
    "trajectory": trajectory,
    "orbital_battle": orbital_battle,
    "periorbis": periorbis,
}
