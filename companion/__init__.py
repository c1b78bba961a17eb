"""Orrery, the table companion: senses the board, referees the rules, keeps the books."""

import os

__version__ = "0.1.0"

# The most pixels any picture the companion decodes may have (16.7 MP: a 12 MP phone still or Pi camera frame with
# room to spare). OpenCV reads its own limit once, when it is loaded, so it is set here, before any module imports
# it: a picture whose header claims more is refused by OpenCV's decoders too, not only by web/pictures.py's check.
PICTURE_PIXELS = 1 << 24
os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(PICTURE_PIXELS))
