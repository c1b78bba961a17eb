#!/usr/bin/env python3
"""Builds the wheelhouse for an offline install: every Python package the companion needs, read from pyproject.toml
with everything they need in turn, as binary wheels for the Pi's platform.
  deploy/wheelhouse.py DIR                     for a 64-bit Raspberry Pi OS, Trixie or Bookworm (one folder serves both)
  deploy/wheelhouse.py DIR --release trixie    for one release only (bookworm, trixie)
  deploy/wheelhouse.py DIR --arch x86_64       for a PC running Debian instead of a Pi
Run it on any machine with Python 3.11 or newer, pip and the internet, whatever its own platform; then copy DIR to the
Pi (a USB stick will do) and install with `sudo deploy/install.sh --wheels DIR`, which asks no package index.
Running it again into the same folder downloads only what is missing.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tomllib
from pathlib import Path

# Each release's Python and C library: pip is told the target's, not this machine's.
RELEASES = {"trixie": ("3.13", 41), "bookworm": ("3.11", 36)}
OLDEST_GLIBC = 17  # manylinux2014, the oldest tag binary wheels on PyPI still carry
EXTRAS = ("pi",)  # the optional dependencies install.sh asks for
ARCHES = ("aarch64", "x86_64")


def requirements(pyproject: Path) -> list[str]:
    """The build backend and the companion's dependencies, as pyproject.toml names them."""
    project = tomllib.loads(pyproject.read_text())
    wanted = [*project["build-system"]["requires"], "wheel", *project["project"]["dependencies"]]
    for extra in EXTRAS:
        wanted += project["project"]["optional-dependencies"][extra]
    return sorted(set(wanted))


def platforms(arch: str, glibc: int) -> list[str]:
    """Every manylinux tag a release's C library runs (pip does not widen a --platform by itself)."""
    return [f"manylinux_2_{minor}_{arch}" for minor in range(glibc, OLDEST_GLIBC - 1, -1)] + [f"manylinux2014_{arch}"]


def download_command(dest: Path, wanted: list[str], python: str, glibc: int, arch: str) -> list[str]:
    abi = "cp" + python.replace(".", "")
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--quiet",
        "--disable-pip-version-check",
        "--only-binary=:all:",
        "--dest",
        str(dest),
        "--python-version",
        python,
        "--implementation",
        "cp",
        "--abi",
        abi,
    ]
    for platform in platforms(arch, glibc):
        command += ["--platform", platform]
    return [*command, *wanted]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="wheelhouse.py", description=__doc__.split("\n")[0])
    parser.add_argument("dest", type=Path, help="the folder to fill (made when missing)")
    parser.add_argument(
        "--release",
        choices=sorted(RELEASES),
        action="append",
        help="the target's Debian release, again for more (default: all of them)",
    )
    parser.add_argument("--arch", choices=ARCHES, default="aarch64", help="the target's machine (default: a Pi)")
    args = parser.parse_args(argv)
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    wanted = requirements(pyproject)
    releases = args.release or sorted(RELEASES, key=lambda name: RELEASES[name], reverse=True)
    args.dest.mkdir(parents=True, exist_ok=True)
    for release in releases:
        python, glibc = RELEASES[release]
        result = subprocess.run(
            download_command(args.dest, wanted, python, glibc, args.arch),
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        if result.returncode != 0:
            errors = [line for line in result.stdout.splitlines() if line.startswith("ERROR")] or ["pip failed"]
            print(
                f"wheelhouse.py: {release} ({args.arch}, Python {python}): {errors[-1].removeprefix('ERROR: ')}",
                file=sys.stderr,
            )
            return 1
    wheels = sorted(args.dest.glob("*.whl"))
    size = sum(wheel.stat().st_size for wheel in wheels) / 1e6
    names = ", ".join(f"{release} (Python {RELEASES[release][0]})" for release in releases)
    print(f"{args.dest}: {len(wheels)} wheels, {size:.0f} MB, for {names} on {args.arch}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
