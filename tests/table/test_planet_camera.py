"""Orbital Battle's planet maps read by the camera: the product's sticker registry, the live table's TableVision
(with the planet grids or the camera alone), a planet map out of view, and the twin playing with the camera."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.boards import default_board
from companion.errors import UserError
from companion.sensing.pieces import default_registry
from companion.sensing.vision_profile import save_profile
from companion.sensing.vision_table import TableVision
from companion.sim.twin_spread import SpreadCamera, boards_in_view, mounting_profile, spread_size
from companion.table.config import BoardGrid, load_config
from companion.table.live import LiveTable
from companion.table.observe import Observer

GAME = "orbital_battle"


def test_the_registry_gives_every_moving_unit_of_each_side_its_own_sticker():
    from companion.rules.orbital_battle.units import KINDS, STRUCTURES

    registry = default_registry(GAME)
    assert registry.seats == ("red", "blue") and registry.dictionary == "DICT_APRILTAG_16h5"
    stickered = {e.piece: e.sticker for e in registry.entries if e.sticker is not None}
    for side in registry.seats:
        for kind, info in KINDS.items():
            name = f"{kind.replace('_', '-')}-{side}"
            assert registry.count(name) == info.qty, name  # the box's counters, every one
            assert (name in stickered) == (kind not in STRUCTURES), name
    assert len(set(stickered.values())) == len(stickered) == 28  # one code a kind, 17 and 26 left out
    assert not {17, 26} & set(stickered.values())
    assert all(registry.kind(f"planet-{n}").sticker is None for n in range(1, 9))


def test_a_sides_counters_are_named_for_the_player_who_plays_them():
    registry = default_registry(GAME)
    assert registry.seated(["blue", "red"]) == {}  # players named for the sides take their own
    names = registry.seated(["ann", "bo"])
    assert names["army-red"] == "army-ann" and names["light-cruiser-blue"] == "light-cruiser-bo"
    assert "planet-3" not in names


def test_the_sticker_sheets_print_every_counter_on_pages_of_a4(tmp_path):
    import subprocess
    import sys

    out = tmp_path / "ob.svg"
    result = subprocess.run(
        [sys.executable, "-m", "companion", "print", "stickers", "--game", GAME, "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    pages = sorted(tmp_path.glob("ob-*.svg"))
    assert len(pages) >= 2 and not out.exists()
    text = "".join(p.read_text() for p in pages)
    stickered = [e for e in default_registry(GAME).entries if e.sticker is not None]
    assert sum(text.count(f"{e.piece} #{e.sticker}<") for e in {e.piece: e for e in stickered}.values()) == len(
        stickered
    )
    # Written to standard output, several pages cannot be one file: a clear line, no traceback.
    result = subprocess.run(
        [sys.executable, "-m", "companion", "print", "stickers", "--game", GAME], capture_output=True, text=True
    )
    assert result.returncode == 2 and "--out" in result.stderr and "Traceback" not in result.stderr


@pytest.fixture(scope="module")
def spread():
    """The twin's camera over the solar map and two places for planet maps, at a size where stickers read."""
    board = default_board(GAME)
    beside = boards_in_view(GAME)
    registry = default_registry(GAME)
    return SpreadCamera(
        board,
        beside,
        registry,
        ["red", "green"],
        seed=3,
        size=spread_size(board, beside, 2, registry.sticker_sizes()[0]),
    )


LAYOUT = {
    "r6s24": ("planet-5",),
    "r5s14": ("transport-green",),
    "p4:0206": ("army-green",),
    "p4:0201": ("marines-green",),
    "p4:0406": ("armor-green",),
    "p6:0303": ("militia-red",),
}


def test_each_planet_map_in_view_is_read_and_one_out_of_view_is_unknown_not_empty(spread):
    view = spread.look(LAYOUT, 1.0)
    assert [b.prefix for b in spread.laid if b] == ["p4:", "p6:"]
    for site in ("p4:0206", "p4:0201", "p4:0406", "p6:0303", "r5s14"):
        assert view.stacks.get(site) == LAYOUT[site], site
    # Planet 3's map is in the box: every hex of it unknown, none read as empty.
    p3 = {f"p3:{s.id}" for s in default_board(f"{GAME}:planet3").sites}
    assert p3 <= view.away and p3 <= view.unreliable and not p3 & set(view.stacks)
    assert p3 <= spread.out_of_view(LAYOUT) and not {"p4:0206", "p6:0303", "r5s14"} & spread.out_of_view(LAYOUT)
    assert view.pieces is not None and "army-green" in view.pieces and "army-blue" not in view.pieces


def test_the_observer_settles_the_maps_in_view_and_keeps_the_grids_word_for_a_map_out_of_view(spread):
    # The camera alone: two frames that agree settle the board although planet 3's map is out of view.
    observer = Observer(None, spread.sites, settle=0.1)
    observer.camera(spread.look(LAYOUT, 1.0))
    observer.camera(spread.look(LAYOUT, 1.5))
    seen = observer.observation(1.5)
    assert seen is not None
    assert seen.reading("p4:0206").pieces == ("army-green",)
    assert seen.reading("p3:0202").pieces is None and "p3:0202" not in seen.known_sites()
    # With the grids: planet 3's hex holds a piece to the grid; the camera cannot see its map, so it says nothing
    # there (never a piece taken off).
    grid = {("p3", 0): "p3:0202", ("p4", 0): "p4:0206"}
    observer = Observer(grid, spread.sites, settle=0.1)
    observer.reed(frozenset(grid), 0.0)
    observer.camera(spread.look({**LAYOUT, "p3:0202": ("army-red",)}, 0.5))
    seen = observer.observation(0.5)
    assert seen is not None
    assert seen.reading("p3:0202").occupied is True and seen.reading("p3:0202").pieces is None
    assert seen.reading("p4:0206").pieces == ("army-green",)


def _camera_table(tmp_path, spread, boards: str) -> LiveTable:
    profile = tmp_path / "camera.json"
    save_profile(mounting_profile(spread.cam), profile)
    path = tmp_path / "table.toml"
    path.write_text(
        f'game = "{GAME}"\nplayers = ["red", "green"]\n[grid]\nserial = "none"\n{boards}'
        f'[camera]\nsource = "{tmp_path}"\nprofile = "{profile}"\n'
    )
    return LiveTable(load_config(path).with_overrides(db=str(tmp_path / "t.db")))


def test_a_table_with_the_camera_alone_reads_its_planet_maps(tmp_path, spread):
    boards = "".join(f'[[boards]]\nboard = "{GAME}:planet{n}"\nserial = "none"\n' for n in (4, 6))
    live = _camera_table(tmp_path, spread, boards)
    try:
        assert live.config.boards[0] == BoardGrid(f"{GAME}:planet4", "none")
        assert isinstance(live.vision[0], TableVision) and live.senses.mode() == "camera alone"
        assert "p4:0206" in live.camera_sites and live.observer is not None and live.observer.switch_sites == {}
        assert live.table_probe() is None and live.beside_grids() == []
        image, _ = spread.render(LAYOUT)
        for now in (1.0, 1.5):
            live.read_frame(image, now)
        seen = live.observer.observation(1.5)
        assert seen is not None and seen.reading("p4:0206").pieces == ("army-green",)
        assert seen.reading("p6:0303").pieces == ("militia-red",)
        # The phones' calibration view draws the solar map, the game's own board, with a pose of its own.
        from companion.web.serve import web_table

        table = web_table(live)
        assert table.camera is not None and table.camera.vision.board.name == live.board.name
    finally:
        live.store.close()


def test_a_board_with_no_grid_takes_no_profile(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text(f'game = "{GAME}"\n[[boards]]\nboard = "{GAME}:planet4"\nserial = "none"\nprofile = "x.json"\n')
    with pytest.raises(UserError, match=r"boards\[0\]\.profile: a board with no grid"):
        load_config(path)


def test_the_twin_books_purchases_on_the_planet_maps_from_the_cameras_reading(tmp_path):
    """An Orbital Battle game's first purchases at the twin's table with the planet grids and the camera: the grid
    feels a counter set down on a planet hex, the camera tells which unit it is, and the table books it with no
    tap (to a grid alone every kind is possible: it asks). Before any counter is bought, the phones' calibration
    view already shows the table's camera reading the solar map."""
    from companion.sim.hand_play import HandTable
    from companion.sim.table_setup import make_twin
    from companion.web.calibration import snapshot_jpeg

    twin = make_twin(GAME, 2, 1, "virtual", str(tmp_path / "t.db"), 0.0, 0.0, camera=True, options={"turn_limit": 4})
    assert isinstance(twin.camera, SpreadCamera)
    with twin:
        feed = twin.web.camera
        assert feed is not None and feed.vision.board.name == GAME and twin.live.latest_image is not None
        assert snapshot_jpeg(feed).startswith(b"\xff\xd8")
        table = HandTable(twin, 1)
        for _ in range(16):
            table.act()
        entries = list(twin.session.store.entries(twin.session.record.id))
    stats = table.stats
    assert stats.wrong_bookings == 0 and stats.undo_advice == 0, table.findings
    on_planets = [
        e for e in entries if e.kind == "action" and e.action["type"] == "buy" and str(e.action["at"]).startswith("p")
    ]
    booked = [e for e in on_planets if e.source == "board"]
    assert len(on_planets) >= 5 and len(booked) >= 0.8 * len(on_planets), [(e.action, e.source) for e in on_planets]
    assert {e.action["kind"] for e in booked} >= {"army", "marines"}


def test_a_map_out_of_view_is_not_asked_of_the_camera_again_and_again(spread):
    """A phone camera sends a full picture while the observer has changed sites for it: a map in the box must not
    keep it sending."""
    grid = {("p4", 0): "p4:0206"}
    observer = Observer(grid, spread.sites, settle=0.1)
    observer.reed(frozenset(grid), 0.0)
    observer.camera(spread.look(LAYOUT, 0.5))
    changed = observer.changed_sites()
    assert changed is not None and not changed & {f"p3:{s.id}" for s in default_board(f"{GAME}:planet3").sites}


def test_with_no_grid_under_the_planet_maps_the_camera_alone_books_what_is_bought_there(tmp_path):
    """The planet maps on no grid: the grid under the solar map feels nothing of a counter bought onto a planet hex,
    the camera sees it and names it, and the table books it."""
    from companion.sim.hand_play import HandTable
    from companion.sim.table_setup import make_twin

    twin = make_twin(
        GAME, 2, 2, "virtual", str(tmp_path / "t.db"), 0.0, 0.0, camera=True, options={"turn_limit": 4}, beside=False
    )
    assert not twin.beside and {"p3:0202", "p8:0606"} <= twin.sensed
    with twin:
        table = HandTable(twin, 2)
        for _ in range(16):
            table.act()
        entries = list(twin.session.store.entries(twin.session.record.id))
    assert table.stats.wrong_bookings == 0 and table.stats.undo_advice == 0, table.findings
    on_planets = [
        e for e in entries if e.kind == "action" and e.action["type"] == "buy" and str(e.action["at"]).startswith("p")
    ]
    booked = [e for e in on_planets if e.source == "board"]
    assert len(on_planets) >= 5 and len(booked) >= 0.8 * len(on_planets), [(e.action, e.source) for e in on_planets]


def test_planet_maps_with_no_grid_and_no_camera_are_the_phones(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text(
        f'game = "{GAME}"\nplayers = ["red", "blue"]\n[grid]\nserial = "none"\n'
        f'[[boards]]\nboard = "{GAME}:planet4"\nserial = "none"\n'
    )
    live = LiveTable(load_config(path).with_overrides(db=str(tmp_path / "t.db")))
    try:
        assert live.observer is None and live.senses.mode() == "phones alone"
    finally:
        live.store.close()


def test_cargo_leaving_from_under_its_transport_is_not_counted_as_seen(spread):
    """The camera reads a transport's stack by its top: an unload leaves that stack looking as it did, so the
    army seen on the planet hex may as well have come from the box. The bench must not count it as a move the
    board tells apart; a transport flying off (the top leaving) it can see."""
    from dataclasses import replace
    from types import SimpleNamespace

    from companion.scenarios import _initial_state, load_scenario
    from companion.sim.hand_play import HandTable

    scenario = load_scenario(
        Path(__file__).parents[1] / "scenarios/orbital_battle/unload_marines_on_the_edge_or_by_a_starport.json"
    )
    # The transport carries one army: the army seen on a planet hex could only have come from it, by the rules.
    units = [u for u in scenario.given["units"] if u["kind"] != "marines"]
    scenario = replace(scenario, given={**scenario.given, "units": units})
    game, state = scenario.game, _initial_state(scenario)
    table = HandTable(SimpleNamespace(sensed=spread.sites, camera=spread, sites=frozenset()), 1)
    unload = next(a for a in game.legal_actions(state) if a.type == "unload")
    assert not table.tellable(game, state, unload, game.apply(state, unload)[0])
    before = game.layout(state)
    flown = {s: p for s, p in before.items() if s != "r3s0"} | {"r3s1": before["r3s0"]}
    assert not table._from_under(game, before, flown)
    # Without a camera reading stacks by their tops (a grid alone), nothing is said about it here.
    grid = HandTable(SimpleNamespace(sensed=spread.sites, camera=None, sites=frozenset()), 1)
    assert not grid._from_under(game, before, game.layout(game.apply(state, unload)[0]))
