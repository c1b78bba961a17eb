"""Frames are fused only while they show one still scene: a sensor's noise is the same scene, a sticker moved is not."""

import numpy as np

from companion.sensing.stillness import alike, thumbnail


def scene(rng: np.random.Generator, at: tuple[int, int], noise: float = 4.0) -> np.ndarray:
    """A 720p frame of a gray board with one dark 40-pixel sticker at `at`, with a sensor's noise."""
    image = np.full((720, 1280, 3), 150.0)
    x, y = at
    image[y:y + 40, x:x + 40] = 40.0
    return np.clip(image + rng.normal(0.0, noise, image.shape), 0, 255).astype(np.uint8)


def test_two_frames_of_one_scene_are_alike_and_a_sticker_moved_is_not():
    rng = np.random.default_rng(1)
    first = thumbnail(scene(rng, (400, 300)))
    assert alike(first, thumbnail(scene(rng, (400, 300), noise=8.0)))
    assert not alike(first, thumbnail(scene(rng, (440, 300))))  # the sticker moved by its own width
    assert not alike(first, thumbnail(scene(rng, (400, 300))[:360]))  # another size: not the same camera's frame
