"""Compound moves in every order people make them: Orbital Battle's landings and combat removals, ORBIT's advances
carrying docked ships, Periorbis's employees carrying ore, Trajectory's whole-system orbit made by two hands at once.

For the compound actions the scripted players choose in seeded games of all five games, the hands' steps (each piece
lifted and set down, taken off or set out) come in orders drawn at random, a stack piece by piece or two hands at
once as well as the usual orders; every board on the way is judged, with the grid alone and with a camera that reads
every piece. No board on the way is booked as another action, and no advice puts back what the move has done."""

import random

import pytest

from companion.boards import default_board
from companion.rules import load
from companion.sim.hand_play import chancy, undoes
from companion.sim.hands import Frame, footprint
from companion.sim.players import scripted_action
from companion.table.beside import boards_beside, layout_prefix
from companion.table.observation import Observation, SiteReading
from companion.table.referee import Referee

GAMES = {
    "trajectory": (("red", "green", "blue"), {}),
    "orbit": (("red", "green", "blue"), {}),
    "dakalio": (("red", "blue"), {}),
    "orbital_battle": (("red", "green"), {"turn_limit": 4}),
    "periorbis": (("red", "green", "blue"), {"length": "short"}),
}
ACTIONS = 8  # compound actions checked per game
# Periorbis's carried ore is kept in the books, not on the board: its carries set out or take off one disc each.
PIECES = {"periorbis": 1}
ORDERS = 12  # orders drawn per action


def sites(name: str) -> list[str]:
    own = [s.id for s in default_board(name).sites]
    return own + [layout_prefix(name, spec) + s.id for spec in boards_beside(name) for s in default_board(spec).sites]


def observe(game, layout, every: list[str], camera: bool) -> Observation:
    return Observation(
        {
            site: SiteReading(
                bool(layout.get(site)), tuple(game.physical_piece(p) for p in layout.get(site, ())) if camera else None
            )
            for site in every
        }
    )


def touches(before, after):
    """Each piece's own touches: (take, piece, site) lifted, then (put, piece, site) set down; removals and
    additions one touch each. A stack may go piece by piece, so each piece is its own pair."""
    foot = footprint(before, after)
    steps = []
    for piece, origin, target in foot.moved:
        name = next((p for p in after.get(target, ()) if p.split(">")[0] == piece.split(">")[0]), piece)
        steps.append([("take", piece, origin), ("put", name, target)])
    steps += [[("take", piece, site)] for piece, site in foot.removed]
    steps += [[("put", piece, site)] for piece, site in foot.added]
    return steps


def an_order(steps, rng: random.Random):
    """The touches in an order a pair of hands might make them: each piece lifted before it is set down, anything
    else in between."""
    queues = [list(step) for step in steps]
    out = []
    while any(queues):
        queue = rng.choice([q for q in queues if q])
        out.append(queue.pop(0))
    return out


def compound_actions(name: str):
    """The first compound actions of seeded games (a declared one too, a combat's losses taken off, unless where its
    pieces go hangs on the companion's own roll)."""
    players, options = GAMES[name]
    game = load(name)
    found = 0
    for seed in range(3, 13):
        state = game.setup(list(players), options, seed)
        rng = random.Random(seed)
        for _ in range(400):
            if game.outcome(state) is not None:
                break
            if found >= ACTIONS:
                return
            action = scripted_action(game, state, rng)
            before, after = game.layout(state), game.layout(game.apply(state, action)[0])
            if len(touches(before, after)) >= PIECES.get(name, 2) and not chancy(game, state, action):
                found += 1
                yield game, state, action, before, after
            state = game.apply(state, action)[0]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_compound_move_in_any_order_is_never_booked_as_another_nor_undone(name):
    every = sites(name)
    checked = 0
    for game, state, action, before, after in compound_actions(name):
        referee = Referee(game)
        result = game.apply(state, action)[0]
        foot = footprint(before, after)
        rng = random.Random(hash(str(action)) & 0xFFFF)
        for _ in range(ORDERS):
            board = {s: list(p) for s, p in before.items()}
            for kind, piece, site in an_order(touches(before, after), rng):
                stack = board.setdefault(site, [])
                if kind == "take":
                    stack.reverse()
                    stack.remove(piece)
                    stack.reverse()
                else:
                    stack.append(piece)
                layout = {s: tuple(p) for s, p in board.items() if p}
                for camera in (False, True):
                    ruling = referee.judge(state, observe(game, layout, every, camera))
                    if ruling.verdict == "explained":
                        booked = game.apply(state, ruling.actions[0])[0]
                        assert game.state_to_json(booked) == game.state_to_json(result), (action, ruling, layout)
                    frame = Frame(layout)
                    undo = [f.advice for f in ruling.fixes if undoes(f.site, tuple(f.expected), frame, before, foot)]
                    assert not undo, (action, camera, undo, layout)
            checked += 1
    assert checked, f"no compound action of {name} was checked"
