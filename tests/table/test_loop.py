"""The table loop on a real session and store, fed boards as the sensors would see them."""

from dataclasses import replace

import pytest

from companion.boards import default_board
from companion.rules import Action, Event, IllegalAction
from companion.table.loop import TableLoop
from companion.table.observe import CameraView, Observer
from companion.table.referee import Ruling
from companion.table.session import Session
from companion.table.store import Store

BOARD = default_board("trajectory")
SWITCH = {site.id: (i // 8, i % 8) for i, site in enumerate(BOARD.sites)}  # a calibrated 8 x 8 grid
FIXED = {"planets": {"metal": 0, "home": 0, "helium": 0, "ice": 0}, "difficulty": "easy"}


@pytest.fixture
def session(tmp_path):
    store = Store(tmp_path / "t.db")
    session = Session.start(store, "trajectory", ["red", "blue"], FIXED, 1)
    session.submit(Action.make("draw", card="action"), "phone", "red")
    yield session
    store.close()


def closed(layout):
    return frozenset(SWITCH[site] for site, pieces in layout.items() if pieces)


def settle(loop, observer, layout, at, frame=None):
    observer.reed(closed(layout), at)
    if frame is not None:
        observer.camera(frame)
    return loop.tick(at + 1.0)


def test_a_move_on_the_board_is_submitted_from_the_board(session):
    observer = Observer({v: k for k, v in SWITCH.items()}, None, settle=0.3)
    loop = TableLoop(session, observer)
    game = session.game
    settle(loop, observer, game.layout(session.state), 0.0)
    target = game.layout(game.apply(session.state, Action.make("move", to="o3s1"))[0])
    ruling = settle(loop, observer, target, 5.0)
    assert ruling.verdict == "explained"
    assert session.actions[-1] == Action.make("move", to="o3s1")
    assert list(session.store.entries(session.record.id))[-1].source == "board"


def test_a_wrong_board_warns_until_it_is_put_right_and_changes_nothing(session):
    observer = Observer({v: k for k, v in SWITCH.items()}, None, settle=0.3)
    loop = TableLoop(session, observer, lambda s: BOARD.site(s).name)
    warnings = []
    loop.warnings.subscribe(warnings.append)
    expected = session.game.layout(session.state)
    wrong = {**expected, "o4s20": ("ship-red",)}
    before = session.state
    assert settle(loop, observer, wrong, 0.0).verdict == "mismatch"
    assert session.state == before
    assert warnings[-1].text == (
        "The board does not match the game. Take the piece off orbit 4 space 20: nothing should stand there."
    )
    assert settle(loop, observer, expected, 3.0).verdict == "unchanged"
    assert warnings[-1] is None


def test_automatic_orbit_is_accepted_once_the_table_has_moved_everything(session):
    observer = Observer({v: k for k, v in SWITCH.items()}, None, settle=0.3)
    loop = TableLoop(session, observer)
    session.submit(Action.make("end_turn"), "phone", "red")
    session.submit(Action.make("draw", card="action"), "phone", "blue")
    session.submit(Action.make("end_turn"), "phone", "blue")
    assert session.game.phase(session.state).name == "orbit"
    orbited = session.game.layout(session.game.apply(session.state, Action.make("orbit"))[0])
    assert settle(loop, observer, orbited, 0.0).verdict == "explained"
    assert session.game.phase(session.state).name == "turn"


def test_an_ambiguous_board_asks_the_phones_and_logs_who_chose(session):
    # The camera watches only the home space: it sees red gone, but not where to.
    observer = Observer(None, frozenset({"o2s0"}), settle=0.3)
    loop = TableLoop(session, observer)
    questions = []
    loop.questions.subscribe(questions.append)
    home = {"o2s0": ("planet-home", "ship-blue")}
    for t in (1.0, 1.5):
        observer.camera(CameraView(t, home, frozenset()))
    assert loop.tick(1.5).verdict == "ambiguous"
    question = questions[-1]
    assert len(question.choices) > 1 and any("orbit 3 space 1" in text for text in question.texts)
    index = question.choices.index(Action.make("move", to="o3s1"))
    entry = loop.choose(question.id, index, "blue")
    assert (entry.source, entry.actor) == ("phone", "blue")
    with pytest.raises(IllegalAction, match="already been settled"):
        loop.choose(question.id, index, "blue")


def test_an_override_is_logged_as_such(session):
    observer = Observer({v: k for k, v in SWITCH.items()}, None, settle=0.3)
    loop = TableLoop(session, observer)
    entry = loop.override(Action.make("move", to="o2s1"), "red")
    assert entry.source == "override" and session.actions[-1] == Action.make("move", to="o2s1")


def test_a_paused_loop_judges_nothing_and_judges_the_board_afresh_when_resumed(session):
    observer = Observer({v: k for k, v in SWITCH.items()}, None, settle=0.3)
    loop = TableLoop(session, observer, lambda s: BOARD.site(s).name)
    warnings = []
    loop.warnings.subscribe(warnings.append)
    game = session.game
    expected = game.layout(session.state)
    assert settle(loop, observer, {**expected, "o4s20": ("ship-red",)}, 0.0).verdict == "mismatch"
    loop.pause()  # a calibration begins: the warning is withdrawn, and what is set down is no move
    assert loop.paused and warnings[-1] is None and loop.warning is None
    moved = game.layout(game.apply(session.state, Action.make("move", to="o3s1"))[0])
    assert settle(loop, observer, moved, 3.0) is None
    assert settle(loop, observer, {**expected, "o4s1": ("magnet",)}, 6.0) is None
    assert len(session.actions) == 1 and loop.warning is None
    observer.reed(closed(expected), 9.0)
    loop.resume()
    assert loop.tick(10.0).verdict == "unchanged"  # the board as the game has it
    loop.pause()
    observer.reed(closed(expected), 11.0)  # the same board, seen while paused
    loop.resume()
    assert loop.tick(12.0).verdict == "unchanged"  # judged again all the same: it may differ from before the pause
    assert len(session.actions) == 1


def test_a_capture_part_way_done_says_what_is_left_books_nothing_then_books_the_whole_move(tmp_path, dakalio_capture):
    game, capture = dakalio_capture.game, dakalio_capture.capture
    board = default_board("dakalio")
    switch = {site.id: (i // 10, i % 10) for i, site in enumerate(board.sites)}
    store = Store(tmp_path / "d.db")
    session = Session.start(store, "dakalio", ["red", "green"], {}, 0)
    for action in dakalio_capture.actions:
        session.submit(action, "phone", game.phase(session.state).actor)
    observer = Observer({v: k for k, v in switch.items()}, None, settle=0.3)
    loop = TableLoop(session, observer, lambda s: board.site(s).name)
    warnings = []
    loop.warnings.subscribe(warnings.append)

    def show(layout, at):
        observer.reed(frozenset(switch[s] for s, p in layout.items() if p), at)
        return loop.tick(at + 1.0)

    ((piece, source, target),) = capture.footprint.moved()
    ((victim, where),) = capture.footprint.removed()
    before = game.layout(session.state)
    count = len(session.actions)
    assert show(before, 0.0).verdict == "unchanged"
    moved = {**{s: p for s, p in before.items() if s != source}, target: (piece,)}
    assert show(moved, 3.0).verdict == "in_progress"  # the ship has jumped; its victim is still on the board
    assert warnings[-1].progress and warnings[-1].headline == "A move is under way."
    assert f"take the {victim.split('-')[1]} ship off {board.site(where).name.lower()}" in warnings[-1].text.lower()
    assert "put" not in warnings[-1].text.lower() and len(session.actions) == count
    # A hand sliding the victim off across other sites is too quick to settle: nothing is judged on the way.
    observer.reed(frozenset(switch[s] for s, p in {**moved, "e8": ("hand",)}.items() if p and s in switch), 6.0)
    assert loop.tick(6.1) is None
    assert show(capture.after, 6.2).verdict == "explained"
    assert session.actions[-1] == capture.action and warnings[-1] is None
    store.close()


def test_undo_after_a_move_part_way_done_judges_the_board_against_the_state_before(session):
    observer = Observer({v: k for k, v in SWITCH.items()}, None, settle=0.3)
    loop = TableLoop(session, observer, lambda s: BOARD.site(s).name)
    game = session.game
    target = game.layout(game.apply(session.state, Action.make("move", to="o3s1"))[0])
    assert settle(loop, observer, target, 0.0).verdict == "explained"
    session.undo("red")
    assert settle(loop, observer, game.layout(session.state), 3.0).verdict == "unchanged"


def test_a_question_is_withdrawn_when_the_game_moves_on_without_it_and_the_board_is_judged_again(session):
    # A question's choices are legal only in the state it was asked in: a phone that moves the game on first (here
    # the turn ended) withdraws it, the phones are told, and its choices can no longer be booked.
    observer = Observer(None, frozenset({"o2s0"}), settle=0.3)
    loop = TableLoop(session, observer)
    questions = []
    loop.questions.subscribe(questions.append)
    for t in (1.0, 1.5):
        observer.camera(CameraView(t, {"o2s0": ("planet-home", "ship-blue")}, frozenset()))
    assert loop.tick(1.5).verdict == "ambiguous"
    question = questions[-1]
    asked_in = session.state
    session.submit(Action.make("end_turn"), "phone", "red")
    assert session.state != asked_in
    assert questions[-1] is None and loop.question is None and loop.status()["question"] is None
    with pytest.raises(IllegalAction, match="already been settled"):
        loop.choose(question.id, 0, "red")
    assert session.actions[-1] == Action.make("end_turn")
    # The same board, unchanged to the sensors, is judged again against the new state (not left unjudged).
    again = loop.tick(2.0)
    assert again is not None and all(
        choice not in question.choices or again.verdict != "explained" for choice in again.actions
    )
    if loop.question is not None:
        assert loop.question.id != question.id and loop.question.state == session.state


def test_the_loops_own_booking_and_an_undo_leave_the_same_board_unjudged_a_phone_declaration_does_not(session):
    observer = Observer({v: k for k, v in SWITCH.items()}, None, settle=0.3)
    loop = TableLoop(session, observer)
    game = session.game
    target = game.layout(game.apply(session.state, Action.make("move", to="o3s1"))[0])
    assert settle(loop, observer, target, 0.0).verdict == "explained"
    assert loop.tick(2.0) is None  # booked from this very board: nothing new to judge
    session.undo("phone", "red")
    count = len(session.actions)
    assert loop.tick(3.0) is None  # the move taken back is not booked again from the board that still shows it
    session.note(Event("note", "A note for the log.", {}))
    assert loop.tick(3.5) is None and len(session.actions) == count
    session.submit(Action.make("end_turn"), "phone", "red")
    again = loop.tick(4.0)
    assert again is not None and again.verdict != "explained"  # the board is judged against the new state


@pytest.fixture
def lifted(tmp_path, trajectory_lift):
    """A table at the trajectory_lift position (a ship that may fly onto a planet's space or to an empty one), its
    board settled as the game has it."""
    lift = trajectory_lift
    store = Store(tmp_path / "lift.db")
    session = Session.start(store, "trajectory", list(lift.players), lift.options, lift.seed)
    for action in lift.actions:
        session.submit(action, "phone", session.game.phase(session.state).actor)
    observer = Observer({v: k for k, v in SWITCH.items()}, None, settle=0.3)
    loop = TableLoop(session, observer, lambda s: BOARD.site(s).name, hold=12.0)
    settle(loop, observer, session.game.layout(session.state), 0.0)
    yield lift, session, observer, loop
    store.close()


def test_a_lift_that_may_still_land_elsewhere_waits_for_the_landing(lifted):
    lift, session, observer, loop = lifted
    questions = []
    loop.questions.subscribe(questions.append)
    count = len(session.actions)
    observer.reed(closed(lift.lifted()), 10.0)
    assert loop.tick(10.5).verdict == "in_hand"
    ((ship, origin, target),) = lift.onto_taken.footprint.moved()
    asked = questions[-1]
    colour = ship.removeprefix("ship-")
    assert asked.in_hand and asked.headline == f"In hand: the {colour} ship from {BOARD.site(origin).name}."
    assert asked.choices == (lift.onto_taken.action,)
    assert asked.texts[0].startswith(
        f"It landed on the metal planet at {BOARD.site(target).name}. {colour.capitalize()}"
    )
    assert loop.tick(18.0) is None and len(session.actions) == count  # held 8 s: still in the hand
    observer.reed(closed(lift.elsewhere.after), 19.0)  # it lands on an empty space: that move is booked
    assert loop.tick(19.4).verdict == "explained"
    assert session.actions[-1] == lift.elsewhere.action and questions[-1] is None


def test_the_hold_window_passes_and_the_one_move_the_board_shows_is_booked_then_corrected_by_a_late_landing(lifted):
    lift, session, observer, loop = lifted
    count = len(session.actions)
    observer.reed(closed(lift.lifted()), 10.0)
    assert loop.tick(10.5).verdict == "in_hand"
    loop.tick(22.0)
    assert len(session.actions) == count  # 11.5 s in the air: still waited for
    loop.tick(22.6)
    assert session.actions[-1] == lift.onto_taken.action  # the window has passed: booked by itself
    booked = list(session.store.entries(session.record.id))[-1]
    assert booked.source == "board" and booked.kind == "action"
    # Held longer still, the piece lands on an empty space: one announced correction, the booking kept in the log.
    observer.reed(closed(lift.elsewhere.after), 30.0)
    loop.tick(30.5)
    assert session.actions[-1] == lift.elsewhere.action and len(session.actions) == count + 1
    entries = list(session.store.entries(session.record.id))
    assert entries[-2] == booked
    correction = entries[-1]
    assert correction.kind == "correction" and correction.events[0]["data"]["corrects"] == booked.id
    text = correction.events[0]["text"]
    assert text.startswith("Correction: ") and " Not: " in text and "Put" not in text
    assert loop.warning is None
    assert Session.resume(session.store, session.record.id).state == session.state  # the log replays it


def test_a_piece_landing_as_the_hold_window_passes_is_booked_where_it_stops_not_corrected(lifted):
    """The window runs out while the hand is still moving (a slide onto an empty space, the grid not yet quiet):
    nothing is booked until the board settles, so the landing decides the move and no correction is needed."""
    lift, session, observer, loop = lifted
    count = len(session.actions)
    observer.reed(closed(lift.lifted()), 10.0)
    assert loop.tick(10.5).verdict == "in_hand"
    observer.reed(closed(lift.elsewhere.after), 22.4)  # the piece comes down 11.9 s after the question
    assert loop.tick(22.6) is None and len(session.actions) == count  # the window has passed, the board not settled
    assert loop.tick(22.8).verdict == "explained"
    assert session.actions[-1] == lift.elsewhere.action and len(session.actions) == count + 1
    assert [e.kind for e in session.store.entries(session.record.id)][-1] == "action"


def test_with_the_camera_an_arm_over_the_board_holds_the_booking_of_a_piece_in_the_hand(lifted):
    """The hold window passes while the camera sees an arm over the board: the one move the board shows is booked
    only once a frame shows the board clear."""
    lift, session, _, _ = lifted
    observer = Observer({v: k for k, v in SWITCH.items()}, frozenset(SWITCH), settle=0.3)
    loop = TableLoop(session, observer, lambda s: BOARD.site(s).name, hold=12.0)

    def frame(at: float, hand: bool = False) -> None:
        # A frame that vouches for no site (the pieces too alike to read): only whether an arm is over the board.
        observer.camera(replace(CameraView(at, {}, frozenset(SWITCH), True), hand=hand))

    observer.reed(closed(session.game.layout(session.state)), 0.0)
    frame(0.3)  # (a frame is stamped when it arrives: one sooner after a change may show the board before it)
    assert loop.tick(1.0).verdict == "unchanged"
    count = len(session.actions)
    observer.reed(closed(lift.lifted()), 10.0)
    frame(10.3)
    assert loop.tick(10.5).verdict == "in_hand"
    frame(22.0, hand=True)  # the arm is back over the board before the window passes
    assert loop.tick(23.0) is None and loop.tick(30.0) is None and len(session.actions) == count
    frame(31.0)  # the arm is gone: the board as it was, the window long past
    loop.tick(31.1)
    assert session.actions[-1] == lift.onto_taken.action and len(session.actions) == count + 1


def test_a_phone_books_the_move_in_hand_at_once(lifted):
    lift, session, observer, loop = lifted
    observer.reed(closed(lift.lifted()), 10.0)
    loop.tick(10.5)
    question = loop.question
    entry = loop.choose(question.id, 0, "red")
    assert session.actions[-1] == lift.onto_taken.action and entry.source == "phone"
    assert loop.question is None


def test_a_note_from_another_thread_while_the_referee_books_a_move_stops_neither(session):
    """A sense's note (a grid lost or back) or a phone's move comes in on its own thread while the referee, on its
    thread, is booking the board's move: both go through, in some order; the table never stops."""
    import threading

    referee_judging, note_inside = threading.Event(), threading.Event()

    class Judging(Observer):
        def observation(self, now):
            seen = super().observation(now)
            if seen is not None and now >= 5.0:  # the settled board with the move: the referee is about to book it
                referee_judging.set()
                note_inside.wait(1.5)  # the note's thread gets as far as it can meanwhile
            return seen

    session.entries.subscribe(lambda entry: note_inside.set() if entry.kind == "note" else None)
    observer = Judging({v: k for k, v in SWITCH.items()}, None, settle=0.3)
    loop = TableLoop(session, observer)
    game = session.game
    settle(loop, observer, game.layout(session.state), 0.0)
    target = game.layout(game.apply(session.state, Action.make("move", to="o3s1"))[0])
    observer.reed(closed(target), 5.0)

    def note() -> None:
        referee_judging.wait(5)
        session.note(Event("grid-back", "The board's grid is back."))

    threads = [threading.Thread(target=loop.tick, args=(6.0,), daemon=True), threading.Thread(target=note, daemon=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert not any(thread.is_alive() for thread in threads), "the referee and the note wait on each other"
    kinds = [entry.kind for entry in session.store.entries(session.record.id)]
    assert sorted(kinds[-2:]) == ["action", "note"] and session.actions[-1] == Action.make("move", to="o3s1")


def test_a_piece_moved_on_from_where_the_camera_saw_it_booked_is_the_next_move_not_a_correction(tmp_path):
    """A ship booked onto a planet's spot with the camera seeing it there, then jumped on from that spot in the same
    turn, where the camera cannot read the spot it left: the first booking stands (no sensor doubted it), and the
    second move is asked about, never booked as a correction of the first (the ship flew to the planet, then jumped)."""
    from companion.sim.game_layouts import ORBIT_MODULES
    from companion.sim.table_setup import game_board

    board = game_board("orbit", ORBIT_MODULES)
    switch = {site.id: divmod(i, 16) for i, site in enumerate(board.sites)}
    store = Store(tmp_path / "orbit.db")
    session = Session.start(store, "orbit", ["red", "green", "blue"], dict(ORBIT_MODULES), 3)
    opening = [
        ("play", {"card": "c05"}), ("fly", {"to": "r2s0"}), ("advance", {"planet": "yellow"}),
        ("advance", {"planet": "green"}), ("nav_energy", {}), ("end_turn", {}), ("play", {"card": "c08"}),
        ("nav_jump", {"to": "r0s0"}), ("fly", {"to": "r2s0"}), ("nav_energy", {}), ("energy", {}),
        ("advance", {"planet": "green"}), ("nav_swap", {}), ("advance", {"planet": "brown"}), ("end_turn", {}),
        ("play", {"card": "c06"}),
    ]  # fmt: skip
    for kind, args in opening:
        session.submit(Action.make(kind, **args), "phone", session.game.phase(session.state).actor)
    game = session.game
    observer = Observer({v: k for k, v in switch.items()}, frozenset(switch), settle=0.3)
    loop = TableLoop(session, observer, lambda s: board.site(s).name)

    def show(layout, at: float, blind: frozenset[str] = frozenset()) -> Ruling | None:
        observer.reed(frozenset(switch[s] for s, pieces in layout.items() if pieces), at)
        stacks = {s: tuple(game.physical_piece(p) for p in pieces) for s, pieces in layout.items() if pieces}
        observer.camera(CameraView(at + 0.3, stacks, blind, True))
        return loop.tick(at + 0.5)

    show(game.layout(session.state), 0.0)
    fly = Action.make("fly", to="r5s11")
    flown = game.apply(session.state, fly)[0]
    assert show(game.layout(flown), 1.0).verdict == "explained" and session.state == flown
    jump = Action.make("nav_jump", to="r6s28")
    jumped = game.apply(flown, jump)[0]
    ruling = show(game.layout(jumped), 2.0, blind=frozenset({"r5s11"}))  # the ship's old spot: a stack, unread
    kinds = [entry.kind for entry in store.entries(session.record.id)]
    assert "correction" not in kinds and session.actions[-1] == fly
    assert ruling is not None and ruling.verdict == "ambiguous" and jump in loop.question.choices
    store.close()


def test_a_piece_set_down_from_nowhere_and_booked_by_the_hold_window_leaves_nothing_in_the_hand(
    tmp_path, dakalio_portal_lift
):
    """A ship booked onto a portal from its lift alone, then a ship entered from the reserve while it may still be in
    the hand: the hold window books the entry, which took no piece off a site, so the next entry is judged as it
    comes, not held for a piece in the hand."""
    lift = dakalio_portal_lift
    board = default_board("dakalio")
    switch = {site.id: divmod(i, 16) for i, site in enumerate(board.sites)}
    store = Store(tmp_path / "portal.db")
    session = Session.start(store, "dakalio", list(lift.players), lift.options, lift.seed)
    for action in lift.actions:
        session.submit(action, "phone", session.game.phase(session.state).actor)
    game = session.game
    observer = Observer({v: k for k, v in switch.items()}, None, settle=0.3)
    loop = TableLoop(session, observer, lambda s: board.site(s).name, hold=12.0)

    def show(layout, at: float) -> Ruling | None:
        observer.reed(frozenset(switch[s] for s, pieces in layout.items() if pieces), at)
        return loop.tick(at + 0.5)

    show(game.layout(session.state), 0.0)
    assert show(lift.lifted(), 10.0).verdict == "in_hand"
    loop.tick(23.0)  # the window passes: the move onto the portal is booked from the lift alone
    assert session.actions[-1] == lift.onto_taken.action
    red = Action.make("enter", to="c6")
    entered = game.apply(session.state, red)[0]
    assert show(game.layout(entered), 24.0).verdict == "in_hand"  # the ship in the hand may be the one set down
    loop.tick(37.0)  # the window passes again: the entry is booked
    assert session.actions[-1] == red
    candidates = loop.referee.prepare(entered).candidates
    felt = lambda layout: frozenset(site for site, pieces in layout.items() if pieces)  # noqa: E731
    blue = next(
        c.action
        for c in candidates
        if c.action.type == "enter" and sum(felt(other.after) == felt(c.after) for other in candidates) == 1
    )  # an entry the grid alone tells
    ruling = show(game.layout(game.apply(entered, blue)[0]), 38.0)
    assert ruling.verdict == "explained" and session.actions[-1] == blue
    store.close()
