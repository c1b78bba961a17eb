"""Reading a JSON file a person wrote or chose, with one clear line when it cannot be read."""

from __future__ import annotations

import json
import os
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
    """Write `data` as JSON all at once: into a temporary file beside `path`, then renamed over it, so a reader (or
    a power cut) sees the old file or the new one, never half of one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(temporary, path)
