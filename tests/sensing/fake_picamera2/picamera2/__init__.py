"""A stand-in for picamera2 on a machine without a Pi camera: the same calls the companion's camera process makes,
answering with frames drawn here (a gradient, and the frame's number in the first pixel) or with the failures a real
Pi gives, as FAKE_PICAMERA2 says: "" (a working imx708), "numpy-mismatch" (the import fails as simplejpeg does
against another numpy), "no-libcamera" (a dependency missing), "no-camera", "busy", "stops" (the camera times out
after two frames), "hangs" (after two frames), "chatty" (prints to standard output as it imports)."""

import os
import time

import numpy as np

MODE = os.environ.get("FAKE_PICAMERA2", "")
if os.environ.get("FAKE_PICAMERA2_LOG"):
    with open(os.environ["FAKE_PICAMERA2_LOG"], "a") as log:
        log.write("imported\n")
if MODE == "numpy-mismatch":
    raise ValueError(
        "numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject"
    )
if MODE == "no-libcamera":
    raise ModuleNotFoundError("No module named 'libcamera'", name="libcamera")
if MODE == "chatty":
    print("picamera2: a line a library printed to standard output")

__version__ = "0.3.99"


class Picamera2:
    @staticmethod
    def global_camera_info():
        return [] if MODE == "no-camera" else [{"Model": "imx708", "Location": 2, "Rotation": 180, "Id": "/base/i2c"}]

    def __init__(self):
        if MODE == "no-camera":
            raise IndexError("list index out of range")
        if MODE == "busy":
            raise RuntimeError("Failed to acquire camera: Device or resource busy")
        self._size = self.sensor_resolution
        self._format = "RGB888"
        self._count = 0

    sensor_resolution = (4608, 2592)  # an imx708's, the Camera Module 3

    def create_still_configuration(self, main, buffer_count=1):
        return {"main": dict(main)}

    def configure(self, config):
        assert config["main"]["format"] in ("RGB888", "YUV420")
        self._size = config["main"]["size"]
        self._format = config["main"]["format"]

    def start(self):
        pass

    def capture_array(self, name="main"):
        if self._count == 2 and MODE == "stops":
            raise RuntimeError("Camera frontend has timed out!")
        if self._count == 2 and MODE == "hangs":
            time.sleep(3600)
        width, height = self._size
        image = np.zeros((height, width, 3), np.uint8)
        image[:, :, 0] = np.arange(width, dtype=np.uint16)[None, :] % 256
        image[:, :, 1] = np.arange(height, dtype=np.uint16)[:, None] % 256
        image[0, 0, 2] = self._count
        self._count += 1
        if self._format == "YUV420":  # the luma plane, then the two chroma planes below it, rows padded to 64
            padded = -(-width // 64) * 64
            yuv = np.full((height * 3 // 2, padded), 7, np.uint8)
            yuv[:height, :width] = image[:, :, 0]
            yuv[0, 0] = self._count - 1
            return yuv
        return image

    def stop(self):
        pass
