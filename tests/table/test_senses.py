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
