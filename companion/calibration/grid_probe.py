"""`companion calibrate grids`: which reed grid lies under which board at a table of several (Orbital Battle's solar
map and its planet maps), found by asking for a piece on each board's marked hex in turn: the grid on which a switch
closes is that board's. The answer is written to the table's config ([grid] serial and each [[boards]] serial).

Several grids have the same USB id, and a port's name follows the order the USB hub enumerates them, not the board
above, so the host cannot tell them apart otherwise. A grid that answers for another board than the config says is
named in one line; a grid that answers for a second board is refused (its piece must come off first). The same
`GridProbe` runs from the phones (companion/table/grid_walk.py `GridProbeWalk`)."""

from __future__ import annotations

import argparse
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from companion.boards import Board, Site, default_board
from companion.calibration.grid import SETTLE, NewSwitches
from companion.errors import UserError
from companion.sensing.frames import Switch

HELP = "find which reed grid lies under which board (a table of several grids): a piece on each board's marked hex"
POLL = 0.01


def marked_site(board: Board) -> Site:
    """The hex a probe asks for: the one nearest the board's middle (the star of a solar map is passed over)."""
    hexes = [s for s in board.sites if s.kind != "star"] or list(board.sites)
    return min(hexes, key=lambda s: ((s.x - board.width / 2) ** 2 + (s.y - board.height / 2) ** 2, s.id))


def board_title(board: Board) -> str:
    """A board in words: "planet 3's map", "the solar map"."""
    first = board.sites[0].name if board.sites else ""
    if " hex " in first:
        return f"{first.split(' hex ')[0]}'s map"
    from companion.rules import load, names  # a game's own board may have a name of its own ("the solar map")

    return (load(board.name).board_words if board.name in names() else "") or f"the {board.name} board"


@dataclass(frozen=True)
class ProbeOffer:
    """A grid answered: `bound` to the board asked (`wrong` says, in one line, that the config had it elsewhere), or
    `taken`: it is already another board's in this probe, and the board is asked again."""

    verdict: Literal["bound", "taken"]
    board: str
    port: str
    text: str
    wrong: str | None = None


class GridProbe:
    """A probe through the boards of a table, one at a time: the board asked now, the port each board got."""

    def __init__(self, boards: Sequence[str], said: Mapping[str, str] | None = None) -> None:
        """`boards`: board names (the game's own first); `said`: board -> port, as the config has them now."""
        if not boards or len(set(boards)) != len(boards):
            raise ValueError("boards: expected each board once")
        self.boards = tuple(boards)
        self.maps = {name: default_board(name) for name in boards}
        self.said = dict(said or {})
        self.bound: dict[str, str] = {}
        self.index = 0
        self.wrong: list[str] = []

    @property
    def board(self) -> str | None:
        return self.boards[self.index] if self.index < len(self.boards) else None

    def title(self, name: str) -> str:
        return board_title(self.maps[name])

    def marked(self, name: str) -> Site:
        return marked_site(self.maps[name])

    def prompt(self) -> str:
        name = self.board
        if name is None:
            return "Every board has its grid."
        return f"Put a piece on the marked hex of {self.title(name)} ({self.marked(name).name}), and nothing else."

    def offer(self, port: str) -> ProbeOffer:
        """A switch closed on the grid at `port` while the board asked now waited for its piece."""
        name = self.board
        if name is None:
            raise ValueError("every board has had its turn")
        here = self.title(name)
        owner = next((b for b, p in self.bound.items() if p == port and b != name), None)
        if owner is not None:
            return ProbeOffer("taken", name, port, f"The grid at {port} is already under {self.title(owner)}: take "
                              f"that piece off and put one on {here}'s marked hex.")  # fmt: skip
        self.bound[name] = port
        self.index += 1
        wrong = None
        said_board = next((b for b, p in self.said.items() if p == port), None)
        if said_board not in (None, name):
            assert said_board is not None
            wrong = (f"The grid at {port} answered for {here}, but the config had it under "
                     f"{board_title(default_board(said_board))}.")  # fmt: skip
            self.wrong.append(wrong)
        return ProbeOffer("bound", name, port, f"{here[0].upper()}{here[1:]} lies on the grid at {port}.", wrong)

    def skip(self) -> None:
        if self.board is None:
            raise ValueError("every board has had its turn")
        self.index += 1

    def back(self) -> None:
        """Ask the board before this one again (its grid is forgotten)."""
        if self.index == 0:
            raise ValueError("this is the first board")
        self.index -= 1
        self.bound.pop(self.boards[self.index], None)

    def unbound(self) -> list[str]:
        return [b for b in self.boards if b not in self.bound]


class PortWatch:
    """Which of several grids a new piece closed a switch on: a `NewSwitches` per port, the first to hand over wins
    (a port out of step is passed over until it is back)."""

    def __init__(self, closed: Mapping[str, Collection[Switch] | None], settle: float = SETTLE) -> None:
        self._watches = {port: NewSwitches(now or (), settle) for port, now in closed.items()}

    def feed(self, closed: Mapping[str, Collection[Switch] | None], now: float) -> str | None:
        found = None
        for port, switches in closed.items():
            if switches is not None and port in self._watches and self._watches[port].feed(switches, now):
                found = found or port
        return found


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, required=True, help="the table's config (TOML): read and written")
    parser.add_argument("--ports", help="comma-separated ports to probe (default: every port the config names and "
                        "every port with a grid's USB id)")  # fmt: skip
    parser.add_argument("--wait", type=float, default=60.0, help="seconds to wait at each board (default 60)")


def run(args: argparse.Namespace) -> int:
    from companion.sensing.reed import ReedLink, candidate_ports
    from companion.table.config import load_config, save_grid_ports, table_boards

    config = load_config(args.config)
    boards, said = table_boards(config)
    if len(boards) < 2:
        raise UserError(f"calibrate grids: {args.config} names one board; `companion calibrate grid` maps its grid")
    named = [p for p in said.values() if p not in ("auto", "none")]
    ports = [p.strip() for p in args.ports.split(",")] if args.ports else list(dict.fromkeys(named + candidate_ports()))
    if not ports:
        raise UserError("calibrate grids: no serial ports to probe (is each grid plugged in?)")
    links = {port: ReedLink(port).start() for port in ports}
    try:
        deadline = time.monotonic() + 5.0
        answering = {p: link for p, link in links.items() if link.wait_synced(max(0.0, deadline - time.monotonic()))}
        silent = [p for p in ports if p not in answering]
        if silent:
            print(f"No reed grid answered at {', '.join(silent)}: left out.")
        if len(answering) < len(boards):
            raise UserError(f"calibrate grids: {len(boards)} boards but {len(answering)} grids answered "
                            f"({', '.join(answering) or 'none'}); nothing saved")  # fmt: skip
        probe = GridProbe(boards, said)
        _walk(probe, answering, args.wait)
    finally:
        for link in links.values():
            link.stop()
    if probe.unbound():
        names = ", ".join(probe.title(b) for b in probe.unbound())
        raise UserError(f"calibrate grids: no grid answered for {names}; nothing saved")
    save_grid_ports(args.config, probe.bound)
    print(f"Saved {args.config}: " + "; ".join(f"{probe.title(b)} on {p}" for b, p in probe.bound.items()) + ".")
    return 0


def _walk(probe: GridProbe, links: Mapping, wait: float) -> None:
    def closed() -> dict[str, frozenset[Switch] | None]:
        return {port: link.occupancy() if link.synced else None for port, link in links.items()}

    while (name := probe.board) is not None:
        print(f"[{probe.index + 1}/{len(probe.boards)}] {probe.prompt()}", flush=True)
        watch = PortWatch(closed())
        deadline = time.monotonic() + wait
        while True:
            if time.monotonic() > deadline:
                probe.skip()
                print(f"  no grid answered: {probe.title(name)} is left without one.")
                break
            port = watch.feed(closed(), time.monotonic())
            if port is None:
                time.sleep(POLL)
                continue
            offer = probe.offer(port)
            print(f"  {offer.text}")
            if offer.wrong:
                print(f"  {offer.wrong}")
            if offer.verdict == "bound":
                break
