"""The grid's calibration walk: the recording's steps and refusals (shared by the terminal and the phones), how new
switches are told apart, and the phones' walk-through against a virtual grid over a pty, whose end reaches the referee
before the phones."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass

import pytest

from companion.boards import default_board
from companion.calibration.grid import GridProfile, GridRecording, NewSwitches, load_profile, save_profile
from companion.sensing.reed import ReedLink
from companion.sim.simavr_grid import virtual_grid
from companion.sim.twin import switch_map
from companion.table.grid_walk import GridWalk, TableGrid
from companion.table.loop import TableLoop
from companion.table.observe import Observer
from companion.table.session import Session
from companion.table.steps import NotNow
from companion.table.store import Store
from companion.web.table import Table as WebTable

BOARD = default_board("trajectory")
FOUR = ["o1s0", "o1s1", "o1s2", "o1s3"]


def recording(sites=FOUR, keep=None) -> GridRecording:
    return GridRecording(BOARD, sites, 8, 8, keep)


def test_each_site_takes_the_one_switch_that_closed_and_the_walk_moves_on():
    walk = recording()
    assert (walk.site, walk.prompt()) == ("o1s0", "Put a piece on orbit 1 space 0.")
    offer = walk.offer({(2, 3)})
    assert (offer.verdict, offer.site, offer.text) == ("mapped", "o1s0", "orbit 1 space 0 is switch row 2 column 3.")
    assert walk.site == "o1s1" and walk.mapped == {"o1s0": (2, 3)}


def test_a_switch_another_site_has_is_refused_and_the_site_is_asked_again():
    walk = recording()
    walk.offer({(2, 3)})
    offer = walk.offer({(2, 3)})
    assert offer.verdict == "taken" and offer.text == (
        "Switch row 2 column 3 is already orbit 1 space 0: lift that piece and put one on orbit 1 space 1."
    )
    assert walk.site == "o1s1" and walk.mapped == {"o1s0": (2, 3)}


def test_two_switches_at_once_are_refused_and_the_site_is_asked_again():
    walk = recording()
    offer = walk.offer({(0, 1), (0, 2)})
    assert offer.verdict == "several" and offer.text == (
        "2 switches closed at once (switch row 0 column 1 and switch row 0 column 2): lift the piece and set it down "
        "on orbit 1 space 0 alone, so that one switch closes."
    )
    assert walk.site == "o1s0" and walk.mapped == {}
    with pytest.raises(ValueError, match="no switch closed"):
        walk.offer(set())


def test_skip_back_and_redo():
    walk = recording()
    walk.offer({(0, 0)})
    walk.skip()  # o1s1 left without a switch
    walk.offer({(0, 2)})  # o1s2
    assert walk.site == "o1s3" and walk.unmapped() == ["o1s1", "o1s3"]
    walk.back()
    assert walk.site == "o1s2"
    assert walk.offer({(0, 2)}).verdict == "mapped"  # its own switch again is no conflict
    walk.redo("o1s1")
    assert walk.site == "o1s1"
    walk.offer({(0, 1)})
    assert walk.site == "o1s3"  # back to where the walk was
    walk.redo("o1s0")
    walk.skip()  # skipping keeps what the site had
    assert walk.mapped["o1s0"] == (0, 0) and walk.site == "o1s3"
    walk.offer({(0, 3)})
    assert walk.site is None and walk.unmapped() == []
    assert walk.profile() == GridProfile("trajectory", 8, 8, {"o1s0": (0, 0), "o1s1": (0, 1), "o1s2": (0, 2),
                                                              "o1s3": (0, 3)})  # fmt: skip


def test_the_walks_refusals_change_nothing():
    walk = recording()
    with pytest.raises(ValueError, match="this is the first site"):
        walk.back()
    with pytest.raises(ValueError, match="'o9s9' is not one of this walk's sites"):
        walk.redo("o9s9")
    for _ in FOUR:
        walk.skip()
    with pytest.raises(ValueError, match="every site has had its turn"):
        walk.skip()
    with pytest.raises(ValueError, match="every site has had its turn"):
        walk.offer({(1, 1)})
    assert walk.mapped == {} and walk.site is None
    with pytest.raises(ValueError):
        GridRecording(BOARD, [], 8, 8)


def test_walking_a_few_sites_keeps_the_others_and_their_switches_stay_theirs():
    walk = recording(["o1s1"], keep={"o1s0": (0, 0), "o2s0": (1, 0)})
    assert walk.offer({(1, 0)}).text.startswith("Switch row 1 column 0 is already orbit 2 space 0")
    walk.offer({(5, 5)})
    assert walk.profile().sites == {"o1s0": (0, 0), "o1s1": (5, 5), "o2s0": (1, 0)}


def test_new_switches_count_once_settled_and_closed_ones_only_after_they_open():
    watch = NewSwitches({(0, 0)}, settle=0.3)
    assert watch.feed({(0, 0)}, 1.0) is None  # closed from the start: not new
    assert watch.feed({(0, 0), (1, 1)}, 1.0) is None
    assert watch.feed({(0, 0), (1, 1)}, 1.2) is None  # not yet settled
    assert watch.feed({(0, 0), (1, 1), (1, 2)}, 1.25) is None  # a second one: the window starts again
    assert watch.feed({(0, 0), (1, 1), (1, 2)}, 1.56) == {(1, 1), (1, 2)}  # two at once
    assert watch.feed({(0, 0), (1, 1), (1, 2)}, 3.0) is None  # handed over: not again while closed
    assert watch.feed({(1, 1), (1, 2)}, 3.1) is None  # (0, 0) opens
    assert watch.feed({(0, 0), (1, 1), (1, 2)}, 3.2) is None
    assert watch.feed({(0, 0), (1, 1), (1, 2)}, 3.6) == {(0, 0)}  # and closing again, it is new
    assert watch.feed({(0, 0), (1, 1), (1, 2), (4, 4)}, 4.0) is None
    assert watch.feed({(0, 0), (1, 1), (1, 2)}, 4.1) is None  # lifted before it settled: nothing
    assert watch.feed({(0, 0), (1, 1), (1, 2)}, 5.0) is None


def test_the_profile_file_is_replaced_whole_and_keeps_its_mode(tmp_path):
    path = tmp_path / "grid.json"
    save_profile(GridProfile("trajectory", 8, 8, {"o1s0": (0, 0)}), path)
    path.chmod(0o640)
    save_profile(GridProfile("trajectory", 8, 8, {"o1s0": (0, 1)}), path)
    assert load_profile(path, BOARD).sites == {"o1s0": (0, 1)}
    assert path.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["grid.json"]  # no temporary file left behind


class Table:
    """A grid on a pty, its link and an observer: what a table with a grid has."""

    def __init__(self, profile, mapping):
        self.grid = virtual_grid(8, 8).start()
        self.grid.go()
        self.link = ReedLink(self.grid.port).start()
        assert self.link.wait_synced(10)
        self.observer = Observer({switch: site for site, switch in mapping.items()}, None, settle=0.1)
        self.news: list[dict] = []
        self.ended = 0
        self.calibrated: list[GridProfile] = []
        self.table_grid = TableGrid(BOARD, lambda: self.link, profile, self.observer, self.calibrated.append, 0.1)

    def walk(self, sites=None) -> GridWalk:
        walk = GridWalk(self.table_grid, sites, self.news.append, self._end)
        walk.start()
        return walk

    def _end(self):
        self.ended += 1

    def close(self):
        if self.link is not None:
            self.link.stop()
        self.grid.stop()


@pytest.fixture
def table(tmp_path):
    made = []

    def make(mapping=None):
        made.append(Table(tmp_path / "grid.json", mapping or {}))
        return made[-1]

    yield make
    for t in made:
        t.close()


def until(test, within=5.0):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if test():
            return
        time.sleep(0.01)
    raise AssertionError("not within the time")


def test_a_walk_of_a_few_sites_saves_them_with_the_others_kept_and_the_observer_reads_with_them(table):
    wired = switch_map(BOARD, 8, 8)
    t = table(wired)
    walk = t.walk(["o1s0", "o1s1"])
    assert t.news[-1]["text"] == "Put a piece on orbit 1 space 0." and t.news[-1]["total"] == 2
    t.grid.close_switch(7, 7)
    until(lambda: walk.status()["site"] == "o1s1")
    t.grid.close_switch(7, 6)
    until(lambda: walk.status()["state"] == "saved")  # as a phone is told it: the table has had the end by then
    assert t.ended == 1 and t.news[-1]["state"] == "saved"
    saved = load_profile(t.table_grid.profile, BOARD).sites
    assert saved == {**wired, "o1s0": (7, 7), "o1s1": (7, 6)} and t.calibrated[-1].sites == saved
    assert t.observer.switch_sites[(7, 7)] == "o1s0" and (0, 0) not in t.observer.switch_sites
    with pytest.raises(NotNow, match="no walk-through is running"):
        walk.command("skip")


def test_a_walk_with_sites_left_without_a_switch_waits_for_the_players_then_saves_what_it_has(table):
    t = table()
    walk = t.walk(["o1s0", "o1s1"])
    walk.command("skip")
    t.grid.close_switch(3, 3)
    until(lambda: walk.state == "review")
    status = walk.status()
    assert status["unmapped"] == ["o1s0"] and status["text"] == (
        "1 site has no switch (orbit 1 space 0): tap one on the map to redo it, or save without them."
    )
    assert not t.table_grid.profile.exists() and t.ended == 0
    with pytest.raises(ValueError, match="every site has had its turn"):
        walk.command("skip")
    with pytest.raises(ValueError, match="do: expected skip, back, redo, save or stop, not 'jump'"):
        walk.command("jump")
    with pytest.raises(ValueError, match="site: missing"):
        walk.command("redo")
    assert walk.status() == status  # refused: nothing changed
    walk.command("save")
    assert walk.state == "saved" and json.loads(t.table_grid.profile.read_text())["sites"] == {"o1s1": [3, 3]}


def test_a_profile_that_cannot_be_written_is_said_and_the_walk_goes_on(table, tmp_path):
    t = table()
    t.table_grid.profile = tmp_path / "a-folder"
    t.table_grid.profile.mkdir()  # a folder where the file should be: the rename fails
    walk = t.walk(["o1s0"])
    t.grid.close_switch(1, 1)
    until(lambda: walk.status()["refused"])
    status = walk.status()
    assert status["state"] == "review" and status["text"] == "Every site has a switch: save again, or stop."
    assert status["message"].startswith(f"Could not save {tmp_path / 'a-folder'}")
    assert walk.running and t.observer.switch_sites == {} and t.calibrated == []
    assert list((tmp_path / "a-folder").iterdir()) == []  # no temporary file left behind
    walk.command("stop")
    assert walk.state == "stopped" and t.ended == 1


def test_a_walk_needs_a_grid_that_answers_and_sites_the_board_has(table):
    t = table()
    with pytest.raises(ValueError, match="sites: board 'trajectory' has no site 'o9s9'"):
        GridWalk(t.table_grid, ["o9s9"], t.news.append, t._end)
    with pytest.raises(ValueError, match="a site is named twice"):
        GridWalk(t.table_grid, ["o1s0", "o1s0"], t.news.append, t._end)
    t.link.stop()
    t.link = None  # unplugged
    with pytest.raises(NotNow, match="the reed grid is not answering"):
        GridWalk(t.table_grid, None, t.news.append, t._end)
    assert t.news == []


# The walk's end at the table the phones serve: the referee is judging again before any phone hears the walk (or the
# guided setup) has ended, however late the thread that ends it gets round to resuming it.


class LateResume:
    """The table's referee resumed late, as a loaded machine may: the thread resuming it waits a while first."""

    def __init__(self, loop: TableLoop, monkeypatch: pytest.MonkeyPatch, delay: float = 0.3) -> None:
        self.begun = threading.Event()  # set once a resume is under way (the decision to resume is made)
        resume = loop.resume

        def late() -> None:
            self.begun.set()
            time.sleep(delay)
            resume()

        monkeypatch.setattr(loop, "resume", late)


@dataclass
class Served:
    """The web table over `Table`'s grid: its referee's loop, and each walk's or guide's status as the phones were
    told it, with whether the referee was held back at that moment."""

    t: Table
    web: WebTable
    told: list[tuple[str, str, bool]]

    @property
    def loop(self) -> TableLoop:
        assert self.web.loop is not None
        return self.web.loop


@pytest.fixture
def served(table, tmp_path, monkeypatch):
    t = table()
    store = Store(tmp_path / "t.db")
    session = Session.start(store, "trajectory", ["red", "blue"], {}, 0)
    web = WebTable(session, TableLoop(session, t.observer), token="t", grid=t.table_grid,
                   make_loop=lambda session: TableLoop(session, t.observer))  # fmt: skip
    served = Served(t, web, [])
    transient = web.hub.transient

    def tell(kind: str, data: object, made: int | None = None) -> None:
        if kind in ("calibration", "setup") and isinstance(data, dict):
            served.told.append((kind, data["state"], served.loop.paused))
        transient(kind, data, made)

    monkeypatch.setattr(web.hub, "transient", tell)
    yield served
    web.session.store.close()
    store.close()


def test_a_phone_hears_a_walk_saved_only_once_the_referee_is_back(served, monkeypatch):
    """The walk ends on its own thread when the last switch closes, and the table resumes its referee there: however
    late that comes, the stream says "saved", and the status reads it, only with the referee judging again."""
    LateResume(served.loop, monkeypatch)
    guides = served.web.guides
    guides.start_walk(["o1s0"])
    walk = guides.walk
    assert walk is not None and served.loop.paused
    served.t.grid.close_switch(7, 7)
    until(lambda: not walk.running)  # the walk took the switch: its end is on its way to the table
    assert walk.status()["state"] == "saved" and not served.loop.paused
    assert served.told[-1] == ("calibration", "saved", False)


def test_a_walk_begun_while_the_last_one_hands_its_end_over_keeps_the_referee_held(served, monkeypatch):
    """The first walk's end has decided to resume the referee when a phone starts the next walk: the referee is
    held for the new walk, not resumed under it by the old decision."""
    late = LateResume(served.loop, monkeypatch)
    guides = served.web.guides
    guides.start_walk(["o1s0"])
    first = guides.walk
    assert first is not None
    served.t.grid.close_switch(7, 7)
    assert late.begun.wait(10)  # the first walk's end is resuming the referee...
    guides.start_walk(["o1s1"])  # ...when the next walk starts
    assert first.status()["state"] == "saved"  # (the first's end has reached the table)
    assert guides.walk is not first and guides.walking and served.loop.paused
    guides.walk_command("stop")
    assert not served.loop.paused and served.told[-1] == ("calibration", "stopped", False)


def test_a_phone_hears_the_setup_placed_or_the_grids_wait_stopped_only_once_the_referee_is_back(served):
    guides = served.web.guides
    total = guides.start_guide()["total"]
    assert served.loop.paused and total > 1
    for _ in range(total):  # each piece a tap
        guides.guide_command("placed")
    assert not served.loop.paused and served.told[-1] == ("setup", "placed", False)

    served.web.new_game("trajectory", ["red", "blue"], {}, 1)  # the grid has learnt no site: the walk comes first
    assert served.loop.paused and served.told[-1] == ("setup", "waiting", True)
    guides.guide_command("stop")  # the group plays on without the grid
    assert not served.loop.paused and served.told[-1] == ("setup", "stopped", False)
