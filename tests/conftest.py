"""Game positions the tests of several packages share."""

import random
from dataclasses import dataclass
from typing import Any

import pytest

from companion.rules import Action, load
from companion.table.referee import Candidate, Referee


@dataclass(frozen=True)
class Lift:
    """A position where lifting one piece off its site is, to the grid, a whole legal move already: the move that
    sets it on a site a piece already takes (a planet's space, a portal); `elsewhere` is another legal move of the
    same piece to an empty site."""

    game: Any
    players: tuple[str, ...]
    options: dict[str, Any]
    seed: int
    actions: tuple[Action, ...]  # from the setup with that seed
    state: Any
    onto_taken: Candidate
    elsewhere: Candidate

    def lifted(self) -> dict[str, tuple[str, ...]]:
        """The board with the piece in the hand."""
        ((_, origin, _),) = self.onto_taken.footprint.moved()
        return {s: p for s, p in self.game.layout(self.state).items() if s != origin}


def find_lift(name: str, players: tuple[str, ...], options: dict[str, Any], opening: tuple[Action, ...] = ()) -> Lift:
    """The first such position of a seeded game played by the scripted players (seeds 1 to 5 in turn)."""
    from companion.sim.players import scripted_action

    game = load(name)
    for seed in range(1, 6):
        state = game.setup(list(players), options, seed)
        played = list(opening)
        for action in opening:
            state = game.apply(state, action)[0]
        rng = random.Random(seed)
        while game.outcome(state) is None and len(played) < 300:
            layout = game.layout(state)
            moves = [
                c
                for c in Referee(game).prepare(state).candidates
                if not c.declared and len(c.footprint.changes) == 2 and len(c.footprint.moved()) == 1
            ]
            for onto in moves:
                ((_, origin, target),) = onto.footprint.moved()
                if layout.get(target) and len(layout[origin]) == 1:
                    free = [
                        c
                        for c in moves
                        if c.footprint.moved()[0][1] == origin and not layout.get(c.footprint.moved()[0][2])
                    ]
                    if free:
                        return Lift(game, players, options, seed, tuple(played), state, onto, free[0])
            played.append(scripted_action(game, state, rng))
            state = game.apply(state, played[-1])[0]
    raise AssertionError(f"no lift onto a taken site in five games of {name}")


@pytest.fixture(scope="session")
def trajectory_lift() -> Lift:
    """Trajectory: a ship that may fly onto a planet's space or to an empty one."""
    return find_lift("trajectory", ("red", "green", "blue"), {})


@pytest.fixture(scope="session")
def dakalio_portal_lift() -> Lift:
    """Dakalio with portals: a ship that may move onto a portal's site or to an empty one."""
    return find_lift("dakalio", ("red", "blue"), {"mode": "simple"}, (Action.make("portals", use=True),))


@pytest.fixture(scope="session")
def trajectory_lift_two() -> Lift:
    """The same for the two players and fixed planets of the web tests' table."""
    return find_lift(
        "trajectory", ("red", "blue"), {"planets": {"metal": 0, "home": 0, "helium": 0, "ice": 0}, "difficulty": "easy"}
    )
