"""Pictures a phone sends (the camera page's frames, a board's photo), bounded before they are decoded: the size
is read from the file's own header (PNG's IHDR, JPEG's frame header), and a picture larger than the table takes is
refused with one line before a pixel is decoded. OpenCV's own limit (companion.PICTURE_PIXELS) stands behind this
check, and the server decodes in a lane of one worker (wsgi.Lane), so at most one picture is in memory at a time.

A small PNG can claim 20000 x 20000 pixels (1.2 GB decoded): reading the header costs nothing, decoding it all."""

from __future__ import annotations

import struct

import cv2
import numpy as np

from companion import PICTURE_PIXELS

PNG = b"\x89PNG\r\n\x1a\n"
# JPEG's frame headers (SOF0-SOF15 but DHT C4, JPG C8 and DAC CC), which say the picture's size.
FRAME_MARKERS = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
STANDALONE = frozenset(range(0xD0, 0xD8)) | {0x01}  # markers without a length


class PictureError(ValueError):
    """A picture the table will not decode; the message (one line) says why."""


def picture_size(data: bytes, what: str = "picture") -> tuple[int, int]:
    """Width and height as the picture's header gives them (JPEG or PNG), without decoding it."""
    if data.startswith(PNG):
        if len(data) < 24 or data[12:16] != b"IHDR":
            raise PictureError(f"{what}: a PNG without its header")
        width, height = struct.unpack(">II", data[16:24])
        return width, height
    if data.startswith(b"\xff\xd8"):
        return _jpeg_size(data, what)
    raise PictureError(f"{what}: not a picture the table can read (send a JPEG or PNG)")


def _jpeg_size(data: bytes, what: str) -> tuple[int, int]:
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            raise PictureError(f"{what}: a damaged JPEG (no marker at byte {at})")
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in STANDALONE:
            at += 2
            continue
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        if marker in FRAME_MARKERS:
            if at + 9 > len(data):
                break
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return width, height
        if marker == 0xDA or length < 2:  # the picture's data begins, and no frame header said its size
            break
        at += 2 + length
    raise PictureError(f"{what}: a JPEG whose size cannot be read")


def decode(data: bytes, longest: int, what: str = "picture", colour: bool = True) -> np.ndarray:
    """The picture as a BGR image (`colour`) or its gray alone, if its header says it is at most `longest` pixels a
    side and PICTURE_PIXELS in all; PictureError otherwise, or when it does not decode. A JPEG's gray is its luma
    plane as coded: its chroma is never decoded nor converted, under half the work of a 12 MP colour still."""
    width, height = picture_size(data, what)
    if not (0 < width <= longest and 0 < height <= longest) or width * height > PICTURE_PIXELS:
        raise PictureError(f"{what}: {width} x {height} pixels is larger than the table takes ({longest} a side, "
                           f"{PICTURE_PIXELS / 1e6:.1f} MP in all)")  # fmt: skip
    try:
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR if colour else cv2.IMREAD_GRAYSCALE)
    except cv2.error:
        image = None
    if image is None:
        raise PictureError(f"{what}: not a picture the table can read (send a JPEG or PNG)")
    return image
