"""One camera over several boards lying side by side (Orbital Battle's solar map and the planet maps beside it).

Each board is found and followed by its own corner markers (planet N's are ids 4N to 4N+3, the solar map's 0-3), so
each has its own pose, kept while its markers look as they did, and a board moved on the table is found again on
its own; the others keep theirs. Each board is read as one board alone is (vision.py), in crops round its changed
sites or whole; a board none of whose markers show is out of view, said so, never read as empty. Sites are named as
the game's layout names them: a board's prefix (`p3:` for planet 3's hexes) before its own site ids.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

import numpy as np

from companion.boards.model import Board
from companion.errors import UserError
from companion.sensing.pieces import Registry
from companion.sensing.vision import FrameMarkers, FrameReport, Sighting, Vision
from companion.sensing.vision_profile import CameraProfile


@dataclass(frozen=True)
class BoardInView:
    """A board the camera looks for, and the prefix the game's layout puts before its sites ('' for its own)."""

    board: Board
    prefix: str = ""


@dataclass(frozen=True)
class TableReport:
    """One frame over every board: each board's own report, in the order the boards were given."""

    time: float
    boards: tuple[tuple[BoardInView, FrameReport], ...]

    def report(self, name: str) -> FrameReport:
        for where, report in self.boards:
            if where.board.name == name:
                return report
        raise KeyError(name)

    def out_of_view(self) -> dict[str, str]:
        """Board name -> why nothing on it may be trusted in this frame (none of its markers show, most often)."""
        return {where.board.name: report.reason for where, report in self.boards if not report.reliable}

    def stacks(self) -> dict[str, tuple[str, ...]]:
        """Layout site id -> piece names bottom to top, over the boards in view."""
        return {
            where.prefix + site: pieces
            for where, report in self.boards
            if report.reliable
            for site, pieces in report.stacks().items()
        }

    def unreliable_sites(self) -> set[str]:
        """Layout site ids the frame says nothing about: every site of a board out of view, and the parts of the
        others hidden or out of the frame."""
        out = set()
        for where, report in self.boards:
            sites = report.unreliable_sites() if report.reliable else {s.id for s in where.board.sites}
            out |= {where.prefix + s for s in sites}
        return out

    def to_json(self) -> dict:
        return {
            "time": self.time,
            "boards": {where.board.name: {"prefix": where.prefix, **report.to_json()} for where, report in self.boards},
        }


class TableVision:
    """The camera pipeline for boards side by side: one Vision per board, one marker search per frame."""

    def __init__(
        self, boards: Sequence[BoardInView], registry: Registry, profile: CameraProfile, move_tolerance_mm: float = 3.0
    ) -> None:
        if not boards:
            raise UserError("the camera needs at least one board to look for")
        prefixes = [b.prefix for b in boards]
        if len(set(prefixes)) != len(prefixes):
            raise UserError(f"boards: two boards share the site prefix {_first_repeat(prefixes)!r}")
        ids = [(f.dictionary, f.id) for b in boards for f in b.board.fiducials]
        if len(set(ids)) != len(ids):
            raise UserError(
                f"boards: two boards carry corner marker {_first_repeat(ids)[1]}: the camera could not tell them apart"
            )
        self.boards = tuple(boards)
        # A profile's board pose is of one board; the others are found by their markers alone.
        self.visions = tuple(
            Vision(
                b.board,
                registry,
                profile if profile.pose is None or profile.pose.board == b.board.name else replace(profile, pose=None),
                move_tolerance_mm,
            )
            for b in boards
        )

    def process(
        self,
        image: np.ndarray,
        time: float = 0.0,
        changed: Collection[str] | None = None,
        more: Sequence[np.ndarray] = (),
        by_look: bool = False,
    ) -> TableReport:
        """Every board in the frame. `changed`: layout site ids the grids say changed (each board is then read in
        crops round its own), None: every board read whole. `more`: frames of the same settled table to fuse;
        `by_look`: a camera with no grid (Vision.process)."""
        if image is None or image.ndim not in (2, 3) or image.size == 0:
            raise UserError("the frame is empty or not an image")
        markers = FrameMarkers(image)  # a gray frame (a Pi camera's luma plane) is read as it is
        reports = []
        for where, vision in zip(self.boards, self.visions, strict=True):
            mine = None if changed is None else self._own_sites(where, changed)
            reports.append(vision.process(image, time, mine, markers, more, by_look))
        return TableReport(time, tuple(zip(self.boards, self._without_neighbours(reports), strict=True)))

    def _own_sites(self, where: BoardInView, changed: Collection[str]) -> set[str]:
        """The board's own site ids among the layout's: those with its prefix, and no longer prefix that fits."""
        longer = [
            b.prefix for b in self.boards if len(b.prefix) > len(where.prefix) and b.prefix.startswith(where.prefix)
        ]
        return {
            site.removeprefix(where.prefix)
            for site in changed
            if site.startswith(where.prefix) and not any(site.startswith(p) for p in longer)
        }

    def _without_neighbours(self, reports: list[FrameReport]) -> list[FrameReport]:
        """Each report without the pieces off its sites that stand on another board in view: a board's search
        reaches past its edge (pieces overhang it), so a neighbour's pieces by that edge show there too, off every
        site; the neighbour reads them on its own sites."""
        out = []
        for i, report in enumerate(reports):
            vision = self.visions[i]
            if not report.reliable or vision.pose is None:
                out.append(report)
                continue
            others = [v for j, v in enumerate(self.visions) if j != i and reports[j].reliable and v.pose is not None]
            kept = tuple(
                s
                for s in report.sightings
                if s.site is not None or not any(_lies_on(other, _pixel(vision, s)) for other in others)
            )
            out.append(report if len(kept) == len(report.sightings) else replace(report, sightings=kept))
        return out


def _pixel(vision: Vision, s: Sighting) -> np.ndarray:
    """The frame pixel of a sighting's centre on its board's plane."""
    assert vision.pose is not None
    return vision.pose.project(np.array([(s.x, s.y, 0.0)]), vision.matrix, vision.dist)


def _lies_on(vision: Vision, pixel: np.ndarray) -> bool:
    """Whether a frame pixel shows a point of this board (its pose traced back to its plane)."""
    assert vision.pose is not None
    x, y = vision.pose.to_board(pixel, 0.0, vision.matrix, vision.dist)[0]
    return 0.0 <= x <= vision.board.width and 0.0 <= y <= vision.board.height


def _first_repeat(values: list):
    seen = set()
    for v in values:
        if v in seen:
            return v
        seen.add(v)
    return None
