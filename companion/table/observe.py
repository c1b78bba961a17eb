"""Sensor fusion: the reed grid's switches and the camera's frames, turned into settled observations of the board.

The reed grid says *when* and *where*: the board counts as settled once no switch has changed for the settle
window. The camera says *what*: the newest frame when the board settles is used if it was taken since the last switch
changed and shows no arm over the board (else the board waits for one that does), and only for the sites it did not
report as unreliable (a hand, a glare, a hidden corner). Between two settled boards, sites whose switch opened are
pieces in the air ("lifted"); a piece put back where it came from leaves no trace. With no reed grid the camera alone
decides: the board is settled when two frames a settle window apart show the same pieces and nothing is hidden.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from companion.boards import Board
from companion.rules.engine import POINTS_TO, pointing
from companion.sensing.pieces import Registry
from companion.sensing.vision import UNREAD, FrameReport
from companion.sensing.vision_table import TableReport
from companion.table.observation import Observation, SiteReading

# Seconds from the start of a frame's exposure to its arrival at the table, at the most: a frame is stamped when it
# arrives, so one that arrived within this of a switch's change may show the board from before it. A USB webcam in
# shared/WORLD.md's indoor light exposes for up to 1/15 s at 15 frames a second and its MJPEG frame reaches the host
# up to two frame intervals after the exposure ends (0.2 s in all); a Pi camera's frames arrive sooner.
FRAME_AGE = 0.25


@dataclass(frozen=True)
class CameraView:
    """One camera frame as the fusion needs it: the stacks per site and the sites it cannot vouch for."""

    time: float
    stacks: Mapping[str, tuple[str, ...]]
    unreliable: frozenset[str]
    reliable: bool = True  # False: nothing in the frame may be used (no board pose, a moved camera)
    partial: frozenset[str] = frozenset()  # sites where a piece may hide under the ones seen
    pieces: frozenset[str] | None = None  # the piece names the camera tells apart (None: every piece)
    # Sites of boards out of view (none of their markers show): unknown, never empty; the rest of the frame counts.
    away: frozenset[str] = frozenset()
    # Sites the frame cannot vouch for only because a stack there may reach out of the frame, where it read pieces:
    # a sticker read whole is there, but more may stand beyond the frame's edge.
    beyond: frozenset[str] = frozenset()
    tops: Mapping[str, int] = field(default_factory=dict)  # sites whose top level holds several pieces side by side
    singles: frozenset[str] = frozenset()  # the pieces the box holds one of: one seen on a site is on no other
    hand: bool = False  # an arm or hand reaches in over a board: a move may be under way, so nothing settles
    # Sites the camera could not read (a sticker seen but its code not clear, or stickers there too small for the
    # lens's blur and nothing read): unknown, never empty. They are among `unreliable`.
    unread: frozenset[str] = frozenset()
    confidence: Mapping[str, float] = field(default_factory=dict)  # the least confident sighting on each site read
    # The moment the frame's exposure began at the earliest, where its source knows it (a phone's still, taken after
    # the table asked for it); None: it may be as old as a webcam's frame when it arrives (FRAME_AGE).
    taken: float | None = None

    @property
    def since(self) -> float:
        """The earliest moment the frame may show the board as it was."""
        return self.time - FRAME_AGE if self.taken is None else self.taken


ARROW_SLACK = 50.0  # degrees an arrow may be off the way to a site and still point to it
# Degrees by which the nearest way must beat every other: at ORBIT's forks the two ways leave 5-20 degrees apart,
# closer than a hand points an arrow along a curved line, so the arrow there is not read (the phones say it).
ARROW_MARGIN = 25.0


def camera_view(
    report: FrameReport | TableReport,
    registry: Registry,
    board: Board | None = None,
    names: Mapping[str, str] | None = None,
) -> CameraView:
    """A vision report as the fusion takes it. A stack whose lowest piece seen is not a base (a planet or a station,
    which riders dock clear of) may hide a piece under it, so that site's reading is partial. With the `board`, a
    piece whose arrow the rules follow (the registry's `points`) is named with the site its sticker's turn points
    to (rules.engine.pointing), among the sites its site is linked to. A report of several boards (TableVision)
    is the union of its boards' views, each site named as the layout names it; a board out of view leaves every
    site of it unreliable. `names`: the registry's piece names -> the layout's (a side's counters named for the
    player who plays them: Registry.seated)."""
    if isinstance(report, TableReport):
        return _table_view(report, registry, names)
    view = _board_view(report, registry, board)
    return _renamed(view, names) if names else view


def _board_view(report: FrameReport, registry: Registry, board: Board | None) -> CameraView:
    lowest: dict[str, str] = {}
    levels: dict[str, list[int]] = {}
    for sighting in sorted(report.sightings, key=lambda s: s.level, reverse=True):
        if sighting.site is not None:
            lowest[sighting.site] = sighting.piece
            levels.setdefault(sighting.site, []).append(sighting.level)
    partial = frozenset(site for site, piece in lowest.items() if not registry.kind(piece).is_base)
    # Riders docked beside a base stand at one level: none of them is above another, so any may be the top.
    tops = {site: found.count(found[0]) for site, found in levels.items() if found.count(found[0]) > 1}
    stacks = report.stacks()
    out_of_view = {site for region in report.unreliable if region.reason == "out of view" for site in region.sites}
    blocked = {site for region in report.unreliable if region.reason != "out of view" for site in region.sites}
    beyond = frozenset(site for site in out_of_view - blocked if stacks.get(site))
    if board is not None:
        for sighting in report.sightings:
            heading = _heading(board, sighting.site, sighting.turn) if registry.kind(sighting.piece).points else ""
            if heading and sighting.site is not None:
                stack = list(stacks[sighting.site])
                stack[stack.index(sighting.piece)] = pointing(sighting.piece, heading)
                stacks[sighting.site] = tuple(stack)
    # (An area reaching in that hides no site, a board beside this one overlapping its edge, holds nothing.)
    hand = any(region.reason == "occluded" and region.sites for region in report.unreliable)
    unread = frozenset(site for region in report.unreliable if region.reason == UNREAD for site in region.sites)
    confidence: dict[str, float] = {}
    for sighting in report.sightings:
        if sighting.site is not None:
            confidence[sighting.site] = min(confidence.get(sighting.site, 1.0), sighting.confidence)
    return CameraView(
        report.time,
        stacks,
        frozenset(report.unreliable_sites()),
        report.reliable,
        partial,
        report.identifies,
        beyond=beyond,
        tops=tops,
        singles=_singles(registry),
        hand=hand,
        unread=unread,
        confidence=confidence,
    )


def _singles(registry: Registry) -> frozenset[str]:
    """The pieces of which the box holds exactly one."""
    counts = Counter(entry.piece for entry in registry.entries)
    return frozenset(piece for piece, count in counts.items() if count == 1)


def _table_view(report: TableReport, registry: Registry, names: Mapping[str, str] | None) -> CameraView:
    stacks: dict[str, tuple[str, ...]] = {}
    unreliable: set[str] = set()
    partial: set[str] = set()
    away: set[str] = set()
    beyond: set[str] = set()
    unread: set[str] = set()
    confidence: dict[str, float] = {}
    tops: dict[str, int] = {}
    hand = False
    for where, board_report in report.boards:
        prefix = where.prefix
        if not board_report.reliable:  # out of view: nothing of it is known, none of it is gone
            away |= {prefix + s.id for s in where.board.sites}
            continue
        view = _board_view(board_report, registry, where.board)
        stacks.update({prefix + site: stack for site, stack in view.stacks.items()})
        unreliable |= {prefix + site for site in view.unreliable}
        partial |= {prefix + site for site in view.partial}
        beyond |= {prefix + site for site in view.beyond}
        unread |= {prefix + site for site in view.unread}
        confidence.update({prefix + site: value for site, value in view.confidence.items()})
        tops.update({prefix + site: level for site, level in view.tops.items()})
        hand = hand or view.hand
    # Every board is read with one registry and profile: they tell the same pieces apart.
    pieces = report.boards[0][1].identifies
    in_view = any(board_report.reliable for _, board_report in report.boards)
    view = CameraView(
        report.time,
        stacks,
        frozenset(unreliable | away),
        in_view,
        frozenset(partial),
        pieces,
        away=frozenset(away),
        beyond=frozenset(beyond),
        tops=tops,
        singles=_singles(registry),
        hand=hand,
        unread=frozenset(unread),
        confidence=confidence,
    )
    return _renamed(view, names) if names else view


def _renamed(view: CameraView, names: Mapping[str, str]) -> CameraView:
    """The view with the registry's piece names put as the layout names them (an arrow's heading kept)."""

    def name(piece: str) -> str:
        base, mark, heading = piece.partition(POINTS_TO)
        return names.get(base, base) + mark + heading

    stacks = {site: tuple(map(name, stack)) for site, stack in view.stacks.items()}
    pieces = None if view.pieces is None else frozenset(map(name, view.pieces))
    return replace(view, stacks=stacks, pieces=pieces, singles=frozenset(map(name, view.singles)))


def _heading(board: Board, site: str | None, turn: float | None) -> str:
    """The site an arrow at `site` turned `turn` degrees points to ("" when it points to none, or not clearly to
    one): an arrow points along an orbit, so to a site linked by an orbit's links where the site has any, else by
    any link."""
    if site is None or turn is None or not board.has_site(site):
        return ""
    links = list(board.links_from(site))
    ways = [link.b for link in links if link.kind.startswith("orbit")] or [link.b for link in links]
    off = sorted((abs((board.bearing(site, way) - turn + 180.0) % 360.0 - 180.0), way) for way in ways)
    if not off or off[0][0] > ARROW_SLACK or (len(off) > 1 and off[1][0] - off[0][0] < ARROW_MARGIN):
        return ""
    return off[0][1]


_BARE = {o: SiteReading(occupied=o) for o in (True, False, None)}  # a site the grid alone reads (readings are values)


class Observer:
    """Thread-safe: the reed link's thread and the camera's thread feed it, the table's loop reads it."""

    def __init__(
        self,
        switch_sites: Mapping[Hashable, str] | None,
        camera_sites: frozenset[str] | None,
        settle: float = 0.3,
    ) -> None:
        """`switch_sites` maps each calibrated switch to its site (None: no reed grid); `camera_sites` are the sites
        the camera watches (None: no camera)."""
        if switch_sites is None and camera_sites is None:
            raise ValueError("an observer needs the reed grid, the camera, or both")
        self.switch_sites = dict(switch_sites or {})
        self.camera_sites = camera_sites
        self.settle = settle
        self._lock = threading.Lock()
        self._occupied: dict[str, bool] = {}
        self._closed: frozenset[Hashable] | None = None  # the switches `_occupied` was made from
        self._last_change = float("-inf")
        self._heard = float("-inf")  # the switches are known to have held until then (Observer.reed)
        self._frames: list[CameraView] = []
        self._settled_occupied: dict[str, bool] = {}
        self._lifted: set[str] = set()
        # Sites whose switch changed since the camera last read them settled; None: the camera reads the whole frame.
        self._pending: set[str] | None = None
        self._grid_link = switch_sites is not None  # the grid is connected (it may not be calibrated yet)
        self._grid_up = bool(switch_sites)  # connected and mapped to sites: what it says counts
        self._camera_link = camera_sites is not None  # the camera delivers frames (it may watch no board now)
        self._camera_up = camera_sites is not None
        self._peeked: tuple[tuple[Any, ...], tuple[Any, ...], Observation] | None = None  # `_peek`'s last board

    # Senses coming and going (a loose USB cable, an unplugged camera).
    def grid_available(self, up: bool) -> None:
        """While the grid is away nothing it said counts; when it is back its first snapshot is a change."""
        with self._lock:
            self._grid_link = up
            self._grid_up = up and bool(self.switch_sites)
            self._occupied, self._closed = {}, None
            self._pending = None

    def remap(self, switch_sites: Mapping[Hashable, str]) -> None:
        """A new grid profile (a calibration from the phones): from now on the switches mean these sites. What the
        old map said is forgotten; the next report from the grid is read with the new one."""
        with self._lock:
            self.switch_sites = dict(switch_sites)
            self._grid_up = self._grid_link and bool(self.switch_sites)
            self._occupied, self._closed = {}, None
            self._settled_occupied = {}
            self._lifted.clear()
            self._last_change = float("-inf")
            self._pending = None

    def camera_available(self, up: bool) -> None:
        with self._lock:
            self._camera_link = up
            self._camera_up = up and self.camera_sites is not None
            self._frames = []

    def watch_sites(self, camera_sites: frozenset[str] | None) -> None:
        """Another board under the camera (a game on another board): the sites it reads now (None: it reads none of
        this board). Frames of the old board are forgotten."""
        with self._lock:
            self.camera_sites = camera_sites
            self._camera_up = self._camera_link and camera_sites is not None
            self._frames = []
            self._pending = None

    # Feeding.
    def reed(self, closed: frozenset[Hashable], at: float, heard: float | None = None) -> None:
        """The grid's closed switches after a change (or a snapshot) that arrived at `at` (monotonic seconds);
        `heard`: the time up to which the grid's link had read all the grid sent (ReedLink.caught_up), so the
        switches are known to have held until then (None: the caller is the grid's reader itself, never behind)."""
        with self._lock:
            if not self._grid_up:
                return
            self._heard = float("inf") if heard is None else heard
            if closed == self._closed:
                return  # (the referee hands the switches over every few milliseconds: most often nothing changed)
            self._closed = closed
            occupied = {site: False for site in self.switch_sites.values()}
            for switch in closed:
                site = self.switch_sites.get(switch)
                if site is not None:
                    occupied[site] = True
            if occupied == self._occupied:
                return  # (the same dict kept: the settled board built from it still stands, `_peek`; a switch no
                # site is mapped to changed)
            self._last_change = at
            if self._pending is not None:
                self._pending |= {site for site, now in occupied.items() if now != self._occupied.get(site)}
            for site, now in occupied.items():
                if self._settled_occupied.get(site) and not now:
                    self._lifted.add(site)
                elif now:
                    self._lifted.discard(site)
            self._occupied = occupied

    def camera(self, view: CameraView) -> None:
        with self._lock:
            self._frames = [*self._frames[-1:], view]
            # A reliable frame taken since the last switch changed (exposed after it: `since`) has read the changed
            # sites it could see (an arm over some leaves them unreliable: read again). A board out of view is not
            # waited for: it is read whole when it comes back (its pose is found anew).
            if view.reliable and self._grid_up and self._occupied and view.since > self._last_change:
                unread = view.unreliable - view.away
                if self._pending is not None:
                    self._pending &= unread
                elif not (self.camera_sites or frozenset()) <= unread:  # (one that read no site leaves it whole)
                    self._pending = set(unread)

    def reread(self, sites: frozenset[str]) -> None:
        """The camera must read these sites again (the game changed there, whatever the switches said)."""
        with self._lock:
            if self._pending is not None:
                self._pending |= sites & (self.camera_sites or frozenset())

    def changed_sites(self) -> frozenset[str] | None:
        """The sites the camera has to read again (their switch changed since it last read them settled), for it to
        decode only there, with every site in view that it watches and no switch lies under (a planet map on no grid:
        the camera alone sees it change); None when it must read the whole frame (no grid, or nothing read settled
        yet). A piece lifted may have been set onto another, which no switch feels: `sites_to_read` has the camera
        look at every held site for that."""
        with self._lock:
            if not self._grid_up or self._pending is None:
                return None
            away = self._frames[-1].away if self._frames else frozenset()  # (a map in the box is not waited for)
            unswitched = (self.camera_sites or frozenset()) - set(self.switch_sites.values()) - away
            return frozenset(self._pending | unswitched)

    def sites_to_read(self) -> tuple[frozenset[str], frozenset[str]] | None:
        """Where a camera frame is read: the changed sites (`changed_sites`), which are decoded, and apart from them
        every other site the grid feels a piece on, since a piece set onto another or lifted off a stack changes no
        switch: the camera decodes those where they look changed. None: the whole frame."""
        changed = self.changed_sites()
        if changed is None:
            return None
        with self._lock:
            held = {site for site, occupied in self._occupied.items() if occupied}
        return changed, frozenset(held & (self.camera_sites or frozenset())) - changed

    # Reading.
    def occupied(self) -> frozenset[str]:
        """The sites the grid last said a piece stands on (empty while no grid reports)."""
        with self._lock:
            return frozenset(site for site, now in self._occupied.items() if now)

    def lifted(self) -> frozenset[str]:
        """Sites whose piece is in the air since the board last settled."""
        with self._lock:
            return frozenset(self._lifted)

    def watches_grid(self) -> bool:
        """Whether a grid is connected and mapped to sites (what it says counts)."""
        with self._lock:
            return self._grid_up

    def watches(self, site: str) -> tuple[bool, bool]:
        """Whether the grid (a switch mapped under the site) and the camera read this site now."""
        with self._lock:
            grid = self._grid_up and site in self.switch_sites.values()
            camera = self._camera_up and self.camera_sites is not None and site in self.camera_sites
            return grid, camera

    def grid_quiet(self, now: float) -> bool:
        """True once no switch has changed for the settle window: a camera frame taken from now on may settle it."""
        with self._lock:
            return bool(self._occupied) and now >= self._last_change + self.settle

    def settled_at(self, now: float) -> float | None:
        """When the board settled, or None while it is still moving (or the camera has not seen it since)."""
        with self._lock:
            return self._settled_at(now)

    def _settled_at(self, now: float) -> float | None:
        if self._grid_up:
            if not self._occupied:
                return None  # back, but no snapshot yet
            quiet_since = self._last_change + self.settle
            # Still for the settle window by what the link had read by then: a reader thread that fell behind (a
            # loaded host) may hold a piece sliding over a site as standing there, its leaving not yet read.
            if now < quiet_since or self._heard < quiet_since:
                return None
            # With the camera, an arm over the board holds every booking: the hand may be about to set a piece
            # down where the grid cannot feel it. The newest frame is read at the settle, not waited for: one taken
            # since the last switch changed that shows no arm shows the board as it settled.
            if self._camera_up and not self._fresh_frame(self._last_change, clear=True):
                return None
            return quiet_since
        # Camera alone: two clean frames a settle window apart that agree.
        if not self._camera_up or len(self._frames) < 2:
            return None
        older, newer = self._frames
        # A board out of view (taken off the table, or one of several not laid out) leaves its sites unknown; the
        # boards in view settle on their own.
        # Sites the camera cannot read stay unknown in the settled board; they do not keep the rest from settling.
        clean = all(f.reliable and not f.hand and not f.unreliable - f.away - f.unread for f in (older, newer)) and (
            older.away == newer.away and older.unread == newer.unread
        )
        if clean and newer.time - older.time >= self.settle and dict(older.stacks) == dict(newer.stacks):
            return newer.time
        return None

    def _fresh_frame(self, after: float, clear: bool = False) -> CameraView | None:
        """The newest reliable frame taken at `after` or since (`since`: its exposure began then at the earliest);
        with `clear`, only if it shows no arm over a board."""
        frames = [f for f in self._frames if f.since >= after and f.reliable]
        if not frames or (clear and frames[-1].hand):
            return None
        return frames[-1]

    def observation(self, now: float) -> Observation | None:
        """The settled board, site by site, or None while it is not settled. Reading it marks the board settled:
        what is lifted from here on is measured against it."""
        with self._lock:
            observation = self._peek(now)
            if observation is not None:
                self._settled_occupied = dict(self._occupied)
                self._lifted.clear()
            return observation

    def peek(self, now: float) -> Observation | None:
        """The settled board as `observation` gives it, without marking it settled (for a guide that follows the
        table's hands while the referee is held back)."""
        with self._lock:
            return self._peek(now)

    def _peek(self, now: float) -> Observation | None:
        settled = self._settled_at(now)
        if settled is None:
            return None
        # The referee looks every few milliseconds; the settled board is built again only when what it is built from
        # changed (each of these is replaced, never changed in place, when it changes): a board of 721 sites costs
        # milliseconds to build, a Pi's core several times that, and the grids' and the camera's readers wait on it.
        inputs = (self._occupied, self._frames, self.camera_sites)
        flags = (settled, self._grid_up, self._camera_up, self._last_change)
        kept = self._peeked
        if kept is not None and kept[1] == flags and all(a is b for a, b in zip(kept[0], inputs, strict=True)):
            return kept[2]
        observation = self._build(settled)
        self._peeked = (inputs, flags, observation)
        return observation

    def _build(self, settled: float) -> Observation:
        frame = self._fresh_frame(self._last_change if self._grid_up else float("-inf"))
        seen = frame is not None and self._camera_up and self.camera_sites is not None
        vouched = self.camera_sites - (frame.unreliable - frame.beyond) if seen else frozenset()
        readings: dict[str, SiteReading] = {site: _BARE[o] for site, o in self._occupied.items() if site not in vouched}
        pieces, singles = None, frozenset()
        if seen:
            pieces, singles = frame.pieces, frame.singles
            for site in vouched:
                stack = tuple(frame.stacks.get(site, ()))
                occupied = self._occupied.get(site)
                if site in frame.beyond:  # what was read is there; the rest of the stack may be out of the frame
                    readings[site] = SiteReading(occupied, stack, partial=True, top=0)
                elif occupied and not stack:  # the grid feels a piece the camera did not read: unread, not empty
                    readings[site] = SiteReading(occupied)
                else:
                    readings[site] = SiteReading(
                        occupied,
                        stack,
                        frame.confidence.get(site, 1.0),
                        partial=site in frame.partial,
                        top=frame.tops.get(site, 1),
                    )
        return Observation(readings, settled, pieces, singles)
