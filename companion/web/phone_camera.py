"""The camera page: a spare phone on a stand as the table's camera.

The phone opens /camera over https (the table's own certificate authority makes the page a secure context, which
getUserMedia requires), grants the camera, and sends what it sees: a still at the camera's full resolution when the
table asks for one (the grid settled on a change the camera has not read), and a small preview every few seconds
otherwise. Sending frames changes what the referee sees, so it takes the table token, as a move does.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request

from companion.sensing.pushed import OtherSize, PushedFrames
from companion.web.body import takes
from companion.web.context import table
from companion.web.errors import BadInput
from companion.web.guard import requires_token
from companion.web.pages import _file
from companion.web.pictures import PictureError, decode

FRAME_PATH = "/api/camera/frame"
FRAME_BYTES = 24 * 1024 * 1024  # a 12 MP still as a JPEG of good quality, with room to spare
PREVIEW_EVERY_MS = 3000
LONGEST_SIDE = 8192  # a frame wider or taller than this is no camera's

phone_camera = Blueprint("phone_camera", __name__)


def frame_bytes(served: Any) -> int:
    """A frame's body limit at this table: none unless its camera is a phone (no frame path otherwise)."""
    return FRAME_BYTES if getattr(served, "phone", None) is not None else 0


def _phone() -> PushedFrames:
    phone = getattr(table(), "phone", None)
    if phone is None:
        raise BadInput("this table's camera is not a phone: start the companion with `--camera phone`", 409)
    return phone


@phone_camera.get("/camera")
def page() -> Response:
    return _file("camera.html", "text/html")


@phone_camera.get("/api/camera/wanted")
@requires_token
def wanted() -> Response:
    return jsonify({"still": bool(_phone().wants_still()), "preview_every_ms": PREVIEW_EVERY_MS})


@phone_camera.post(FRAME_PATH)
@requires_token
@takes(frame_bytes, lane="picture")
def frame() -> Response:
    phone = _phone()
    still = request.args.get("still", "0") == "1"
    if request.mimetype not in ("image/jpeg", "image/png"):
        raise BadInput(f"the frame must be image/jpeg or image/png, not {request.mimetype or 'untyped'}", 415)
    try:
        # A still is read in gray unless the table finds pieces by colour (the stickers and the arm's check read
        # gray); a preview, small, is for a person to look at.
        image = decode(request.get_data(cache=False), LONGEST_SIDE, "the frame", colour=phone.colour or not still)
    except PictureError as error:
        raise BadInput(str(error)) from None
    try:
        phone.push(image, still)
    except OtherSize as error:  # a picture of another shape than the camera was calibrated for: the phone is told
        raise BadInput(str(error), 409) from None
    return jsonify({"width": int(image.shape[1]), "height": int(image.shape[0]), "still": still})
