"""The table's settings for `companion serve`: a TOML file, with command-line options taking precedence.

Example (every key optional):

    game = "trajectory"
    players = ["red", "green", "blue"]
    db = "/var/lib/orrery/companion.db"
    board = "boards/my-board.json"      # a board file; default: the game's own board
    hold = 12.0                          # seconds a piece that may still be in a hand is waited for before the one
                                         # move the board shows without it is booked by itself (a phone books it
                                         # at once; a landing decides it); shorter books held pieces early, to be
                                         # corrected when they land (`companion bench messy --windows`)

    [grid]
    serial = "auto"                      # a port, "auto" (find it by USB id) or "none"
    profile = "calibration/grid.json"    # from `companion calibrate grid`: the table's own board's; every other
                                         # board a game is on has its own beside it, written by the phones' walk
                                         # (grid.orbit.my-copy.json, grid.orbit.back.json, grid.dakalio.json)

    [[boards]]                           # a board beside the game's own, on a grid of its own (one entry each)
    board = "orbital_battle:planet3"     # Orbital Battle's planet maps: their hexes are the layout's p3:CCRR
    serial = "/dev/ttyACM1"              # its grid's port (several grids: each needs its own port); "none": no
                                         # grid under it, the camera alone reads it (then no profile)
    profile = "calibration/planet3.json" # from `companion calibrate grid --board orbital_battle:planet3`

    [camera]
    source = "none"                      # a device number, "picamera", "phone", an image folder, or "none"
    profile = "calibration/camera.json"  # from `companion calibrate camera` and `board`
    registry = ""                        # a piece registry; default: the game's own

    [web]
    host = "0.0.0.0"
    port = 8080
    tls_dir = "/var/lib/orrery/tls"     # https too, with the table's CA (`companion tls init`); "none": http only
    tls_port = 8443

    [gpio]
    enabled = false                      # the status LED, buzzer and button on the Pi's header (hardware/)
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from companion.errors import UserError
from companion.rules import DEFAULT

SECTIONS = {"grid": {"serial": "serial", "profile": "grid_profile"},
            "camera": {"source": "camera", "profile": "camera_profile", "registry": "registry"},
            "web": {"host": "host", "port": "port", "tls_dir": "tls_dir", "tls_port": "tls_port"},
            "gpio": {"enabled": "gpio"}}  # fmt: skip


@dataclass(frozen=True)
class BoardGrid:
    """A board beside the game's own one (an Orbital Battle planet map) with its own reed grid and profile."""

    board: str
    serial: str  # "none": no grid under this board (the camera reads it)
    profile: str = ""

    @property
    def has_grid(self) -> bool:
        return self.serial != "none"


BOARD_KEYS = ("board", "serial", "profile")
# Longer than people hold a piece in the air while they think (2-10 s, shared/WORLD.md) with its carry (0.3-1.5 s):
# a piece held that long is still waited for. Measured by `companion bench messy --windows --game trajectory --games 3`
# (docs/benchmarks.md, the hold window swept over holds of 0.1-10 s): 0 wrong bookings at every window from 3 to 15 s;
# windows of 3, 5 and 8 s booked a ship still held by themselves before it landed elsewhere (3 corrections in 190
# moves, against 2 at 12 and 15 s), while taps per move grow from 0.19 (3 s) to 0.24 (12 s) and, in Dakalio
# (`--game dakalio --games 2`), from 0.30 to 0.39: 12 s is the shortest window that books no held piece early.
HOLD = 12.0


@dataclass(frozen=True)
class TableConfig:
    game: str = DEFAULT
    players: tuple[str, ...] = ("red", "green", "blue")
    seed: int | None = None  # None: chance from the system's entropy (`--seed` on the command line: tests, demo)
    options: dict[str, Any] = field(default_factory=dict)
    db: str = "companion.db"
    board: str | None = None
    serial: str = "auto"
    grid_profile: str | None = None
    camera: str = "none"
    camera_profile: str | None = None
    registry: str | None = None
    host: str = "0.0.0.0"
    port: int = 8080
    tls_dir: str | None = None
    tls_port: int = 8443
    settle: float = 0.3
    hold: float = HOLD
    boards: tuple[BoardGrid, ...] = ()
    gpio: bool = False

    def with_overrides(self, **values: Any) -> TableConfig:
        """The settings with every value that is not None replaced (the command line's options)."""
        return replace(self, **{k: v for k, v in values.items() if v is not None})


def load_config(path: str | Path) -> TableConfig:
    """A config file, checked key by key; one line naming the file and key for anything wrong."""
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise UserError(f"{path}: no such config file") from None
    return read_config(path, text)


def read_config(path: Path, text: str) -> TableConfig:
    """The config in `text` (read from `path`, which the errors name)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise UserError(f"{path}: not TOML ({error})") from None
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if key == "boards":
            flat[key] = _board_grids(path, value)
        elif key in SECTIONS:
            if not isinstance(value, dict):
                raise UserError(f"{path}: [{key}] must be a table")
            for inner, inner_value in value.items():
                if inner not in SECTIONS[key]:
                    raise UserError(f"{path}: {key}.{inner}: unknown key (known: {', '.join(SECTIONS[key])})")
                flat[SECTIONS[key][inner]] = inner_value
        else:
            flat[key] = value
    known = {f.name: f for f in fields(TableConfig)}
    defaults = TableConfig()
    for key, value in flat.items():
        if key == "boards":
            continue
        if key == "seed":
            raise UserError(
                f"{path}: seed: a table draws its chance from the system's entropy; a seed is for tests "
                "and the demo (`--seed` on the command line)"
            )
        if key not in known:
            raise UserError(f"{path}: {key}: unknown key")
        wanted = type(getattr(defaults, key)) if getattr(defaults, key) is not None else str
        if wanted is tuple:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise UserError(f"{path}: {key}: expected a list of names")
            flat[key] = tuple(value)
        elif wanted is float and isinstance(value, int):
            flat[key] = float(value)
        elif not isinstance(value, wanted) or (isinstance(value, bool) and wanted is not bool):
            raise UserError(f"{path}: {key}: expected {wanted.__name__}, found {type(value).__name__}")
    if not 0 < flat.get("hold", HOLD) <= 120:
        raise UserError(f"{path}: hold: expected seconds above 0 and at most 120, found {flat['hold']}")
    return replace(defaults, **flat)


def _board_grids(path: Path, value: Any) -> tuple[BoardGrid, ...]:
    """The [[boards]] entries: each a board name, its grid's port and its profile; no board or port twice."""
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise UserError(f"{path}: boards: expected [[boards]] tables")
    grids = []
    for i, entry in enumerate(value):
        where = f"{path}: boards[{i}]"
        for key in entry:
            if key not in BOARD_KEYS:
                raise UserError(f"{where}.{key}: unknown key (known: {', '.join(BOARD_KEYS)})")
        gridless = entry.get("serial") == "none"
        for key in BOARD_KEYS[:2] if gridless else BOARD_KEYS:
            if not isinstance(entry.get(key), str) or not entry[key]:
                raise UserError(f"{where}.{key}: expected a name (a board, a port, a profile file)")
        if gridless and "profile" in entry:
            raise UserError(f'{where}.profile: a board with no grid (serial "none") has no grid profile')
        if entry["serial"] == "auto":
            raise UserError(f"{where}.serial: a board's own grid needs its port named (several grids share the USB id)")
        grids.append(BoardGrid(entry["board"], entry["serial"], entry.get("profile", "")))
    for key in ("board", "serial"):
        names = [getattr(g, key) for g in grids if key == "board" or g.has_grid]
        if twice := next((n for n in names if names.count(n) > 1), None):
            raise UserError(f"{path}: boards: {key} {twice!r} is given twice")
    return tuple(grids)


def table_boards(config: TableConfig) -> tuple[list[str], dict[str, str]]:
    """The boards at a table, the game's own first (its default board), and board -> its grid's port as configured."""
    boards = [config.game, *(grid.board for grid in config.boards)]
    return boards, {config.game: config.serial, **{grid.board: grid.serial for grid in config.boards}}


def save_grid_ports(path: Path, ports: dict[str, str]) -> None:
    """Write each board's grid port into the config (board name -> port; the game's own board is [grid] serial),
    keeping the file's comments and layout; the result is checked as a config before it replaces the file."""
    import tomlkit

    from companion.atomic import write_atomically

    document = tomlkit.parse(path.read_text())
    config = read_config(path, path.read_text())
    if config.game in ports:
        document.setdefault("grid", tomlkit.table())["serial"] = ports[config.game]
    for entry in document.get("boards", []):
        if entry.get("board") in ports:
            entry["serial"] = ports[entry["board"]]
    text = tomlkit.dumps(document)
    read_config(path, text)
    write_atomically(path, text.encode())
