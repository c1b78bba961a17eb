"""`companion bench referee` judges real boards, and its own check would notice a wrong ruling."""

from __future__ import annotations

from companion.bench import referee
from companion.cli import main
from companion.rules import load
from companion.sim.players import playout
from companion.table.referee import Ruling, board_actions


def test_the_bench_prints_figures_and_finds_no_wrong_ruling(capsys):
    assert main(["bench", "referee", "--states", "3"]) == 0
    out = capsys.readouterr().out
    for label in (
        "judge: a move, reed grid only",
        "judge: a move half made",
        "judge: a wrong board",
        "prepare a state",
        "baseline",
    ):
        assert label in out
    for row in (
        "ORBIT 4 players",
        "ORBIT partnership",
        "ORBIT dual",
        "ORBIT modules",
        "Dakalio simple",
        "Dakalio supremacy",
        "Orbital Battle",
        "Trajectory",
        "Periorbis short",
    ):
        assert any(line.startswith(f"{row}:") for line in out.splitlines()), row


def test_the_check_refuses_a_ruling_that_ignores_a_visible_move():
    game = load("trajectory")
    states = (move.state for move in playout(game, game.setup(["red", "green"], {}, 3), 3))
    state, (action, after) = next((s, m[0]) for s in states if (m := board_actions(game, s)))
    sites = sorted(set(game.layout(state)) | set(after))
    seen, unmoved = referee._observe(game, after, sites, True), referee._observe(game, game.layout(state), sites, True)
    assert seen != unmoved
    assert not referee._right(game, state, Ruling("unchanged"), seen, unmoved)
    assert not referee._right(game, state, Ruling("mismatch"), seen, unmoved)
    assert referee._right(game, state, Ruling("explained", (action,)), seen, unmoved)
