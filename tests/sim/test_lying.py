"""The rendered camera's pieces lie as the hands left them: a stack nobody touched is where it lay in the last frame
(a fresh draw would move every piece on the board a little between two frames), one set down again is drawn anew."""

from __future__ import annotations

import numpy as np

from companion.boards import default_board
from companion.sim.lying import Lying
from companion.sim.mounted_scene import layout_table
from companion.sim.twin_spread import twin_box


def test_a_stack_no_hand_touched_lies_as_it_lay_and_one_set_down_again_is_drawn_anew():
    board, box = default_board("orbital_battle:planet3"), twin_box()
    counters = sorted({e.piece for e in box.entries if not e.piece.startswith("planet-")})
    a, b, c = (site.id for site in board.sites[:3])
    layout = {a: (counters[0],), b: (counters[1], counters[0]), c: (counters[2],)}
    rng, lying = np.random.default_rng(5), Lying()

    def stacks(layout: dict) -> dict[str, tuple]:
        table, _ = layout_table(board, box, layout, rng, lambda name: name, lying)
        out: dict[str, tuple] = {}
        for piece in table.pieces:
            out[piece.site] = (*out.get(piece.site, ()), piece)
        return out

    first = stacks(layout)
    assert stacks(layout) == first  # nothing touched: every piece where it lay
    moved = stacks({**layout, c: (), board.sites[3].id: (counters[2],)})
    assert moved[a] == first[a] and moved[b] == first[b] and moved[board.sites[3].id] != first[c]
    lying.touched({**layout, b: ()})  # the stack on b picked up between two frames, and set down again
    again = stacks(layout)
    assert again[a] == first[a] and again[b] != first[b]
    assert [p.entry.piece for p in again[b]] == [p.entry.piece for p in first[b]]


def test_the_single_boards_camera_keeps_untouched_pieces_where_they_lay_too():
    from companion.sensing.pieces import default_registry
    from companion.sim.render_camera import overhead_camera
    from companion.sim.render_scene import layout_scene

    board, registry = default_board("orbit"), default_registry("orbit")
    camera = overhead_camera(board.width, board.height, 1920, 1080)
    kinds = sorted({e.piece for e in registry.entries})
    a, b = board.sites[0].id, board.sites[5].id
    layout = {a: (kinds[0],), b: (kinds[1],)}
    rng, lying = np.random.default_rng(9), Lying()

    def placed(layout: dict) -> dict[str, tuple]:
        scene, _ = layout_scene(board, registry, camera, layout, rng, lying=lying)
        return {site: tuple(p for p in scene.pieces if p.site == site) for site in layout}

    first = placed(layout)
    assert placed(layout) == first
    lying.touched({a: (), b: (kinds[1],)})
    again = placed(layout)
    assert again[b] == first[b] and again[a] != first[a]
