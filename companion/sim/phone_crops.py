"""The camera page's part in a phone's crops (companion/web/static/camera.js), for the benches and tests: the phone
keeps its photo and sends the table the whole of it shrunk and the boxes of the table's plan at full size, one gray
byte a pixel (the luma the table would have decoded from the JPEG), in the plan's order; then the plan's colour boxes,
three bytes a pixel (blue, green, red)."""

from __future__ import annotations

import cv2
import numpy as np

from companion.sensing.vision_crops import Plan


def cut(photo: np.ndarray, plan: Plan) -> bytes:
    """What the page sends for `plan` from its photo (BGR or gray, already at the plan's size)."""
    gray = photo if photo.ndim == 2 else cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
    parts = [cv2.resize(gray, plan.overview, interpolation=cv2.INTER_AREA)]
    parts += [gray[y0:y1, x0:x1] for x0, y0, x1, y1 in plan.boxes]
    if plan.colour:  # (a gray photo has no colour to send: its gray in every channel)
        bgr = photo if photo.ndim == 3 else cv2.cvtColor(photo, cv2.COLOR_GRAY2BGR)
        parts += [bgr[y0:y1, x0:x1] for x0, y0, x1, y1 in plan.colour]
    return b"".join(np.ascontiguousarray(p).tobytes() for p in parts)
