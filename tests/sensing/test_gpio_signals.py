"""The status LED, buzzer and confirm button on gpiozero's MockFactory (no Pi here)."""

from __future__ import annotations

import time

from gpiozero.pins.mock import MockFactory

from companion.sensing.gpio import Pins, TableSignals


def _signals(**kw):
    factory = MockFactory()
    return TableSignals(Pins(), pin_factory=factory, **kw), factory


def test_link_state_drives_the_led():
    signals, factory = _signals()
    led = factory.pin(17)
    signals.link(True)
    assert led.state == 1
    signals.link(False)
    states = set()
    for _ in range(40):
        states.add(led.state)
        time.sleep(0.01)
    assert states == {0, 1}  # blinking
    signals.link(True)
    time.sleep(0.05)
    assert led.state == 1
    signals.close()


def test_illegal_move_beeps_twice():
    signals, factory = _signals()
    buzzer = factory.pin(27)
    signals.illegal_move()
    time.sleep(0.7)
    rises = [s for s in buzzer.states if s.state]
    assert len(rises) == 2
    signals.close()


def test_confirm_button_calls_back():
    presses = []
    signals, factory = _signals(on_confirm=lambda: presses.append(1))
    button = factory.pin(22)
    button.drive_low()  # pressed: pulled-up input to ground
    time.sleep(0.1)
    button.drive_high()
    assert presses == [1]
    signals.close()
