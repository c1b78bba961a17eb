"""What players read is English: whole games of all five games, every announcement, prompt, refusal, offered move
(its label and the words of its steps) and row of the books as the page shows them, checked for the article before a
vowel sound ("a agent"), a singular count with a plural noun ("1 credits") or a plural verb ("1 energy cube are"),
the reverse ("3 credit"), a verb that does not agree with its one subject ("Blue's heavy cruiser 1 attack"); the
banner's round counting rounds of the table (not player turns); a refused Dakalio entry naming the occupied spot
that blocks it; and the end of each game said in a sentence that names who won, or that everyone lost, or a draw,
and why.
ORBIT's games are its recorded whole games (tests/scenarios/orbit/whole_game_*.json) replayed, as random
play rarely finishes a race; the others are played to their end by the twin's scripted players. Refusals come from
the moves offered with one argument swapped for a value the game offered elsewhere (a site too far, a spot
blocked)."""

import json
import random
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from companion.boards import default_board
from companion.rules import Action, Game, IllegalAction, load
from companion.rules.orbital_battle.text import KIND_NAMES
from companion.rules.words import a, plural, verdict
from companion.sim.players import scripted_action
from companion.table.game_board import board_of
from companion.web.books import books
from companion.web.inputs import inputs
from companion.web.words import Words

SCENARIOS = Path(__file__).parents[1] / "scenarios"
GAMES = {
    "trajectory": (["red", "blue", "green"], {}, (1, 2)),
    "dakalio": (["red", "blue"], {}, (1, 2)),
    "orbital_battle": (["red", "blue"], {"turn_limit": 3}, (1,)),
    "periorbis": (["orange", "green", "blue"], {"length": "short"}, (1, 2)),
}
# Words a number may label rather than count ("player 1 moves", "planet 1 hex 0402", "turn 1 begins").
LABELS = {
    "player",
    "planet",
    "turn",
    "row",
    "slot",
    "ring",
    "orbit",
    "pile",
    "deck",
    "game",
    "employee",
    "round",
    "disc",
    "level",
    "card",
    "ship",
    "hex",
    "seat",
    "position",
    "step",
    "phase",
    "drive",
    "track",
    "base",
    "spot",
}
LABELS |= {kind.split()[-1] for kind in KIND_NAMES.values()}  # Orbital Battle's numbered units: "Red's armor 1 lands"
COUNTED = (
    "credit",
    "crate",
    "card",
    "employee",
    "point",
    "victory point",
    "unit",
    "ship",
    "hex",
    "cube",
    "step",
    "position",
    "planet",
    "slot",
    "infestor",
    "station",
    "marker",
    "token",
    "die",
    "turn",
    "hexe",
)
ARTICLE = re.compile(r"\b([Aa]n?) ([A-Za-z][\w-]*)")
VERBS = ("is", "has", "was", "does", "goes", "moves", "plus")
ONE_MANY = re.compile(r"(\w+ )?\b1 ((?:build |victory |energy |action |agent bonus )?[a-z]+s)\b")
# One numbered unit, ship or employee ("Red's army 3") followed by a verb in the form for several.
AGREE = re.compile(
    r"\b[A-Z][a-z]+'s (?:[a-z-]+ )+\d+ (attack|move|land|board|retreat|take|make|give|push|carry|"
    r"sign|build|fly|hire|draw|pay|earn|win|lose)\b"
)
# A count and its noun, then a verb in the other number: "1 energy cube are needed", "3 ships is".
ONE_ARE = re.compile(r"(\w+ )?\b1 (?:[a-z-]+ ){1,3}(are|were|have)\b")
MANY_IS = re.compile(r"(\w+ )?\b(?:0|[2-9]|\d\d+) (?:[a-z-]+ )*[a-z]+s (is|was|has)\b")
MANY_ONE = re.compile(r"(\w+ )?\b(0|[2-9]|\d\d+) (" + "|".join(COUNTED) + r")\b(?!s)")


def problems(text: str) -> list[str]:
    found = []
    for m in ARTICLE.finditer(text):
        if a(m.group(2)).split(" ")[0] != m.group(1).lower():
            found.append(m.group(0))
    for m in ONE_MANY.finditer(text):
        before = (m.group(1) or "").strip().lower()
        if before not in LABELS and m.group(2).split(" ")[0] not in VERBS:
            found.append(m.group(0)[len(m.group(1) or "") :])
    for m in MANY_ONE.finditer(text):
        before = (m.group(1) or "").strip().lower()
        if before not in LABELS and not text[m.end() :].startswith(("-", "'")):
            found.append(m.group(0)[len(m.group(1) or "") :])
    found += [m.group(0) for m in AGREE.finditer(text) if not text[: m.start()].endswith("and ")]  # one of several
    for m in (*ONE_ARE.finditer(text), *MANY_IS.finditer(text)):
        if (m.group(1) or "").strip().lower() not in LABELS:
            found.append(m.group(0)[len(m.group(1) or "") :])
    return found


def test_the_checker_catches_what_it_is_for():
    assert problems("Red hires card 3, a agent, for 1 credits.") == ["a agent", "1 credits"]
    assert problems("Blue earns 1 build points, an unit, 3 credit.") == ["an unit", "1 build points", "3 credit"]
    assert problems("Player 1 moves; an engineer and a unit; 1 credit; 2 credits; planet 1 hex 0402.") == []
    assert problems("Red's armor 1 boards Red's transport 3; Red's army 1 lands.") == []
    assert plural(1, "credit") == "1 credit" and plural(2, "hex") == "2 hexes" and a("HQ") == "an HQ"
    assert problems("Blue's heavy cruiser 1 attack Red's army 1.") == ["Blue's heavy cruiser 1 attack"]
    assert problems("Blue's heavy cruiser 1 and Blue's destroyer 2 attack Red's army 1.") == []
    assert problems("The card flies 2, so 1 energy cube are needed; 3 ships is; 2 cubes are; ring 1 spot 3 is") == [
        "1 energy cube are",
        "3 ships is",
    ]


class Reading:
    """What the page shows of one game as it is played: its sentences in the table's words, now and then the books,
    the moves offered and the refusals of moves nearly like them; and the banner's rounds against who acted."""

    def __init__(self, game: Game, players: list[str], options: dict[str, Any]) -> None:
        self.game, self.players = game, players
        self.words = Words(board_of(game.name, options, default_board), players)
        self.texts: list[str] = []
        self.offered: dict[str, list[Any]] = {}  # argument -> the values the game offered for it so far
        self.rounds: list[str] = []  # the banner's round going up before every player had a turn
        self._round, self._acted = 0, set()
        self.blocked: list[str] = []  # refused Dakalio entries whose reason names no spot that blocks them

    def saw(self, state: Any, events: list[Any], step: int) -> None:
        phase = self.game.phase(state)
        self.texts += [self.words.text(e.text) for e in events] + [self.words.text(phase.prompt)]
        if self._round and phase.round > self._round and not self._acted >= set(self.players):
            self.rounds.append(f"round {phase.round} after turns of only {sorted(self._acted)}")
        if phase.round != self._round:
            self._round, self._acted = phase.round, set()
        if phase.actor:
            self._acted.add(phase.actor)
        if step % (2 if self.game.name == "dakalio" else 7) == 0:  # Dakalio's games are short
            self.page(state)

    def page(self, state: Any) -> None:
        shown = books(self.game.name, self.game.ledger(state), self.words)
        rows = [row for player in shown["players"] for row in player["rows"]] + shown["table"]
        self.texts += [f"{label}: {text}" for label, text in rows]
        offered = inputs(self.game, state, self.words)
        for item in offered[:40]:
            self.texts += [item["label"], *(f"{name}: {said}" for name, _, said, *_ in item["steps"])]
        for item in offered:
            for key, value in item["action"].items():
                known = self.offered.setdefault(key, [])
                if key != "type" and value not in known:
                    known.append(value)
        self.texts += self.refusals(state, [Action.from_json(item["action"]) for item in offered])

    def refusals(self, state: Any, actions: list[Action]) -> list[str]:
        """Each kind of move offered, with each of its arguments swapped for every value the game offered for it."""
        said, kinds, opened = [], {}, {}
        for action in actions:
            kinds.setdefault(action.type, action)
        for action in kinds.values():
            for key, _ in action.args:
                for other in self.offered.get(key, []):
                    tried = Action.from_json({**action.to_json(), key: other})
                    try:
                        self.game.check(state, tried)
                    except IllegalAction as refused:
                        said.append(self.words.text(str(refused)))
                        if tried.type == "enter":
                            opened = opened or self.entries_opened(state)
                            self.names_the_blocker(opened, tried.get("to"), str(refused))
        return said

    def entries_opened(self, state: Any) -> dict[str, set[Any]]:
        """Dakalio: for each spot with a ship or an asteroid, where a ship could enter to were it not there."""
        opened = {}
        for spot in {*state.ships, *state.asteroids}:
            cleared = replace(state, ships={k: v for k, v in state.ships.items() if k != spot},
                              asteroids=tuple(s for s in state.asteroids if s != spot))  # fmt: skip
            opened[spot] = {a.get("to") for a in self.game.legal_actions(cleared) if a.type == "enter"} - {spot}
        return opened

    def names_the_blocker(self, opened: dict[str, set[Any]], to: str, reason: str) -> None:
        """A refused entry that a ship or an asteroid blocks names the spot of one that does."""
        blockers = sorted(spot for spot, tos in opened.items() if to in tos)
        if blockers and not any(re.search(rf"\b{b}\b", reason) for b in blockers):
            self.blocked.append(f"{reason!r} (blocked by {', '.join(blockers)})")


def _played(name: str, seed: int) -> Reading:
    players, options, _ = GAMES[name]
    game = load(name)
    state = game.setup(players, options, seed)
    reading = Reading(game, players, options)
    rng = random.Random(seed)
    reading.saw(state, [], 0)
    for step in range(1, 4000):
        if game.outcome(state) is not None:
            break
        state, events = game.apply(state, scripted_action(game, state, rng))
        reading.saw(state, events, step)
    reading.page(state)
    outcome = game.outcome(state)
    assert outcome is not None, f"{name} did not end"
    said = reading.words.text(verdict(outcome.result, outcome.winners, outcome.reason))
    who = [w.capitalize() for w in outcome.winners] or ["Everyone" if outcome.result == "lost" else "A draw"]
    assert said.startswith(tuple(who)) and said.endswith(".") and len(said) > len(who[0]) + 12, said  # and why
    reading.texts.append(said)
    return reading


def _replayed(path: Path) -> Reading:
    scenario = json.loads(path.read_text())
    game = load(scenario["game"])
    state = game.setup(scenario["players"], scenario.get("options", {}), scenario.get("seed", 0))
    reading = Reading(game, scenario["players"], scenario.get("options", {}))
    reading.saw(state, [], 0)
    for step, item in enumerate(scenario["steps"], 1):
        if "action" in item and "illegal" not in item:
            state, events = game.apply(state, Action.from_json(item["action"]))
            reading.saw(state, events, step)
    return reading


def _read_well(reading: Reading) -> None:
    bad = sorted({f"{p!r} in {t!r}" for t in reading.texts for p in problems(t)})
    assert not bad, "\n".join(bad[:20])
    assert not reading.rounds, f"the banner counts player turns as rounds: {reading.rounds[:3]}"
    assert not reading.blocked, "\n".join(reading.blocked[:5])


CASES = [(name, seed) for name, (_, _, seeds) in GAMES.items() for seed in seeds]


@pytest.mark.parametrize(("name", "seed"), CASES)
def test_whole_games_read_as_english(name, seed):
    _read_well(_played(name, seed))


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("orbit/whole_game_*.json")), ids=lambda p: p.stem)
def test_whole_orbit_games_read_as_english(path):
    _read_well(_replayed(path))
