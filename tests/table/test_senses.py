"""Senses going and coming back are announced once each, and the observer stops trusting a lost one at once."""

from __future__ import annotations

from companion.table.observe import CameraView, Observer
from companion.table.senses import Senses
from companion.table.session import Session
from companion.table.store import Store


def _table(tmp_path):
    session = Session.start(Store(tmp_path / "t.db"), "trajectory", ["red", "green"], {}, 1)
    observer = Observer({(0, 0): "a", (0, 1): "b"}, frozenset({"a", "b"}), settle=0.1)
    return session, observer, Senses(session, observer, grid=True, camera=True)


def _notes(session):
    return [e.events[0]["type"] for e in session.store.entries(session.record.id) if e.kind == "note"][1:]


def test_a_vanished_camera_is_announced_and_its_last_frame_no_longer_counts(tmp_path):
    session, observer, senses = _table(tmp_path)
    observer.reed(frozenset({(0, 0)}), 0.0)
    observer.camera(CameraView(0.5, {"a": ("ship-red",)}, frozenset()))
    assert observer.observation(1.0).reading("a").pieces == ("ship-red",)
    senses.camera(False)
    senses.camera(False)  # said once, not twice
    assert _notes(session) == ["camera-lost"]
    assert senses.status() == {"grid": "up", "camera": "lost", "mode": "grid alone"}
    observer.reed(frozenset({(0, 1)}), 2.0)
    seen = observer.observation(3.0)  # the grid alone settles the board; no stale frame is used
    assert seen is not None and seen.reading("b").occupied and seen.reading("b").pieces is None
    senses.camera(True)
    assert _notes(session) == ["camera-lost", "camera-back"]


def test_a_lost_grid_leaves_the_camera_alone_and_comes_back_with_its_snapshot(tmp_path):
    session, observer, senses = _table(tmp_path)
    observer.reed(frozenset({(0, 0)}), 0.0)
    senses.grid(False)
    assert senses.mode() == "camera alone"
    assert "camera alone watches" in list(session.store.entries(session.record.id))[-1].events[0]["text"]
    observer.reed(frozenset({(0, 1)}), 1.0)  # a stale reading from a dying link is ignored
    observer.camera(CameraView(1.0, {"b": ("ship-red",)}, frozenset()))
    observer.camera(CameraView(1.2, {"b": ("ship-red",)}, frozenset()))
    seen = observer.observation(1.3)
    assert seen is not None and seen.reading("b").pieces == ("ship-red",) and seen.reading("b").occupied is None
    senses.grid(True)
    assert observer.observation(2.0) is None  # back, but nothing counts before its first snapshot
    observer.reed(frozenset({(0, 1)}), 2.0)
    assert observer.observation(2.5) is None  # the camera must see the settled board too
    observer.camera(CameraView(2.6, {"b": ("ship-red",)}, frozenset()))
    assert observer.observation(2.7).reading("b").occupied is True
    assert _notes(session) == ["grid-lost", "grid-back"]


def test_a_table_without_a_camera_never_announces_one(tmp_path):
    session = Session.start(Store(tmp_path / "t.db"), "trajectory", ["red"], {}, 1)
    senses = Senses(session, Observer({(0, 0): "a"}, None), grid=True, camera=False)
    senses.camera(False)
    assert senses.status() == {"grid": "up", "camera": "absent", "mode": "grid alone"}
    assert _notes(session) == []


def test_a_grid_coming_into_step_as_the_table_starts_is_no_news_but_one_that_never_answers_is_lost(tmp_path):
    """`companion serve`'s table on a virtual grid: one that answers at start adds nothing to the log; one that does
    not answer within the start's wait is announced lost (the phones are told to declare moves), then back."""
    import time

    from companion.boards import default_board
    from companion.calibration.grid import GridProfile, save_profile
    from companion.sim.simavr_grid import virtual_grid
    from companion.sim.twin import switch_map
    from companion.table.config import TableConfig
    from companion.table.live import LiveTable

    board = default_board("trajectory")
    save_profile(GridProfile(board.name, 8, 8, switch_map(board, 8, 8)), tmp_path / "grid.json")
    for answers, db in ((True, "in-step.db"), (False, "silent.db")):
        with virtual_grid(8, 8) as grid:
            if answers:
                grid.go()
            config = TableConfig(game="trajectory", players=("red", "blue"), db=str(tmp_path / db), serial=grid.port,
                                 grid_profile=str(tmp_path / "grid.json"))  # fmt: skip
            live = LiveTable(config).start(wait=3.0 if answers else 0.3, threads=False)
            try:
                if answers:
                    assert _notes(live.session) == [] and live.senses.status()["grid"] == "up"
                    continue
                assert _notes(live.session) == ["grid-lost"] and live.senses.mode() == "phones alone"
                grid.go()  # it answers at last
                deadline = time.monotonic() + 10
                while _notes(live.session) != ["grid-lost", "grid-back"] and time.monotonic() < deadline:
                    time.sleep(0.05)
                assert _notes(live.session) == ["grid-lost", "grid-back"] and live.senses.mode() == "grid alone"
            finally:
                live.stop()


def test_a_fault_in_one_look_at_the_board_is_said_once_and_the_referee_goes_on_looking(tmp_path, capsys):
    """`companion serve`'s referee thread: a fault of the table's own in the loop's look (a ruling it cannot word)
    is said once on the terminal, and the next looks go on, so refereeing never stops for good."""
    import time

    from companion.boards import default_board
    from companion.calibration.grid import GridProfile, save_profile
    from companion.sim.simavr_grid import virtual_grid
    from companion.sim.twin import switch_map
    from companion.table.config import TableConfig
    from companion.table.live import LiveTable

    board = default_board("trajectory")
    save_profile(GridProfile(board.name, 8, 8, switch_map(board, 8, 8)), tmp_path / "grid.json")
    with virtual_grid(8, 8) as grid:
        grid.go()
        config = TableConfig(game="trajectory", players=("red", "blue"), db=str(tmp_path / "t.db"), serial=grid.port,
                             grid_profile=str(tmp_path / "grid.json"))  # fmt: skip
        live = LiveTable(config)
        looks = []

        def tick(now: float) -> None:
            looks.append(now)
            if len(looks) <= 3:
                raise IndexError("list index out of range")

        live.loop.tick = tick
        live.start(wait=3.0)
        try:
            deadline = time.monotonic() + 10
            while len(looks) < 10 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(looks) >= 10 and "stopped" not in live.sensors()
        finally:
            live.stop()
    said = [line for line in capsys.readouterr().err.splitlines() if "look at the board failed" in line]
    assert said == ["the referee's look at the board failed: IndexError: list index out of range"]
