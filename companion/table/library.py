"""The table's library: its named data sets listed, checked by the game that reads them, and shared as one file.

A library file is one JSON object, {"format": "orrery-library", "sets": [...]}, each set naming its game, option
and name and holding its data: "data" for a file (a board, a deck, a planet's terrain), "files" (file name ->
data) for a folder (Periorbis's data). A set is checked the way its game will read it (the game is set up with it)
before anything is written, and a file with one bad set adds none of them.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from companion.boards import BoardFileError
from companion.jsonfile import read_json
from companion.rules import SetupError, load
from companion.table.datasets import NAME, DataSets, declared, every_data_option, quoted

FORMAT = "orrery-library"
SEATS = ("red", "green", "blue", "yellow")  # seat colours every game takes, for the trial set-up
KINDS = {"file": "a file", "folder": "a folder", "files": "a file for each planet"}


class SetExists(SetupError):
    """A set being kept (from the editor or a library file) is already on the table under its name, and replacing
    was not asked for."""


def listing(sets: DataSets) -> list[dict[str, Any]]:
    """Every data set the table holds: its game, the option it is for and its name."""
    return [
        {"game": game, "title": load(game).title, "option": option, "name": name}
        for game, option, _ in every_data_option()
        for name in sets.names(game, option)
    ]


def check(game: str, option: str, path: str | Path, label: str | None = None) -> None:
    """SetupError (one line naming `label`, the set, and the field) unless the game can be set up with the file or
    folder at `path` as its `option`."""
    takes = declared(game, option)
    engine = load(game)
    value: Any = {next(iter(takes.keys)): str(path)} if takes.kind == "files" else str(path)  # as its first key's
    seats = list(SEATS[: max(engine.min_players, 2)])
    try:
        engine.setup(seats, {option: value}, 0)  # which reads every file it is given
    except (SetupError, BoardFileError, ValueError, KeyError) as error:
        text = str(error)
        if label is not None:
            text = text.replace(str(path), label)
        raise SetupError(text) from None


def save(sets: DataSets, game: str, option: str, name: str, data: Any, replace: bool = True) -> Path:
    """Check `data` (a file's JSON, or file name -> JSON for a folder) as the game reads it, then keep it as the
    named set: replacing one of that name, or only when `replace` says so (else SetExists, nothing kept)."""
    todo = [(game, option, name, data)]
    _refuse_taken(sets, todo, "", replace, "keep it under another name, or say to replace it")
    return _save_checked(sets, todo, "")[0]


def _refuse_taken(sets: DataSets, todo: list[tuple[str, str, str, Any]], source: str, replace: bool, how: str) -> None:
    """SetExists for the sets of `todo` whose names the table holds already, unless `replace` says to replace them;
    `how`: what the person may do instead."""
    taken = [f"{load(game).title}'s {option.replace('_', ' ')} {quoted(named)}" for game, option, named, _ in todo
             if named in sets.names(game, option)]  # fmt: skip
    if taken and not replace:
        raise SetExists(
            f"{source + ': ' if source else ''}{', '.join(taken)} "
            f"{'is' if len(taken) == 1 else 'are'} already on this table: {how}"
        )


def save_file(sets: DataSets, game: str, option: str, name: str, source: str | Path) -> Path:
    """Check the file (or folder) at `source` as the game reads it, then keep a copy as the named set."""
    kind, source = _kind(game, option), Path(source)
    if not NAME.fullmatch(name):
        raise SetupError(f"{quoted(name)}: a data set's name is 1 to 40 lower-case letters, digits, - and _")
    if (kind == "folder") != source.is_dir() or not source.exists():
        raise SetupError(f"{source}: {game}'s {option} takes {KINDS[kind]}")
    check(game, option, source)
    return sets.add(game, option, name, source)


def export(sets: DataSets, chosen: Iterable[tuple[str, str, str]] | None = None) -> dict[str, Any]:
    """A library file holding the chosen sets (game, option, name), or every set the table holds."""
    wanted = list(chosen) if chosen is not None else [(s["game"], s["option"], s["name"]) for s in listing(sets)]
    out = []
    for game, option, name in wanted:
        kind = _kind(game, option)
        if name not in sets.names(game, option):
            raise SetupError(f"{game} {option}: this table has no data set {quoted(name)}")
        path = sets.root / game / option / name  # type: ignore[operator]
        entry: dict[str, Any] = {"game": game, "option": option, "name": name}
        if kind == "folder":
            entry["files"] = {p.name: read_json(p, SetupError) for p in sorted(path.glob("*.json"))}
        else:
            entry["data"] = read_json(path, SetupError)
        out.append(entry)
    return {"format": FORMAT, "sets": out}


def import_library(
    sets: DataSets, bundle: Any, source: str = "library", name: str | None = None, replace: bool = False
) -> list[tuple[str, str, str]]:
    """Add every set of a library file, each checked first: any wrong set (a one-line SetupError naming `source`,
    the set and the field) and none is added. `name` adds a file of one set under a name of the table's choosing;
    a set whose name the table already holds is replaced only when `replace` says so (else SetExists, nothing
    added)."""
    if not isinstance(bundle, dict) or bundle.get("format") != FORMAT:
        raise SetupError(f'{source}: not a library file (expected an object with "format": "{FORMAT}")')
    listed = bundle.get("sets")
    if not isinstance(listed, list) or not listed:
        raise SetupError(f"{source}: sets: expected a list of at least one data set")
    todo = []
    for i, entry in enumerate(listed):
        where = f"{source}: sets[{i}]"
        if not isinstance(entry, dict):
            raise SetupError(f"{where}: expected an object with game, option, name and its data")
        game, option, entry_name = (entry.get(key) for key in ("game", "option", "name"))
        if not all(isinstance(v, str) for v in (game, option, entry_name)):
            raise SetupError(f"{where}: game, option and name must each be text")
        kind = _kind(game, option, where)
        data = entry.get("files" if kind == "folder" else "data")
        if data is None:
            wanted = "files" if kind == "folder" else "data"
            raise SetupError(f"{where} ({game} {option} {quoted(entry_name)}): missing its {wanted}")
        todo.append((game, option, entry_name, data))
    if name is not None:
        if len(todo) != 1:
            raise SetupError(f"{source}: holds {len(todo)} data sets; a new name is for a file of one set")
        todo = [(todo[0][0], todo[0][1], name, todo[0][3])]
    _refuse_taken(sets, todo, source, replace, "add it under another name, or say to replace it")
    _save_checked(sets, todo, source)
    return [(game, option, name) for game, option, name, _ in todo]


def _save_checked(sets: DataSets, todo: list[tuple[str, str, str, Any]], source: str) -> list[Path]:
    if sets.root is None:
        raise SetupError("this table has no folder for data sets")
    sets.root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".checking-", dir=sets.root) as staging:
        staged = []
        for i, (game, option, name, data) in enumerate(todo):
            label = f"{source + ': ' if source else ''}{game} {option} {quoted(name)}"
            if not NAME.fullmatch(name):
                raise SetupError(f"{label}: a data set's name is 1 to 40 lower-case letters, digits, - and _")
            path = Path(staging) / f"{i}-{name}"
            _write(path, data, _kind(game, option), label)
            check(game, option, path, label)
            staged.append((game, option, name, path))
        return [sets.add(game, option, name, path) for game, option, name, path in staged]


def read_data(path: str | Path) -> Any:
    return read_json(path, SetupError)


def write_file(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def _write(path: Path, data: Any, kind: str, label: str) -> None:
    if kind != "folder":
        write_file(path, data)
        return
    if not isinstance(data, dict) or not data:
        raise SetupError(f"{label}: files: expected an object of file names and their data")
    path.mkdir()
    for file_name, content in data.items():
        stem = file_name.removesuffix(".json") if isinstance(file_name, str) else ""
        if not (NAME.fullmatch(stem) and file_name.endswith(".json")):
            raise SetupError(f"{label}: files: {str(file_name)[:40]!r} is not a data file's name (like orbit.json)")
        write_file(path / file_name, content)


def _kind(game: str, option: str, where: str | None = None) -> str:
    return declared(game, option, where).kind
