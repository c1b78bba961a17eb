"""The camera's corner markers on a board made over a photo: where they go when the board has none of its own."""

from __future__ import annotations

from dataclasses import replace

from companion.boards.model import Board, Fiducial

MIN_MARKERS = 3  # markers that find the board's pose on their own (sensing/vision.py MIN_FRESH_MARKERS)


def markers_on(board: Board) -> list[Fiducial]:
    """The board's markers whose centre lies on it (one of another size's board, copied over, may lie off it)."""
    return [f for f in board.fiducials if 0 <= f.x <= board.width and 0 <= f.y <= board.height]


def with_corner_markers(board: Board, own: Board) -> Board:
    """`board` with the game's own board's corner markers placed as on the game's own board, scaled to its size
    (a copy laid over a photo has the photo's millimetres, and none or the wrong size's markers); a board with
    enough markers of its own on it keeps them. The camera finds the copy by these, printed with its overlay."""
    if len(markers_on(board)) >= MIN_MARKERS and len(markers_on(board)) == len(board.fiducials):
        return board
    sx, sy = board.width / own.width, board.height / own.height
    placed = tuple(replace(f, x=round(f.x * sx, 1), y=round(f.y * sy, 1)) for f in own.fiducials)
    return replace(board, fiducials=placed)
