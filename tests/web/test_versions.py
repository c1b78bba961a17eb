"""Data sets are versions: a game is set up on a version of each set and its log names it, so saving or importing a
set never changes a game that used it; a game whose data is gone is kept and named, and never stops the table."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest

from companion.boards.files import board_to_json
from companion.boards.orbit import build
from companion.table.config import TableConfig
from companion.table.datasets import VERSIONS, DataSets, set_path
from companion.table.live import LiveTable
from companion.table.session import CannotResume, Session
from companion.table.store import Store


def _board(label: str) -> dict:
    board = board_to_json(build("front"))
    board["sites"][0]["label"] = label
    return board


def _labels(served) -> set[str]:
    return {site.get("name") or "" for site in served.get("/api/board")["sites"]} | {
        site.get("label") or "" for site in served.get("/api/board")["sites"]
    }


def test_a_save_or_an_import_over_a_set_a_game_used_changes_no_game(served, tmp_path):
    served.table.datasets = DataSets(tmp_path / "datasets")
    assert served.post("/api/editor/save", {"game": "orbit", "name": "club", "board": _board("the sun")})[0] == 201
    assert (
        served.post("/api/games", {"game": "orbit", "players": ["red", "blue"], "options": {"board": "club"}})[0] == 201
    )
    first = served.session.record
    assert set_path(first.options["board"]) == tmp_path / "datasets/orbit/board/club"
    assert VERSIONS in first.options["board"]  # the game names the version it was set up on
    assert served.post("/api/setup", {"do": "stop"})[0] == 200  # the group set the pieces out, and plays
    assert served.post("/api/act", {"action": next(iter(served.get("/api/inputs")["phone"]))["action"]})[0] == 200
    # The set changes twice: saved from the editor, then imported from a library file.
    assert served.post("/api/editor/save", {"game": "orbit", "name": "club", "board": _board("the moon"),
                                            "replace": True})[0] == 201  # fmt: skip
    shared = {"format": "orrery-library", "sets": [{"game": "orbit", "option": "board", "name": "club",
                                                    "data": _board("the comet")}]}  # fmt: skip
    assert served.request("POST", "/api/library/import?replace=yes", raw=json.dumps(shared).encode())[0] == 201
    assert "the sun" in _labels(served) and not {"the moon", "the comet"} & _labels(served)
    assert served.request("GET", "/api/inputs")[0] == 200
    served.restart()  # the table resumes the game on its own version
    served.table.datasets = DataSets(tmp_path / "datasets")
    assert "the sun" in _labels(served)
    assert served.get(f"/games/{first.id}").startswith(b"<!doctype html>")
    assert served.request("GET", f"/api/export?game={first.id}")[0] == 200
    # A new game on the set is set up on its newest version.
    served.post("/api/games", {"game": "orbit", "players": ["red", "blue"], "options": {"board": "club"}})
    assert "the comet" in _labels(served) and served.session.record.options["board"] != first.options["board"]


def test_a_game_logged_before_sets_had_versions_is_pinned_to_its_set_as_it_is(served, tmp_path):
    from .conftest import phones_table

    folder = tmp_path / "datasets/orbit/board"
    folder.mkdir(parents=True)
    (folder / "club").write_text(json.dumps(_board("the sun")))
    store = Store(tmp_path / "old.db")
    Session.start(store, "orbit", ["red", "blue"], {"board": str(folder / "club")}, 3)  # as a table logged it
    store.close()
    with phones_table(tmp_path / "old.db", "orbit") as table:  # the table takes it up, its sets beside the log
        pinned = table.session.store.game(1).options["board"]
        assert VERSIONS in pinned and set_path(pinned) == folder / "club"
        (folder / "club").write_text(json.dumps(_board("the moon")))  # a later save: the old game keeps its board
        assert any(site.name == "the sun" or site.label == "the sun" for site in table.board().sites)


def test_a_game_logged_before_states_kept_their_material_whose_data_is_gone_is_kept_and_a_new_one_begins(tmp_path):
    """A game begun now keeps its board and data in its log (its first snapshot); one logged before that is set up
    again from its files on resuming, and when they are gone it is kept and named, and the table begins anew."""
    db = tmp_path / "table.db"
    sets = DataSets(tmp_path / "datasets")
    folder = tmp_path / "datasets/orbit/board"
    folder.mkdir(parents=True)
    (folder / "ours").write_text(json.dumps(_board("the sun")))
    store = Store(db)
    Session.start(store, "orbit", ["red", "blue"], sets.resolve("orbit", {"board": "ours"}), 5)
    store.close()
    with sqlite3.connect(db) as old:  # as a log written before states carried their material
        old.execute("UPDATE snapshots SET state = json_remove(state, '$.material')")
    shutil.rmtree(folder / VERSIONS)  # the version the game was set up on is gone (a disk tidied by hand)
    try:
        Session.resume(Store(db))
    except CannotResume as error:
        assert str(error).startswith("game 1 (orbit) cannot be replayed: ") and "\n" not in str(error)
    else:
        raise AssertionError("the game replayed without its data")
    live = LiveTable(TableConfig(game="trajectory", players=("red", "blue"), db=str(db), serial="none",
                                 camera="none"))  # fmt: skip
    try:
        assert not live.resumed and live.session.record.id == 2 and live.session.record.game == "trajectory"
        assert any("game 1 (orbit) cannot be replayed" in note and "kept in the log" in note for note in live.notes)
        assert [g.id for g in live.store.games()] == [1, 2]  # the game is kept
    finally:
        live.stop()
    again = LiveTable(TableConfig(game="trajectory", players=("red", "blue"), db=str(db), serial="none",
                                  camera="none"))  # fmt: skip
    try:
        assert again.resumed and again.session.record.id == 2  # a restart resumes the new game: no loop of failures
    finally:
        again.stop()


@pytest.mark.parametrize("damage", ["[1, 2]", "null", '"text"'])
def test_a_game_whose_kept_state_is_damaged_is_named_in_one_line_and_the_table_begins_anew(tmp_path, damage):
    db = tmp_path / "table.db"
    store = Store(db)
    session = Session.start(store, "trajectory", ["red", "blue"], {}, 5)
    session.submit(next(iter(session.game.legal_actions(session.state))), "phone", "red")
    store.close()
    with sqlite3.connect(db) as damaged:
        damaged.execute("UPDATE snapshots SET state = ?", (damage,))
    with pytest.raises(CannotResume, match=r"^game 1 \(trajectory\) cannot be replayed: [^\n]+$"):
        Session.resume(Store(db))
    live = LiveTable(TableConfig(game="trajectory", players=("red", "blue"), db=str(db), serial="none",
                                 camera="none"))  # fmt: skip
    try:
        assert not live.resumed and live.session.record.id == 2 and [g.id for g in live.store.games()] == [1, 2]
    finally:
        live.stop()
