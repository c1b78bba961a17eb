"""`companion calibrate grid`: which reed switch lies under which board site, recorded by setting a magnet on each
site in turn, and the profile file that keeps the answer (format: calibration/README.md, "Reed grid profile")."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from companion.boards import Board, default_board, load_board
from companion.errors import UserError
from companion.sensing.frames import Switch

HELP = "map each reed switch to a board site: set a magnet on each site as it is named"
KIND = "reed-grid"
VERSION = 1


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
        return {"kind": KIND, "version": VERSION, "board": self.board, "rows": self.rows, "cols": self.cols,
                "sites": {site: list(switch) for site, switch in self.sites.items()}}


def save_profile(profile: GridProfile, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(profile.to_json(), indent=1) + "\n")


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
        if (not isinstance(switch, list) or len(switch) != 2 or not all(isinstance(v, int) for v in switch)
                or not (0 <= switch[0] < data["rows"] and 0 <= switch[1] < data["cols"])):
            raise UserError(f"{where}: expected [row, column] inside the {data['rows']}x{data['cols']} matrix")
        key = (switch[0], switch[1])
        if key in seen:
            raise UserError(f"{where}: switch {list(key)} is already site {seen[key]!r}")
        seen[key] = site
        parsed[site] = key
    return GridProfile(board.name, data["rows"], data["cols"], parsed)


def record(
    board: Board,
    site_ids: Sequence[str],
    rows: int,
    cols: int,
    next_closed: Callable[[float], Switch | None],
    say: Callable[[str], None],
    wait: float,
) -> tuple[GridProfile, list[str]]:
    """Names each site, takes the next switch that closes as that site's, refuses a switch already taken; a site
    with no switch closing within `wait` seconds is left unmapped. Returns the profile and the unmapped sites."""
    mapped: dict[str, Switch] = {}
    owner: dict[Switch, str] = {}
    unmapped: list[str] = []
    for index, site_id in enumerate(site_ids, 1):
        site = board.site(site_id)
        say(f"[{index}/{len(site_ids)}] Set a magnet on {site.name} ({site.id}).")
        deadline = time.monotonic() + wait
        while True:
            switch = next_closed(max(0.0, deadline - time.monotonic()))
            if switch is None:
                unmapped.append(site_id)
                say(f"  no switch closed: {site_id} is left unmapped.")
                break
            if switch in owner:
                say(f"  switch row {switch[0]} column {switch[1]} is already {owner[switch]}: "
                    f"lift that magnet and set one on {site_id}.")
                continue
            mapped[site_id] = switch
            owner[switch] = site_id
            say(f"  {site_id} = switch row {switch[0]} column {switch[1]}.")
            break
    return GridProfile(board.name, rows, cols, mapped), unmapped


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", default="trajectory", help="the game whose default board to map (default trajectory)")
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
        while link.next_change(0.05):  # start from now
            pass

        def next_closed(timeout: float) -> Switch | None:
            deadline = time.monotonic() + timeout
            while (left := deadline - time.monotonic()) > 0:
                change = link.next_change(left)
                if change is not None and change.closed:
                    return change.switch
            return None

        profile, unmapped = record(board, site_ids, info.rows, info.cols, next_closed,
                                   lambda text: print(text, flush=True), args.wait)
    if unmapped and not args.allow_unmapped:
        raise UserError(f"calibrate grid: {len(unmapped)} site(s) unmapped ({', '.join(unmapped[:8])}); "
                        "nothing saved (run again, or pass --allow-unmapped)")
    save_profile(profile, args.out)
    spare = info.rows * info.cols - len(profile.sites)
    print(f"Saved {args.out}: {len(profile.sites)} sites mapped, {len(unmapped)} unmapped, {spare} switches unused.")
    return 0


def _default_board(game: str) -> Board:
    try:
        return default_board(game)
    except KeyError:
        raise UserError(f"--game: no default board for {game!r}") from None
