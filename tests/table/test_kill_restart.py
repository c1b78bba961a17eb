"""Killing the companion at random moments of twin games never loses an announced action."""

from __future__ import annotations

from companion.bench.kill import KillReport, _check, digest, kill_and_restart
from companion.table.session import Session
from companion.table.store import Store


def test_twenty_kills_at_random_moments_lose_nothing(tmp_path):
    report = kill_and_restart(tmp_path / "table.db", "trajectory", 3, seed=11, kills=20, most=1.0)
    assert report.kills == 20
    assert report.lost == []
    assert report.equal + report.ahead == 20
    assert report.equal > 0


def test_the_check_notices_an_announcement_missing_from_the_log(tmp_path):
    store = Store(tmp_path / "t.db")
    session = Session.start(store, "trajectory", ["red", "green"], {}, 2)
    told = (session.record.id, store.last_entry_id(), digest(session.game, session.state))
    store.close()
    report = KillReport()
    _check(tmp_path / "t.db", [told], report)
    assert report.equal == 1 and report.lost == []
    _check(tmp_path / "t.db", [told, (told[0], told[1] + 5, "0" * 16)], report)
    assert len(report.lost) == 1 and "not in the log" in report.lost[0]
