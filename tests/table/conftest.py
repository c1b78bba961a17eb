"""Game positions the table's tests share."""

import random
from dataclasses import dataclass
from typing import Any

import pytest

from companion.rules import Action, load
from companion.table.referee import Candidate, Referee


@dataclass(frozen=True)
class Capture:
    game: Any
    actions: tuple[Action, ...]  # from the setup of red and green, seed 0
    state: Any
    capture: Candidate


@pytest.fixture(scope="session")
def dakalio_capture() -> Capture:
    """A Dakalio position, reached by random legal play, where the player to move can capture."""
    game = load("dakalio")
    state = game.setup(["red", "green"], {}, 0)
    rng = random.Random(0)
    referee = Referee(game)
    played: list[Action] = []
    for _ in range(400):
        for candidate in referee.prepare(state).candidates:
            if candidate.action.type == "move" and candidate.footprint.removed():
                return Capture(game, tuple(played), state, candidate)
        played.append(rng.choice(list(game.legal_actions(state))))
        state = game.apply(state, played[-1])[0]
    raise AssertionError("no capture in 400 random actions")


def until(test: Any, within: float = 15.0, what: str = "the table") -> Any:
    """`test()`'s first true value, asked every 50 ms; AssertionError after `within` seconds."""
    import time

    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        value = test()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"{what} did not come within {within} s")


def play_until_done(twin: Any, guide: Any, within: float = 30.0) -> dict[str, Any]:
    """The twin's players act (moving the calibration magnet, tapping Placed) until the page's guide has ended; its
    status as the phones are told it (by then the table has had the end: its referee judges again)."""
    import time

    deadline = time.monotonic() + within
    while guide.running:
        assert time.monotonic() < deadline, guide.status()
        twin.step()
    return guide.status()
