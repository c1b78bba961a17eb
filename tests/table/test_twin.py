"""The twin over a real pty: messy hands and illegal moves never get a wrong move accepted."""

from companion.rules import Action
from companion.sim.table_setup import make_twin


def test_a_messy_table_plays_on_without_a_wrong_move_accepted(tmp_path):
    with make_twin("trajectory", 2, 5, "virtual", str(tmp_path / "t.db"), mess=0.6, illegal=0.4) as twin:
        stats = twin.play(90)
        session = twin.session
        # The physical board and the game agree at the end, as the grid reports it.
        closed = twin._closed(session.game.layout(session.state))
        assert twin.link.occupancy() == closed
    assert stats.wrong_accepted == 0
    assert stats.illegal_tried >= 2 and stats.illegal_caught == stats.illegal_tried
    assert stats.messy >= 2 and stats.board_moves >= 10
    # Every action the session accepted came from a legal action the scripted players made: the log replays.
    entries = list(session.store.entries(session.record.id))
    sources = {e.source for e in entries if e.kind == "action"}
    assert "board" in sources and "phone" in sources
    replayed, _ = session.game.replay(
        ["red", "green"], {}, 5, [Action.from_json(e.action) for e in entries if e.action]
    )
    assert replayed == session.state
