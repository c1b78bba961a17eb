"""Reading a JSON file a person wrote or chose, with one clear line when it cannot be read."""

from __future__ import annotations

import json
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
