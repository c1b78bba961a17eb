"""How the table opens its devices: a link to a reed grid on a port, the camera's frame source, the GPIO signals.

`companion serve` opens the hardware (`hardware`); the digital twin hands the very same table virtual devices (a grid
process on a pseudo-terminal is opened as any port is, its camera renders the pieces its hands set out, GPIO pins
are gpiozero's mock), and nothing else of the table differs. The table starts and stops what it opens.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from companion.sensing.camera import FrameSource
    from companion.sensing.gpio import TableSignals
    from companion.sensing.reed import ReedLink


class GridOpener(Protocol):
    def __call__(self, port: str | None, on_link: Callable[[bool], None]) -> ReedLink:
        """A link (not started) to the reed grid on `port` (None: the first port with a grid's USB id that speaks
        the protocol), telling `on_link` each time it comes into step with the grid or loses it."""
        ...


class CameraOpener(Protocol):
    def __call__(self, source: str, wanted: Callable[[], bool]) -> FrameSource:
        """The camera the config names (`source`: a device number, "picamera", "phone", an image or a folder);
        `wanted` says whether the table wants a frame now (a phone on a stand sends its still when asked). A camera
        that cannot be opened is a UserError saying why; the table tries again later."""
        ...


def open_grid(port: str | None, on_link: Callable[[bool], None]) -> ReedLink:
    from companion.sensing.reed import ReedLink

    return ReedLink(port, on_link=on_link)


def open_camera(source: str, wanted: Callable[[], bool]) -> FrameSource:
    if source == "phone":
        from companion.sensing.pushed import PushedFrames

        return PushedFrames(wanted)
    from companion.sensing.camera import open_source

    return open_source("pi" if source == "picamera" else source)  # ("pi", "pi:colour": the Pi camera's frames)


def no_signals() -> TableSignals | None:
    return None


def gpio_signals() -> TableSignals | None:
    """The status LED, the buzzer and the button on the Pi's header (sensing/gpio.py's pins)."""
    from companion.sensing.gpio import TableSignals

    return TableSignals()


@dataclass(frozen=True)
class Devices:
    """What the table opens: its grids' links, its camera and (None: none) its GPIO signals."""

    grid: GridOpener = open_grid
    camera: CameraOpener = open_camera
    signals: Callable[[], TableSignals | None] = no_signals


def hardware(gpio: bool = False) -> Devices:
    """The real devices, with the GPIO signals when the table has them wired (`[gpio] enabled`)."""
    return Devices(open_grid, open_camera, gpio_signals if gpio else no_signals)
