"""The Python examples in Scripts/python run headless and compute what their shaders say."""
import itertools
import runpy
from pathlib import Path

import numpy as np
import pytest

from test_compute_pass import jenkins_hash

EXAMPLES = Path(__file__).resolve().parents[2] / "Scripts" / "python"


def test_balls_integrate_and_render_as_the_shaders_say(monkeypatch, tmp_path):
    frames, dt = 3, 0.25
    clock = itertools.count()
    monkeypatch.setattr("time.time", lambda: next(clock) * dt)   # every frame advances 0.25 s
    monkeypatch.setenv("FALCOR_TESTBED_MAX_FRAMES", str(frames))
    monkeypatch.setenv("FALCOR_TESTBED_CAPTURE_DIR", str(tmp_path))
    monkeypatch.setenv("FALCOR_TESTBED_CAPTURE_EVERY", "3")
    np.random.seed(7)
    start = np.random.rand(100, 4).astype(np.float32) * 2 - 1
    np.random.seed(7)
    script = runpy.run_path(str(EXAMPLES / "balls" / "balls.py"), run_name="__main__")

    expected = start.copy()
    for _ in range(frames):
        pos, vel = expected[:, :2], expected[:, 2:]
        pos += vel * np.float32(dt)
        outside = np.abs(pos) > 1
        pos[outside] = np.sign(pos[outside])
        vel[outside] *= -1
    balls = script["balls"].to_numpy().view(np.float32).reshape(100, 4)
    np.testing.assert_allclose(balls, expected, atol=1e-6)

    image = script["image"].to_numpy()
    resolution = image.shape[0]
    # The pixel nearest a ball's center that no other ball covers has the ball's hashed color.
    covered = lambda p, skip: [i for i in range(100) if i != skip and np.hypot(*(balls[i, :2] - p)) < 0.1]  # noqa: E731
    checked = 0
    for i in range(100):
        pixel = np.floor((balls[i, :2] + 1) / 2 * resolution).astype(int)
        if np.any(pixel >= resolution) or covered(pixel / resolution * 2 - 1, i):
            continue
        p = pixel / resolution * 2 - 1
        weight = np.clip((0.1 - np.hypot(*(balls[i, :2] - p))) / 0.02, 0, 1)
        weight = weight * weight * (3 - 2 * weight)
        h = int(jenkins_hash(np.array([i]))[0])
        color = np.array([h & 255, (h >> 8) & 255, (h >> 16) & 255]) / 255 * weight
        np.testing.assert_allclose(image[pixel[1], pixel[0], :3], color, atol=1e-4)
        checked += 1
    assert checked > 20
    assert (tmp_path / "render_texture.3.exr").is_file()   # the window's picture, captured
    assert script["testbed"].frame_count == frames
    assert {"/update_balls/cpu_time", "/render_balls/cpu_time"} <= set(script["profiler"].events)


def test_gaussian2d_fits_the_image(monkeypatch):
    pytest.importorskip("torch", reason="the gaussian2d example needs PyTorch (optional: pip install torch)")
    monkeypatch.setenv("GAUSSIAN2D_BLOBS", "48")
    monkeypatch.setenv("GAUSSIAN2D_RESOLUTION", "48")
    monkeypatch.setenv("GAUSSIAN2D_ITERATIONS", "40")
    import torch
    torch.manual_seed(3)
    script = runpy.run_path(str(EXAMPLES / "gaussian2d" / "gaussian2d.py"), run_name="__main__")
    losses = script["losses"]
    assert len(losses) == 40 and losses[-1] < 0.85 * losses[0]


def test_gaussian2d_gradients_match_finite_differences(monkeypatch):
    torch = pytest.importorskip("torch", reason="the gaussian2d example needs PyTorch (optional: pip install torch)")
    monkeypatch.setenv("GAUSSIAN2D_BLOBS", "3")
    monkeypatch.setenv("GAUSSIAN2D_RESOLUTION", "128")
    monkeypatch.setenv("GAUSSIAN2D_ITERATIONS", "0")
    script = runpy.run_path(str(EXAMPLES / "gaussian2d" / "gaussian2d.py"), run_name="__main__")
    splat = script["splat2d"]
    blobs = torch.tensor([[0.5, 0.5, 0.015, 0.01, 0.8, 0.3, 0.5, 0.4],
                          [0.3, 0.6, 0.0125, 0.015, 0.2, 0.9, 0.1, 1.1],
                          [0.7, 0.35, 0.01, 0.015, 0.5, 0.5, 0.9, 2.0]])
    weights = torch.rand(128, 128, 3, generator=torch.Generator().manual_seed(1))
    analytic = splat.backward(blobs, weights)
    eps = 5e-4
    numeric = torch.zeros(3, 8)
    for b in range(3):
        for k in range(8):
            plus, minus = blobs.clone(), blobs.clone()
            plus[b, k] += eps
            minus[b, k] -= eps
            numeric[b, k] = ((splat.forward(plus) - splat.forward(minus)) * weights).sum() / (2 * eps)
    # Central differences err by O(eps^2) relative to a blob's gradient as a whole, and some
    # components are small differences of large terms: the tolerance scales with each blob's
    # largest component. The backward pass ignores pixels farther than 0.1 from a center, at
    # least 6.7 standard deviations here, so its cut-off does not show.
    scale = numeric.abs().max(dim=1, keepdim=True).values
    assert torch.all(torch.abs(analytic - numeric) <= 0.02 * torch.abs(numeric) + 0.005 * scale), (analytic, numeric)
