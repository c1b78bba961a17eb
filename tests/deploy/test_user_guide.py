"""The user guide stays true to the project: its pictures are what the code draws, the files it names exist, and the
commands it shows are commands the companion has."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import build_parser
from companion.sensing.gpio import Pins

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "user-guide.md"


def test_the_board_picture_is_what_companion_print_draws_today():
    drawn = subprocess.run(
        [sys.executable, "-m", "companion", "print", "board", "trajectory"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert (ROOT / "docs" / "images" / "trajectory-board.svg").read_text() == drawn, (
        "regenerate it: companion print board trajectory --out docs/images/trajectory-board.svg"
    )


def test_the_gpio_picture_shows_the_pins_the_companion_drives():
    svg = (ROOT / "docs" / "images" / "pi-gpio.svg").read_text()
    pins = Pins()
    for bcm in (pins.led, pins.buzzer, pins.button):
        assert f"GPIO{bcm}" in svg


def test_every_file_and_picture_the_guide_names_exists():
    text = GUIDE.read_text()
    images = re.findall(r'src="([^"]+)"', text)
    assert len(images) == 2
    for image in images:
        assert (GUIDE.parent / image).is_file(), image
    named = set(re.findall(r"\b((?:hardware|calibration|companion|deploy|firmware)/[\w./-]+\.(?:md|py|json|sh))", text))
    assert {"hardware/BUILD.md", "hardware/WIRING.md", "calibration/README.md", "deploy/hotspot.sh"} <= named
    for path in named:
        assert (ROOT / path).is_file(), path


def test_every_companion_command_in_the_guide_exists(capsys):
    text = GUIDE.read_text()
    fenced = re.findall(r"```.*?```", text, re.DOTALL)
    code = "\n".join(fenced + re.findall(r"`[^`\n]+`", re.sub(r"```.*?```", "", text, flags=re.DOTALL)))
    commands = set(re.findall(r"(?:^|`|/opt/orrery/bin/)companion ((?:[a-z][a-z-]* ?){1,2})", code, re.MULTILINE))
    assert len(commands) > 10
    for words in commands:
        argv = words.split()
        if argv[0] == "serve":  # `companion serve` comes with the web page
            continue
        with pytest.raises(SystemExit) as exit_:
            build_parser().parse_args([*argv, "--help"])
        assert exit_.value.code == 0, f"companion {words}: {capsys.readouterr().err}"
