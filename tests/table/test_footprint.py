"""Footprints from two layouts, and how far a settled board has come through one."""

from companion.table.footprint import footprint, progress, still_to_do
from companion.table.observation import Observation, SiteReading

BEFORE = {"a1": ("ship-red",), "b2": ("ship-blue",), "c3": ("planet-ice",)}
# Red jumps from a1 to d4, taking blue off b2; a station is built on c3.
AFTER = {"d4": ("ship-red",), "c3": ("planet-ice", "station-fuel")}
SITES = ["a1", "b2", "c3", "d4", "e5"]


def reed(layout):
    return Observation({site: SiteReading(occupied=bool(layout.get(site))) for site in SITES})


def camera(layout):
    return Observation({site: SiteReading(pieces=tuple(layout.get(site, ()))) for site in SITES})


def test_a_footprint_names_moves_removals_and_additions():
    fp = footprint(BEFORE, AFTER)
    assert fp.sites == {"a1", "b2", "c3", "d4"}
    assert fp.moved() == (("ship-red", "a1", "d4"),)
    assert fp.removed() == (("ship-blue", "b2"),)
    assert fp.added() == (("station-fuel", "c3"),)
    assert fp.turned() == ()
    assert not footprint(BEFORE, dict(BEFORE))


def test_a_piece_named_anew_on_its_site_has_turned():
    fp = footprint({"a1": ("ship-blue",)}, {"a1": ("ship-blue-red",)})
    assert fp.turned(lambda name: "ship-blue" if name.startswith("ship-blue") else name) == (
        ("ship-blue", "ship-blue-red", "a1"),
    )
    assert fp.turned() == ()  # without saying they are one piece, it is one taken off and another set down


def test_each_natural_order_is_part_way_and_says_only_what_is_left():
    fp = footprint(BEFORE, AFTER)
    moved_first = {"d4": ("ship-red",), "b2": ("ship-blue",), "c3": ("planet-ice",)}
    fits, todo = progress(fp, camera(moved_first))
    assert fits
    assert still_to_do(fp, todo, str.upper) == [
        "take the blue ship off B2: it leaves the board",
        "put the fuel station on C3",
    ]
    # The grid cannot feel a station set onto an occupied planet: only the removal is left to it.
    fits, todo = progress(fp, reed(moved_first))
    assert fits and still_to_do(fp, todo, str.upper) == ["take the blue ship off B2: it leaves the board"]
    lifted = {"b2": ("ship-blue",), "c3": ("planet-ice",)}  # red in the hand
    fits, todo = progress(fp, camera(lifted))
    assert fits and "put the red ship on d4" in still_to_do(fp, todo, str)
    fits, todo = progress(fp, camera(AFTER))
    assert fits and todo == ()


def test_a_board_that_contradicts_the_footprint_does_not_fit():
    fp = footprint(BEFORE, AFTER)
    assert not progress(fp, camera({**AFTER, "d4": ("ship-blue",)}))[0]  # the wrong ship arrived
    assert not progress(fp, reed({"d4": ("ship-red",)}))[0]  # the planet under the station is gone
    assert not progress(fp, camera({**AFTER, "c3": ("station-fuel",)}))[0]


def test_a_piece_above_one_set_under_it_may_be_in_the_hand_meanwhile():
    """An ORBIT planet advances onto the spot where a ship waits: the ship docks on it, so the hand lifts the ship,
    slides the planet in and sets the ship back on top. The planet there without the ship is that move part way,
    not a board to put back; a piece at the bottom that no hand needs to lift must still be there."""
    before = {"a1": ("planet-yellow>a1",), "b2": ("ship-yellow",)}
    after = {"b2": ("planet-yellow>c3", "ship-yellow")}
    fp = footprint(before, after)
    sites = {"a1": SiteReading(False, ()), "b2": SiteReading(True, ("planet-yellow>c3",))}
    fits, todo = progress(fp, Observation(sites))
    assert fits and [c.site for c in todo] == ["b2"]
    docked = footprint({"b2": ("planet-red", "ship-red")}, {"b2": ("planet-red", "ship-red", "ship-blue")})
    assert not progress(docked, Observation({"b2": SiteReading(True, ("ship-blue",))}))[0]


def test_a_planet_set_down_before_its_arrow_is_turned_is_part_way():
    """The hand moves the planet with its arrow as it was, then turns it: the arrow read part way says nothing."""
    fp = footprint({"a1": ("planet-red>b2",)}, {"b2": ("planet-red>c3",)})
    sites = {"a1": SiteReading(False, ()), "b2": SiteReading(True, ("planet-red>a1",))}
    fits, todo = progress(fp, Observation(sites))
    assert fits and [c.site for c in todo] == ["b2"]
    assert progress(fp, Observation({**sites, "b2": SiteReading(True, ("planet-red>c3",))})) == (True, ())
    assert not progress(fp, Observation({**sites, "b2": SiteReading(True, ("planet-blue>c3",))}))[0]


def test_what_is_left_names_the_piece_still_missing_not_the_one_already_set_down():
    """The planet has advanced under the ship waiting on its next spot, and the ship is still in the hand: the camera
    sees the planet there, so what is left is putting the ship back; to the grid alone either may be in the hand."""
    fp = footprint({"a1": ("planet-yellow>b2",), "b2": ("ship-green",)}, {"b2": ("planet-yellow>c3", "ship-green")})
    seen = Observation({"a1": SiteReading(False, ()), "b2": SiteReading(True, ("planet-yellow>c3",))})
    fits, todo = progress(fp, seen)
    assert fits and still_to_do(fp, todo, str.upper, observation=seen) == ["put the green ship back on B2"]
    assert still_to_do(fp, todo, str.upper) == ["put the yellow planet on B2 under the green ship"]
    # Both still in the hand: the planet is set down first, then the ship put back on it.
    empty = Observation({"a1": SiteReading(False, ()), "b2": SiteReading(False, ())})
    fits, todo = progress(fp, empty)
    assert fits and still_to_do(fp, todo, str.upper, observation=empty) == [
        "put the yellow planet on B2",
        "put the green ship back on B2",
    ]


def test_a_stack_carried_piece_by_piece_is_part_way_while_its_bottom_still_stands_to_the_grid():
    """A Dakalio ship carrying Dakalio moves by hand the top piece first: its site still holds the ship, which is
    all the grid can feel there, so the Dakalio set down at the target is the move part way, not another piece."""
    before, after = {"a1": ("ship-green", "red-dakalio")}, {"d4": ("ship-green", "red-dakalio")}
    top_moved = {"a1": ("ship-green",), "d4": ("red-dakalio",)}
    fits, todo = progress(footprint(before, after), reed(top_moved))
    assert fits and [change.site for change in todo] == ["a1"]
    # The camera sees the ship still there and the Dakalio arrived: the same, told exactly.
    fits, todo = progress(footprint(before, after), camera(top_moved))
    assert fits and {change.site for change in todo} == {"a1", "d4"}
