"""Sensor fusion: settling, the camera frame used, lifted pieces, and the camera alone."""

from dataclasses import replace

import pytest

from companion.table.observe import CameraView, Observer

SWITCHES = {(0, 0): "a", (0, 1): "b", (1, 0): "c"}
SITES = frozenset({"a", "b", "c"})


def view(time, stacks, unreliable=(), reliable=True):
    return CameraView(time, stacks, frozenset(unreliable), reliable)


def test_not_settled_until_the_grid_is_quiet_for_the_window():
    observer = Observer(SWITCHES, None, settle=0.3)
    observer.reed(frozenset({(0, 0)}), at=10.0)
    assert observer.observation(10.2) is None
    observation = observer.observation(10.31)
    assert observation is not None and observation.time == pytest.approx(10.3)
    assert {s: r.occupied for s, r in observation.sites.items()} == {"a": True, "b": False, "c": False}


def test_a_slid_piece_settles_only_where_it_stops():
    # Sliding from a over b to c closes and opens switches on the way; only the last board counts.
    observer = Observer(SWITCHES, None, settle=0.3)
    observer.reed(frozenset({(0, 0)}), at=0.0)
    observer.observation(1.0)
    for at, closed in ((2.0, set()), (2.1, {(0, 1)}), (2.2, set()), (2.3, {(1, 0)})):
        observer.reed(frozenset(closed), at=at)
        assert observer.observation(at + 0.1) is None
    final = observer.observation(2.61)
    assert {s for s, r in final.sites.items() if r.occupied} == {"c"}


def test_the_camera_frame_used_is_the_newest_taken_since_the_last_switch_changed():
    # Read at the settle, not waited for: a frame taken once the piece landed shows the board as it settled.
    observer = Observer(SWITCHES, SITES, settle=0.3)
    observer.reed(frozenset({(0, 1)}), at=5.0)
    observer.camera(view(4.9, {"a": ("ship-red",)}))  # taken while the piece was still on its way
    assert observer.observation(5.5) is None  # quiet, but no frame since the piece landed
    observer.camera(view(5.6, {"b": ("ship-red",)}))
    observer.reed(frozenset({(0, 1), (1, 0)}), at=6.0)
    observer.camera(view(6.28, {"b": ("ship-red",), "c": ("ship-blue",)}))
    assert observer.observation(6.2) is None  # not before the grid is quiet for the window
    observation = observer.observation(6.31)
    assert observation.reading("c").pieces == ("ship-blue",) and observation.reading("a").pieces == ()


def test_a_frame_that_arrived_just_after_a_switch_changed_may_show_the_board_before_it():
    """A frame is stamped when it reaches the table, up to a webcam's exposure and transfer after its exposure began:
    a ship set down beside its target and nudged on (its switch opening again) may still stand on the first site in
    a frame that arrives just after the nudge. That frame neither settles the board nor counts as having read the
    site again; a frame that arrived later does."""
    observer = Observer(SWITCHES, SITES, settle=0.3)
    observer.reed(frozenset(), at=1.0)
    observer.camera(view(1.5, {}))
    assert observer.observation(1.6) is not None
    observer.reed(frozenset({(0, 1)}), at=2.0)  # set down on b ...
    observer.reed(frozenset(), at=2.15)  # ... and nudged on to c, where a planet stands (no switch feels it)
    observer.camera(view(2.2, {"b": ("ship-red",)}))  # exposed before the nudge
    assert observer.changed_sites() == {"b"}  # still to be read again
    assert observer.observation(2.46) is None  # quiet, but the only frame since may be older than the nudge
    observer.camera(view(2.45, {"c": ("planet", "ship-red")}))
    observation = observer.observation(2.5)
    assert observation.reading("b").pieces == () and observation.reading("c").pieces == ("planet", "ship-red")
    assert observer.changed_sites() == set()


def test_a_still_known_to_be_taken_after_the_change_counts_however_soon_it_arrives():
    """A phone's still answers the table's ask, made once the grid had settled: taken after the ask, it shows the
    board after the change however soon it arrives. One taken before a change the grid reported later does not."""
    observer = Observer(SWITCHES, SITES, settle=0.3)
    observer.reed(frozenset(), at=1.0)
    observer.camera(view(1.5, {}))
    assert observer.observation(1.6) is not None
    observer.reed(frozenset({(0, 1)}), at=2.0)
    # Asked for at 2.05 (the grid's report of 2.0 heard late), arrived at once: sooner than a webcam's frame is old.
    observer.camera(replace(view(2.1, {"b": ("ship-red",)}), taken=2.05))
    assert observer.changed_sites() == set()
    assert observer.observation(2.35).reading("b").pieces == ("ship-red",)
    observer.camera(replace(view(2.5, {"b": ("ship-red",)}), taken=2.4))
    observer.reed(frozenset({(1, 0)}), at=2.45)  # moved on to c: heard after the ask
    observer.camera(replace(view(2.9, {"b": ("ship-red",)}), taken=2.4))  # (the ask's still, read late)
    assert observer.changed_sites() == {"b", "c"}


def test_an_arm_over_the_board_holds_the_board_unsettled_until_a_frame_shows_it_gone():
    """A hand may be about to set a piece down where the grid cannot feel it: while the camera's newest frame shows
    an arm over the board, nothing settles, however quiet the grid; with the camera alone too."""
    observer = Observer(SWITCHES, SITES, settle=0.3)
    observer.reed(frozenset({(0, 1)}), at=5.0)
    observer.camera(replace(view(5.4, {"b": ("ship-red",)}, unreliable={"a"}), hand=True))
    assert observer.observation(9.0) is None
    observer.camera(view(9.2, {"b": ("ship-red",)}))
    assert observer.observation(9.3).reading("b").pieces == ("ship-red",)
    alone = Observer(None, SITES, settle=0.3)
    alone.camera(view(1.0, {"b": ("ship-red",)}))
    alone.camera(replace(view(2.0, {"b": ("ship-red",)}), hand=True))
    assert alone.observation(2.1) is None
    alone.camera(view(3.0, {"b": ("ship-red",)}))
    assert alone.observation(3.1) is None  # one clean frame is not two
    alone.camera(view(4.0, {"b": ("ship-red",)}))
    assert alone.observation(4.1) is not None


def test_sites_the_camera_cannot_vouch_for_carry_no_pieces():
    observer = Observer(SWITCHES, SITES, settle=0.3)
    observer.reed(frozenset({(0, 0)}), at=0.0)
    observer.camera(view(0.5, {"a": ("ship-red",)}, unreliable={"b"}))
    observation = observer.observation(0.6)
    assert observation.reading("a").pieces == ("ship-red",)
    assert observation.reading("b").pieces is None and observation.reading("b").occupied is False


def test_lifted_pieces_are_tracked_and_forgotten_when_put_back():
    observer = Observer(SWITCHES, None, settle=0.3)
    observer.reed(frozenset({(0, 0), (0, 1)}), at=0.0)
    observer.observation(1.0)
    observer.reed(frozenset({(0, 1)}), at=2.0)
    assert observer.lifted() == {"a"}
    observer.reed(frozenset({(0, 0), (0, 1)}), at=2.5)  # put back where it was
    assert observer.lifted() == set()


def test_camera_alone_settles_on_two_clean_agreeing_frames():
    observer = Observer(None, SITES, settle=0.3)
    observer.camera(view(1.0, {"a": ("ship-red",)}))
    observer.camera(view(1.2, {"a": ("ship-red",)}))
    assert observer.observation(1.2) is None  # too close together
    observer.camera(view(1.5, {"a": ("ship-red",)}))
    assert observer.observation(1.5).reading("a").pieces == ("ship-red",)
    observer.camera(view(1.9, {"a": ("ship-red",)}, unreliable={"c"}))  # a hand over c
    assert observer.observation(1.9) is None


def test_an_observer_needs_a_sense():
    with pytest.raises(ValueError):
        Observer(None, None)


def test_a_partial_camera_reading_allows_hidden_pieces_under_those_seen_but_nothing_invented():
    from companion.table.observation import SiteReading

    partial = SiteReading(True, ("ship-red",), partial=True)
    assert partial.agrees_with(("infestor-ice", "ship-red"))  # the infestor hides under the ship
    assert not partial.agrees_with(("infestor-ice",))  # a ship is seen that should not be there
    assert not SiteReading(None, (), partial=True).agrees_with(("ship-red",))  # a stack's top is always in view
    exact = SiteReading(True, ("planet-home", "ship-red"))
    assert exact.agrees_with(("ship-red", "planet-home"))
    assert not exact.agrees_with(("planet-home", "ship-red", "ship-blue"))  # riders on a base are all in view


def test_camera_view_marks_stacks_without_a_base_as_partial():
    from companion.sensing.pieces import default_registry
    from companion.sensing.vision import FrameReport, Sighting
    from companion.table.observe import camera_view

    registry = default_registry("trajectory")
    planet = next(e for e in registry.entries if e.is_base and e.sticker is not None)
    ship = next(e for e in registry.entries if e.piece == "ship-red")
    sightings = (
        Sighting(planet.piece, planet.sticker, "o2s0", 0, 0, 0, 1.0, 1.0),
        Sighting(ship.piece, ship.sticker, "o2s0", 1, 0, 0, 1.0, 1.0),
        Sighting(ship.piece, ship.sticker, "o3s4", 0, 0, 0, 1.0, 1.0),
    )
    view = camera_view(FrameReport(1.0, True, "", sightings), registry)
    assert view.partial == {"o3s4"}
    assert view.stacks["o2s0"] == (planet.piece, "ship-red")


def test_peeking_leaves_the_board_unsettled_and_a_new_map_reads_the_next_report_with_it():
    observer = Observer(SWITCHES, None, settle=0.3)
    observer.reed(frozenset({(0, 0)}), at=0.0)
    observer.observation(1.0)
    observer.reed(frozenset(), at=2.0)  # a lifted
    assert observer.peek(3.0).sites["a"].occupied is False
    assert observer.lifted() == {"a"}  # a peek does not settle it: still lifted
    assert observer.watches("a") == (True, False) and observer.watches("z") == (False, False)
    observer.remap({(1, 1): "a", (0, 0): "z"})
    assert observer.lifted() == frozenset() and observer.peek(4.0) is None  # nothing read with the new map yet
    observer.reed(frozenset({(1, 1)}), at=5.0)
    assert {s: r.occupied for s, r in observer.peek(5.5).sites.items()} == {"a": True, "z": False}


def test_a_grid_with_no_map_yet_reads_nothing_and_leaves_the_camera_alone_to_settle():
    observer = Observer({}, SITES, settle=0.3)
    observer.reed(frozenset({(0, 0)}), at=0.0)
    assert observer.watches("a") == (False, True)
    observer.camera(view(1.0, {"a": ("ship",)}))
    observer.camera(view(1.5, {"a": ("ship",)}))
    assert observer.observation(1.5).sites["a"].pieces == ("ship",)
    observer.remap(SWITCHES)
    assert observer.watches("a") == (True, True)


def test_the_settled_board_says_which_pieces_the_camera_tells_apart():
    """ORBIT's camera knows planets and ships, not station tiles: the observation carries that to the referee."""
    from companion.sensing.pieces import default_registry
    from companion.sensing.vision import FrameReport
    from companion.table.observe import camera_view

    registry = default_registry("orbit")
    report = FrameReport(5.6, True, "", (), identifies=registry.identifiable(()))
    observer = Observer(SWITCHES, SITES, settle=0.3)
    observer.reed(frozenset({(0, 1)}), at=5.0)
    observer.camera(camera_view(report, registry))
    observation = observer.observation(5.7)
    assert observation is not None and "ship-blue" in observation.camera_pieces
    assert "station-hand" not in observation.camera_pieces and "nebula" not in observation.camera_pieces
    assert observation.agrees("b", ("station-hand",))  # felt by the grid, not looked for by the camera
    # The grid feels a piece where the camera read none: unread, not empty, so no stickered piece is ruled out.
    assert observation.sites["b"].pieces is None and observation.agrees("b", ("planet-red",))
    assert not observation.agrees("a", ("planet-red",))  # read empty where the grid feels nothing either
    grid_alone = Observer(SWITCHES, None, settle=0.3)
    grid_alone.reed(frozenset({(0, 1)}), at=5.0)
    assert grid_alone.observation(5.7).camera_pieces is None


def test_the_camera_is_told_which_sites_to_read_again_until_it_has_read_them_settled():
    observer = Observer(SWITCHES, SITES, settle=0.3)
    assert observer.changed_sites() is None  # nothing read yet: the whole frame
    observer.reed(frozenset({(0, 0)}), at=0.0)
    observer.camera(view(0.5, {"a": ("ship-red",)}))
    assert observer.changed_sites() == frozenset()
    observer.reed(frozenset({(0, 1)}), at=1.0)  # the piece moves from a to b
    assert observer.changed_sites() == {"a", "b"}
    observer.camera(view(1.1, {"a": ("ship-red",)}, unreliable={"a", "b"}))  # still moving, under the hand
    assert observer.changed_sites() == {"a", "b"}
    observer.camera(view(1.4, {"b": ("ship-red",)}, unreliable={"a"}))  # settled; a still behind the hand
    assert observer.changed_sites() == {"a"}
    observer.camera(view(1.6, {"b": ("ship-red",)}))
    assert observer.changed_sites() == frozenset()
    observer.grid_available(False)
    assert observer.changed_sites() is None  # the camera alone reads the whole frame


def test_a_piece_lifted_with_nothing_set_down_has_the_held_sites_looked_at_not_the_whole_frame_read():
    """A piece lifted and set onto another (or taken off the table): no switch says where it went. The camera reads
    the site it left and looks at every site the grid feels a piece on (a stack it joined looks changed there), not
    the whole frame."""
    observer = Observer(SWITCHES, SITES, settle=0.3)
    observer.reed(frozenset({(0, 0), (0, 1)}), at=0.0)
    observer.camera(view(0.5, {"a": ("ship-red",), "b": ("planet",)}))
    assert observer.observation(0.6) is not None and observer.sites_to_read() == (frozenset(), {"a", "b"})
    observer.reed(frozenset({(0, 1)}), at=1.0)  # the ship leaves a: onto b's planet, or off the table
    assert observer.sites_to_read() == ({"a"}, {"b"})
    observer.camera(view(1.5, {"b": ("planet", "ship-red")}))
    assert observer.changed_sites() == set() and observer.observation(1.6).reading("b").pieces == ("planet", "ship-red")


def test_a_frame_that_reads_no_site_leaves_the_whole_frame_to_be_read():
    """The grid back (or the table just started): the camera must read the whole frame. A frame that showed only an
    arm over the board (nothing decoded, no site vouched for) does not turn that into every site read in crops."""
    observer = Observer(SWITCHES, SITES, settle=0.3)
    observer.reed(frozenset({(0, 0)}), at=0.0)
    observer.camera(replace(view(0.5, {}, unreliable=SITES), hand=True))
    assert observer.changed_sites() is None
    observer.camera(view(0.7, {"a": ("ship-red",)}, unreliable={"c"}))
    assert observer.changed_sites() == {"c"}


def test_riders_side_by_side_and_stacks_reaching_out_of_the_frame():
    """Riders docked at one level carry no order: any of them may be the stack's top. A site the frame cannot vouch
    for only because its stack may reach out of the frame keeps what was read there as present, and nothing more:
    an infestor set down near the board's edge is named, while a reading there says nothing of what else stands."""
    from companion.sensing.pieces import default_registry
    from companion.sensing.vision import FrameReport, Region, Sighting
    from companion.table.observation import Observation
    from companion.table.observe import camera_view

    registry = default_registry("trajectory")
    entry = {e.piece: e for e in registry.entries}
    sightings = (  # three ships on one space: the two riders hide the lowest ship's sticker
        Sighting("ship-green", entry["ship-green"].sticker, "o1s0", 1, 0, 0, 1.0, 1.0),
        Sighting("ship-blue", entry["ship-blue"].sticker, "o1s0", 1, 0, 0, 1.0, 1.0),
        Sighting("infestor-ice", entry["infestor-ice"].sticker, "o4s22", 0, 0, 0, 1.0, 1.0),
    )
    unreliable = (Region("out of view", (), ("o4s22", "o4s6")), Region("corner marker hidden", (), ("o4s6", "o1s3")))
    frame = camera_view(FrameReport(1.0, True, "", sightings, unreliable), registry)
    # o4s6: nothing read there, and a corner marker hidden over it (no hand: a hand would hold the board unsettled)
    assert frame.tops == {"o1s0": 2} and frame.beyond == {"o4s22"} and not frame.hand
    observer = Observer(
        {(0, 0): "o1s0", (0, 1): "o4s22", (1, 0): "o4s6"}, frozenset({"o1s0", "o4s22", "o4s6"}), settle=0.3
    )
    observer.reed(frozenset({(0, 0), (0, 1)}), at=0.0)
    observer.camera(replace(frame, time=0.5))
    seen = observer.observation(0.6)
    assert seen is not None and seen.reading("o4s6").pieces is None
    assert seen.agrees("o1s0", ("ship-red", "ship-green", "ship-blue"))  # blue on top, though read before green
    assert seen.agrees("o1s0", ("ship-red", "ship-blue", "ship-green"))
    assert not seen.agrees("o1s0", ("ship-blue", "ship-green", "ship-red"))  # red under the riders, not on top
    assert seen.agrees("o4s22", ("infestor-ice",)) and seen.agrees("o4s22", ("infestor-ice", "ship-red"))
    assert not seen.agrees("o4s22", ("infestor-home",)) and not seen.agrees("o4s22", ())
    assert isinstance(seen, Observation)


def test_sites_the_camera_could_not_read_are_unknown_and_do_not_keep_the_camera_alone_from_settling():
    """A sticker seen but not read (vision's "unread" region) leaves its site unknown in the settled board; two
    frames that agree settle the rest of the board without a grid."""
    from companion.sensing.pieces import default_registry
    from companion.sensing.vision import UNREAD, FrameReport, Region, Sighting
    from companion.table.observe import camera_view

    registry = default_registry("trajectory")
    observer = Observer(None, SITES, settle=0.3)
    ship = Sighting("ship-red", 0, "a", 0, 0.0, 0.0, 0.7, 1.0)
    for at in (1.0, 1.5):
        report = FrameReport(at, True, "", (ship,), (Region(UNREAD, ((0, 0), (1, 0), (1, 1)), ("b",)),))
        observer.camera(camera_view(report, registry))
    observation = observer.observation(1.5)
    assert observation is not None
    assert observation.sites["a"].pieces == ("ship-red",) and observation.sites["a"].confidence == 0.7
    assert observation.reading("b").pieces is None and observation.agrees("b", ("planet-metal",))


def test_the_settled_board_is_built_again_only_when_a_switch_or_a_frame_changed_it():
    """The referee asks for the settled board every few milliseconds: the same board while nothing changed, a new one
    as soon as a switch or a camera frame does (a frame with the same stacks too: it may vouch for other sites)."""
    observer = Observer(SWITCHES, SITES, settle=0.3)
    observer.reed(frozenset({(0, 0)}), at=1.0)
    observer.camera(view(1.4, {"a": ("ship-red",)}))
    first = observer.observation(1.5)
    assert first is not None and observer.observation(1.51) is first and observer.peek(1.6) is first
    observer.reed(frozenset({(0, 0)}), at=1.7)  # the grid says it again: nothing changed
    assert observer.observation(1.71) is first
    observer.camera(view(1.8, {"a": ("ship-red",)}, unreliable={"c"}))
    again = observer.observation(1.81)
    assert again is not first and again.reading("c").pieces is None and again.reading("a").pieces == ("ship-red",)
    observer.reed(frozenset({(0, 0), (0, 1)}), at=2.0)
    observer.camera(view(2.35, {"a": ("ship-red",), "b": ("ship-blue",)}))
    moved = observer.observation(2.4)
    assert moved.reading("b").occupied and moved.reading("b").pieces == ("ship-blue",)
    observer.grid_available(False)
    observer.grid_available(True)
    observer.reed(frozenset({(0, 1)}), at=3.0)
    observer.camera(view(3.35, {"b": ("ship-blue",)}))
    back = observer.observation(3.4)
    assert not back.reading("a").occupied and back.reading("a").pieces == ()
