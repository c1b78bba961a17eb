"""`companion bench referee`: how long the referee takes to judge a settled board, per game, on full boards.

States come from random games at each of bench messy's tables (ORBIT's four, Dakalio's two modes, one each for
the other games; with no turn limit), taken from their second half where the board is fullest. For each state the bench
first times `Referee.prepare` (what every legal action does to the board, indexed by site: done once per state,
while the hands are still moving, by the table's loop), then judges the board each legal board move would leave (it
must be explained or asked about), the board half way through it (the first of its changes made: it must not be
booked unless that already is the whole move) and a board with a piece put where no rule allows (it must be a
mismatch), with the reed grid alone and with the camera as well. Baseline, in the same run: generating the legal
actions of the same states, which any judgement has to do at least once.
"""

from __future__ import annotations

import argparse
import random
import time

LABELS = {
    "reed": "judge: a move, reed grid only",
    "reed+camera": "judge: a move, reed grid and camera",
    "partway": "judge: a move half made, reed grid",
    "mismatch": "judge: a wrong board, with advice",
    "prepare": "prepare a state (once, while hands move)",
    "baseline": "baseline: legal actions once",
}
HELP = "the referee: time to explain or refuse a settled board, per game and table, median, p95 and p99"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", nargs="*", help="games to measure (default: all)")
    parser.add_argument("--states", type=int, default=40, help="board states per game (default 40)")
    parser.add_argument("--seed", type=int, default=1)


def run(args: argparse.Namespace) -> int:
    from companion.bench.messy import default_benches
    from companion.bench.stats import percentile
    from companion.errors import UserError
    from companion.rules import load, names
    from companion.sim.table_setup import game_board

    games = args.games or names()
    unknown = [g for g in games if g not in names()]
    if unknown:
        raise UserError(f"bench referee: unknown game {unknown[0]!r} (known: {', '.join(names())})")
    wrong = 0
    for row in default_benches():
        if row.game not in games:
            continue
        game = load(row.game)
        timings: dict[str, list[float]] = {label: [] for label in LABELS}
        # Full boards: a game plays on past the turn limit that keeps bench messy's games short.
        options = {k: v for k, v in row.options.items() if k != "turn_limit"}
        states = _full_states(game, args.states, args.seed, row.players, options)
        sites = [site.id for site in game_board(row.game, options).sites]
        for state in states:
            wrong += _judge_all(game, state, sites, timings, random.Random(args.seed))
        pieces = max(sum(len(p) for p in game.layout(s).values()) for s in states) if states else 0
        print(f"{row.label}: {len(states)} states, up to {pieces} pieces on the board")
        for label, samples in timings.items():
            what = LABELS[label]
            if samples:
                median, p95, p99 = (percentile(samples, q) * 1e3 for q in (0.5, 0.95, 0.99))
                print(f"  {what:40} median {median:7.2f} ms, p95 {p95:7.2f} ms, p99 {p99:7.2f} ms (n={len(samples)})")
    if wrong:
        print(f"WRONG rulings: {wrong}")
    return 1 if wrong else 0


def _full_states(game, count: int, seed: int, players: int | None = None, options: dict | None = None) -> list:
    from companion.sim.players import playout
    from companion.sim.table_setup import COLOURS

    states = []
    index = 0
    while len(states) < count and index < count * 4:
        state = game.setup(list(COLOURS[: players or game.max_players]), options or {}, seed + index)
        played = [move.state for move in playout(game, state, seed + index, max_actions=4000)]
        second_half = played[len(played) // 2 :]
        states += second_half[:: max(1, len(second_half) // 4)][: count - len(states)]
        index += 1
    return states


def _judge_all(game, state, sites: list[str], timings: dict[str, list[float]], rng: random.Random) -> int:
    """Times each judgement into `timings`; returns how many rulings were wrong."""
    from companion.table.referee import Referee

    started = time.perf_counter()
    list(game.legal_actions(state))
    timings["baseline"].append(time.perf_counter() - started)
    referee = Referee(game)
    started = time.perf_counter()
    prepared = referee.prepare(state)
    timings["prepare"].append(time.perf_counter() - started)
    wrong = 0
    before = game.layout(state)
    moves = [c for c in prepared.candidates if not c.declared]

    def timed(label: str, seen):
        started = time.perf_counter()
        ruling = referee.judge(state, seen)
        timings[label].append(time.perf_counter() - started)
        return ruling

    for move in moves[:8]:
        for label, camera in (("reed", False), ("reed+camera", True)):
            seen = _observe(game, move.after, sites, camera)
            wrong += not _right(game, state, timed(label, seen), seen, _observe(game, before, sites, camera))
        first = move.footprint.changes[0]
        half = _observe(game, {**before, first.site: first.after}, sites, False)
        ruling = timed("partway", half)
        if ruling.verdict == "explained":  # booked half way: only right if that half is a whole move of its own
            after = game.layout(game.apply(state, ruling.actions[0])[0])
            wrong += bool(_disagree(game, after, half))
    misplaced = _misplaced(game, before, sites, prepared.candidates, rng)
    if misplaced is not None:
        wrong += timed("mismatch", _observe(game, misplaced, sites, False)).verdict != "mismatch"
    return wrong


def _disagree(game, layout, seen) -> list[str]:
    from companion.table.referee import disagreements

    return disagreements(layout, seen, seen.known_sites(), game.physical_piece)


def _right(game, state, ruling, seen, unmoved) -> bool:
    """A move the sensors cannot see (the same readings as before it) must be "unchanged"; any other must be
    explained by an action whose board reads exactly as seen, asked about, or held in hand (nothing booked while the
    lifted piece may still land where a sensor feels it) with that action among those it waits between."""
    if seen == unmoved:
        return ruling.verdict == "unchanged"
    if ruling.verdict == "ambiguous":
        return True
    if ruling.verdict == "in_hand":
        return any(not _disagree(game, game.layout(game.apply(state, action)[0]), seen) for action in ruling.actions)
    if ruling.verdict != "explained":
        return False
    return not _disagree(game, game.layout(game.apply(state, ruling.actions[0])[0]), seen)


def _observe(game, layout, sites: list[str], camera: bool):
    """The settled board as the grid (and a camera that sees every piece, named as in the box) would read it."""
    from companion.table.observation import Observation, SiteReading

    readings = {}
    for site in sites:
        pieces = tuple(game.physical_piece(p) for p in layout.get(site, ()))
        readings[site] = SiteReading(bool(pieces), pieces if camera else None)
    return Observation(readings)


def _misplaced(game, layout, sites: list[str], candidates, rng: random.Random):
    """The layout with one piece moved to an empty site, such that the grid's reading of it is neither a legal
    action's board nor one part way through (an automatic orbit half made can look like anything); or None."""
    from companion.table.footprint import progress

    full = [site for site in sites if layout.get(site)]
    empty = [site for site in sites if not layout.get(site)]
    rng.shuffle(full)
    rng.shuffle(empty)
    for source in full[:8]:
        for target in empty[:8]:
            wrong = dict(layout)
            wrong[target], wrong[source] = layout[source][-1:], layout[source][:-1]
            seen = _observe(game, wrong, sites, False)
            changed = set(_disagree(game, layout, seen))
            if changed and not any(
                progress(c.footprint, seen, game.physical_piece)[0] for c in candidates if changed <= c.footprint.sites
            ):
                return wrong
    return None
