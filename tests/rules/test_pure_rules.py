"""The rules read files only at setup: a state carries the board and data it was set up on, so a game plays,
replays, summarises and resumes from its log however the files have changed since, with no file and no clock."""

import builtins
import io
import json
import os
import random
import shutil
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from companion.boards import default_board
from companion.boards.files import save_board
from companion.boards.orbit import build as orbit_side
from companion.boards.solar_map import solar_board
from companion.codec import CodecError
from companion.rules import Action, load, names
from companion.rules.engine import Material, version_of
from companion.rules.orbit.data import DEFAULT_DECK
from companion.rules.periorbis.datafiles import DEFAULTS as PERIORBIS_DATA
from companion.sim.players import scripted_action
from companion.table.session import Session
from companion.table.store import Store

STEPS = 40  # actions played after setup: enough to fly, land, mine and capture in every game


def _files(game: str, folder: Path) -> tuple[dict, list[Path]]:
    """Options that set `game` up from files of the table's own in `folder`, and those files."""
    if game == "orbit":
        save_board(orbit_side("back"), folder / "board.json")
        shutil.copyfile(DEFAULT_DECK, folder / "deck.json")
        return {"board": str(folder / "board.json"), "deck": str(folder / "deck.json")}, [
            folder / "board.json",
            folder / "deck.json",
        ]
    if game == "orbital_battle":
        save_board(solar_board(), folder / "solar.json")
        planet = Path(default_board.__code__.co_filename).parent / "orbital_battle_data" / "planet3.json"
        shutil.copyfile(planet, folder / "planet3.json")
        options = {"solar_map": str(folder / "solar.json"), "planet_files": {"3": str(folder / "planet3.json")}}
        return options, [folder / "solar.json", folder / "planet3.json"]
    if game == "periorbis":
        shutil.copytree(PERIORBIS_DATA, folder / "data")
        return {"data": str(folder / "data"), "length": "short"}, [folder / "data"]
    option = {"dakalio": "mat", "trajectory": "board"}[game]
    save_board(default_board(game), folder / "board.json")
    return {option: str(folder / "board.json")}, [folder / "board.json"]


def _spoil(files: list[Path]) -> None:
    """The first file gone, every other one replaced by one that is no longer JSON."""
    for index, path in enumerate(files):
        if path.is_dir():
            for inner in path.iterdir():
                inner.write_text("{ not json", encoding="utf-8")
        elif index == 0:
            path.unlink()
        else:
            path.write_text("{ not json", encoding="utf-8")


@contextmanager
def no_files_and_no_clock(monkeypatch: pytest.MonkeyPatch):
    """Any file opened, looked at or listed, or any clock read, in this test's thread (where the rules run), fails the
    test where it happens; other threads (a server an earlier test left winding down) go on as usual."""
    here = threading.get_ident()

    def refuse(what: str, original):
        def tripped(*args, **kwargs):
            if threading.get_ident() != here:
                return original(*args, **kwargs)
            raise AssertionError(f"the rules {what} after setup: {args[:1]}")

        return tripped

    with monkeypatch.context() as patch:
        for module, name in (
            (builtins, "open"),
            (io, "open"),
            (os, "open"),
            (Path, "open"),
            (Path, "read_text"),
            (Path, "read_bytes"),
        ):
            patch.setattr(module, name, refuse("opened a file", getattr(module, name)))
        for name in ("stat", "lstat", "scandir", "listdir"):
            patch.setattr(os, name, refuse(f"looked at the disk ({name})", getattr(os, name)))
        for name in ("time", "time_ns", "monotonic", "monotonic_ns", "perf_counter", "localtime", "gmtime"):
            patch.setattr(time, name, refuse(f"read the clock ({name})", getattr(time, name)))
        yield


def _play(game, state, seed: int) -> list[Action]:
    rng, actions = random.Random(seed), []
    for _ in range(STEPS):
        if game.outcome(state) is not None:
            break
        action = scripted_action(game, state, rng)
        state, _ = game.apply(state, action)
        actions.append(action)
    return actions


@pytest.mark.parametrize("name", names())
def test_a_game_set_up_from_files_plays_and_replays_from_its_state_alone(name, tmp_path, monkeypatch):
    game = load(name)
    options, files = _files(name, tmp_path)
    first = game.setup(["red", "blue", "green"][: max(game.min_players, 2)], options, 5)
    stored = json.loads(json.dumps(game.state_to_json(first, whole=True)))
    assert type(game.material(first)).__eq__ is Material.__eq__  # compared and hashed by version, never field by field
    actions = _play(game, first, 5)
    played, _ = game.replay_from(first, actions)
    _spoil(files)
    with no_files_and_no_clock(monkeypatch):
        replayed = opening = game.state_from_json(stored)
        for action in actions:  # every step as the table takes it: what may be done, where pieces stand, the books
            assert action in set(game.legal_actions(replayed))
            game.layout(replayed), game.ledger(replayed), game.phase(replayed)
            replayed, _ = game.apply(replayed, action)
        assert replayed == played and game.state_to_json(replayed) == game.state_to_json(played)
        assert game.state_from_json(game.state_to_json(replayed), game.material(opening)) == played
        assert game.ledger(replayed) == game.ledger(played) and game.layout(replayed) == game.layout(played)
        assert game.board(replayed).sites == game.board(first).sites
        for surface in game.surfaces:
            assert game.surface(replayed, surface.id) is not None
    assert len(actions) == STEPS or game.outcome(played) is not None


def test_a_state_names_its_material_by_version_and_reads_again_only_with_that_one():
    game = load("dakalio")
    state = game.setup(["red", "blue"], {}, 1)
    brief = game.state_to_json(state)
    whole = json.loads(json.dumps(game.state_to_json(state, whole=True)))
    assert brief["material"] == game.material(state).version == whole["material"]["version"]
    assert len(json.dumps(brief)) < 1000 < len(json.dumps(whole))  # the mat is kept once a game, not in each state
    supremacy = game.setup(["red", "blue"], {"mode": "supremacy"}, 2)
    assert game.material(supremacy) == game.material(state)  # the same mat: the same version
    with pytest.raises(CodecError, match=r"set up on material '[0-9a-f]{16}', which is not given$"):
        game.state_from_json(brief)
    with pytest.raises(CodecError, match=f"given: {game.material(state).version}"):
        game.state_from_json({**brief, "material": "0" * 16}, game.material(state))
    whole["material"]["board"]["sites"][0]["x"] += 1
    with pytest.raises(CodecError, match="its content is not version"):
        game.state_from_json(whole)


def test_a_version_is_the_content_whatever_the_file_looks_like():
    assert version_of({"a": 1, "b": [1.0, "x"]}) == version_of({"b": [1, "x"], "a": 1.0})
    assert version_of({"a": 1}) != version_of({"a": 2})
    assert len(version_of({})) == 16


def test_a_logged_game_resumes_and_undoes_without_the_files_it_was_set_up_from(tmp_path, monkeypatch):
    options, files = _files("orbit", tmp_path)
    store = Store(tmp_path / "companion.db")
    session = Session.start(store, "orbit", ["red", "blue"], options, 8)
    first = session.state
    actions = _play(session.game, first, 8)[:30]
    entries = [session.submit(action, "phone", None) for action in actions]
    played = session.state
    _spoil(files)
    resumed = Session.resume(store)
    assert resumed is not None and resumed.state == played and resumed.actions == tuple(actions)
    with no_files_and_no_clock(monkeypatch):
        assert list(resumed.game.legal_actions(resumed.state)) and resumed.game.ledger(resumed.state)
        exported = resumed.game.state_from_json(json.loads(json.dumps(resumed.export()["state"])))
        assert exported == played
    resumed.correct(actions[-1], entries[-1].id, "phone", None)  # the state before the last, from the first state
    assert resumed.state == played
    resumed.undo("phone", None)
    assert resumed.state == session.game.replay_from(first, actions[:-1])[0]


def test_the_table_shows_the_board_a_game_was_set_up_on_after_its_file_is_gone(tmp_path):
    from companion.table.game_board import board_in_play

    game = load("trajectory")
    options, files = _files("dakalio", tmp_path)
    dakalio = load("dakalio")
    state = dakalio.setup(["red", "blue"], options, 1)
    _spoil(files)
    assert board_in_play(dakalio, state, options, default_board).sites == default_board("dakalio").sites
    plain = game.setup(["red"], {}, 1)
    table_copy = default_board("trajectory")
    assert board_in_play(game, plain, {}, lambda name: table_copy) is table_copy  # no board chosen: the table's own
