"""The data sets a table offers its phones, for the options that name files (a board, a deck, terrain, card data).

A phone never names a path: it chooses among the game's own data (ORBIT's "front" and "back" boards, each game's
default deck and data) and the data sets the host has added to the table with `companion data add`, kept in the
table's own folder (beside its database: DATA/GAME/OPTION/NAME). Only then is a name turned into the path the game
reads. So no request can make the table open /dev/zero, a FIFO, or learn which files exist on it.

Numbers in options are bounded by each game, where it declares its options (rules/GAME/state.py, `Options`).
"""

from __future__ import annotations

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
        raise SetupError(f"{where + ': ' if where else ''}{game} {option}: not an option that takes a data set "
                         f"(those are: {known})")
    return found


NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")  # matched whole (fullmatch: no trailing newline)


def data_folder(database: str | Path) -> Path:
    """Where a table keeps its data sets: the folder `datasets` beside its database."""
    return Path(database).resolve().parent / "datasets"


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
            raise SetupError(f"{name!r}: a data set's name is 1 to 40 lower-case letters, digits, - and _")
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

    def resolve(self, game: str, options: Mapping[str, Any]) -> dict[str, Any]:
        """A phone's options with every data set's name turned into its path; SetupError naming the option for
        anything else (a path, a name the table does not offer)."""
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
            return str(self._folder(game, option) / value)  # type: ignore[operator]
        built_in = [repr(v) for v in data_options(game)[option].built_in if v not in (None, "")]
        offered = ", ".join([*built_in, *names]) or "none: the game's own only (leave it out)"
        shown = value if isinstance(value, str) and len(value) <= 40 else f"{str(value)[:40]}..."
        raise SetupError(f"{label}: {shown!r} is not a data set this table offers (offered: {offered})")

    def _folder(self, game: str, option: str) -> Path | None:
        return None if self.root is None else self.root / game / option
