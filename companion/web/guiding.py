"""The walks and guides of a table as the phones run them: the reed grid's calibration walk-through, the probe that
tells several grids apart, a new game's wait for the grid to learn its board, and the guided setup. The referee is
held back while any of them runs (pieces set down for them are not moves), and one runs at a time."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, Protocol

from companion.boards import Board
from companion.calibration.grid_probe import board_title
from companion.table.game_board import board_set, board_words
from companion.table.grid_first import GridFirst
from companion.table.grid_walk import GridWalk, TableGrid
from companion.table.loop import TableLoop
from companion.table.probe_walk import ProbeWalk, TableProbe
from companion.table.session import Session
from companion.table.setup_guide import SetupGuide
from companion.table.steps import NotNow
from companion.web.hub import Hub


class Play(Protocol):
    """What the guides read of the table: the game in play, the loop that watches its board, and a way to tell
    every phone the state again."""

    @property
    def session(self) -> Session: ...

    @property
    def loop(self) -> TableLoop | None: ...

    def board(self) -> Board: ...

    def publish_state(self) -> None: ...


class Guides:
    """The grids of one table (the game board's, those beside it, the probe) and the walk or guide running on them."""

    def __init__(
        self, play: Play, hub: Hub, grid: TableGrid | None = None, beside: Sequence[TableGrid] = (),
        probe: TableProbe | None = None,
    ) -> None:  # fmt: skip
        self._play = play
        self._hub = hub
        self._lock = threading.RLock()
        self._holding = threading.Lock()  # one decision to hold or resume the referee at a time, carried out whole
        self.grid = grid  # the reed grid, its profile file and the observer that reads it (None: no grid)
        self.beside = list(beside)  # the grids under boards beside the game's own (Orbital Battle's planet maps)
        self.probe = probe  # which grid lies under which board, found from the phones (None: one grid)
        self.walk: GridWalk | ProbeWalk | None = None  # the grid's latest calibration walk-through
        self.guide: SetupGuide | None = None  # the latest guided setup
        self.first: GridFirst | None = None  # a new game's wait for the grid to learn its board, before the guide

    @property
    def walking(self) -> bool:
        return self.walk is not None and self.walk.running

    def status(self) -> dict[str, Any] | None:
        """The setup's step as the phones were last told it: the wait for the grid, or the guide."""
        first = self.first
        if first is not None and first.state != "guided":  # (guided: the guide took over from it)
            return first.status()
        return None if self.guide is None else self.guide.status()

    # A new game: what it replaces, and what leads its setup.
    def replace(self) -> GridFirst | SetupGuide | None:
        """A new game begins: the guide or wait of the old one ends (returned, to tell the phones where the setup
        stands when nothing follows it)."""
        with self._lock:
            replaced = next((g for g in (self.guide, self.first) if g is not None and g.running), None)
            if isinstance(replaced, SetupGuide):
                replaced.cancel()
            elif replaced is not None:
                replaced.stop("A new game has begun.")
            self.first = None
            walk = self.walk
            if self.walking and isinstance(walk, GridWalk) and walk.grid.profile != walk.profile:
                walk.command("stop")  # it walked the old game's board: the new game's is walked afresh
            return replaced

    def lead(self, guide: bool) -> GridFirst | SetupGuide | None:
        """What leads a new game's setup: with `guide`, the grid's walk-through first on a board the grid has not
        learnt, else the guided setup (not started; none while a walk of this board is under way)."""
        if not guide:
            return None
        with self._lock:
            grid = self.grid
            if grid is not None and not grid.mapping():  # no switch for any site: the grid cannot feel the pieces
                self.first = GridFirst(len(grid.board.sites))
                return self.first
            return None if self.walking else self._make_guide()

    # The grid's walk-through and the probe.
    def grid_status(self, board: str | None = None) -> dict[str, Any]:
        """A grid at this table (the game board's, or the one under `board`): its size, the profile file, site ->
        switch as the table reads it, the walk; and every grid's board, for a table of several."""
        grid, walk = self._grid(board), self.walk
        boards = [{"board": g.board.name, "title": board_title(g.board)} for g in (self.grid, *self.beside)
                  if g is not None]  # fmt: skip
        if grid is None:
            return {"board": self._play.board().name, "grid": False, "rows": None, "cols": None, "profile": None,
                    "mapped": None, "walk": None, "boards": boards, "probe": False}  # fmt: skip
        rows, cols = grid.size() or (None, None)
        session = self._play.session
        record = session.record
        title = board_words(record.game, board_set(record.game, record.options), session.game.title)
        return {"board": grid.board.name, "title": title if grid is self.grid else None, "grid": True,
                "rows": rows, "cols": cols, "profile": str(grid.profile),
                "mapped": {grid.prefix + site: list(switch) for site, switch in grid.mapping().items()},
                "walk": None if walk is None else walk.status(), "boards": boards,
                "probe": self.probe is not None}  # fmt: skip

    def _grid(self, board: str | None) -> TableGrid | None:
        if board is None or (self.grid is not None and board == self.grid.board.name):
            return self.grid
        found = next((g for g in self.beside if g.board.name == board), None)
        if found is None:
            raise ValueError(f"board: no grid at this table lies under {board!r}")
        return found

    def start_walk(self, sites: Sequence[str] | None = None, board: str | None = None) -> dict[str, Any]:
        """Start calibrating a grid from the phones (the game board's, or the one under `board`): every site of its
        board, or just `sites` (the others keep their switches)."""
        with self._lock:
            grid = self._grid(board)
            if grid is None:
                raise NotNow("there is no reed grid at this table")
            self._one_at_a_time()
            walk = GridWalk(grid, sites, lambda status: self._hub.transient("calibration", status),
                            self._walk_ended)  # fmt: skip
            self.walk = walk
        self.hold_loop()
        return walk.start()

    def _walk_ended(self) -> None:
        """A walk-through saved while a new game waits for it: the guided setup follows at once (the referee stays
        held). Stopped: the wait is told again, so every phone sees the step it left."""
        guiding = None
        with self._lock:
            first, walk = self.first, self.walk
            waiting = first is not None and first.running and isinstance(walk, GridWalk) and walk.grid is self.grid
            if waiting:
                assert first is not None and walk is not None
                first.walk_ended(walk.state == "saved")
                if not first.running:
                    guiding = self._make_guide()
        if waiting:
            assert first is not None
            if guiding is not None:
                guiding.start()
            else:
                self._hub.transient("setup", first.status())
        self.hold_loop()

    def start_probe(self) -> dict[str, Any]:
        """Find which grid lies under which board: a piece on each board's marked hex in turn."""
        with self._lock:
            if self.probe is None:
                raise NotNow("this table has one grid: there is nothing to tell apart")
            self._one_at_a_time()
            walk = ProbeWalk(self.probe, lambda status: self._hub.transient("calibration", status), self.hold_loop)
            self.walk = walk
        self.hold_loop()
        return walk.start()

    def walk_command(self, do: str, site: str | None = None) -> dict[str, Any]:
        walk = self.walk
        if walk is None or not walk.running:
            raise NotNow("no walk-through is running: start one")
        return walk.command(do, site)

    # The guided setup.
    def start_guide(self) -> dict[str, Any]:
        """Guide the table through setting out the layout the rules expect now, one piece at a time."""
        with self._lock:
            self._one_at_a_time()
            if self.first is not None and self.first.running:
                self.first.state = "guided"  # the group sets out without the grid: each piece a tap
            guide = self._make_guide()
        self.hold_loop()
        return guide.start()

    def _make_guide(self) -> SetupGuide:
        session, loop = self._play.session, self._play.loop
        self.guide = SetupGuide(session.game.layout(session.state), self._play.board(),
                                loop.observer if loop else None,
                                lambda status: self._hub.transient("setup", status), self.hold_loop,
                                physical=session.game.physical_piece)  # fmt: skip
        return self.guide

    def guide_command(self, do: str) -> dict[str, Any]:
        first = self.first
        if first is not None and first.running:
            if do != "stop":
                raise NotNow("the grid is learning the board first: walk it, or start the guide without it")
            first.stop("The guide has stopped. Declare moves on a phone until the grid is walked from Calibrate.")
            self.hold_loop()  # the referee back before any phone hears the guide has stopped
            status = first.status()
            self._hub.transient("setup", status)
            return status
        guide = self.guide
        if guide is None or not guide.running:
            raise NotNow("the setup is not being guided now: start the guide first")
        return guide.command(do)

    def _one_at_a_time(self) -> None:
        if self.walking:
            raise NotNow("the grid's walk-through is running: finish or stop it first")
        if self.guide is not None and self.guide.running:
            raise NotNow("the setup is being guided: finish or stop it first")

    def hold_loop(self) -> None:
        """Pause the referee while a guide runs, resume it after. Outside the guides' lock: the loop may be judging
        a board and announcing it, which reads the table's state. A walk's end hands over on the walk's own thread
        while a phone may start the next: each decision is carried out before the next is made, so a stale one
        never resumes the referee under a walk that has just begun."""
        with self._holding:
            with self._lock:
                loop = self._play.loop
                held = any(g is not None and g.running for g in (self.walk, self.guide, self.first))
            if loop is None or loop.paused == held:
                return
            if held:
                loop.pause()
                self._hub.transient("question", None)
            else:
                loop.resume()
        self._play.publish_state()
