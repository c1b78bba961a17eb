"""The Pi camera, read by the system's own Python in a process of its own.

Raspberry Pi OS's picamera2 comes with a camera stack (simplejpeg, libcamera's bindings) built against the system's
numpy; the companion's environment has a numpy of its own, and an extension built against one numpy fails to import
beside another ("numpy.dtype size changed"). So the companion never imports picamera2: it runs this file with the
system's Python, which imports only the standard library and the system's picamera2, and reads frames from it.

    python3 -s -P picamera_process.py WIDTH HEIGHT MODE
                                    start the camera, then one frame per "frame" line on stdin; WIDTH and HEIGHT 0
                                    take the sensor's full size (Camera Module 3: 4608 x 2592; HQ: 4056 x 3040), so
                                    the stickers get every pixel it has; MODE is "gray" (the luma plane of its
                                    YUV 4:2:0 frames: nothing to decode or convert) or "colour" (B, G, R)
    python3 -s -P picamera_process.py --check          does the stack import, and which cameras are connected

It answers on standard output, each answer one line of ASCII (a frame's bytes follow its line):
    ready WIDTH HEIGHT              the camera is started
    frame HEIGHT WIDTH CHANNELS     then HEIGHT * WIDTH * CHANNELS bytes: gray (1), or B, G, R order (3)
    ok TEXT                         (--check) the stack imports; TEXT says what it found
    broken TEXT                     the stack does not import: nothing changes that but the system's packages
    error TEXT                      the camera failed (none connected, busy, stopped); it may work another time
and exits after "broken" or "error", or when its standard input closes.
"""

from __future__ import annotations

import os
import sys


def one_line(error: BaseException) -> str:
    text = " ".join(str(error).split()) or "no reason given"
    return f"{type(error).__name__}: {text}"


def answer(out, line: str, data: bytes = b"") -> None:
    out.write(line.encode("ascii", "replace") + b"\n")
    if data:
        out.write(data)
    out.flush()


def import_picamera2():
    """picamera2's Picamera2 class, or a line that says why not."""
    try:
        from picamera2 import Picamera2  # the system's: python3-picamera2
    except ModuleNotFoundError as error:
        if error.name == "picamera2":
            return None, (
                f"picamera2 is not installed for {sys.executable}: on Raspberry Pi OS `sudo apt install "
                "python3-picamera2`, then `sudo systemctl restart orrery`"
            )
        return None, (
            f"picamera2 does not import in {sys.executable}: it needs the module {error.name}, which is "
            "missing (`sudo apt install --reinstall python3-picamera2`)"
        )
    except Exception as error:  # a broken stack raises anything: ValueError for a numpy mismatch, OSError, ...
        return None, (
            f"picamera2 does not import in {sys.executable} ({one_line(error)}): the system's camera "
            "packages do not fit its numpy (is a numpy installed with pip shadowing the system's?)"
        )
    return Picamera2, ""


def cameras(picamera2) -> list[str]:
    return [str(info.get("Model", "a camera")) for info in picamera2.global_camera_info()]


def check(out) -> int:
    picamera2, why = import_picamera2()
    if picamera2 is None:
        answer(out, f"broken {why}")
        return 1
    from importlib import metadata

    try:
        version = f"picamera2 {metadata.version('picamera2')}"
    except metadata.PackageNotFoundError:
        version = "picamera2"
    numpy = sys.modules.get("numpy")
    with_numpy = f" with numpy {numpy.__version__}" if numpy is not None else ""
    try:
        found = cameras(picamera2)
    except Exception as error:
        answer(out, f"error {version} imports, but libcamera cannot list the cameras ({one_line(error)})")
        return 1
    connected = (
        f"{len(found)} camera{'s' if len(found) != 1 else ''} connected ({', '.join(found)})"
        if found
        else "no camera connected yet"
    )
    answer(out, f"ok {version} imports in {sys.executable}{with_numpy}; {connected}")
    return 0


def stream(out, width: int, height: int, colour: bool) -> int:
    picamera2, why = import_picamera2()
    if picamera2 is None:
        answer(out, f"broken {why}")
        return 1
    try:
        if not cameras(picamera2):
            answer(
                out,
                "error no camera is connected (check the ribbon cable; `rpicam-hello --list-cameras` lists "
                "what the system sees)",
            )
            return 1
        camera = picamera2()
        if not (width and height):
            width, height = camera.sensor_resolution
        camera.configure(
            camera.create_still_configuration(
                main={"size": (width, height), "format": "RGB888" if colour else "YUV420"}, buffer_count=2
            )
        )
        camera.start()
    except Exception as error:
        answer(out, f"error the Pi camera did not start ({one_line(error)}; is another program using it?)")
        return 1
    try:
        answer(out, f"ready {width} {height}")
        for line in sys.stdin.buffer:
            if line.strip() != b"frame":
                answer(out, f"error unknown request {line.strip()[:40]!r}")
                return 1
            # picamera2's "RGB888" is laid out B, G, R in memory: already OpenCV's order. Its YUV 4:2:0 frame's
            # first `height` rows are the luma plane (rows may be padded past `width`).
            image = camera.capture_array("main")
            if not colour:
                image = image[:height, :width]
            channels = image.shape[2] if image.ndim == 3 else 1
            answer(out, f"frame {image.shape[0]} {image.shape[1]} {channels}", image.tobytes())
    except BrokenPipeError:
        return 0  # the companion went away
    except Exception as error:
        answer(out, f"error the Pi camera stopped ({one_line(error)})")
        return 1
    finally:
        camera.stop()
    return 0


def main(argv: list[str]) -> int:
    # Answers go to the real standard output alone: whatever the camera stack prints goes to standard error.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    os.environ.setdefault("LIBCAMERA_LOG_LEVELS", "*:ERROR")
    if argv == ["--check"]:
        return check(out)
    if len(argv) == 3 and all(a.isdigit() for a in argv[:2]) and argv[2] in ("gray", "colour"):
        return stream(out, int(argv[0]), int(argv[1]), argv[2] == "colour")
    answer(out, "error usage: picamera_process.py WIDTH HEIGHT gray|colour | --check")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
