"""The camera page: a spare phone on a stand as the table's camera.

The phone opens /camera over https (the table's own certificate authority makes the page a secure context, which
getUserMedia requires), grants the camera, and sends what it sees: a still at the camera's full resolution when the
table asks for one (the grid settled on a change the camera has not read), and a small preview every few seconds
otherwise. Sending frames changes what the referee sees, so it takes the table token, as a move does.

Where the table can read the change in crops, it names them when it asks for the still (`crops`: the picture's size,
the boxes, the shrunk whole's size, and the plan's number): the page keeps its photo and sends their gray bytes
instead (application/octet-stream, ?crops=N), whose length the table checks against the plan before reading any.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request

from companion.errors import UserError
from companion.sensing.pushed import SAME_SHAPE, OtherSize, PushedFrames, StalePlan
from companion.web.body import takes, whole_arg
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
    ask, plan = _phone().wanted()
    answer: dict[str, Any] = {"still": bool(ask), "preview_every_ms": PREVIEW_EVERY_MS}
    if ask:
        answer["ask"] = ask  # sent back with the still: it was taken after this ask
    if plan is not None:
        number, crops = plan
        answer["crops"] = {
            "plan": number,
            "width": crops.size[0],
            "height": crops.size[1],
            "overview": list(crops.overview),
            "boxes": [list(box) for box in crops.boxes],
            "colour": [list(box) for box in crops.colour],  # sent three bytes a pixel: blue, green, red
            "shape_tolerance": SAME_SHAPE,  # a photo of another shape goes whole (the table says what to do)
        }
    return jsonify(answer)


@phone_camera.post(FRAME_PATH)
@requires_token
@takes(frame_bytes, lane="picture")
def frame() -> Response:
    phone = _phone()
    if "crops" in request.args:
        return _crops(phone, whole_arg("crops", 0))
    still = request.args.get("still", "0") == "1"
    ask = whole_arg("ask", 0) or None  # (checked with the rest of the head, before the body is read)
    if request.mimetype not in ("image/jpeg", "image/png"):
        raise BadInput(f"the frame must be image/jpeg or image/png, not {request.mimetype or 'untyped'}", 415)
    try:
        # A still is read in gray unless the table finds pieces by colour (the stickers and the arm's check read
        # gray); a preview, small, is for a person to look at.
        image = decode(request.get_data(cache=False), LONGEST_SIDE, "the frame", colour=phone.colour or not still)
    except PictureError as error:
        raise BadInput(str(error)) from None
    try:
        phone.push(image, still, ask)
    except OtherSize as error:  # a picture of another shape than the camera was calibrated for: the phone is told
        raise BadInput(str(error), 409) from None
    return jsonify({"width": int(image.shape[1]), "height": int(image.shape[0]), "still": still})


def _crops(phone: PushedFrames, number: int) -> Response:
    """The crops plan `number` asked for, their length checked against it before the body is read."""
    if request.mimetype != "application/octet-stream":
        raise BadInput(f"the crops must be application/octet-stream, not {request.mimetype or 'untyped'}", 415)
    try:
        plan = phone.plan(number)
        if request.content_length != plan.nbytes():
            raise BadInput(f"the crops: {request.content_length or 0} bytes where the table asked for {plan.nbytes()}")
        phone.push_crops(number, request.get_data(cache=False))
    except StalePlan as error:
        raise BadInput(str(error), 409) from None
    except UserError as error:
        raise BadInput(str(error)) from None
    return jsonify({"width": plan.size[0], "height": plan.size[1], "still": True})
