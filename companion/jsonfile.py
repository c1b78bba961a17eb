"""Reading a JSON file a person wrote or chose, with one clear line when it cannot be read; writing one atomically."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any


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


def write_json(path: str | Path, data: Any) -> None:
    """Write `data` as indented JSON so that the file is either the old one or the whole new one, never half of
    it: a temporary file beside it, flushed to disk, then renamed over it (a power cut mid-save loses nothing)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(json.dumps(data, indent=1) + "\n")
            out.flush()
            os.fsync(out.fileno())
        if path.exists():
            shutil.copymode(path, temporary)  # keep the mode the owner gave the file (the service's profiles: 640)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
