"""Dakalio's and Periorbis's camera: each box's sticker registry against the rulebook's box, the table that
`companion serve` builds reading the rendered camera, and hands that hold a lifted piece in the air."""

from __future__ import annotations

import argparse
import time
from collections import Counter

import pytest

from companion.boards import default_board
from companion.rules import load
from companion.sensing.pieces import default_registry
from companion.sim.game_layouts import Table, board_layouts

GAMES = ("dakalio", "periorbis")


def _rules_box(game: str) -> Counter[str]:
    """Every piece the rules put in the box, by kind (the sets of pieces per player colour the registry seats)."""
    seats = default_registry(game).seats
    if game == "dakalio":
        from companion.rules.dakalio.state import ASTEROIDS_EACH, SHIPS_EACH

        bases = Counter(tag for s in default_board(game).sites if s.kind == "base" for tag in s.tags)
        box = Counter({"red-dakalio": bases["red"], "blue-dakalio": bases["blue"], "portal": 2})
        box["asteroid"] = ASTEROIDS_EACH * len(seats)  # (rulebook, Contents: 6 asteroids, 2 portals, 4 crystals)
        box.update({f"ship-{seat}": SHIPS_EACH for seat in seats})
        return box
    from companion.boards.periorbis import default_asteroids
    from companion.rules.periorbis.state import HQ_SLOTS

    box = Counter({"turn-marker": 1})
    for seat in seats:
        box[f"base-{seat}"] = len(default_asteroids())  # one base an asteroid, the most a player builds
        box.update({f"disc{slot}-{seat}": 1 for slot in range(1, HQ_SLOTS + 1)})
    return box


@pytest.mark.parametrize("game", GAMES)
def test_the_registry_holds_every_piece_of_the_rulebooks_box_and_a_set_for_every_seat(game):
    registry = default_registry(game)
    assert Counter(e.piece for e in registry.entries) == _rules_box(game)
    assert len(registry.seats) == load(game).max_players


@pytest.mark.parametrize("game", GAMES)
def test_each_kinds_sticker_is_the_largest_its_top_takes(game):
    """Printed to a tenth of a mm: 0.3 mm more overhangs the top past the registry's own check's slack (that it lies
    wholly on its top, margin and all, test_kinds measures by area)."""
    from dataclasses import replace

    for entry in {e.piece: e for e in default_registry(game).entries if e.sticker is not None}.values():
        assert entry.sticker_fits() and not replace(entry, sticker_mm=entry.sticker_mm + 0.3).sticker_fits(), entry


def test_the_camera_tells_every_dakalio_piece_apart_and_no_periorbis_disc_even_with_every_colour_measured():
    dakalio = default_registry("dakalio")
    assert dakalio.identifiable(()) == {e.piece for e in dakalio.entries}
    periorbis = default_registry("periorbis")
    every = {e.colour for e in periorbis.entries}
    assert periorbis.identifiable(every) == {"turn-marker", *(f"base-{seat}" for seat in periorbis.seats)}


@pytest.mark.parametrize(("game", "players"), [("dakalio", ("red", "green")), ("periorbis", ("orange", "ann", "bo"))])
def test_the_box_has_a_piece_for_every_layout_name_of_real_games(game, players):
    """A player named for a colour plays that colour's set; the others the sets left, in order."""
    registry = default_registry(game)
    box = Counter(e.piece for e in registry.entries)
    layout_name = registry.seated(players)
    in_box = {name: piece for piece, name in layout_name.items()}
    assert len(in_box) == len(layout_name)  # no two of the box's kinds take one layout name
    engine = load(game)
    options = {"length": "short"} if game == "periorbis" else {}
    seen = Counter()
    for _, layout in board_layouts(game, [Table(players, options)], 12, 1):
        needed = Counter(in_box.get(p, p) for pieces in layout.values() for p in map(engine.physical_piece, pieces))
        assert not needed - box, needed - box
        seen.update(needed)
    assert {p.rpartition("-")[2] for p in seen if p.startswith(("ship-", "base-"))} <= set(registry.seats)


def test_a_periorbis_player_named_for_a_colour_plays_it_however_the_players_are_ordered():
    registry = default_registry("periorbis")
    assert registry.seated(["pink", "orange"]) == {}
    names = registry.seated(["ann", "orange", "bo"])
    assert names["base-blue"] == "base-ann" and names["disc3-green"] == "disc3-bo" and "base-orange" not in names


def _args(moves: int) -> argparse.Namespace:
    from companion.bench.messy import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(["--moves", str(moves)])


@pytest.mark.parametrize("label", ["Dakalio with portals", "Periorbis short"])
def test_with_the_camera_a_piece_held_in_the_air_is_never_booked_wrong(label):
    """Hands in time hold each action's first carry 3 s in the air (a Dakalio ship lifted beside a portal looks, to
    the grid, like a ship moved onto it): with the camera on, nothing is booked wrong and no move is advised undone,
    and the camera photographed the board."""
    from companion.bench.messy import default_benches, hands_game
    from companion.sim.twin_camera import TwinCamera

    bench = next(b for b in default_benches() if b.label == label)
    table = hands_game(bench, True, 3.0, 5, _args(5))
    assert isinstance(table.twin.camera, TwinCamera) and table.renders > 0
    assert table.stats.board_changes >= 5
    assert table.stats.wrong_bookings == 0 and table.stats.undo_advice == 0, table.findings


@pytest.mark.parametrize(("game", "players"), [("dakalio", 2), ("periorbis", 3)])
def test_the_table_serve_builds_reads_the_rendered_camera_with_the_players_names(tmp_path, game, players):
    """The twin's table as `companion serve` builds it: its camera feed reads the game's board, the pieces it reads
    are named for the players who play them, and the hands' moves are booked with nothing wrong."""
    from companion.sim.hand_play import HandTable
    from companion.sim.table_setup import make_twin

    options = {"length": "short"} if game == "periorbis" else {}
    twin = make_twin(game, players, 2, "virtual", str(tmp_path / "t.db"), 0.0, 0.0, camera=True, options=options)
    twin.timeout = 30.0  # the twin's players wait this long for a board to settle: a frame drawn and read on a loaded
    # host takes seconds (the table's own settle is unchanged)
    with twin:
        feed = twin.web.camera
        assert feed is not None and feed.vision.board.name == game and twin.senses.mode() == "grid and camera"
        table = HandTable(twin, 2)
        for _ in range(12):
            table.act()
        seen = twin.live.observer.observation(time.monotonic())
        layout = twin.session.game.layout(twin.session.state)
    assert table.stats.wrong_bookings == 0 and table.stats.undo_advice == 0, table.findings
    assert seen is not None
    read = {site: seen.reading(site).pieces for site in layout if seen.reading(site).pieces}
    assert read and all(set(pieces) <= set(layout[site]) for site, pieces in read.items()), (read, layout)
    # A player's pieces are read under the player's name (the box's yellow ships are the first player's).
    assert {p.rpartition("-")[2] for pieces in read.values() for p in pieces} & set(twin.session.record.players)
