"""One camera over several boards lying side by side (Orbital Battle's solar map and the planet maps beside it).

Each board is found and followed by its own corner markers (planet N's are ids 4N to 4N+3, the solar map's 0-3), so
each has its own pose, kept while its markers look as they did, and a board moved on the table is found again on
its own; the others keep theirs. Each board is read as one board alone is (vision.py), in crops round its changed
sites or whole; a board none of whose markers show is out of view, said so, never read as empty. Sites are named as
the game's layout names them: a board's prefix (`p3:` for planet 3's hexes) before its own site ids.

A camera that sends only the parts of its picture the table names (a phone) is given one TablePlan over the boards
whose sites changed, each board's plan its own (vision.py `crop_plan`: its sites' crops and its own corner markers'
looks); the boards that did not change keep their last reading. Whole frames (a Pi camera's) are read so too: a board
none of whose sites changed is only checked by its markers' looks, and read only when it moved. A changed board with
no reading yet (a map just laid down), or parts that would cost more than the whole picture's gray, have the whole
picture asked for. A board none of whose markers showed (a map in the box) is looked for in a whole-frame search
once a second, or at once when a grid says one of its sites changed, not in every frame.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

import numpy as np

from companion.boards.model import Board
from companion.errors import UserError
from companion.sensing.pieces import Registry
from companion.sensing.vision import FrameMarkers, FrameReport, Sighting, Vision
from companion.sensing.vision_crops import PLAN_BYTES, Cropped, CropPlan, TablePlan
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


SAME_PIECE_MM = 10.0  # one piece seen by two boards' poses lands this near itself (each pose within a few mm)


# Seconds of frame time between whole-frame searches for a board none of whose markers showed (a planet map in the
# box): it is looked for again this often, or at once when a grid says one of its sites changed, or when a search
# made for another board finds it. The search of a whole frame costs 40-50 ms here at 1080p (a Pi's core 3-5 times
# that); a map laid down is found within this, and its first piece's switch calls for it at once.
AWAY_SEARCH = 1.0
# ... but a frame read for a change on a board in view is what a booking waits for (an arm has just left, and while
# it was over the board no frame was read, so every search fell due then): such a frame searches for boards out of
# view only once this long has passed since their last search.
AWAY_SEARCH_BUSY = 3.0


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
        self._reports: tuple[FrameReport, ...] | None = None  # each board's last report (kept where not read anew)
        self._searched = [-math.inf] * len(self.boards)  # the frame time each board was last read

    def arm_over(self, image: np.ndarray) -> bool:
        """Whether an arm reaches in over any board in this frame that stands where it was last read
        (Vision.arm_over)."""
        return self._reports is not None and any(vision.arm_over(image) for vision in self.visions)

    def process(
        self,
        image: np.ndarray,
        time: float = 0.0,
        changed: Collection[str] | None = None,
        more: Sequence[np.ndarray] = (),
        by_look: bool = False,
        cropped: Cropped | None = None,
        held: Collection[str] = (),
    ) -> TableReport:
        """Every board in the frame. `changed`: layout site ids the grids say changed (each board is then read in
        crops round its own), None: every board read whole. `more`: frames of the same settled table to fuse;
        `by_look`: a camera with no grid (Vision.process). `cropped`: the frame holds only what `crop_plan` asked
        for: each board it names is read from its own parts (one that moved reads nothing, and has the whole picture
        asked for next), the others keep their last reading. `held`: layout site ids with pieces on them none of
        whose switches changed, each board's read only where they look changed (Vision.process)."""
        if image is None or image.ndim not in (2, 3) or image.size == 0:
            raise UserError("the frame is empty or not an image")
        if cropped is not None:
            reports = self._from_parts(image, time, cropped, held)
        else:
            markers = FrameMarkers(image)  # a gray frame (a Pi camera's luma plane) is read as it is
            reports = []
            for i, (where, vision) in enumerate(zip(self.boards, self.visions, strict=True)):
                mine = None if changed is None else self._own_sites(where, changed)
                own_held = self._own_sites(where, held)
                if (
                    mine == set()
                    and self._reports is not None
                    and vision.stands(image, markers)
                    and not vision.unlike(image, own_held, markers)
                ):
                    # None of its sites changed, none of its stacks looks changed and it has not moved: its last
                    # reading stands, as when a phone sends the parts of the boards that changed (its sweep waits
                    # for its own next change)
                    reports.append(replace(self._reports[i], time=time))
                    continue
                if mine == set() and self._away(i, time, bool(changed)) and not vision.shown_in(markers):
                    reports.append(replace(self._reports[i], time=time))  # (still out of view: looked for soon)
                    continue
                self._searched[i] = time
                reports.append(vision.process(image, time, mine, markers, more, by_look, held=own_held))
        self._reports = tuple(reports)
        return TableReport(time, tuple(zip(self.boards, self._without_neighbours(reports), strict=True)))

    def _away(self, i: int, time: float, busy: bool = False) -> bool:
        """Board `i` showed none of its markers when last read, less than AWAY_SEARCH ago (AWAY_SEARCH_BUSY in a
        frame `busy` reading a change on other boards)."""
        last = self._reports[i] if self._reports is not None else None
        within = AWAY_SEARCH_BUSY if busy else AWAY_SEARCH
        return last is not None and not last.markers and 0.0 <= time - self._searched[i] < within

    def crop_plan(self, changed: Collection[str]) -> TablePlan | None:
        """The parts of the next picture the boards whose sites in `changed` (layout ids) are read from, one plan a
        board (Vision.crop_plan); None when one of them cannot be read so (no reading yet, its markers' looks not
        kept, its parts dearer than the picture's gray), or the parts together would cost more than the whole
        picture's gray or PLAN_BYTES: the whole picture is needed."""
        if self._reports is None:
            return None
        plans = []
        for where, vision in zip(self.boards, self.visions, strict=True):
            mine = self._own_sites(where, changed)
            if mine:
                plan = vision.crop_plan(mine)
                if plan is None:
                    return None
                plans.append((where.prefix, plan))
        if not plans:
            return None
        table = TablePlan(tuple(plans))
        width, height = table.size
        return table if table.nbytes() <= min(width * height, PLAN_BYTES) else None

    def _from_parts(
        self, image: np.ndarray, time: float, cropped: Cropped, held: Collection[str] = ()
    ) -> list[FrameReport]:
        """Each board's report from a frame of a plan's parts: the boards it names read from their own parts (their
        `held` sites where they look changed), the others' last reports as they stand."""
        plan = cropped.plan
        if not isinstance(plan, TablePlan):
            raise UserError("a table of several boards reads parts asked for by a table's plan")
        reports = []
        for i, (where, vision) in enumerate(zip(self.boards, self.visions, strict=True)):
            own = plan.part(where.board.name)
            if own is None and self._reports is not None:
                reports.append(replace(self._reports[i], time=time))
                continue
            # (a board with no report kept reads nothing from an empty plan: it has the whole picture asked for)
            own = own or CropPlan(where.board.name, frozenset(), 0, plan.size, ())
            own_held = self._own_sites(where, held)
            reports.append(vision.process(image, time, cropped=Cropped(own, cropped.overview), held=own_held))
        return reports

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
        site; the neighbour reads them on its own sites. Where boards overlap (a map slid over another's edge), a
        piece lying on both is seen off every site by each: it stays with the board it lies deeper inside (unless
        the other reads it on a site), never dropped by both."""
        out = []
        for i, report in enumerate(reports):
            if not report.reliable or self.visions[i].pose is None:
                out.append(report)
                continue
            kept = tuple(s for s in report.sightings if s.site is not None or not self._elsewhere(i, s, reports))
            out.append(report if len(kept) == len(report.sightings) else replace(report, sightings=kept))
        return out

    def _elsewhere(self, i: int, s: Sighting, reports: list[FrameReport]) -> bool:
        """Whether board i's piece off every site belongs to another board in view: it lies on that board, deeper
        inside it than inside board i (the first board in view on a tie), or that board reads it on a site."""
        vision = self.visions[i]
        here = _depth(vision.board, s.x, s.y)
        for j, other in enumerate(self.visions):
            if j == i or not reports[j].reliable or other.pose is None:
                continue
            x, y = _traced(other, _pixel(vision, s))
            there = _depth(other.board, x, y)
            if there < 0:
                continue
            if here < there or (here == there and j < i):
                return True
            if any(
                o.site is not None and o.piece == s.piece and math.hypot(o.x - x, o.y - y) <= SAME_PIECE_MM
                for o in reports[j].sightings
            ):
                return True
        return False


def _pixel(vision: Vision, s: Sighting) -> np.ndarray:
    """The frame pixel of a sighting's centre on its board's plane."""
    assert vision.pose is not None
    return vision.pose.project(np.array([(s.x, s.y, 0.0)]), vision.matrix, vision.dist)


def _traced(vision: Vision, pixel: np.ndarray) -> tuple[float, float]:
    """The point of this board's plane a frame pixel shows (its pose traced back to the plane), board mm."""
    assert vision.pose is not None
    x, y = vision.pose.to_board(pixel, 0.0, vision.matrix, vision.dist)[0]
    return float(x), float(y)


def _depth(board: Board, x: float, y: float) -> float:
    """How far a board point lies inside the board's edge (mm; negative outside it)."""
    return min(x, board.width - x, y, board.height - y)


def _first_repeat(values: list):
    seen = set()
    for v in values:
        if v in seen:
            return v
        seen.add(v)
    return None
