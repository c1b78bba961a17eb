"""ORBIT through the twin: a partnership and a dual-spaceship game over a simulated reed grid, no wrong move taken."""

import pytest

from companion.boards import default_board
from companion.sim.simavr_grid import virtual_grid
from companion.sim.twin import Twin, switch_map
from companion.table.session import Session
from companion.table.store import Store


@pytest.mark.parametrize(
    ("players", "options"),
    [(["red", "green", "blue", "yellow"], {"mode": "partnership"}), (["red", "green"], {"mode": "dual"})],
)
def test_a_short_orbit_game_in_the_twin(tmp_path, players, options):
    session = Session.start(Store(tmp_path / "t.db"), "orbit", players, options, 3)
    board = default_board("orbit")
    twin = Twin(session, virtual_grid(16, 16), switch_map(board, 16, 16), seed=3, mess=0.3, illegal=0.2)
    with twin:
        stats = twin.play(60)
    assert stats.wrong_accepted == 0 and stats.board_moves >= 5 and stats.phone_inputs >= 5
    assert stats.illegal_caught == stats.illegal_tried
