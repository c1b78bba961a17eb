"""The table's own signals on the Pi's GPIO, through gpiozero (its pin factories cover RPi.GPIO, lgpio on the Pi 5,
and a mock for tests): a status LED, a buzzer for illegal moves and a button to confirm or end a turn."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gpiozero import LED, Button, Buzzer


@dataclass(frozen=True)
class Pins:
    """BCM pin numbers (defaults: three free pins next to a ground on the 40-pin header)."""

    led: int = 17
    buzzer: int = 27
    button: int = 22


class TableSignals:
    """Status LED: steady when the grid link is up, blinking fast when it is lost, three slow blinks (with the
    buzzer) for an illegal move. The confirm button calls `on_confirm`."""

    def __init__(self, pins: Pins = Pins(), on_confirm: Callable[[], None] | None = None, pin_factory=None) -> None:
        self.led = LED(pins.led, pin_factory=pin_factory)
        self.buzzer = Buzzer(pins.buzzer, pin_factory=pin_factory)
        self.button = Button(pins.button, pull_up=True, bounce_time=0.05, pin_factory=pin_factory)
        self.link_up = False
        if on_confirm is not None:
            self.button.when_pressed = lambda: on_confirm()

    def link(self, up: bool) -> None:
        """For ReedLink(on_link=...)."""
        self.link_up = up
        if up:
            self.led.on()
        else:
            self.led.blink(on_time=0.1, off_time=0.1)

    def illegal_move(self) -> None:
        self.buzzer.beep(on_time=0.15, off_time=0.1, n=2)
        self.led.blink(on_time=0.4, off_time=0.2, n=3, background=True)

    def close(self) -> None:
        for device in (self.led, self.buzzer, self.button):
            device.close()
