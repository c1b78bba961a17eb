"""The board editor's and the library's API under the production server: checks, saving, flattening, sharing."""

import json

import cv2
import numpy as np

from companion.boards import orbit
from companion.boards.files import board_to_json
from companion.table.datasets import DataSets, set_path


def _board():
    return board_to_json(orbit.build("front"))


def test_the_editor_checks_a_board_as_the_game_does_and_says_what_changed(served):
    status, answer = served.post("/api/editor/check", {"game": "orbit", "board": _board()})
    assert status == 200 and answer["problems"] == []
    assert answer["diff"] == {
        "added": [],
        "moved": [],
        "removed": [],
        "links_added": [],
        "links_removed": [],
        "orbits_added": [],
        "orbits_removed": [],
    }
    board = _board()
    board["sites"][5]["x"] += 10
    board["links"] = [
        link for link in board["links"] if not (link["kind"] == "orbit" and "r1s0" in (link["a"], link["b"]))
    ]
    status, answer = served.post("/api/editor/check", {"game": "orbit", "board": board})
    problems = answer["problems"]
    assert len(problems) == 1 and "ring 1 spot 0" in problems[0] and "\n" not in problems[0]  # the site's name
    board = _board()
    board["sites"][5]["x"] += 10
    board["sites"].append({"id": "extra", "x": 10, "y": 10, "kind": "intersection", "label": "", "tags": []})
    answer = served.post("/api/editor/check", {"game": "orbit", "board": board})[1]
    assert answer["diff"]["moved"] == [board["sites"][5]["id"]] and answer["diff"]["added"] == ["extra"]


def test_a_saved_board_is_a_data_set_a_new_game_is_played_and_mapped_on(served, tmp_path):
    served.table.datasets = DataSets(tmp_path / "datasets")
    board = _board()
    board["sites"][0]["label"] = "the sun"
    status, answer = served.post("/api/editor/save", {"game": "orbit", "name": "my-copy", "board": board}, token=None)
    assert status == 403
    status, answer = served.post("/api/editor/save", {"game": "orbit", "name": "my-copy", "board": board})
    assert status == 201, answer
    orbit_game = next(g for g in served.get("/api/games")["games"] if g["name"] == "orbit")
    field = next(f for f in orbit_game["options"] if f["name"] == "board")
    assert field["choices"] == ["front", "back", "my-copy"]
    status, _ = served.post("/api/games", {"game": "orbit", "players": ["red", "blue"],
                                           "options": {"board": "my-copy"}})  # fmt: skip
    assert status == 201
    mapped = served.get("/api/board")
    assert any(site.get("label") == "the sun" or site.get("name") == "the sun" for site in mapped["sites"])
    # Saving over the set is asked for, never done unasked; it makes a new version of it: the game in play stays on
    # the version it was set up on.
    board["sites"][0]["label"] = "the moon"
    kept = (tmp_path / "datasets/orbit/board/my-copy").read_bytes()
    status, answer = served.post("/api/editor/save", {"game": "orbit", "name": "my-copy", "board": board})
    assert status == 409 and answer["error"] == (
        "ORBIT's board “my-copy” is already on this table: keep it under another name, or say to replace it"
    )
    assert (tmp_path / "datasets/orbit/board/my-copy").read_bytes() == kept
    status, answer = served.post("/api/editor/save", {"game": "orbit", "name": "my-copy", "board": board,
                                                      "replace": True})  # fmt: skip
    assert status == 201, answer
    served.restart()
    served.table.datasets = DataSets(tmp_path / "datasets")
    mapped = served.get("/api/board")
    assert any("the sun" in (site.get("label"), site.get("name")) for site in mapped["sites"])
    assert not any("the moon" in (site.get("label"), site.get("name")) for site in mapped["sites"])
    listed = served.get("/api/library")["sets"]
    assert [(s["game"], s["option"], s["name"]) for s in listed] == [("orbit", "board", "my-copy")]


def test_a_library_file_is_shared_and_added_whole_or_not_at_all(served, tmp_path):
    served.table.datasets = DataSets(tmp_path / "datasets")
    served.post("/api/editor/save", {"game": "orbit", "name": "mine", "board": _board()})
    bundle = served.get("/api/library/export?set=orbit/board/mine")
    bundle["sets"][0]["name"] = "friends"
    served.table.datasets = DataSets(tmp_path / "other")
    raw = json.dumps(bundle).encode()
    status, answer = served.request("POST", "/api/library/import?file=friends.json", raw=raw)
    assert status == 201 and answer["added"] == [{"game": "orbit", "option": "board", "name": "friends"}]
    bundle["sets"][0]["data"]["sites"][0]["x"] = -5
    bundle["sets"][0]["name"] = "wrong"
    status, answer = served.request("POST", "/api/library/import?file=wrong.json", raw=json.dumps(bundle).encode())
    assert status == 400 and answer["error"].startswith("options.board: wrong.json: orbit board “wrong”")
    assert "outside the board" in answer["error"]
    assert served.table.datasets.names("orbit", "board") == ["friends"]


def test_a_library_file_never_replaces_a_set_unasked_and_may_come_under_a_new_name(served, tmp_path):
    served.table.datasets = DataSets(tmp_path / "datasets")
    served.post("/api/editor/save", {"game": "orbit", "name": "mine", "board": _board()})
    bundle = served.get("/api/library/export?set=orbit/board/mine")
    kept = (tmp_path / "datasets" / "orbit" / "board" / "mine").read_bytes()
    bundle["sets"][0]["data"]["sites"][0]["x"] += 3  # a friend's copy, a little different
    raw = json.dumps(bundle).encode()
    status, answer = served.request("POST", "/api/library/import?file=friends.json", raw=raw)
    assert status == 409 and answer["error"] == (
        "friends.json: ORBIT's board “mine” is already on this table: add it under another name, or say to replace it"
    )
    assert (tmp_path / "datasets" / "orbit" / "board" / "mine").read_bytes() == kept  # nothing changed
    status, answer = served.request("POST", "/api/library/import?file=friends.json&name=friends", raw=raw)
    assert status == 201 and answer["added"] == [{"game": "orbit", "option": "board", "name": "friends"}]
    assert served.table.datasets.names("orbit", "board") == ["friends", "mine"]
    status, answer = served.request("POST", "/api/library/import?file=friends.json&replace=yes", raw=raw)
    assert status == 201 and (tmp_path / "datasets" / "orbit" / "board" / "mine").read_bytes() != kept
    status, answer = served.request("POST", "/api/library/import?file=friends.json&replace=maybe", raw=raw)
    assert status == 400 and answer["error"] == "replace: 'maybe' is neither yes nor no"
    both = {**bundle, "sets": [bundle["sets"][0], {**bundle["sets"][0], "name": "other"}]}
    status, answer = served.request("POST", "/api/library/import?file=two.json&name=x", raw=json.dumps(both).encode())
    assert status == 400 and answer["error"] == "two.json: holds 2 data sets; a new name is for a file of one set"


def test_a_photo_is_flattened_by_its_four_corners(served):
    photo = np.full((600, 800, 3), 40, np.uint8)
    corners = np.array([(150, 100), (650, 120), (700, 520), (100, 500)], np.int32)
    cv2.fillPoly(photo, [corners], (200, 200, 200))
    cv2.circle(photo, (150, 100), 12, (0, 0, 255), -1)  # a red mark at the board's top-left corner
    raw = cv2.imencode(".jpg", photo)[1].tobytes()
    query = "corners=" + ",".join(str(v) for v in corners.flatten()) + "&width=700&height=700"
    status, answer = served.request("POST", f"/api/editor/flatten?{query}", raw=raw)
    assert status == 200
    flat = cv2.imdecode(np.frombuffer(answer, np.uint8), cv2.IMREAD_COLOR)
    assert flat.shape[:2] == (1000, 1000)
    assert flat[500, 500].mean() > 150 and flat[3, 3][2] > 150 > flat[3, 3][0]
    status, answer = served.request("POST", "/api/editor/flatten?corners=1,2,3&width=700&height=700", raw=raw)
    assert status == 400 and answer["error"].startswith("corners:")
    status, answer = served.request("POST", f"/api/editor/flatten?{query}", raw=b"not a picture")
    assert status == 400 and answer["error"].startswith("photo:")


def test_the_deck_editor_names_the_card_that_is_wrong_and_keeps_a_good_deck(served, tmp_path):
    served.table.datasets = DataSets(tmp_path / "datasets")
    deck = served.get("/api/editor/deck")["deck"]
    status, answer = served.post("/api/editor/deck/check", {"deck": deck})
    assert answer["problems"] == [] and answer["size"] == 56
    assert answer["cards"]["c01"].startswith("advance red 1, orange 1")
    deck["cards"][3]["planets"][0][1] = 3
    answer = served.post("/api/editor/deck/check", {"deck": deck})[1]
    assert answer["problems"] == ["card c04: counts are at least 1 and planets advance 1 or 2 positions"]
    deck["cards"][3]["planets"] = [["orange", 1], ["orange", 1]]  # one planet twice on a card
    answer = served.post("/api/editor/deck/check", {"deck": deck})[1]
    assert answer["problems"] == [
        "card c04: the orange planet is on it twice; a card shows each planet once (advance it 2 instead)"
    ]
    deck["cards"][3]["planets"] = [["orange", 1], ["blue", 1]]
    deck["markers"]["red"] = "laser"
    status, answer = served.post("/api/editor/deck/save", {"name": "club", "deck": deck})
    assert status == 400 and answer["error"].startswith("deck.markers.red: 'laser' is not one of")
    deck["markers"]["red"] = ""
    deck["cards"] = deck["cards"][:2]
    answer = served.post("/api/editor/deck/check", {"deck": deck})[1]
    assert answer["problems"] == ["the deck has 4 cards: too few to deal three to each player"]
    deck = served.get("/api/editor/deck")["deck"]
    deck["cards"][0]["count"] = 3
    status, answer = served.post("/api/editor/deck/save", {"name": "club", "deck": deck})
    assert status == 201, answer
    assert served.get("/api/editor/deck?start=club")["deck"]["cards"][0]["count"] == 3
    status, _ = served.post("/api/games", {"game": "orbit", "players": ["red", "blue"], "options": {"deck": "club"}})
    assert status == 201
    assert served.session.state.deck == 57 - 6


def test_a_planet_map_is_checked_by_its_hexes_and_kept_for_a_planet(served, tmp_path):
    served.table.datasets = DataSets(tmp_path / "datasets")
    planet = served.get("/api/editor/planet?start=3")["planet"]
    assert served.post("/api/editor/planet/check", {"planet": planet})[1]["problems"] == []
    wrong = {**planet, "rows": [planet["rows"][0][:4] + "X" + planet["rows"][0][5:], *planet["rows"][1:]]}
    answer = served.post("/api/editor/planet/check", {"planet": wrong})[1]
    assert answer["problems"] == ["rows[0][4]: 'X' is not one of .dFHSCWRB#"]
    status, answer = served.post("/api/editor/planet/save", {"name": "ours", "planet": {**planet, "starports": []}})
    assert status == 400 and "starports: expected a list of 3 hexes" in answer["error"]
    status, answer = served.post("/api/editor/planet/save", {"name": "ours", "planet": planet})
    assert status == 201, answer
    game = next(g for g in served.get("/api/games")["games"] if g["name"] == "orbital_battle")
    picker = next(f for f in game["options"] if f["name"] == "planet_files")
    assert picker["kind"] == "choices" and picker["choices"] == ["ours"]
    assert picker["labels"] == ["the game's own", "ours"] and picker["keys"]["3"] == "planet 3"
    status, _ = served.post("/api/games", {"game": "orbital_battle", "players": ["red", "blue"],
                                           "options": {"planet_files": {"3": "ours"}}})  # fmt: skip
    assert status == 201
    assert str(set_path(served.session.state.options.planet_files["3"])).endswith("orbital_battle/planet_files/ours")


def test_periorbis_data_is_checked_card_by_card_and_a_game_starts_on_it(served, tmp_path):
    from companion.rules.periorbis.datafiles import load

    served.table.datasets = DataSets(tmp_path / "datasets")
    files = served.get("/api/editor/periorbis")["files"]
    status, answer = served.post("/api/editor/periorbis/check", {"files": files})
    assert status == 200 and answer["problems"] == []
    assert answer["cards"]["employee -2"] == "captain, paid 2: carries 3 cargo"
    assert answer["cards"]["ship 1-1"].startswith("8 credits a crate, 12 spaces")
    files["employees.json"]["decks"][0][2]["wage"] = 0
    answer = served.post("/api/editor/periorbis/check", {"files": files})[1]
    assert answer["problems"] == ["employee card 3 (deck 1), wage: must be at least 1"] and answer["cards"] == {}
    files["employees.json"]["decks"][0][2]["wage"] = 3
    files["orbit.json"]["turns"][3]["vesta"] = 1
    status, answer = served.post("/api/editor/periorbis/save", {"name": "club", "files": files})
    assert status == 400 and answer["error"] == "orbit track, turn 4: no asteroid 'vesta' in asteroids.json"
    assert served.get("/api/library")["sets"] == []
    del files["orbit.json"]["turns"][3]["vesta"]
    files["setup.json"]["start_team"] = []  # the first slot left empty: nobody to act with
    answer = served.post("/api/editor/periorbis/check", {"files": files})[1]
    assert answer["problems"] == [
        "start team, HQ slot 1: empty: a player would start with no employee and could do nothing"
    ]
    files["setup.json"]["start_team"] = [-2, 0]
    status, answer = served.post("/api/editor/periorbis/save", {"name": "club", "files": files})
    assert status == 201, answer
    assert served.get("/api/editor/periorbis?start=club")["files"]["setup.json"]["start_team"] == [-2, 0]
    status, _ = served.post("/api/games", {"game": "periorbis", "players": ["red", "blue"],
                                           "options": {"data": "club"}})  # fmt: skip
    assert status == 201
    folder = served.session.state.options.data
    assert str(set_path(folder)).endswith("periorbis/data/club") and load(folder).cards[3].wage == 3
    assert load(folder).setup.start_team == (-2, 0)


def test_a_dakalio_mat_of_the_tables_is_chosen_by_name_and_played_on(served, tmp_path):
    from companion.boards import dakalio
    from companion.table import library

    served.table.datasets = DataSets(tmp_path / "datasets")
    mat = board_to_json(dakalio.build())
    next(site for site in mat["sites"] if site["id"] == "e5")["label"] = "our blue base"
    library.save(served.table.datasets, "dakalio", "mat", "ours", mat)
    game = next(g for g in served.get("/api/games")["games"] if g["name"] == "dakalio")
    field = next(f for f in game["options"] if f["name"] == "mat")
    assert field["choices"] == [None, "ours"] and field["labels"] == ["the game's own", "ours"]
    status, answer = served.post("/api/games", {"game": "dakalio", "players": ["red", "blue"],
                                                "options": {"mat": "/etc/hostname"}})  # fmt: skip
    assert status == 400 and "mat: '/etc/hostname' is not a data set this table offers" in answer["error"]
    status, _ = served.post("/api/games", {"game": "dakalio", "players": ["red", "blue"], "options": {"mat": "ours"}})
    assert status == 201
    assert any("our blue base" in (site.get("label"), site.get("name")) for site in served.get("/api/board")["sites"])


def test_a_dakalio_mat_is_checked_naming_the_spot_and_kept_for_a_new_game(served, tmp_path):
    served.table.datasets = DataSets(tmp_path / "datasets")
    mat = served.get("/api/editor/board?game=dakalio&start=own")
    assert "empty" in mat["starts"] and mat["board"]["orbits"]
    board = mat["board"]
    status, answer = served.post("/api/editor/check", {"game": "dakalio", "board": board})
    assert answer["problems"] == [] and answer["diff"]["moved"] == []
    wrong = json.loads(json.dumps(board))
    wrong["links"] = [lk for lk in wrong["links"] if not (lk["kind"] == "serves" and lk["b"] == "g4")]
    problems = served.post("/api/editor/check", {"game": "dakalio", "board": wrong})[1]["problems"]
    assert len(problems) == 1 and problems[0].startswith("g4") and "serves" in problems[0], problems
    board["sites"][0]["label"] = "north spot"
    status, answer = served.post("/api/editor/save", {"game": "dakalio", "name": "ours", "board": board})
    assert status == 201, answer
    parted = json.loads(json.dumps(board))  # a loop parted in two lines, as the editor's Join tool leaves it
    parted["orbits"]["line1"], parted["orbits"]["line2"] = parted["orbits"].pop("N1/1"), parted["orbits"].pop("N1/2")
    problems = served.post("/api/editor/check", {"game": "dakalio", "board": parted})[1]["problems"]
    first, last = parted["orbits"]["line1"][0], parted["orbits"]["line1"][-1]
    assert problems == [
        f"the line from {first} to {last} leaves the mat and comes back on no line: join it to the "
        "line opposite it (only a line through the centre, e5 (blue base), is a loop on its own)"
    ]
    game = next(g for g in served.get("/api/games")["games"] if g["name"] == "dakalio")
    assert next(f for f in game["options"] if f["name"] == "mat")["choices"] == [None, "ours"]


def test_an_orbital_battle_solar_map_names_the_planet_that_is_wrong_and_drives_the_game(served, tmp_path):
    served.table.datasets = DataSets(tmp_path / "datasets")
    start = served.get("/api/editor/board?game=orbital_battle&start=own")
    assert "empty" not in start["starts"]
    small = served.get("/api/editor/solar/layout?radius=7&rings=1,2,3,4,5,6,7&hex_mm=14")["board"]
    assert (
        len(small["sites"]) == 169
        and served.post("/api/editor/check", {"game": "orbital_battle", "board": small})[1]["problems"] == []
    )
    moved = json.loads(json.dumps(small))
    for site in moved["sites"]:
        site["tags"] = [t for t in site["tags"] if t != "planet-3"]
    moved["sites"][1]["tags"].append("planet-3")  # ring 1: not planet 3's orbit
    problems = served.post("/api/editor/check", {"game": "orbital_battle", "board": moved})[1]["problems"]
    assert len(problems) == 1 and problems[0].startswith("planet 3") and "ring 3" in problems[0], problems
    status, answer = served.post("/api/editor/save", {"game": "orbital_battle", "name": "small", "board": small})
    assert status == 201, answer
    game = next(g for g in served.get("/api/games")["games"] if g["name"] == "orbital_battle")
    assert next(f for f in game["options"] if f["name"] == "solar_map")["choices"] == [None, "small"]
    status, answer = served.post("/api/games", {"game": "orbital_battle", "players": ["red", "blue"],
                                                "options": {"solar_map": "small"}})  # fmt: skip
    assert status == 201, answer
    assert len(served.get("/api/board")["sites"]) == 169


def test_a_copy_of_trajectorys_board_keeps_its_spaces_moves_them_and_is_played_on(served, tmp_path):
    served.table.datasets = DataSets(tmp_path / "datasets")
    board = served.get("/api/editor/board?game=trajectory&start=own")["board"]
    board["sites"][0]["x"] += 12
    answer = served.post("/api/editor/check", {"game": "trajectory", "board": board})[1]
    assert answer["problems"] == [] and answer["diff"]["moved"] == [board["sites"][0]["id"]]
    missing = json.loads(json.dumps(board))
    missing["links"] = [lk for lk in missing["links"] if (lk["a"], lk["b"]) != ("o1s0", "o2s1")]
    problems = served.post("/api/editor/check", {"game": "trajectory", "board": missing})[1]["problems"]
    assert problems == ["the transfer-out path orbit 1 space 0 -> orbit 2 space 1 is missing"], problems
    status, answer = served.post("/api/editor/save", {"game": "trajectory", "name": "ours", "board": board})
    assert status == 201, answer
    status, answer = served.post("/api/games", {"game": "trajectory", "players": ["red", "blue"],
                                                "options": {"board": "ours"}})  # fmt: skip
    assert status == 201, answer
    shown = {s["id"]: s for s in served.get("/api/board")["sites"]}
    assert shown[board["sites"][0]["id"]]["x"] == board["sites"][0]["x"]
