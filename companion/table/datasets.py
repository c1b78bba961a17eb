"""The data sets a table offers its phones, for the options that name files (a board, a deck, terrain, card data).

A phone never names a path: it chooses among the game's own data (ORBIT's "front" and "back" boards, each game's
default deck and data) and the data sets the host has added to the table with `companion data add`, kept in the
table's own folder (beside its database: DATA/GAME/OPTION/NAME). Only then is a name turned into the path the game
reads. So no request can make the table open /dev/zero, a FIFO, or learn which files exist on it.

Numbers in options are bounded by each game, where it declares its options (rules/GAME/state.py, `Options`).

Data sets are versions: a game is set up on the version of a set as it was then (a copy named by its content's
digest, DATA/GAME/OPTION/.versions/DIGEST/NAME, made once and never changed), and its log names that copy. Saving or
importing a set of the same name changes the set, never a version a game has used: past games replay, summarise and
export on the data they were played on.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from companion.rules import SetupError, load, names
from companion.rules.engine import DataOption


def data_options(game: str) -> Mapping[str, DataOption]:
    """The options of `game` that name data sets, as the game declares them (none for an unknown game)."""
    return load(game).data_options if game in names() else {}


def every_data_option() -> list[tuple[str, str, DataOption]]:
    """(game, option, what it takes) for every option of every game that names a data set."""
    return [(game, option, kind) for game in names() for option, kind in data_options(game).items()]


def declared(game: str, option: str, where: str | None = None) -> DataOption:
    """What `game`'s `option` takes; SetupError (after `where`) naming the options that take data sets."""
    found = data_options(game).get(option)
    if found is None:
        known = ", ".join(f"{g} {o}" for g, o, _ in every_data_option())
        raise SetupError(
            f"{where + ': ' if where else ''}{game} {option}: not an option that takes a data set (those are: {known})"
        )
    return found


VERSIONS = ".versions"  # beside a game option's sets: the versions games were set up on (never a set's name)
NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")  # matched whole (fullmatch: no trailing newline)


def data_folder(database: str | Path) -> Path:
    """Where a table keeps its data sets: the folder `datasets` beside its database."""
    return Path(database).resolve().parent / "datasets"


def quoted(name: str) -> str:
    """A set's name as every page and error quotes it: in typographic quotes, as typed (a wrong name may hold
    anything: its printable characters only, at most 40)."""
    return f"“{''.join(ch for ch in name[:40] if ch.isprintable())}”"


class DataSets:
    """The data sets in one table's folder (None: the games' own data only)."""

    def __init__(self, root: str | Path | None) -> None:
        self.root = None if root is None else Path(root)

    def names(self, game: str, option: str) -> list[str]:
        folder = self._folder(game, option)
        if folder is None or not folder.is_dir():
            return []
        return sorted(p.name for p in folder.iterdir() if NAME.fullmatch(p.name))

    def offered(self, game: str) -> dict[str, list[str]]:
        """The names a phone may give each of the game's file options."""
        return {option: self.names(game, option) for option in data_options(game)}

    def add(self, game: str, option: str, name: str, source: str | Path) -> Path:
        """Copy a file or folder into the table's data sets under `name` (the host's command, never a phone's)."""
        kind = declared(game, option).kind
        if not NAME.fullmatch(name):
            raise SetupError(f"{quoted(name)}: a data set's name is 1 to 40 lower-case letters, digits, - and _")
        source = Path(source)
        if (kind == "folder") != source.is_dir() or not (source.is_dir() or source.is_file()):
            raise SetupError(f"{source}: {game}'s {option} takes a {'folder' if kind == 'folder' else 'file'}")
        folder = self._folder(game, option)
        if folder is None:
            raise SetupError("this table has no folder for data sets")
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / name
        staging = Path(tempfile.mkdtemp(prefix=".adding-", dir=folder)) / name
        if source.is_dir():
            shutil.copytree(source, staging)
        else:
            shutil.copyfile(source, staging)
        if target.is_dir():
            shutil.rmtree(target)
        staging.replace(target)  # whole or not at all
        staging.parent.rmdir()
        return target

    def version(self, game: str, option: str, name: str) -> Path:
        """The version of the set `name` as it is now: its copy under VERSIONS, made the first time."""
        folder = self._folder(game, option)
        assert folder is not None
        current = folder / name
        kept = folder / VERSIONS / _digest(current)
        if not kept.is_dir():
            (folder / VERSIONS).mkdir(exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=".keeping-", dir=folder / VERSIONS))
            if current.is_dir():
                shutil.copytree(current, staging / name)
            else:
                shutil.copyfile(current, staging / name)
            try:
                staging.replace(kept)  # whole or not at all
            except OSError:
                shutil.rmtree(staging)  # kept meanwhile by another (the same content)
        return kept / name

    def pin(self, game: str, options: Mapping[str, Any]) -> dict[str, Any] | None:
        """Options of a game logged before sets had versions, their sets' paths turned into versions of those
        sets as they are now (None: nothing to change): from then on no save changes what that game replays on."""
        pinned, changed = dict(options), False
        for option in data_options(game):
            value = options.get(option)
            paths = value if isinstance(value, dict) else {None: value}
            turned = {}
            for key, path in paths.items():
                name = self._current_name(game, option, path)
                turned[key] = str(self.version(game, option, name)) if name is not None else path
                changed = changed or name is not None
            pinned[option] = turned if isinstance(value, dict) else turned[None]
        return pinned if changed else None

    def _current_name(self, game: str, option: str, path: Any) -> str | None:
        """The set's name if `path` is a set itself (not a version of it) that is still there."""
        folder = self._folder(game, option)
        if folder is None or not isinstance(path, str):
            return None
        found = Path(path)
        return found.name if found.parent == folder and NAME.fullmatch(found.name) and found.exists() else None

    def resolve(self, game: str, options: Mapping[str, Any]) -> dict[str, Any]:
        """A phone's options with every data set's name turned into the path of its version as it is now; SetupError
        naming the option for anything else (a path, a name the table does not offer)."""
        resolved = dict(options)
        for option, takes in data_options(game).items():
            if option not in options or options[option] in takes.built_in:
                continue
            value = options[option]
            if takes.kind == "files":
                if not isinstance(value, dict):
                    raise SetupError(f"{option}: expected an object of data set names")
                resolved[option] = {key: self._path(game, option, f"{option}.{key}", item)
                                    for key, item in value.items()}  # fmt: skip
            else:
                resolved[option] = self._path(game, option, option, value)
        return resolved

    def _path(self, game: str, option: str, label: str, value: Any) -> str:
        names = self.names(game, option)
        if isinstance(value, str) and value in names and self.root is not None:
            return str(self.version(game, option, value))
        built_in = [repr(v) for v in data_options(game)[option].built_in if v not in (None, "")]
        offered = ", ".join([*built_in, *names]) or "none: the game's own only (leave it out)"
        shown = value if isinstance(value, str) and len(value) <= 40 else f"{str(value)[:40]}..."
        raise SetupError(f"{label}: {shown!r} is not a data set this table offers (offered: {offered})")

    def _folder(self, game: str, option: str) -> Path | None:
        return None if self.root is None else self.root / game / option


def set_path(path: str | Path) -> Path:
    """The set a path names: the set itself for a version of it (DATA/GAME/OPTION/.versions/DIGEST/NAME)."""
    path = Path(path)
    return path.parents[2] / path.name if path.parent.parent.name == VERSIONS else path


def _digest(path: Path) -> str:
    """A file's or a folder's content, as a short digest (names and bytes of every file, in order)."""
    digest = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        digest.update(str(file.relative_to(path) if path.is_dir() else "").encode() + b"\0")
        digest.update(file.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:16]
