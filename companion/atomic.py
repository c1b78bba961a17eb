"""Writing a file all at once: a reader, or a power cut, sees the old file or the whole new one, never half of one."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def write_atomically(path: str | Path, data: bytes, mode: int | None = None) -> None:
    """Write `data` to a temporary file beside `path`, flush it to disk and rename it over `path`. `mode` gives the
    file its permission bits from the first byte (a key: 0o600, never readable by others even for a moment); None
    keeps the bits of the file it replaces (the service's profiles: 640), and a new file is the owner's alone.
    Raises OSError; nothing is left behind."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None and path.exists():
        mode = stat.S_IMODE(path.stat().st_mode)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)  # made 0o600
    try:
        with os.fdopen(handle, "wb") as out:
            if mode is not None:
                os.fchmod(out.fileno(), mode)
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
