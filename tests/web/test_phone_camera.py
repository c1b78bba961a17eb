"""A spare phone as the table's camera: the camera page in Chromium, its camera a fake capture device fed with a
frame from the mounted-camera bench, sends a full-size photo the table's pipeline reads (held either way up), or the
parts of it the table names, and previews; a picture of another shape than the camera profile's is refused with what
to do."""

from __future__ import annotations

import http.client
import json
import time
from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.bench.vision_mounted import calibrated, score
from companion.boards import default_board
from companion.sensing.camera import Frame
from companion.sensing.pieces import default_registry
from companion.sensing.pushed import PushedFrames
from companion.sensing.vision import Vision
from companion.sensing.vision_crops import CropPlan
from companion.sensing.vision_profile import CameraProfile, save_profile
from companion.sim.mounted_camera import random_mounting, random_shot
from companion.sim.mounted_render import MountedRenderer
from companion.sim.mounted_scene import random_table

from .conftest import ARTIFACTS, CHROMIUM, FLAGS, TOKEN, WatchedBrowser, new_table

SIZE = (1280, 720)


@pytest.fixture(scope="module")
def bench_frame():
    """A frame of the Trajectory board as a mounted camera sees it, the truth of its stickers, and the profile a
    calibration of that camera gives."""
    board, registry = default_board("trajectory"), default_registry("trajectory")
    rng = np.random.default_rng([7, 1])
    mounting = random_mounting(board, SIZE, rng, (0.9, 0.95), 10.0)
    frame = MountedRenderer(board, registry.dictionary, mounting).render(
        random_table(board, registry, rng, 18, False), random_shot("normal", rng), rng
    )
    return frame, calibrated(mounting, rng, CameraProfile), board, registry


def _y4m(image: np.ndarray, path) -> None:
    """The frame as a Y4M video (4:2:0), as Chromium's fake capture device reads it."""
    h, w = image.shape[:2]
    planes = cv2.cvtColor(image, cv2.COLOR_BGR2YUV_I420)
    with open(path, "wb") as out:
        out.write(f"YUV4MPEG2 W{w} H{h} F10:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(3):
            out.write(b"FRAME\n" + planes.tobytes())


@pytest.fixture
def phone_table(tmp_path, bench_frame):
    """`companion serve`'s table with a phone on a stand as its camera alone, calibrated as the bench's camera; its
    own threads stay still: the tests read the stills it is sent."""
    profile = tmp_path / "camera.json"
    save_profile(bench_frame[1], profile)
    with new_table(tmp_path, senses="camera", camera=profile) as served:
        assert served.live is not None and served.live.phone is not None
        yield served.server, served.live.phone


def _still(phone: PushedFrames, within: float = 30.0) -> Frame | None:
    """The next still the phone sends (the table waits on while the camera page is still loading)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        still = phone.read()
        if still is not None:
            return still
    return None


def _camera_page(video, port: int):
    """Chromium with its camera a fake device playing `video`, on the camera page."""
    from playwright.sync_api import sync_playwright

    flags = [
        *FLAGS,
        "--use-fake-device-for-media-stream",
        "--use-fake-ui-for-media-stream",
        f"--use-file-for-fake-video-capture={video}",
    ]
    playwright = sync_playwright().start()
    browser = WatchedBrowser(playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=flags))
    page = browser.new_page(viewport={"width": 360, "height": 740})
    page.goto(f"http://127.0.0.1:{port}/camera?t={TOKEN}")
    return playwright, browser, page


def test_the_camera_page_sends_a_full_size_photo_the_pipeline_reads(tmp_path, bench_frame, phone_table):
    """The phone held upright (its pictures portrait, the profile's landscape): the table turns its photo back."""
    frame, profile, board, registry = bench_frame
    server, phone = phone_table
    video = tmp_path / "board.y4m"
    _y4m(cv2.rotate(frame.image, cv2.ROTATE_90_COUNTERCLOCKWISE), video)
    playwright, browser, page = _camera_page(video, server.port)
    try:
        still = _still(phone)
        assert still is not None, page.locator("#state").inner_text()
        assert still.image.shape[:2] == (SIZE[1], SIZE[0])  # the profile's size, turned back
        # Sent with the number of the table's ask it answers: known to be taken after it, not merely stamped on arrival.
        assert still.taken is not None and still.taken < time.monotonic()
        # The camera's own photo (ImageCapture), not a frame of its video drawn on a canvas.
        page.wait_for_function("document.getElementById('sent').textContent.includes('a photo of 720 × 1280')")
        deadline = time.monotonic() + 10
        while phone.preview is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert phone.preview is not None and phone.preview.shape[1] == 640
        assert "watching the board" in page.locator("#state").inner_text()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "camera-page.png"))
    finally:
        browser.close()
        playwright.stop()
    # The table's pipeline reads what the phone sent as it reads any camera's frames.
    report = Vision(board, registry, profile).process(still.image)
    results, false = score(report, frame.truth, {s.id for s in board.sites})
    assert report.reliable and false == 0
    assert len(results) >= 12 and all(outcome == "read" for _, outcome in results), results


def test_the_camera_page_sends_the_parts_the_table_names_and_the_table_reads_them(tmp_path, bench_frame, phone_table):
    """The phone held upright: it turns its photo back as the table would, and sends the crops round the sites the
    table names (and the corner markers), with the whole photo shrunk; the table reads them with nothing to decode."""
    frame, profile, board, registry = bench_frame
    server, phone = phone_table
    vision = Vision(board, registry, profile)
    vision.process(frame.image)
    changed = {board.sites[0].id, board.sites[len(board.sites) // 2].id}
    # (and a part in colour, as a table that finds pieces by colour asks for round the sites it reads: there, of
    # the board's print, its blue and red apart)
    planned = replace(vision.crop_plan(changed), colour=((920, 580, 1000, 640),))
    phone.colour, phone.planner = False, lambda: planned
    video = tmp_path / "board.y4m"
    _y4m(cv2.rotate(frame.image, cv2.ROTATE_90_COUNTERCLOCKWISE), video)
    playwright, browser, page = _camera_page(video, server.port)
    try:
        still = _still(phone)
        assert still is not None and still.cropped is not None, page.locator("#state").inner_text()
        assert still.taken is not None  # (the plan's number is its ask's)
        page.wait_for_function("document.getElementById('sent').textContent.includes('parts of a photo of 720 × 1280')")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "camera-page-parts.png"))
    finally:
        browser.close()
        playwright.stop()
    plan = still.cropped.plan
    assert plan == planned and still.image.shape == (SIZE[1], SIZE[0], 3)
    # The parts are the picture's own pixels, where the table asked for them (the fake camera's 4:2:0 and the
    # photo's JPEG aside), and the shrunk whole is the whole picture.
    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    for x0, y0, x1, y1 in plan.boxes:
        assert np.abs(still.image[y0:y1, x0:x1, 1].astype(int) - gray[y0:y1, x0:x1]).mean() < 8
    x0, y0, x1, y1 = plan.colour[0]
    part, truth = still.image[y0:y1, x0:x1].astype(int), frame.image[y0:y1, x0:x1].astype(int)
    assert np.abs(truth[..., 0] - truth[..., 2]).mean() > 20 and np.abs(part - truth).mean() < 8
    small = cv2.resize(gray, plan.overview, interpolation=cv2.INTER_AREA)
    assert np.abs(still.cropped.overview.astype(int) - small).mean() < 8
    report = vision.process(still.image, 1.0, cropped=still.cropped)
    results, false = score(report, frame.truth, {s.id for s in board.sites})
    assert report.reliable and false == 0 and all(outcome == "read" for _, outcome in results), results


def test_a_phone_whose_pictures_changed_shape_is_told_to_recalibrate(tmp_path, phone_table):
    """Told to send parts of its photo or not, a phone whose photo is of another shape sends it whole, and the
    table says what to do."""
    server, phone = phone_table
    phone.planner = lambda: CropPlan("trajectory", frozenset({"o1s1"}), 0, SIZE, ((0, 0, 64, 64),))
    video = tmp_path / "four-by-three.y4m"
    _y4m(np.full((480, 640, 3), 160, np.uint8), video)
    playwright, browser, page = _camera_page(video, server.port)
    try:
        page.wait_for_function("document.getElementById('state').textContent.includes('recalibrate')")
        assert page.locator("#state").inner_text() == (
            "The table says: recalibrate the camera: its pictures are now "
            "640 x 480, and it was calibrated at 1280 x 720."
        )
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "camera-page-recalibrate.png"))
    finally:
        browser.close()
        playwright.stop()
    assert phone.latest is None and phone.wants_still()  # nothing reached the table; it still wants a picture


def _post(port: int, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("POST", path, body=body, headers=headers)
    response = connection.getresponse()
    answer = (response.status, json.loads(response.read()))
    connection.close()
    return answer


def test_frames_take_the_token_and_must_be_images(phone_table, bench_frame):
    server, phone = phone_table
    jpeg = cv2.imencode(".jpg", bench_frame[0].image)[1].tobytes()
    assert len(jpeg) > 8 * 1024  # over the limit of every other request body
    path = "/api/camera/frame?still=1"
    status, answer = _post(server.port, path, jpeg, {"Content-Type": "image/jpeg"})
    assert status == 403 and "\n" not in answer["error"]
    status, answer = _post(server.port, path, b"not a picture", {"Content-Type": "image/jpeg", "X-Orrery-Token": TOKEN})
    assert status == 400 and answer["error"] == "the frame: not a picture the table can read (send a JPEG or PNG)"
    status, answer = _post(server.port, path, jpeg, {"Content-Type": "text/plain", "X-Orrery-Token": TOKEN})
    assert status == 415
    bad = {"Content-Type": "image/jpeg", "X-Orrery-Token": TOKEN}
    status, answer = _post(server.port, f"{path}&ask=first", b"not a picture", bad)  # (refused before the body)
    assert status == 400 and answer["error"] == "ask: expected a whole number from 0 to 9007199254740992, got 'first'"
    assert phone.wants_still()
    status, answer = _post(server.port, path, jpeg, {"Content-Type": "image/jpeg", "X-Orrery-Token": TOKEN})
    assert status == 200 and answer == {"width": 1280, "height": 720, "still": True}
    assert not phone.wants_still()  # not again until the table has read this one
    assert phone.read().image.shape[:2] == (720, 1280)  # (in gray: this profile finds no piece by colour)
    # A bigger photo of the profile's shape is scaled to its size; one of another shape refused, and not taken.
    big = cv2.imencode(".jpg", cv2.resize(bench_frame[0].image, (2560, 1440)))[1].tobytes()
    status, answer = _post(server.port, path, big, {"Content-Type": "image/jpeg", "X-Orrery-Token": TOKEN})
    assert status == 200 and answer["width"] == 2560 and phone.read().image.shape[:2] == (720, 1280)
    square = cv2.imencode(".jpg", bench_frame[0].image[:, :720])[1].tobytes()
    status, answer = _post(server.port, path, square, {"Content-Type": "image/jpeg", "X-Orrery-Token": TOKEN})
    assert status == 409 and answer["error"] == (
        "recalibrate the camera: its pictures are now 720 x 720, and it was calibrated at 1280 x 720"
    )


def test_a_still_is_read_in_gray_unless_pieces_are_found_by_colour(phone_table, bench_frame):
    """A table that finds no piece by colour takes a still's gray alone (its luma, as a Pi camera gives it, decoded
    in half the time) and reads it as the colour still; previews stay in colour for a person to look at."""
    server, phone = phone_table
    frame, profile, board, registry = bench_frame
    jpeg = cv2.imencode(".jpg", frame.image)[1].tobytes()
    headers = {"Content-Type": "image/jpeg", "X-Orrery-Token": TOKEN}
    assert not phone.colour  # the table reads this profile's stills in gray: it finds no piece by colour
    status, _ = _post(server.port, "/api/camera/frame?still=1", jpeg, headers)
    gray = phone.read().image
    assert status == 200 and gray.shape == (720, 1280)
    status, _ = _post(server.port, "/api/camera/frame?still=0", jpeg, headers)
    assert status == 200 and phone.preview.shape == (720, 1280, 3)
    report = Vision(board, registry, profile).process(gray)
    results, false = score(report, frame.truth, {s.id for s in board.sites})
    assert report.reliable and false == 0 and all(outcome == "read" for _, outcome in results), results


def test_parts_are_checked_against_the_tables_plan_before_they_are_read(phone_table):
    server, phone = phone_table
    plan = CropPlan("trajectory", frozenset({"o1s1"}), 0, SIZE, ((10, 20, 110, 70),))
    phone.planner = lambda: plan
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request("GET", "/api/camera/wanted", headers={"X-Orrery-Token": TOKEN})
    wanted = json.loads(connection.getresponse().read())
    connection.close()
    crops = wanted["crops"]
    assert wanted["still"] and crops["boxes"] == [[10, 20, 110, 70]] and crops["overview"] == [640, 360]
    assert (crops["width"], crops["height"]) == SIZE
    body = bytes(range(256)) * ((plan.nbytes() + 255) // 256)
    path, headers = f"/api/camera/frame?crops={crops['plan']}", {"X-Orrery-Token": TOKEN}
    status, answer = _post(server.port, path, body[: plan.nbytes()], {**headers, "Content-Type": "image/jpeg"})
    assert status == 415
    status, answer = _post(server.port, path, body, {**headers, "Content-Type": "application/octet-stream"})
    assert status == 400 and answer["error"] == f"the crops: {len(body)} bytes where the table asked for 235400"
    stale = f"/api/camera/frame?crops={crops['plan'] + 1}"
    status, answer = _post(server.port, stale, body[:235400], {**headers, "Content-Type": "application/octet-stream"})
    assert status == 409 and answer["error"] == "these parts were of an earlier picture: the camera takes another"
    assert phone.wants_still()  # nothing taken
    status, answer = _post(server.port, path, body[:235400], {**headers, "Content-Type": "application/octet-stream"})
    assert status == 200 and answer == {"width": 1280, "height": 720, "still": True}
    frame = phone.read()
    assert frame.cropped.plan == plan and frame.image[20:70, 10:110].tobytes() == body[230400:235400]
    assert frame.image[:20].max() == 0  # nothing but the parts asked for
