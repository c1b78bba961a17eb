"""The JSON API and the health check over real HTTP, against the real server: reads, inputs, the token, errors."""

from __future__ import annotations

from companion.rules import Action


def test_health_names_the_game_the_sensors_and_the_version(served):
    health = served.get("/healthz")
    assert health["ok"] is True and health["version"] == "0.1.0"
    assert health["game"] == {"name": "trajectory", "id": 1, "status": "playing", "phase": "turn", "actor": "red"}
    assert health["sensors"] == {"grid": "up", "camera": "absent", "mode": "grid alone"}


def test_state_log_ledger_and_board_describe_the_game(served):
    state = served.get("/api/state")
    assert state["players"] == ["red", "blue"] and state["phase"]["actor"] == "red"
    assert state["layout"]["o2s0"] == ["planet-home", "ship-red", "ship-blue"]
    log = served.get("/api/log")
    assert [e["kind"] for e in log["entries"]] == ["note", "action"] and log["last"] == state["last_entry"]
    assert "Trajectory begins" in log["entries"][0]["events"][0]["text"]
    assert served.get("/api/ledger")["players"]["red"]["fuel"] == 8
    board = served.get("/api/board")
    assert len(board["sites"]) == 60 and board["width"] == 600
    # The map's y points down: a site in the board's top half (y mm > half) is drawn in the upper half.
    top = max(served.table.board().sites, key=lambda s: s.y)
    assert next(s for s in board["sites"] if s["id"] == top.id)["y"] < 300


def test_inputs_list_the_declared_actions_labelled_by_what_they_would_announce(served):
    inputs = served.get("/api/inputs")
    assert inputs["actor"] == "red"
    labels = {item["label"] for item in inputs["phone"]}
    assert "Red ends the turn." in labels
    assert all(item["type"] not in {"move", "boost"} for item in inputs["phone"])
    assert any(item["action"] == {"type": "move", "to": "o3s1"} for item in inputs["board"])


def test_a_chance_input_does_not_give_its_result_away(served):
    served.post("/api/act", {"action": {"type": "end_turn"}, "actor": "red"})
    labels = [item["label"] for item in served.get("/api/inputs")["phone"] if item["action"] == {"type": "draw"}]
    assert labels == ["Draw: the companion draws for the table."]


def test_a_declared_input_is_committed_and_logged_as_the_phones(served):
    status, answer = served.post("/api/act", {"action": {"type": "end_turn"}, "actor": "red"})
    assert status == 200, answer
    entry = answer["entry"]
    assert (entry["source"], entry["actor"], entry["action"]) == ("phone", "red", {"type": "end_turn"})
    assert answer["state"]["phase"]["actor"] == "blue"
    assert served.get("/api/log")["entries"][-1]["id"] == entry["id"]


def test_without_the_token_a_browser_may_watch_but_not_act(served):
    served.own_key()  # the tests' phone has joined and plays every seat
    before = served.get("/api/state")
    for token, message in ((None, "may only watch"), ("guess", "token is wrong")):
        for path, body in (
            ("/api/act", {"action": {"type": "end_turn"}}),
            ("/api/undo", {}),
            ("/api/pause", {"paused": True}),
            ("/api/choose", {"question": 1, "index": 0}),
            ("/api/override", {"action": {"type": "move", "to": "o3s1"}}),
            ("/api/games", {"game": "trajectory", "players": ["red"]}),
            ("/api/calibration/grid", {"do": "start"}),
            ("/api/setup", {"do": "start"}),
        ):
            status, answer = served.post(path, body, token=token)
            assert status == 403 and message in answer["error"], (path, answer)
    status, answer = served.request("GET", "/api/qr", token=None)
    assert status == 403
    assert served.get("/api/state") == before
    watch = served.get("/api/qr?watch=true")
    assert "t=" not in watch["url"] and watch["svg"].startswith("<svg")


def test_bad_requests_get_a_400_with_one_clear_line_and_change_nothing(served):
    served.own_key()  # the tests' phone has joined and plays every seat
    before = served.get("/api/state")
    cases = [
        ("/api/act", None, b"not json", "must be a JSON object"),
        ("/api/act", [1, 2], None, "must be a JSON object"),
        ("/api/act", {}, None, "action: missing"),
        ("/api/act", {"action": {"to": "o3s1"}}, None, "missing its 'type'"),
        ("/api/act", {"action": {"type": "fly_to_the_moon"}}, None, "fly_to_the_moon"),
        ("/api/act", {"action": {"type": "end_turn"}, "actor": "mauve"}, None, "'mauve' is not a seat"),
        ("/api/act", {"action": {"type": "draw"}}, None, ""),  # Red has drawn already: the rules say why not
        (
            "/api/act",
            {"action": {"type": "move", "to": "o3s1", "colour": "x" * 5000}},
            None,
            "move: unknown argument 'colour' (arguments: to)",
        ),
        ("/api/act", {"action": {"type": "load", "count": 2.0}}, None, "load.count: expected an integer, got 2.0"),
        ("/api/override", {"action": {"type": "refuel", "amount": 10**6}}, None, "refuel.amount: expected a whole"),
        ("/api/choose", {"question": 9, "index": 0}, None, "already been settled"),
        ("/api/choose", {"question": "one", "index": 0}, None, "question: expected a whole number"),
        ("/api/pause", {"paused": "yes"}, None, "paused: expected true or false"),
        ("/api/games", {"game": "chess", "players": ["red"]}, None, "unknown game 'chess'"),
        ("/api/games", {"game": "trajectory", "players": ["red", "red"]}, None, "different"),
        ("/api/games", {"game": "trajectory", "players": ["red"], "options": {"slots": 0}}, None, "slots"),
    ]
    for path, body, raw, message in cases:
        status, answer = served.request("POST", path, body, raw=raw)
        assert status == 400, (path, body, answer)
        assert set(answer) == {"error"} and "\n" not in answer["error"] and message in answer["error"], answer
    assert served.get("/api/state") == before


def test_undo_pause_and_override_are_logged_with_their_source(served):
    status, answer = served.post("/api/override", {"action": {"type": "move", "to": "o3s1"}, "actor": "red"})
    assert status == 200 and answer["entry"]["source"] == "override"
    assert served.session.actions[-1] == Action.make("move", to="o3s1")
    status, answer = served.post("/api/undo", {"actor": "red"})
    assert status == 200 and answer["entry"]["kind"] == "undo"
    assert served.session.actions[-1] == Action.make("draw", card="action")
    status, answer = served.post("/api/pause", {"paused": True})
    assert status == 200 and answer["state"]["status"] == "paused"
    status, answer = served.post("/api/act", {"action": {"type": "end_turn"}})
    assert status == 400 and "paused" in answer["error"]
    assert served.post("/api/pause", {"paused": False})[1]["state"]["status"] == "playing"


def test_an_ambiguous_move_is_confirmed_through_the_api(camera_served):
    served = camera_served
    assert served.ambiguous().verdict == "ambiguous"
    question = served.get("/api/state")["question"]
    index = next(i for i, text in enumerate(question["choices"]) if "orbit 3 space 1" in text)
    status, answer = served.post("/api/choose", {"question": question["id"], "index": index, "actor": "blue"})
    assert status == 200, answer
    assert (answer["entry"]["source"], answer["entry"]["actor"]) == ("phone", "blue")
    assert served.session.actions[-1] == Action.make("move", to="o3s1")
    assert answer["state"]["question"] is None


def test_the_setup_wizard_starts_a_new_game_on_the_same_log(served):
    games = served.get("/api/games")["games"]
    trajectory = next(g for g in games if g["name"] == "trajectory")
    difficulty = next(o for o in trajectory["options"] if o["name"] == "difficulty")
    assert (difficulty["kind"], difficulty["choices"], difficulty["default"]) == ("choice", ["easy", "normal", "hard"],
                                                                                  "normal")  # fmt: skip
    assert difficulty["label"] == "Difficulty" and difficulty["labels"] == ["Easy", "Normal", "Hard"]
    for game in games:  # each game's editor is a page the table serves
        assert served.request("GET", game["editor"])[0] == 200, game["editor"]
    status, state = served.post(
        "/api/games", {"game": "trajectory", "players": ["green", "blue", "red"], "options": {"difficulty": "hard"}}
    )
    assert status == 201, state
    assert state["game_id"] == 2 and state["players"] == ["green", "blue", "red"]
    assert state["ledger"]["table"]["difficulty"] == "hard"
    assert served.session.record.id == 2 and served.get("/healthz")["game"]["id"] == 2
    assert [e["kind"] for e in served.get("/api/log")["entries"]] == ["note"]


def test_the_calibration_view_says_when_a_table_has_no_grid_and_no_camera(phones_served):
    served = phones_served
    assert served.get("/api/calibration/grid") == {"board": "trajectory", "grid": False, "rows": None, "cols": None,
                                                   "profile": None, "mapped": None, "walk": None, "boards": [],
                                                   "probe": False}  # fmt: skip
    status, answer = served.post("/api/calibration/grid", {"do": "start"})
    assert status == 409 and answer == {"error": "there is no reed grid at this table"}
    status, answer = served.request("GET", "/api/calibration/snapshot.jpg")
    assert status == 404 and answer == {"error": "no camera is connected to this table"}
