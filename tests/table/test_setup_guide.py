"""The guided setup: the order pieces are asked for (bottoms of stacks first), their names, and following the board
as the grid and the camera see it, or taps where they cannot."""

from __future__ import annotations

import time

import pytest

from companion.boards import default_board
from companion.rules import load
from companion.sim.twin import switch_map
from companion.table.observe import FRAME_AGE, CameraView, Observer
from companion.table.setup_guide import SetupGuide, piece_words, placement_order
from companion.table.steps import NotNow

BOARD = default_board("trajectory")
SWITCHES = switch_map(BOARD, 8, 8)
LAYOUT = {"o1s0": ("planet-metal",), "o2s0": ("planet-home", "ship-red", "ship-blue"), "o3s0": ("planet-helium",),
          "o4s0": ("planet-ice",)}  # fmt: skip


@pytest.mark.parametrize(
    ("piece", "words"),
    [("planet-red", "red planet"), ("station-energy", "energy station"), ("ship-red", "red ship"),
     ("planet-1", "planet 1"), ("red-dakalio", "red dakalio"), ("turn-marker", "turn marker"),
     ("ship-blue-red", "ship blue red"), ("infestor-hunter", "hunter infestor")],
)  # fmt: skip
def test_pieces_are_named_in_words(piece, words):
    assert piece_words(piece) == words


def test_every_stack_is_set_out_from_the_bottom_one_kind_after_another():
    game = load("orbit")
    state = game.setup(["red", "blue", "green", "yellow"], {}, 1)
    layout = game.layout(state)
    order = placement_order(layout, [site.id for site in default_board("orbit").sites])
    assert sorted((p.piece, p.site) for p in order) == sorted((piece, site) for site, stack in layout.items()
                                                               for piece in stack)  # fmt: skip
    for i, step in enumerate(order):  # whatever a piece stands on is asked for before it
        below = layout[step.site][: step.level]
        assert [p.piece for p in order[:i] if p.site == step.site] == list(below)
    kinds = [p.piece.split("-")[0] for p in order]
    first_ship = kinds.index("ship")
    assert set(kinds[:first_ship]) == {"planet", "station"} and set(kinds[first_ship:]) == {"ship"}
    planets = kinds[:first_ship]
    assert planets == sorted(planets)  # all the planets, then all the stations


def test_a_stack_of_three_in_trajectory():
    order = placement_order(LAYOUT, [site.id for site in BOARD.sites])
    assert [(p.piece, p.site, p.level) for p in order] == [
        ("planet-metal", "o1s0", 0), ("planet-home", "o2s0", 0), ("planet-helium", "o3s0", 0),
        ("planet-ice", "o4s0", 0), ("ship-red", "o2s0", 1), ("ship-blue", "o2s0", 2)]  # fmt: skip


class Guided:
    def __init__(self, observer):
        self.news: list[dict] = []
        self.ended = 0
        self.guide = SetupGuide(LAYOUT, BOARD, observer, self.news.append, self.end, every=0.01)
        self.guide.start()

    def end(self):
        self.ended += 1

    def until(self, test, within=3.0):
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if test(self.guide.status()):
                return self.guide.status()
            time.sleep(0.01)
        raise AssertionError(f"not within the time: {self.guide.status()}")


def grid_board(observer, sites, at):
    observer.reed(frozenset(SWITCHES[s] for s in sites), at)


def test_the_grid_sees_each_bottom_piece_arrive_and_a_tap_says_the_rest():
    observer = Observer({switch: site for site, switch in SWITCHES.items()}, None, settle=0.05)
    grid_board(observer, [], time.monotonic())
    guided = Guided(observer)
    first = guided.news[-1]
    assert first["text"] == "Put the metal planet on orbit 1 space 0." and first["count"] == "0 of 6 placed"
    assert first["how"] == "sensors" and first["site"] == "o1s0"
    grid_board(observer, ["o1s0"], time.monotonic())
    status = guided.until(lambda s: s["placed"] == 1)
    assert status["text"] == "Put the home planet on orbit 2 space 0."

    # A piece on a site where nothing goes, then one on the site of a later piece.
    grid_board(observer, ["o1s0", "o4s20"], time.monotonic())
    status = guided.until(lambda s: s["wrong"])
    assert status["wrong"] == ["o4s20"] and status["message"] == (
        "Wrong site: nothing goes on orbit 4 space 20. The home planet belongs on orbit 2 space 0."
    )
    grid_board(observer, ["o1s0", "o4s0"], time.monotonic())
    status = guided.until(lambda s: s["wrong"] == ["o4s0"])
    assert status["message"] == ("Wrong site for now: orbit 4 space 0 is for the ice planet, later. The home planet "
                                 "belongs on orbit 2 space 0.")  # fmt: skip
    # Put right: the home planet and the helium one, and the ice planet already there counts at its turn.
    grid_board(observer, ["o1s0", "o2s0", "o3s0", "o4s0"], time.monotonic())
    status = guided.until(lambda s: s["placed"] == 4)
    assert status["wrong"] == [] and status["message"] is None
    assert status["text"] == "Put the red ship on orbit 2 space 0, on the home planet, then tap Placed."
    assert status["how"] == "tap"
    time.sleep(0.1)
    assert guided.guide.status()["placed"] == 4  # the grid cannot feel a ship set on a planet
    guided.guide.command("placed")
    assert guided.guide.status()["text"] == "Put the blue ship on orbit 2 space 0, on the red ship, then tap Placed."
    status = guided.guide.command("placed")
    assert status["state"] == "placed" and guided.ended == 1
    assert status["message"] == "Every piece is placed (6 of 6). The companion checks the board now."
    with pytest.raises(NotNow):
        guided.guide.command("placed")


def test_the_camera_sees_a_piece_set_on_another():
    observer = Observer({switch: site for site, switch in SWITCHES.items()}, frozenset(SWITCHES), settle=0.05)
    guided = Guided(observer)
    assert guided.news[-1]["how"] == "sensors"
    stacks = {site: stack[:1] for site, stack in LAYOUT.items()}
    now = time.monotonic()
    grid_board(observer, LAYOUT, now)
    time.sleep(FRAME_AGE + 0.01)  # (a frame that arrives sooner may have been exposed before the board was set)
    observer.camera(CameraView(time.monotonic(), stacks, frozenset()))
    status = guided.until(lambda s: s["placed"] == 4)
    assert status["how"] == "sensors" and status["text"] == "Put the red ship on orbit 2 space 0, on the home planet."
    # The camera names a piece it sees on the wrong site.
    observer.camera(CameraView(time.monotonic(), {**stacks, "o3s5": ("ship-red",)}, frozenset()))
    status = guided.until(lambda s: s["wrong"])
    assert status["message"] == "Wrong site: the red ship is on orbit 3 space 5; it belongs on orbit 2 space 0."
    observer.camera(CameraView(time.monotonic(), {**stacks, "o2s0": ("planet-home", "ship-red", "ship-blue")},
                               frozenset()))  # fmt: skip
    status = guided.until(lambda s: s["state"] == "placed")
    assert status["placed"] == 6 and guided.ended == 1


def test_with_the_phones_alone_each_piece_is_a_tap_and_back_goes_one_back():
    guided = Guided(None)
    assert guided.news[-1]["how"] == "tap"
    with pytest.raises(ValueError, match="this is the first piece"):
        guided.guide.command("back")
    with pytest.raises(ValueError, match="do: expected placed, back or stop, not 'jump'"):
        guided.guide.command("jump")
    assert guided.guide.status() == guided.news[-1]  # refused: nothing changed
    guided.guide.command("placed")
    guided.guide.command("placed")
    assert guided.guide.command("back")["count"] == "1 of 6 placed"
    status = guided.guide.command("stop")
    assert status["state"] == "stopped" and guided.ended == 1
    assert status["message"] == "The guide has stopped. Play on: moves are declared on the phones."


def test_an_empty_layout_needs_no_guide():
    guide = SetupGuide({}, BOARD, None, lambda status: None, lambda: None)
    assert not guide.running and guide.start()["count"] == "0 of 0 placed"


def _until(guide, test, within=3.0):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and not test(guide.status()):
        time.sleep(0.01)
    return guide.status()


def test_orbit_tiles_the_camera_does_not_know_are_felt_and_a_dual_ship_is_seen_as_the_box_names_it():
    """ORBIT's camera knows planets and ships by their stickers, not station tiles: a tile counts once the grid
    feels it, the ship on it once the camera sees it; Red's second ship (`ship-blue-red`) is the blue ship it sees."""
    from companion.sensing.pieces import default_registry

    orbit = load("orbit")
    board = default_board("orbit")
    switches = switch_map(board, 16, 16)
    layout = {"r2s4": ("station-hand", "ship-red"), "r1s0": ("planet-red", "ship-blue-red")}
    known = default_registry("orbit").identifiable(())
    for physical, last_how in ((orbit.physical_piece, "sensors"), (None, "tap")):
        observer = Observer({switch: site for site, switch in switches.items()}, frozenset(switches), settle=0.05)
        news: list[dict] = []
        extra = {"physical": physical} if physical else {}
        guide = SetupGuide(layout, board, observer, news.append, lambda: None, every=0.01, **extra)
        guide.start()
        observer.reed(frozenset(switches[s] for s in layout), time.monotonic())
        time.sleep(FRAME_AGE + 0.01)
        observer.camera(CameraView(time.monotonic(), {"r1s0": ("planet-red",)}, frozenset(), pieces=known))
        status = _until(guide, lambda s: s["placed"] == 2)  # the tiles and planets at the bottom: felt
        assert status["placed"] == 2 and status["piece"] == "ship-blue-red" and status["how"] == last_how
        seen = {"r1s0": ("ship-blue",), "r2s4": ("ship-red",)}
        observer.camera(CameraView(time.monotonic(), seen, frozenset(), {"r1s0", "r2s4"}, pieces=known))
        status = _until(guide, lambda s: s["state"] == "placed", within=0.5)
        if physical:
            assert status["state"] == "placed"
        else:  # named by its owner as well, it is not what the camera names: a tap says it
            assert status["placed"] == 2 and status["how"] == "tap"
        guide.cancel()
