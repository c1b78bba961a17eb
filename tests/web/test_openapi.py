"""docs/openapi.json against the app: every route in the file exists with its methods and every API route is in
the file; real answers over HTTP (every operation, its success and its errors) match the file's schemas."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from companion.web.app import create_app
from companion.web.events import EVENTS_PATH

from .conftest import rendered_camera

SPEC = json.loads((Path(__file__).resolve().parents[2] / "docs" / "openapi.json").read_text())
TOKEN = "test-table-token"


def spec_routes() -> set[tuple[str, str]]:
    return {(path, method.upper()) for path, item in SPEC["paths"].items() for method in item}


def app_routes(table) -> set[tuple[str, str]]:
    routes = {(EVENTS_PATH, "GET")}  # the stream is the server's own, beside the Flask app (events.py)
    for rule in create_app(table).url_map.iter_rules():
        path = re.sub(r"<(?:[a-z]+(?:\([^)]*\))?:)?([a-z_]+)>", r"{\1}", rule.rule)
        routes |= {(path, method) for method in rule.methods - {"HEAD", "OPTIONS"}}
    return routes


def test_the_file_and_the_app_have_the_same_routes_and_methods(served):
    assert spec_routes() == app_routes(served.table)


def check(path: str, method: str, status: int, kind: str, body) -> None:
    responses = SPEC["paths"][path][method.lower()]["responses"]
    assert str(status) in responses, f"{method} {path} answered {status}, which the file does not list"
    content = responses[str(status)]["content"]
    media = kind.split(";")[0]
    assert media in content or "*/*" in content, f"{method} {path} {status}: {media} not in {sorted(content)}"
    schema = content.get(media, content.get("*/*"))["schema"]
    if media == "application/json":
        jsonschema.validate(body, {**schema, "components": SPEC["components"]}, cls=jsonschema.Draft202012Validator)


@pytest.fixture
def call(served):
    seen: set[tuple[str, str, int]] = set()

    def request(template: str, url: str, method: str = "GET", body=None, token=TOKEN, raw=None, expect=200, key=None):
        import http.client

        connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
        headers = {"Content-Type": "application/json", **({"X-Orrery-Token": token} if token else {}),
                   "X-Orrery-Phone": served.own_key() if key is None else key}  # fmt: skip
        payload = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        connection.request(method, url, payload, headers)
        response = connection.getresponse()
        kind = response.getheader("Content-Type", "")
        # The stream never ends by itself: its status and headers are what the file describes.
        data = b"" if kind.startswith("text/event-stream") else response.read()
        connection.close()
        assert response.status == expect, (url, response.status, data[:300])
        parsed = json.loads(data) if kind.startswith("application/json") else data
        check(template, method, response.status, kind, parsed)
        seen.add((template, method, response.status))

    request.seen = seen
    return request


def test_real_answers_match_the_schemas_for_every_operation(served, call, tmp_path):
    call("/", "/")
    call("/sw.js", "/sw.js")
    call("/manifest.webmanifest", "/manifest.webmanifest")
    call("/static/{name}", "/static/main.js")
    call("/static/{name}", "/static/nothing.js", expect=404)
    call("/healthz", "/healthz")
    call("/ca.crt", "/ca.crt", token=None, expect=404)  # served over http only; its 200 is in test_https.py
    call("/events", "/events?after=0")
    call("/events", "/events?after=-3", expect=400)
    for path in ("/api/state", "/api/ledger", "/api/board", "/api/inputs", "/api/games", "/api/calibration/grid"):
        call(path, path)
    call("/api/log", "/api/log?after=1")
    call("/api/board", "/api/board?surface=5", expect=404)  # Trajectory has one board (Orbital Battle: below)
    call("/api/history", "/api/history")
    call("/api/export", "/api/export")
    call("/api/export", "/api/export?game=x", expect=400)
    call("/api/export", "/api/export?game=99", expect=404)
    call("/games/{game_id}", "/games/1")
    call("/games/{game_id}", "/games/99", expect=404)
    call("/games/{game_id}/summary.svg", "/games/1/summary.svg")
    call("/games/{game_id}/summary.svg", "/games/99/summary.svg", expect=404)
    call("/api/log", "/api/log?after=x", expect=400)
    call("/api/qr", "/api/qr")
    call("/api/qr", "/api/qr?watch=true", token=None)
    call("/api/qr", "/api/qr", token=None, expect=403)
    call("/api/calibration/snapshot.jpg", "/api/calibration/snapshot.jpg", expect=404)  # no camera at this table
    call("/camera", "/camera")
    call("/api/camera/wanted", "/api/camera/wanted", expect=409)  # this table's camera is no phone
    call("/api/camera/frame", "/api/camera/frame?still=1", "POST", raw=b"\xff\xd8", expect=409)
    served.mismatch()  # a warning in the state
    call("/api/state", "/api/state")
    served.put_right()
    call("/api/act", "/api/act", "POST", {"action": {"type": "end_turn"}, "actor": "red"})
    call("/api/act", "/api/act", "POST", {"action": {"type": "end_turn"}}, token=None, expect=403)
    call("/api/act", "/api/act", "POST", raw=b"{", expect=400)
    call("/api/act", "/api/act", "POST", {"action": {"type": "end_turn"}, "actor": "red"}, expect=409)  # Blue's turn
    call("/api/undo", "/api/undo", "POST", {})
    call("/api/undo", "/api/undo", "POST", {}, token="nope", expect=403)
    call("/api/undo", "/api/undo", "POST", {"actor": "mauve"}, expect=400)
    call("/api/pause", "/api/pause", "POST", {"paused": True})
    call("/api/pause", "/api/pause", "POST", {"paused": "yes"}, expect=400)
    call("/api/pause", "/api/pause", "POST", {"paused": False})
    call("/api/pause", "/api/pause", "POST", {"paused": True}, token=None, expect=403)
    call("/api/override", "/api/override", "POST", {"action": {"type": "move", "to": "o3s1"}, "actor": "red"})
    call("/api/override", "/api/override", "POST", {"action": {"type": "move", "to": "o1s3"}}, expect=400)
    call("/api/override", "/api/override", "POST", {"action": {"type": "move"}}, token=None, expect=403)
    call("/api/override", "/api/override", "POST", {"action": {"type": "move", "to": "o3s2"}, "actor": "blue"},
         expect=409)  # fmt: skip
    served.post("/api/undo", {})
    # The table again with the camera alone: a phone on a stand, its profile the rendered camera's.
    served.restart(senses="camera")
    layout = served.session.game.layout(served.session.state)
    served.live.read_frame(rendered_camera().render(layout)[0], 1.0)  # a frame read through the table's vision
    call("/api/calibration/snapshot.jpg", "/api/calibration/snapshot.jpg")
    call("/api/camera/wanted", "/api/camera/wanted")
    call("/api/camera/wanted", "/api/camera/wanted", token=None, expect=403)
    call("/api/camera/frame", "/api/camera/frame?still=1", "POST", raw=b"\xff\xd8", token=None, expect=403)
    call("/api/camera/frame", "/api/camera/frame?still=1", "POST", raw=b"\xff\xd8", expect=415)  # sent as JSON
    assert served.ambiguous().verdict == "ambiguous"
    question = served.get("/api/state")["question"]
    call("/api/state", "/api/state")  # a question in the state
    call("/api/choose", "/api/choose", "POST", {"question": question["id"], "index": 0, "actor": "blue"})
    call("/api/choose", "/api/choose", "POST", {"question": question["id"], "index": 0}, expect=400)
    call("/api/choose", "/api/choose", "POST", {"question": 1, "index": 0}, token=None, expect=403)
    # The guides: the table started with no grid, then again with its grid (a virtual grid on a pty, read by the
    # table's own link).
    grid_path, setup_path = "/api/calibration/grid", "/api/setup"
    served.restart(senses="none")
    call(grid_path, grid_path, "POST", {"do": "start"}, expect=409)
    call(grid_path, grid_path, "POST", {"do": "fly"}, expect=400)
    call(grid_path, grid_path, "POST", {"do": "start"}, token=None, expect=403)
    call(setup_path, setup_path)  # none yet: null
    served.restart(senses="grid")
    call(grid_path, grid_path)
    call(grid_path, grid_path, "POST", {"do": "start", "sites": ["o1s0", "o1s1"]})
    call(grid_path, grid_path)  # with its walk
    call(grid_path, grid_path, "POST", {"do": "skip"})
    call(grid_path, grid_path, "POST", {"do": "skip"})  # every site had its turn: review
    call(grid_path, grid_path, "POST", {"do": "stop"})
    call(setup_path, setup_path, "POST", {"do": "start"})
    call(setup_path, setup_path, "POST", {"do": "start"}, expect=409)
    call(setup_path, setup_path)
    call(setup_path, setup_path, "POST", {"do": "placed"})
    call(setup_path, setup_path, "POST", {"do": "back"})
    while served.get(setup_path)["placed"]:  # the camera may see a piece again as soon as the guide asks for it
        served.post(setup_path, {"do": "back"})
    call(setup_path, setup_path, "POST", {"do": "back"}, expect=400)
    call(setup_path, setup_path, "POST", {"do": "stop"}, token=None, expect=403)
    call(setup_path, setup_path, "POST", {"do": "stop"})
    call("/api/seat", "/api/seat", "POST", {"seat": "red", "name": "Ann"})
    call("/api/seat", "/api/seat", "POST", {"seat": "mauve", "name": "Ann"}, expect=400)
    call("/api/seat", "/api/seat", "POST", {"seat": "red", "name": "Ann"}, token=None, expect=403)
    call("/api/token", "/api/token", "POST", {}, token=None, expect=403)
    call("/api/token", "/api/token", "POST", {})
    served.table.seats.token = TOKEN
    call("/api/games", "/api/games", "POST", {"game": "trajectory", "players": ["red"]}, expect=201)
    call("/api/games", "/api/games", "POST", {"game": "orbital_battle", "players": ["red", "green"]}, expect=201)
    call("/api/board", "/api/board")
    call("/api/board", "/api/board?surface=5")
    session = served.table.session  # Orbital Battle's starting forces, bought by numbers
    for action in ({"type": "roll", "dice": [5, 2]}, {"type": "home", "planet": "1"}, {"type": "home", "planet": "2"}):
        session.submit(session.game.decode_action(action), "phone")
    call("/api/inputs", "/api/inputs")
    buyer = session.game.phase(session.state).actor
    other = "green" if buyer == "red" else "red"
    for seat in session.record.players:  # the tests' (the host's) phone plays every seat of the new game
        served.post("/api/seats/take", {"seat": seat, "together": True})
    call("/api/muster", "/api/muster", "POST", {"counts": {"army": 2, "transport": 1}, "actor": buyer})
    call("/api/muster", "/api/muster", "POST", {"counts": {"army": 100}, "actor": buyer}, expect=400)
    call("/api/muster", "/api/muster", "POST", {"counts": {"army": 1}, "actor": other}, expect=409)
    call("/api/muster", "/api/muster", "POST", {"counts": {"army": 1}}, token=None, expect=403)
    call("/api/games", "/api/games", "POST", {"game": "trajectory", "players": []}, expect=400)
    call("/api/games", "/api/games", "POST", {"game": "trajectory", "players": ["red"]}, token=None, expect=403)
    phones(call, served)
    editors(call, served, tmp_path)
    # Every operation in the file was exercised, and each status it lists was seen.
    elsewhere = {("/events", "GET", 503), ("/ca.crt", "GET", 200),  # a full stream pool; https (test_https.py)
                 ("/api/camera/frame", "POST", 200), ("/api/camera/frame", "POST", 400),  # test_phone_camera.py
                 ("/api/export", "GET", 409),  # a game whose data is gone: test_versions.py
                 *((p, "POST", 503) for p, item in SPEC["paths"].items() if "503" in item.get("post", {}).get(
                     "responses", {}))}  # a busy lane: test_attack.py  # fmt: skip
    listed = {
        (p, m.upper(), int(s))
        for p, item in SPEC["paths"].items()
        for m, op in item.items()
        for s in op["responses"]
        if (p, m.upper(), int(s)) not in elsewhere
    }
    assert listed <= call.seen, sorted(listed - call.seen)


def phones(call, served) -> None:
    """Phones and seats: joining, taking, leaving and giving a seat, and answering what another phone asks."""
    call("/api/phones/me", "/api/phones/me")
    call("/api/phones/me", "/api/phones/me", key="not-a-key")  # null: not joined
    call("/api/phones/me", "/api/phones/me", token=None, expect=403)
    call("/api/phones", "/api/phones", "POST", {}, expect=201, key="")
    call("/api/phones", "/api/phones", "POST", {}, token="nope", expect=403)
    other = served.join()
    players = served.session.record.players
    for seat in players:  # this (the host's) phone plays every seat of the game in play
        served.post("/api/seats/take", {"seat": seat, "together": True})
    call("/api/seats/leave", "/api/seats/leave", "POST", {"seat": players[-1]})
    call("/api/seats/leave", "/api/seats/leave", "POST", {"seat": players[-1]}, expect=409)
    call("/api/seats/leave", "/api/seats/leave", "POST", {"seat": "mauve"}, expect=400)
    call("/api/seats/leave", "/api/seats/leave", "POST", {"seat": players[0]}, key="x", expect=403)
    call("/api/seats/take", "/api/seats/take", "POST", {"seat": players[-1]}, key=other)
    call("/api/seats/take", "/api/seats/take", "POST", {"seat": players[-1]}, expect=409)  # the other phone's
    call("/api/seats/take", "/api/seats/take", "POST", {"seat": 3}, expect=400)
    call("/api/seats/take", "/api/seats/take", "POST", {"seat": players[0]}, key="x", expect=403)
    session = served.session  # a move of the host's seat, taken back from the other phone: asked first
    session.submit(next(iter(session.game.legal_actions(session.state))), "phone", players[0])
    call("/api/undo", "/api/undo", "POST", {}, key=other, expect=202)
    other_id = served.request("GET", "/api/phones/me", key=other)[1]["phone"]
    me = served.get("/api/phones/me", token=TOKEN)["phone"]
    call("/api/seats/give", "/api/seats/give", "POST", {"seat": players[-1], "phone": me}, expect=202)  # the host asks
    asked = next(a for a in served.get("/api/state")["asks"] if a["kind"] == "give")
    call("/api/asks/answer", "/api/asks/answer", "POST", {"ask": asked["id"], "yes": True}, expect=409)  # not mine
    call("/api/asks/answer", "/api/asks/answer", "POST", {"ask": asked["id"], "yes": True}, key=other)
    call("/api/seats/give", "/api/seats/give", "POST", {"seat": players[-1], "phone": other_id})  # the holder gives
    call("/api/seats/give", "/api/seats/give", "POST", {"seat": players[0], "phone": me}, key=other, expect=403)
    call("/api/seats/ask", "/api/seats/ask", "POST", {"seat": players[-1]}, expect=202)  # asked of the other phone
    asked = next(a for a in served.get("/api/state")["asks"] if a["kind"] == "give")
    served.request("POST", "/api/asks/answer", {"ask": asked["id"], "yes": False}, key=other)  # it keeps the seat
    call("/api/seats/ask", "/api/seats/ask", "POST", {"seat": players[0]})  # this phone's own
    call("/api/seats/ask", "/api/seats/ask", "POST", {"seat": "mauve"}, expect=400)
    call("/api/seats/ask", "/api/seats/ask", "POST", {"seat": players[0]}, token=None, expect=403)
    call("/api/seats/give", "/api/seats/give", "POST", {"seat": players[0], "phone": "nobody"}, expect=400)
    call("/api/asks/answer", "/api/asks/answer", "POST", {"ask": "one", "yes": True}, expect=400)
    call("/api/asks/answer", "/api/asks/answer", "POST", {"ask": 1, "yes": True}, token=None, expect=403)
    served.request("POST", "/api/seats/leave", {"seat": players[-1]}, key=other)
    call("/api/seats/ask", "/api/seats/ask", "POST", {"seat": players[-1]}, expect=409)  # nobody's: take it
    served.post("/api/seats/take", {"seat": players[-1], "together": True})
    asked = served.request("POST", "/api/seats/ask", {"seat": players[-1]}, key=other)[1]["asked"]
    call("/api/seats/grant", "/api/seats/grant", "POST", {"ask": asked["id"]}, key=other, expect=403)
    call("/api/seats/grant", "/api/seats/grant", "POST", {"ask": "one"}, expect=400)
    call("/api/seats/grant", "/api/seats/grant", "POST", {"ask": asked["id"]})  # the host gives it at once
    call("/api/seats/grant", "/api/seats/grant", "POST", {"ask": asked["id"]}, expect=409)
    call("/api/seats/free", "/api/seats/free", "POST", {"seat": players[-1]}, key=other, expect=403)
    call("/api/seats/free", "/api/seats/free", "POST", {"seat": "mauve"}, expect=400)
    call("/api/seats/free", "/api/seats/free", "POST", {"seat": players[-1]})  # the other phone's, freed
    call("/api/seats/free", "/api/seats/free", "POST", {"seat": players[-1]}, expect=409)
    served.post("/api/seats/take", {"seat": players[-1], "together": True})


def data_editor(call, kind: str, start: str, key: str, good, bad) -> None:
    """A data editor's operations: the data to start from, the check, and keeping it."""
    base = f"/api/editor/{kind}"
    call(base, f"{base}?start={start}")
    call(base, f"{base}?start=nowhere", expect=404)
    call(f"{base}/check", f"{base}/check", "POST", {key: good})
    call(f"{base}/check", f"{base}/check", "POST", {}, expect=400)
    call(f"{base}/check", f"{base}/check", "POST", {key: good}, token=None, expect=403)
    for body, token, status in (({key: good}, TOKEN, 201), ({key: good}, TOKEN, 409), ({key: bad}, TOKEN, 400),
                                ({key: good}, None, 403)):  # fmt: skip
        call(f"{base}/save", f"{base}/save", "POST", {"name": f"my-{kind}", **body}, token=token, expect=status)


def editors(call, served, tmp_path) -> None:
    """The editors' and the library's operations, on a table with a folder for its data sets."""
    import cv2
    import numpy as np

    from companion.boards.files import board_to_json
    from companion.boards.orbit import build
    from companion.table.datasets import DataSets

    served.table.datasets = DataSets(tmp_path / "datasets")
    board = board_to_json(build("front"))
    call("/editor", "/editor")
    call("/editor/deck", "/editor/deck")
    call("/api/editor/board", "/api/editor/board?start=empty")
    call("/api/editor/board", "/api/editor/board?game=chess", expect=400)
    call("/api/editor/board", "/api/editor/board?start=nowhere", expect=404)
    call("/api/editor/solar/layout", "/api/editor/solar/layout?radius=7&rings=1,2,3,4,5,6,7&hex_mm=14")
    call("/api/editor/solar/layout", "/api/editor/solar/layout?radius=9", expect=400)
    call("/api/editor/check", "/api/editor/check", "POST", {"game": "orbit", "board": board})
    call("/api/editor/check", "/api/editor/check", "POST", {"game": "orbit"}, expect=400)
    call("/api/editor/check", "/api/editor/check", "POST", {"game": "orbit"}, token=None, expect=403)
    save = "/api/editor/save"
    call(save, save, "POST", {"game": "orbit", "name": "mine", "board": board}, expect=201)
    call(save, save, "POST", {"game": "orbit", "name": "Mine!", "board": board}, expect=400)
    call(save, save, "POST", {"game": "orbit", "name": "mine", "board": board}, token=None, expect=403)
    served.post("/api/games", {"game": "orbit", "players": ["red", "blue"], "options": {"board": "mine"}})
    call(save, save, "POST", {"game": "orbit", "name": "mine", "board": board}, expect=409)  # asked first
    call(
        save, save, "POST", {"game": "orbit", "name": "mine", "board": board, "replace": True}, expect=201
    )  # a new version
    photo = cv2.imencode(".png", np.full((300, 400, 3), 200, np.uint8))[1].tobytes()
    flatten = "/api/editor/flatten?corners=10,10,390,10,390,290,10,290&width=700&height=700"
    call("/api/editor/flatten", flatten, "POST", raw=photo)
    call("/api/editor/flatten", flatten, "POST", raw=b"nothing", expect=400)
    call("/api/editor/flatten", flatten, "POST", raw=photo, token=None, expect=403)
    deck = served.get("/api/editor/deck")["deck"]
    data_editor(call, "deck", "", "deck", deck, {**deck, "cards": []})
    planet = served.get("/api/editor/planet?start=2")["planet"]
    call("/editor/planet", "/editor/planet")
    data_editor(call, "planet", "2", "planet", planet, {**planet, "armory": "9999"})
    files = served.get("/api/editor/periorbis")["files"]
    call("/editor/periorbis", "/editor/periorbis")
    data_editor(call, "periorbis", "", "files", files, {**files, "setup.json": {"credits": -1}})
    call("/api/library", "/api/library")
    call("/api/library/export", "/api/library/export?set=orbit/deck/my-deck")
    call("/api/library/export", "/api/library/export?set=club", expect=400)
    call("/api/library/export", "/api/library/export?set=orbit/deck/none", expect=404)
    shared = json.dumps(served.get("/api/library/export")).encode()
    call("/api/library/import", "/api/library/import?file=shared.json", "POST", raw=shared, expect=409)
    call("/api/library/import", "/api/library/import?file=shared.json&replace=yes", "POST", raw=shared, expect=201)
    call("/api/library/import", "/api/library/import", "POST", raw=b"[]", expect=400)
    call("/api/library/import", "/api/library/import", "POST", raw=shared, token=None, expect=403)
