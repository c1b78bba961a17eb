"""`companion calibrate grid`: which reed switch lies under which board site, recorded by setting a magnet on each
site in turn, and the profile file that keeps the answer (format: calibration/README.md, "Reed grid profile").

The walk itself (`GridRecording`: the site asked, the refusals, skip, back, redo) and the way new switches are told
apart (`NewSwitches`) are shared with the phone page's walk-through (companion/table/grid_walk.py)."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from companion.boards import Board, default_board, load_board
from companion.errors import UserError
from companion.jsonfile import write_json
from companion.rules import DEFAULT
from companion.sensing.frames import Switch

HELP = "map each reed switch to a board site: set a magnet on each site as it is named"
KIND = "reed-grid"
VERSION = 1
SETTLE = 0.3  # seconds a newly closed switch must stay closed before it counts (a piece may close two at once)
POLL = 0.01  # seconds between looks at the grid's switches


@dataclass(frozen=True)
class GridProfile:
    board: str
    rows: int
    cols: int
    sites: dict[str, Switch] = field(default_factory=dict)  # site id -> (row, col)

    def site_of(self, switch: Switch) -> str | None:
        """The site above a switch, or None for a switch no site uses (a board may have fewer sites)."""
        return self._by_switch.get(switch)

    @property
    def _by_switch(self) -> dict[Switch, str]:
        return {switch: site for site, switch in self.sites.items()}

    def to_json(self) -> dict:
        return {
            "kind": KIND,
            "version": VERSION,
            "board": self.board,
            "rows": self.rows,
            "cols": self.cols,
            "sites": {site: list(switch) for site, switch in self.sites.items()},
        }


def save_profile(profile: GridProfile, path: Path) -> None:
    """Written atomically: the table may read the file at any moment, and a power cut must not leave half of it."""
    write_json(path, profile.to_json())


def load_profile(path: Path, board: Board) -> GridProfile:
    """A profile file checked against the board: every field, every site, no switch used twice."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except json.JSONDecodeError as error:
        raise UserError(f"{path}: not JSON ({error.msg}, line {error.lineno})") from None
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise UserError(f'{path}: kind: expected "{KIND}"')
    if data.get("version") != VERSION:
        raise UserError(f"{path}: version: expected {VERSION}, found {data.get('version')!r}")
    if data.get("board") != board.name:
        raise UserError(f"{path}: board: the profile is for {data.get('board')!r}, the table uses {board.name!r}")
    for name in ("rows", "cols"):
        if not isinstance(data.get(name), int) or not 1 <= data[name] <= 16:
            raise UserError(f"{path}: {name}: expected a whole number from 1 to 16")
    sites = data.get("sites")
    if not isinstance(sites, dict):
        raise UserError(f"{path}: sites: expected an object of site id -> [row, column]")
    seen: dict[tuple[int, int], str] = {}
    parsed: dict[str, Switch] = {}
    for site, switch in sites.items():
        where = f"{path}: sites.{site}"
        if not board.has_site(site):
            raise UserError(f"{where}: board {board.name!r} has no such site")
        if (
            not isinstance(switch, list)
            or len(switch) != 2
            or not all(isinstance(v, int) for v in switch)
            or not (0 <= switch[0] < data["rows"] and 0 <= switch[1] < data["cols"])
        ):
            raise UserError(f"{where}: expected [row, column] inside the {data['rows']}x{data['cols']} matrix")
        key = (switch[0], switch[1])
        if key in seen:
            raise UserError(f"{where}: switch {list(key)} is already site {seen[key]!r}")
        seen[key] = site
        parsed[site] = key
    return GridProfile(board.name, data["rows"], data["cols"], parsed)


@dataclass(frozen=True)
class Offer:
    """What the switches that closed did to the walk: `mapped` moves it on; `taken` and `several` are refused and
    the same site is asked again."""

    verdict: Literal["mapped", "taken", "several"]
    site: str
    text: str


class GridRecording:
    """A walk through a board's sites, one at a time: the site asked now, the switch each site got, and the refusals
    (a switch another site already has, two switches at once). `companion calibrate grid` drives one from the
    terminal, the phone page from the table (companion/table/grid_walk.py).

    `keep` is the mapping of sites outside the walk (re-walking a few sites of a profile): their switches stay
    theirs. Skipping a site leaves it as it is; going back or redoing a site asks it again, and the walk then
    carries on from where it was."""

    def __init__(
        self, board: Board, site_ids: Sequence[str], rows: int, cols: int, keep: Mapping[str, Switch] | None = None
    ) -> None:
        if not site_ids:
            raise ValueError("a walk needs at least one site")
        self.board, self.sites, self.rows, self.cols = board, tuple(site_ids), rows, cols
        self.mapped: dict[str, Switch] = dict(keep or {})
        self.index = 0
        self._resume: int | None = None  # where the walk was before a redo took it elsewhere

    @property
    def site(self) -> str | None:
        """The site asked now; None once every site has had its turn."""
        return self.sites[self.index] if self.index < len(self.sites) else None

    def name(self, site_id: str) -> str:
        return self.board.site(site_id).name

    def prompt(self) -> str:
        site = self.site
        return "Every site has had its turn." if site is None else f"Put a piece on {self.name(site)}."

    def owner(self, switch: Switch) -> str | None:
        return next((site for site, mapped in self.mapped.items() if mapped == switch), None)

    def offer(self, switches: Collection[Switch]) -> Offer:
        """The switches that closed (and stayed closed) while the site was asked."""
        site = self.site
        if site is None:
            raise ValueError("every site has had its turn")
        if not switches:
            raise ValueError("no switch closed")
        here = self.name(site)
        if len(switches) > 1:
            listed = " and ".join(_switch_words(s) for s in sorted(switches))
            return Offer("several", site, f"{len(switches)} switches closed at once ({listed}): lift the piece and "
                         f"set it down on {here} alone, so that one switch closes.")  # fmt: skip
        (switch,) = switches
        owner = self.owner(switch)
        if owner is not None and owner != site:
            return Offer("taken", site, f"{_switch_words(switch).capitalize()} is already {self.name(owner)}: lift "
                         f"that piece and put one on {here}.")  # fmt: skip
        self.mapped[site] = switch
        self._advance()
        return Offer("mapped", site, f"{here} is {_switch_words(switch)}.")

    def skip(self) -> None:
        """Leave the site asked now as it is (unmapped if it never had a switch) and go on."""
        if self.site is None:
            raise ValueError("every site has had its turn")
        self._advance()

    def back(self) -> None:
        """Ask the site before this one again."""
        if self.index == 0:
            raise ValueError("this is the first site")
        self.index -= 1

    def redo(self, site_id: str) -> None:
        """Ask this site again; once it is done the walk carries on from where it was."""
        if site_id not in self.sites:
            raise ValueError(f"{site_id!r} is not one of this walk's sites")
        position = self.sites.index(site_id)
        if position != self.index and self._resume is None:
            self._resume = self.index
        self.index = position

    def unmapped(self) -> list[str]:
        return [site for site in self.sites if site not in self.mapped]

    def profile(self) -> GridProfile:
        """What was recorded (and kept), in the board's order of sites."""
        order = {site.id: i for i, site in enumerate(self.board.sites)}
        sites = {site: self.mapped[site] for site in sorted(self.mapped, key=order.__getitem__)}
        return GridProfile(self.board.name, self.rows, self.cols, sites)

    def _advance(self) -> None:
        if self._resume is not None and self._resume != self.index:
            self.index, self._resume = self._resume, None
        else:
            self.index, self._resume = self.index + 1, None


class NewSwitches:
    """The switches that closed since the watch began, handed over once they have stayed closed for `settle`
    seconds, so that a piece closing two switches is seen as two at once, not as one and then another. A switch
    closed at the start, or handed over already, counts again only after it has opened."""

    def __init__(self, closed: Collection[Switch], settle: float = SETTLE) -> None:
        self.settle = settle
        self._old = frozenset(closed)
        self._new: frozenset[Switch] = frozenset()
        self._since = 0.0

    def feed(self, closed: Collection[Switch], now: float) -> frozenset[Switch] | None:
        """The grid's closed switches at `now`; returns the new ones once they have settled."""
        closed = frozenset(closed)
        self._old &= closed
        new = closed - self._old
        if new != self._new:
            self._new, self._since = new, now
            return None
        if new and now - self._since >= self.settle:
            self._old |= new
            self._new = frozenset()
            return new
        return None


def record(
    recording: GridRecording,
    next_closed: Callable[[float], frozenset[Switch] | None],
    say: Callable[[str], None],
    wait: float,
) -> GridProfile:
    """The terminal's walk: names each site, offers what closes; a site with no switch closing within `wait`
    seconds is skipped (left unmapped)."""
    while (site := recording.site) is not None:
        say(f"[{recording.index + 1}/{len(recording.sites)}] {recording.prompt()} ({site})")
        deadline = time.monotonic() + wait
        while True:
            switches = next_closed(max(0.0, deadline - time.monotonic()))
            if switches is None:
                recording.skip()
                say(f"  no switch closed: {site} is left unmapped.")
                break
            offer = recording.offer(switches)
            say(f"  {offer.text}")
            if offer.verdict == "mapped":
                break
    return recording.profile()


def _switch_words(switch: Switch) -> str:
    return f"switch row {switch[0]} column {switch[1]}"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", default=DEFAULT, help=f"the game whose default board to map (default {DEFAULT})")
    parser.add_argument("--board-file", type=Path, help="a board file instead of the game's default board")
    parser.add_argument("--port", help="serial port of the grid (default: find the board by USB id)")
    parser.add_argument("--out", type=Path, default=Path("calibration/grid.json"), help="profile to write")
    parser.add_argument("--sites", help="comma-separated site ids to map (default: every site of the board)")
    parser.add_argument("--wait", type=float, default=60.0, help="seconds to wait at each site (default 60)")
    parser.add_argument("--allow-unmapped", action="store_true", help="save even if some sites got no switch")


def run(args: argparse.Namespace) -> int:
    from companion.sensing.reed import ReedLink

    board = load_board(args.board_file) if args.board_file else _default_board(args.game)
    site_ids = [s.strip() for s in args.sites.split(",")] if args.sites else [s.id for s in board.sites]
    for site_id in site_ids:
        if not board.has_site(site_id):
            raise UserError(f"--sites: board {board.name!r} has no site {site_id!r}")
    if len(set(site_ids)) != len(site_ids):
        raise UserError("--sites: a site is named twice")
    with ReedLink(args.port) as link:
        if not link.wait_synced(5.0):
            raise UserError(f"calibrate grid: no reed grid answered on {args.port or 'any known USB port'}")
        info = link.info
        assert info is not None
        if len(site_ids) > info.rows * info.cols:
            raise UserError(f"calibrate grid: {len(site_ids)} sites but only {info.rows * info.cols} switches")
        already = sorted(link.occupancy())
        if already:
            print(f"Switches closed now (ignored until they open): {', '.join(f'{r},{c}' for r, c in already)}")
        watch = NewSwitches(already)

        def next_closed(timeout: float) -> frozenset[Switch] | None:
            deadline = time.monotonic() + timeout
            while (left := deadline - time.monotonic()) > 0:
                found = watch.feed(link.occupancy(), time.monotonic()) if link.synced else None
                if found:
                    return found
                time.sleep(min(POLL, left))
            return None

        recording = GridRecording(board, site_ids, info.rows, info.cols)
        profile = record(recording, next_closed, lambda text: print(text, flush=True), args.wait)
        unmapped = recording.unmapped()
    if unmapped and not args.allow_unmapped:
        raise UserError(
            f"calibrate grid: {len(unmapped)} site(s) unmapped ({', '.join(unmapped[:8])}); "
            "nothing saved (run again, or pass --allow-unmapped)"
        )
    save_profile(profile, args.out)
    spare = info.rows * info.cols - len(profile.sites)
    print(f"Saved {args.out}: {len(profile.sites)} sites mapped, {len(unmapped)} unmapped, {spare} switches unused.")
    from companion.calibration.grid_plan import plan_report

    print("\n".join(plan_report(board, info.rows, info.cols, profile.sites)))
    return 0


def _default_board(game: str) -> Board:
    try:
        return default_board(game)
    except KeyError:
        raise UserError(f"--game: no default board for {game!r}") from None
