"""Announcements read as English: whole games of all five games, every announcement and prompt checked for the
article before a vowel sound ("a agent"), a singular count with a plural noun ("1 credits") and the reverse
("3 credit"), a verb that does not agree with its one subject ("Blue's heavy cruiser 1 attack"); and the end of
each game said in a sentence that names who won, or that everyone lost, or a draw, and why.
ORBIT's games are its recorded whole games (tests/scenarios/orbit/whole_game_*.json) replayed, as random
play rarely finishes a race; the others are played to their end by the twin's scripted players."""

import json
import random
import re
from pathlib import Path

import pytest

from companion.rules import Action, load
from companion.rules.orbital_battle.text import KIND_NAMES
from companion.rules.words import a, plural, verdict
from companion.sim.players import scripted_action

SCENARIOS = Path(__file__).parents[1] / "scenarios"
GAMES = {
    "trajectory": (["red", "blue", "green"], {}, (1, 2)),
    "dakalio": (["red", "blue"], {}, (1, 2)),
    "orbital_battle": (["red", "blue"], {"turn_limit": 3}, (1,)),
    "periorbis": (["orange", "green", "blue"], {"length": "short"}, (1, 2)),
}
# Words a number may label rather than count ("player 1 moves", "planet 1 hex 0402", "turn 1 begins").
LABELS = {"player", "planet", "turn", "row", "slot", "ring", "orbit", "pile", "deck", "game", "employee", "round",
          "disc", "level", "card", "ship", "hex", "seat", "position", "step", "phase", "drive", "track", "base"}
LABELS |= {kind.split()[-1] for kind in KIND_NAMES.values()}  # Orbital Battle's numbered units: "Red's armor 1 lands"
COUNTED = ("credit", "crate", "card", "employee", "point", "victory point", "unit", "ship", "hex", "cube", "step",
           "position", "planet", "slot", "infestor", "station", "marker", "token", "die", "turn", "hexe")
ARTICLE = re.compile(r"\b([Aa]n?) ([A-Za-z][\w-]*)")
VERBS = ("is", "has", "was", "does", "goes", "moves", "plus")
ONE_MANY = re.compile(r"(\w+ )?\b1 ((?:build |victory |energy |action |agent bonus )?[a-z]+s)\b")
# One numbered unit, ship or employee ("Red's army 3") followed by a verb in the form for several.
AGREE = re.compile(r"\b[A-Z][a-z]+'s (?:[a-z-]+ )+\d+ (attack|move|land|board|retreat|take|make|give|push|carry|"
                   r"sign|build|fly|hire|draw|pay|earn|win|lose)\b")
MANY_ONE = re.compile(r"(\w+ )?\b(0|[2-9]|\d\d+) (" + "|".join(COUNTED) + r")\b(?!s)")


def problems(text: str) -> list[str]:
    found = []
    for m in ARTICLE.finditer(text):
        if a(m.group(2)).split(" ")[0] != m.group(1).lower():
            found.append(m.group(0))
    for m in ONE_MANY.finditer(text):
        before = (m.group(1) or "").strip().lower()
        if before not in LABELS and m.group(2).split(" ")[0] not in VERBS:
            found.append(m.group(0)[len(m.group(1) or ""):])
    for m in MANY_ONE.finditer(text):
        before = (m.group(1) or "").strip().lower()
        if before not in LABELS and not text[m.end():].startswith(("-", "'")):
            found.append(m.group(0)[len(m.group(1) or ""):])
    found += [m.group(0) for m in AGREE.finditer(text) if not text[:m.start()].endswith("and ")]  # one of several
    return found


def test_the_checker_catches_what_it_is_for():
    assert problems("Red hires card 3, a agent, for 1 credits.") == ["a agent", "1 credits"]
    assert problems("Blue earns 1 build points, an unit, 3 credit.") == ["an unit", "1 build points", "3 credit"]
    assert problems("Player 1 moves; an engineer and a unit; 1 credit; 2 credits; planet 1 hex 0402.") == []
    assert problems("Red's armor 1 boards Red's transport 3; Red's army 1 lands.") == []
    assert plural(1, "credit") == "1 credit" and plural(2, "hex") == "2 hexes" and a("HQ") == "an HQ"
    assert problems("Blue's heavy cruiser 1 attack Red's army 1.") == ["Blue's heavy cruiser 1 attack"]
    assert problems("Blue's heavy cruiser 1 and Blue's destroyer 2 attack Red's army 1.") == []


def _texts(game, state, events) -> list[str]:
    return [e.text for e in events] + [game.phase(state).prompt]


def _played(name: str, seed: int) -> list[str]:
    players, options, _ = GAMES[name]
    game = load(name)
    state = game.setup(players, options, seed)
    rng = random.Random(seed)
    texts = [game.phase(state).prompt]
    for _ in range(4000):
        if game.outcome(state) is not None:
            break
        state, events = game.apply(state, scripted_action(game, state, rng))
        texts += _texts(game, state, events)
    outcome = game.outcome(state)
    assert outcome is not None, f"{name} did not end"
    said = verdict(outcome.result, outcome.winners, outcome.reason)
    who = [w.capitalize() for w in outcome.winners] or ["Everyone" if outcome.result == "lost" else "A draw"]
    assert said.startswith(tuple(who)) and said.endswith(".") and len(said) > len(who[0]) + 12, said  # and why
    return [*texts, said]


def _replayed(path: Path) -> list[str]:
    scenario = json.loads(path.read_text())
    game = load(scenario["game"])
    state = game.setup(scenario["players"], scenario.get("options", {}), scenario.get("seed", 0))
    texts = [game.phase(state).prompt]
    for step in scenario["steps"]:
        if "action" in step and "illegal" not in step:
            state, events = game.apply(state, Action.from_json(step["action"]))
            texts += _texts(game, state, events)
    return texts


CASES = [(name, seed) for name, (_, _, seeds) in GAMES.items() for seed in seeds]


@pytest.mark.parametrize(("name", "seed"), CASES)
def test_whole_games_announce_in_english(name, seed):
    texts = _played(name, seed)
    bad = sorted({f"{p!r} in {t!r}" for t in texts for p in problems(t)})
    assert not bad, "\n".join(bad[:20])


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("orbit/whole_game_*.json")), ids=lambda p: p.stem)
def test_whole_orbit_games_announce_in_english(path):
    texts = _replayed(path)
    bad = sorted({f"{p!r} in {t!r}" for t in texts for p in problems(t)})
    assert not bad, "\n".join(bad[:20])
