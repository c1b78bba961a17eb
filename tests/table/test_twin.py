"""The twin (`companion serve`'s table on virtual devices) over a real pty: messy hands and illegal moves never get a
wrong move accepted."""

import random
import threading
import time
from collections.abc import Callable

import pytest
import serial

from companion.rules import Action
from companion.sim.players import scripted_action
from companion.sim.table_setup import make_twin
from companion.table.referee import Referee

from .conftest import play_until_done, until


def test_a_messy_table_plays_on_without_a_wrong_move_accepted(tmp_path):
    with make_twin("trajectory", 2, 5, "virtual", str(tmp_path / "t.db"), mess=0.6, illegal=0.4) as twin:
        stats = twin.play(90)
        session = twin.session
        # The physical board and the game agree at the end, as the grid reports it.
        closed = twin._closed(session.game.layout(session.state))
        assert twin.link.occupancy() == closed
        entries = list(session.store.entries(session.record.id))
    assert stats.wrong_accepted == 0, stats.wrong
    assert stats.illegal_tried >= 2 and stats.illegal_caught == stats.illegal_tried
    assert stats.messy >= 2 and stats.board_moves >= 10
    # Every action the session accepted came from a legal action the scripted players made: the log replays.
    sources = {e.source for e in entries if e.kind == "action"}
    assert "board" in sources and "phone" in sources
    replayed, _ = session.game.replay(
        ["red", "green"], {}, 5, [Action.from_json(e.action) for e in entries if e.action]
    )
    assert replayed == session.state


def _wait_for_note(session, kind, after=0, timeout=8.0):
    """The first note of `kind` in the game's log after entry `after`."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for entry in session.store.entries(session.record.id, after):
            if any(event["type"] == kind for event in entry.events):
                return entry
        time.sleep(0.02)
    raise AssertionError(f"no {kind} announced")


def test_the_grid_unplugged_mid_move_is_announced_and_the_game_goes_on(tmp_path):
    from companion.table.referee import board_actions

    with make_twin("trajectory", 2, 7, "virtual", str(tmp_path / "t.db"), mess=0, illegal=0, wire=True) as twin:
        session = twin.session
        while not board_actions(session.game, session.state):
            twin.step()
        action, after = board_actions(session.game, session.state)[0]
        twin.grid.set_all(twin._closed(after))  # the piece is put down just as the cable comes loose
        mark = session.store.last_entry_id()
        twin.wire.unplug()
        lost = _wait_for_note(session, "grid-lost", mark)
        assert "declare them on a phone" in lost.events[0]["text"]
        assert twin.senses.mode() == "phones alone"
        session.submit(action, "phone", session.game.phase(session.state).actor)  # the game goes on
        twin.wire.replug()
        _wait_for_note(session, "grid-back", lost.id)
        assert twin.senses.mode() == "grid alone"
        assert twin.show(after) is None or twin.loop.warning is None  # the board read again matches the game
        stats = twin.play(30)
    assert stats.wrong_accepted == 0, stats.wrong


def test_with_the_rendered_camera_no_wrong_move_and_a_vanished_camera_is_announced(tmp_path):
    db = str(tmp_path / "t.db")
    with make_twin("trajectory", 2, 5, "virtual", db, mess=0.3, illegal=0.2, camera=True) as twin:
        stats = twin.play(60)
        assert twin.camera.frames >= stats.board_moves
        twin.camera_vanishes()
        _wait_for_note(twin.session, "camera-lost")
        senses = [e.events[0]["text"] for e in twin.session.store.entries(twin.session.record.id)
                  if e.kind == "note" and e.events[0]["type"].startswith(("grid-", "camera-"))]  # fmt: skip
        assert twin.senses.mode() == "grid alone", senses  # (what the log said of the senses, if not)
        stats = twin.play(20)
        notes = [e.events[0]["type"] for e in twin.session.store.entries(twin.session.record.id) if e.kind == "note"]
    assert "camera-lost" in notes
    assert stats.wrong_accepted == 0 and stats.illegal_caught == stats.illegal_tried


def test_the_demo_players_follow_the_pages_guides_and_then_play_on(tmp_path):
    """At the demo's table (serve's web table): the twin's players move a magnet to each site a walk-through names,
    set a new game out piece by piece, tap Placed where the sensors cannot see, and then play with nothing wrong
    accepted."""
    from companion.boards import default_board
    from companion.calibration.grid import load_profile

    with make_twin("trajectory", 2, 3, "virtual", str(tmp_path / "t.db"), mess=0, illegal=0, camera=True) as twin:
        table = twin.web
        table.guides.start_walk(["o1s0", "o2s0", "o3s5"])  # o2s0 holds the home planet: lifted and set down again
        play_until_done(twin, table.guides.walk)
        assert table.guides.walk.state == "saved" and not twin.loop.paused
        assert load_profile(table.guides.grid.profile, default_board("trajectory")).sites == twin.sites

        twin.phones.new_game("trajectory", ["red", "blue"], {}, 5)
        assert table.guides.guide.running and table.loop.paused
        play_until_done(twin, table.guides.guide)
        assert table.guides.guide.state == "placed" and table.guides.guide.done == 6 and not table.loop.paused
        stats = twin.play(25)
    assert stats.wrong_accepted == 0 and stats.board_moves >= 3


def _declared_candidate(twin, steps=300):
    from companion.table.referee import Referee

    for _ in range(steps):
        session = twin.session
        prepared = Referee(session.game).prepare(session.state)
        candidates = prepared.candidates
        for candidate in candidates:
            if twin._closed(candidate.after) == twin._closed(prepared.layout):
                continue  # set onto a piece already there: the grid feels nothing
            # One the grid alone tells from every other outcome: the table's question has that one choice.
            if candidate.declared and not any(
                twin._closed(other.after) == twin._closed(candidate.after) and other.result != candidate.result
                for other in candidates
            ):
                return candidate
        assert twin.step()
    raise AssertionError(f"no declared action the grid tells apart within {steps} actions")


def test_a_piece_set_down_before_its_tap_is_settled_by_the_tables_one_choice_question(tmp_path):
    # Grid alone: a mining base (any declared piece) set down first cannot be named, so the table asks with one
    # choice; the twin answers that question (one tap), and nothing else is booked.
    with make_twin("periorbis", 2, 3, "virtual", str(tmp_path / "t.db"), mess=0, illegal=0) as twin:
        candidate = _declared_candidate(twin)
        session = twin.session
        before = session.game.layout(session.state)
        questions = []
        twin.loop.questions.subscribe(questions.append)
        taps, count = twin.stats.taps, len(session.actions)
        twin._board_move(candidate.action, candidate.result, before, candidate.after)
        assert [len(q.choices) for q in questions if q is not None] == [1]
        assert twin.stats.taps == taps + 1 and twin.stats.wrong_accepted == 0
        assert session.state == candidate.result and len(session.actions) == count + 1
        assert list(session.store.entries(session.record.id))[-1].source == "phone"
        assert twin.loop.question is None and questions[-1] is None  # answered: withdrawn from the phones


def test_a_capture_under_way_books_nothing_and_the_finished_move_needs_no_tap(tmp_path, dakalio_capture):
    capture = dakalio_capture.capture
    with make_twin("dakalio", 2, 0, "virtual", str(tmp_path / "d.db"), mess=0, illegal=0) as twin:
        session = twin.session
        for action in dakalio_capture.actions:
            session.submit(action, "phone", session.game.phase(session.state).actor)
        before = session.game.layout(session.state)
        assert before == session.game.layout(dakalio_capture.state)
        twin.show(before)
        ((piece, source, target),) = capture.footprint.moved()
        moved = {**{s: p for s, p in before.items() if s != source}, target: (piece,)}
        count = len(session.actions)
        ruling = twin.show(moved)
        assert ruling.verdict == "in_progress" and len(session.actions) == count
        assert twin.loop.warning.progress and twin.loop.question is None
        taps = twin.stats.taps
        twin._board_move(capture.action, capture.result, before, capture.after)
        assert twin.stats.taps == taps and twin.stats.wrong_accepted == 0
        assert session.actions[-1] == capture.action
        assert list(session.store.entries(session.record.id))[-1].source == "board"


@pytest.mark.parametrize("game", ["trajectory", "orbit", "dakalio", "orbital_battle", "periorbis"])
def test_the_demo_shows_an_illegal_move_and_its_correction_early_in_every_game(game):
    """As `companion demo` plays it (its players, its illegal move early): within the first few actions a player
    makes an illegal move, the table warns, and once it is put right the warning ends; nothing wrong is booked."""
    from companion.cli.demo import ILLEGAL_AFTER
    from companion.rules import load

    engine = load(game)
    players = min(max(3, engine.min_players), engine.max_players)  # the demo's default count
    twin = make_twin(game, players, 1, "virtual", None, mess=0.0, illegal=0.0, illegal_after=ILLEGAL_AFTER)
    said: list = []
    twin.loop.warnings.subscribe(said.append)
    with twin:
        while not twin.stats.illegal_tried and len(twin.session.actions) < 12:
            assert twin.step()
    assert twin.stats.illegal_tried == twin.stats.illegal_caught == 1, twin.stats
    # (a hand part way, a piece lifted before it is set down, is a move under way, not yet the wrong board)
    wrong = [warning.text for warning in said if warning is not None and not warning.progress]
    assert wrong and wrong[0].startswith("The board does not match the game") and said[-1] is None, said
    assert twin.stats.wrong_accepted == 0 and len(twin.session.actions) < 12


def test_the_demo_twin_lays_a_game_on_another_board_on_its_grid_and_it_is_refereed(tmp_path):
    """A phone starts ORBIT on the back side at the demo's table: the table reads it with that board's own grid
    profile, the twin lays that board over its grid (wired in that board's site order), the walk-through follows it,
    and moves made with its pieces are booked."""
    from companion.boards import orbit

    with make_twin("orbit", 2, 3, "virtual", str(tmp_path / "t.db"), mess=0, illegal=0, camera=False) as twin:
        table = twin.web
        table.new_game("orbit", ["red", "blue"], {"board": "back"}, 5, guide=False)
        back = orbit.build("back")
        assert set(twin.observer.switch_sites.values()) == {site.id for site in back.sites}
        assert table.guides.grid_status()["mapped"].keys() == {site.id for site in back.sites}
        assert table.guides.grid.profile.name == "grid.orbit.back.json"
        stats = twin.play(30)
    assert stats.wrong_accepted == 0 and stats.board_moves >= 3


class StarvedReader:
    """The grid link's reader thread starved, as on a loaded host: once `starve(when)` is called, the reader is held
    at its first read of the port after `when()` holds, until `feed()`; whatever the grid sends meanwhile waits in the
    port."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.when: Callable[[], bool] = lambda: False
        self.fed = threading.Event()
        self.fed.set()
        self.held = threading.Event()  # the reader is held at its read
        real = serial.Serial.read

        def read(port: serial.Serial, size: int = 1) -> bytes:
            if not self.fed.is_set() and self.when():
                self.held.set()
                self.fed.wait()
            return real(port, size)

        monkeypatch.setattr(serial.Serial, "read", read)

    def starve(self, when: Callable[[], bool]) -> None:
        self.when = when
        self.held.clear()
        self.fed.clear()

    def feed(self) -> None:
        self.fed.set()


def test_a_piece_slid_over_a_site_is_not_booked_there_while_the_grid_reader_is_behind(tmp_path, monkeypatch):
    """A ship slid over one site it may fly to, on to another: the grid reports it leaving the first at once, but the
    host's reader thread is starved and reads that only much later. The board it still shows has not been still for
    the settle window as far as the link has read, so nothing is booked until the reader catches up; then the flight
    the hand made is booked, once."""
    reader = StarvedReader(monkeypatch)
    with make_twin("orbit", 2, 0, "virtual", str(tmp_path / "t.db"), 0.0, 0.0, own_clock=True) as twin:
        session, live = twin.session, twin.live
        game = session.game
        # Red's first flight of the game: a ship that may fly to several empty sites.
        session.submit(scripted_action(game, session.state, random.Random(0)), "phone", game.phase(session.state).actor)
        state = session.state
        layout = game.layout(state)
        over, to = [
            c
            for c in Referee(game).prepare(state).candidates
            if c.action.type == "fly" and sum(not layout.get(site) for site in c.footprint.sites) == 1
        ][:2]  # each onto an empty site, which the grid feels
        twin.set_board(layout)
        live.look(time.monotonic())
        count = len(session.actions)
        # The reader is held once it has read the ship over the first site.
        reader.starve(lambda: twin.link.occupancy() == twin._closed(over.after))
        twin.set_board(over.after)
        live.look(time.monotonic())
        assert reader.held.wait(2.0)
        twin.grid.set_all(twin._closed(to.after))  # the hand goes on at once
        time.sleep(0.3)  # the grid has reported it (after its debounce); the settle window (0.12 s) passes
        live.look(time.monotonic())
        assert len(session.actions) == count, f"booked while the reader was behind: {session.actions[-1]}"
        reader.feed()
        until(lambda: twin.link.occupancy() == twin._closed(to.after))
        live.look(time.monotonic())
        time.sleep(0.2)
        live.look(time.monotonic())
        assert list(session.actions[count:]) == [to.action]
