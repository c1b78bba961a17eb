"""The guides' routes over real HTTP: a bad request is a 400 that changes nothing, a request that does not fit the
moment a 409, and every phone hears each step on the stream; the referee is held back while a guide runs."""

from __future__ import annotations

from .conftest import SWITCHES, Stream


def test_bad_guide_requests_are_400s_that_change_nothing(grid_served):
    served = grid_served(SWITCHES, calibrated=True)
    before = served.profile.read_bytes()
    cases = [
        ("/api/calibration/grid", {}, "do: missing; expected a string"),
        (
            "/api/calibration/grid",
            {"do": "fly"},
            "do: expected one of start, probe, skip, back, redo, save, stop, not 'fly'",
        ),
        ("/api/calibration/grid", {"do": "start", "sites": []}, "sites: expected a non-empty list of site ids"),
        ("/api/calibration/grid", {"do": "start", "sites": ["o9s9"]}, "sites: board 'trajectory' has no site 'o9s9'"),
        ("/api/calibration/grid", {"do": "start", "sites": "o1s0"}, "sites: expected a list, got 'o1s0'"),
        ("/api/setup", {"do": 3}, "do: expected a string, got 3"),
        ("/api/setup", {"do": "skip"}, "do: expected one of start, placed, back, stop, not 'skip'"),
    ]
    for path, body, message in cases:
        status, answer = served.post(path, body)
        assert (status, answer) == (400, {"error": message}), (path, body)
    assert served.table.guides.walk is None and served.table.guides.guide is None and not served.table.loop.paused
    assert served.profile.read_bytes() == before

    status, walk = served.post("/api/calibration/grid", {"do": "start"})
    assert status == 200 and walk["site"] == "o1s0"
    for body, message in (({"do": "back"}, "this is the first site"),
                          ({"do": "redo"}, "site: missing; expected the site to ask again"),
                          ({"do": "redo", "site": "o9s9"}, "'o9s9' is not one of this walk's sites")):  # fmt: skip
        status, answer = served.post("/api/calibration/grid", body)
        assert (status, answer) == (400, {"error": message}), body
    assert served.get("/api/calibration/grid")["walk"] == walk


def test_requests_that_do_not_fit_the_moment_are_409s(grid_served):
    served = grid_served(SWITCHES, calibrated=True)
    for path, body, message in (
        ("/api/calibration/grid", {"do": "skip"}, "no walk-through is running: start one"),
        ("/api/calibration/grid", {"do": "probe"}, "this table has one grid: there is nothing to tell apart"),
        ("/api/setup", {"do": "placed"}, "the setup is not being guided now: start the guide first"),
    ):
        status, answer = served.post(path, body)
        assert (status, answer) == (409, {"error": message})
    assert served.post("/api/calibration/grid", {"do": "start"})[0] == 200
    for path, message in (
        ("/api/calibration/grid", "the grid's walk-through is running: finish or stop it first"),
        ("/api/setup", "the grid's walk-through is running: finish or stop it first"),
    ):
        status, answer = served.post(path, {"do": "start"})
        assert (status, answer) == (409, {"error": message})
    assert served.post("/api/calibration/grid", {"do": "stop"})[1]["state"] == "stopped"
    assert served.post("/api/setup", {"do": "start"})[0] == 200
    status, answer = served.post("/api/calibration/grid", {"do": "start"})
    assert (status, answer) == (409, {"error": "the setup is being guided: finish or stop it first"})
    assert served.table.guides.walk.state == "stopped"
    served.grid.stop()  # the grid's cable comes out
    served.until(lambda: not served.live.link.synced, what="the link noticing")
    served.post("/api/setup", {"do": "stop"})
    status, answer = served.post("/api/calibration/grid", {"do": "start"})
    assert status == 409 and "not answering" in answer["error"]


def test_every_phone_hears_each_step_and_the_referee_waits_until_the_setup_is_done(grid_served):
    served = grid_served(SWITCHES, calibrated=True)
    phone = Stream(served.port)
    try:
        assert served.post("/api/games", {"game": "trajectory", "players": ["red", "blue"]})[0] == 201
        first = phone.until("setup", lambda data: data["state"] == "placing")["data"]
        assert "id" not in first and first["count"] == "0 of 6 placed"
        assert served.table.loop.paused and served.get("/api/setup") == served.table.guides.guide.status()
        layout = served.session.game.layout(served.session.state)
        for piece, site in first["order"][:4]:
            served.put(site)
            phone.until("setup", lambda data, piece=piece: data["order"][data["placed"] - 1][0] == piece)
        for _ in range(2):  # the ships on the home planet: a tap each
            assert served.post("/api/setup", {"do": "placed"})[0] == 200
        done = phone.until("setup", lambda data: data["state"] == "placed")["data"]
        assert done["placed"] == 6
        served.until(lambda: not served.table.loop.paused, what="the referee")
        assert sorted(layout) == sorted({site for _, site in first["order"]})
        # The referee is back: a piece where none belongs is a mismatch again (a site the layout, which changes
        # from game to game, leaves empty).
        stray = next(site for site in sorted(SWITCHES) if site not in layout)
        served.put(stray)
        warning = phone.until("warning", lambda data: data is not None)["data"]
        assert warning["sites"] == [stray]
        # A phone that connects now gets the last word once, with no id: it is not history.
        late = Stream(served.port)
        assert late.until("setup")["data"]["state"] == "placed"
        late.close()
    finally:
        phone.close()


def test_the_setup_guide_names_pieces_as_the_box_does(tmp_path):
    """A dual ORBIT game's second ship (`ship-blue-red` in the layout) is the blue ship in the box, so the guide
    looks for that piece when the camera reads the board."""
    from .conftest import phones_table

    with phones_table(tmp_path / "t.db", "orbit", ["red", "green"], {"mode": "dual"}) as table:
        table.guides.start_guide()
        try:
            assert table.guides.guide is not None and table.guides.guide.physical("ship-blue-red") == "ship-blue"
        finally:
            table.guides.guide_command("stop")
