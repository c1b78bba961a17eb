"""The photos a calibration command is given: files and folders of images, read in name order."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from companion.sensing.camera import ImageSource, frames


def read_images(specs: Sequence[str | Path]) -> list[tuple[str, np.ndarray]]:
    """(name, BGR image) for every image file given and every image in every folder given."""
    sources = [ImageSource(spec) for spec in specs]  # every path checked before any is read
    return [(frame.source, frame.image) for source in sources for frame in frames(source)]
