"""Frames another device sends: a spare phone on a stand as the table's camera (the camera page, companion/web).

The phone sends a still at its camera's full resolution when the table asks for one (the grid has settled on a
change the camera has not read yet) and a small preview now and then otherwise, for the calibration view. The
table's camera thread reads the stills as it reads any camera's frames; a still is asked for again only once the
last one has been read.

A phone turned the other way up, or switched between its photos and its video, sends pictures of another size
than the one its camera profile was made at. A still of the profile's shape either way up is turned and scaled
to the profile's size (the pipeline finds the board again by its markers, and a phone's lens is centred enough that
either quarter turn keeps the calibration's lens model); one of another shape is refused, and the phone is told to
calibrate the camera again, before the table's camera thread ever sees it.

A phone's 12 MP JPEG costs the table more to decode than a settled change may take, so where the table can read the
change in crops it asks for them instead (`wanted`: a CropPlan, or on a table of several boards a TablePlan, and its
number): the page cuts them from its photo, turned and scaled as `fitted` would, and sends their gray bytes
(`push_crops`), which the table reads as sent. A plan is good for one still: one sent for an older plan is refused,
and the page asks again.

Every ask is numbered, and the page sends its still with the ask's number (`push(..., ask=n)`; a crops plan's number
is its ask's): the still was taken after the table asked, so it shows the board as it was then or later, however
late it arrives. The table takes a picture stamped only on arrival as possibly a webcam frame's age old.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import cv2
import numpy as np

from companion.errors import UserError
from companion.sensing.camera import Frame
from companion.sensing.vision_crops import Composer, Plan

QUIET_SECONDS = 6.0  # nothing at all from the phone for this long: it is gone (asleep, out of battery, closed)
SAME_SHAPE = 0.01  # pictures whose sides' ratio differs from the profile's by less than this are the same shape
ASKS_KEPT = 8  # a still answering an older ask than these is taken as stamped on arrival


class OtherSize(UserError):
    """A still of another shape than the camera profile's: the camera must be calibrated again at that size."""


def fitted(image: np.ndarray, size: tuple[int, int] | None) -> np.ndarray:
    """The picture at the profile's size (width, height): as it is, turned a quarter, and scaled; OtherSize when its
    shape is not the profile's either way up. None: any size (no profile to fit)."""
    if size is None:
        return image
    height, width = image.shape[:2]
    if (width, height) == tuple(size):
        return image
    turned = (width > height) != (size[0] > size[1]) and width != height
    w, h = (height, width) if turned else (width, height)
    if abs((w / h) / (size[0] / size[1]) - 1) > SAME_SHAPE:
        raise OtherSize(
            f"recalibrate the camera: its pictures are now {width} x {height}, and it was calibrated at "
            f"{size[0]} x {size[1]}"
        )
    if turned:
        image = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    if (w, h) != tuple(size):
        shrink = w > size[0]
        image = cv2.resize(image, tuple(size), interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)
    return image


class StalePlan(UserError):
    """Crops sent for a plan the table no longer waits for (it asked anew, or took a still since)."""


class PushedFrames:
    """A frame source fed by `push` (the web server's threads) and read by the table's camera thread."""

    def __init__(
        self,
        still_wanted: Callable[[], bool] = lambda: True,
        quiet: float = QUIET_SECONDS,
        size: tuple[int, int] | None = None,
        colour: bool = True,
        planner: Callable[[], Plan | None] = lambda: None,
    ) -> None:
        self._still_wanted = still_wanted
        self.planner = planner  # the crops the table would read the next still in (None: the whole still)
        self._plan: tuple[int, Plan] | None = None  # the plan the phone was last given, and its number
        self._plans = 0  # asks so far: the last one's number
        self._asked: dict[int, float] = {}  # the latest asks' numbers and when they were made (monotonic)
        self._composer = Composer()
        self.size = size  # the camera profile's frame size (width, height): stills are fitted to it
        self.colour = colour  # stills in colour (pieces found by colour); gray otherwise, decoded in half the time
        self._quiet = quiet
        self._lock = threading.Condition()
        self._still: Frame | None = None
        self._awaiting_read = False  # a still was sent and the camera thread has not taken it yet
        self._heard = time.monotonic()  # a phone just asked for is given a while to turn up
        self._closed = False
        self.preview: np.ndarray | None = None  # the latest small frame, for a person to look at
        self.latest: np.ndarray | None = None  # the latest still

    def push(self, image: np.ndarray, still: bool, ask: int | None = None) -> None:
        """A picture from the phone; a still of another shape than the profile's is refused (OtherSize), one of its
        shape turned and scaled to its size. `ask`: the number of the ask the still answers (it was taken after
        it), where the page says."""
        if still:
            image = fitted(image, self.size)
        with self._lock:
            self._heard = time.monotonic()
            if still:
                self._still = Frame(image, time.time(), "phone camera", taken=self._asked.get(ask or 0))
                self.latest = image
                self._awaiting_read = True
                self._plan = None
            else:
                self.preview = image
            self._lock.notify_all()

    def plan(self, number: int) -> Plan:
        """The plan the phone was given as `number`; StalePlan when the table waits for no such crops now."""
        with self._lock:
            if self._plan is None or self._plan[0] != number:
                raise StalePlan("these parts were of an earlier picture: the camera takes another")
            return self._plan[1]

    def push_crops(self, number: int, body: bytes) -> None:
        """The crops the phone cut for plan `number`: the still the table reads in their place."""
        with self._lock:  # (the plan is good for one still, and the kept frame is composed once for it)
            plan = self.plan(number)
            try:
                image, cropped = self._composer.compose(plan, body)
            except ValueError as error:
                raise UserError(f"the crops: {error}") from None
            self._heard = time.monotonic()
            self._still = Frame(image, time.time(), "phone camera", cropped, self._asked.get(number))
            self._awaiting_read = True
            self._plan = None
            self._lock.notify_all()

    def wanted(self) -> tuple[int, tuple[int, Plan] | None]:
        """Whether the phone should send a still now (0: no; else the ask's number, to send it with), and the crops
        to send instead of it with their plan's number (None: the whole still)."""
        if not self.wants_still():
            return 0, None
        plan = self.planner()
        with self._lock:
            self._plans += 1
            self._asked[self._plans] = time.monotonic()
            for old in [n for n in self._asked if n <= self._plans - ASKS_KEPT]:
                del self._asked[old]
            self._plan = None if plan is None else (self._plans, plan)
            return self._plans, self._plan

    def wants_still(self) -> bool:
        """Whether the phone should send a full-resolution still now."""
        with self._lock:
            busy = self._awaiting_read
        return not busy and self._still_wanted()

    def read(self) -> Frame | None:
        """The next still; None once the phone has said nothing for a while (or the source is closed). Previews
        keep it waiting: the phone is there, the board is just not settled."""
        with self._lock:
            if self._still is None:
                self._awaiting_read = False  # the last still has been read through: the next may come
            while self._still is None and not self._closed:
                if time.monotonic() - self._heard > self._quiet:
                    self._lock.wait(0.5)
                    if self._still is None:
                        return None
                self._lock.wait(0.5)
            frame, self._still = self._still, None
            return frame

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._lock.notify_all()
