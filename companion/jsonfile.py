"""Reading a JSON file a person wrote or chose, with one clear line when it cannot be read; writing one atomically."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from companion.atomic import write_atomically


def read_json(path: str | Path, error: type[Exception]) -> Any:
    """The file's JSON data; raises `error` naming the file and what is wrong (unreadable, not JSON, where)."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as problem:
        raise error(f"{path}: cannot read it ({problem.strerror or problem})") from None
    except UnicodeDecodeError:
        raise error(f"{path}: not a text file") from None
    except json.JSONDecodeError as problem:
        raise error(f"{path}: not valid JSON (line {problem.lineno}, column {problem.colno}: {problem.msg})") from None


def file_stamp(path: str | Path | None) -> int:
    """When a file (or the newest file of a folder) last changed, in ns (0: none there), so that what was read from
    it is read again once a table replaces it under the same name."""
    if not path:
        return 0
    try:
        found = Path(path)
        files = [found, *found.iterdir()] if found.is_dir() else [found]
        # the inode too: a set is replaced by renaming a new file over it, within the clock's tick or not
        return hash(tuple((s.st_mtime_ns, s.st_size, s.st_ino) for s in (f.stat() for f in files)))
    except OSError:
        return 0


def write_json(path: str | Path, data: Any) -> None:
    """Write `data` as indented JSON, all at once (companion.atomic), keeping the mode of the file it replaces."""
    write_atomically(path, (json.dumps(data, indent=1) + "\n").encode("utf-8"))
