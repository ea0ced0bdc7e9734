"""pbrt-v4's equal-area octahedral environment images -> Falcor's lat-long layout, on the CPU.

pbrt looks an image infinite light up at `EqualAreaSphereToSquare(w)` (Clarberg's equal-area
octahedral map) of the direction `w` in the light's space, u along image columns and v along rows
from the top. Falcor's lat-long map holds the direction (sin t sin p, cos t, -sin t cos p) at
u = (p / pi + 1) / 2, v = t / pi.
"""
from __future__ import annotations

import numpy as np

MAX_LATLONG_HEIGHT = 2048


def sphere_to_square(d: np.ndarray) -> np.ndarray:
    """Unit directions (..., 3) -> equal-area octahedral square coordinates (..., 2) in [0, 1]²."""
    x, y, z = np.abs(d[..., 0]), np.abs(d[..., 1]), np.abs(d[..., 2])
    r = np.sqrt(np.maximum(0.0, 1.0 - z))
    a, b = np.maximum(x, y), np.minimum(x, y)
    ratio = np.divide(b, a, out=np.zeros_like(a), where=a > 0)
    phi = np.arctan(ratio) * (2.0 / np.pi)
    phi = np.where(x < y, 1.0 - phi, phi)
    v = phi * r
    u = r - v
    lower = d[..., 2] < 0
    u, v = np.where(lower, 1.0 - v, u), np.where(lower, 1.0 - u, v)
    u = np.copysign(u, d[..., 0])
    v = np.copysign(v, d[..., 1])
    return np.stack([0.5 * (u + 1.0), 0.5 * (v + 1.0)], axis=-1)


def square_to_sphere(uv: np.ndarray) -> np.ndarray:
    """The inverse: square coordinates (..., 2) in [0, 1]² -> unit directions (..., 3)."""
    u, v = 2.0 * uv[..., 0] - 1.0, 2.0 * uv[..., 1] - 1.0
    up, vp = np.abs(u), np.abs(v)
    signed_distance = 1.0 - (up + vp)
    d = np.abs(signed_distance)
    r = 1.0 - d
    phi = np.where(r == 0, 1.0, (vp - up) / np.where(r == 0, 1.0, r) + 1.0) * (np.pi / 4.0)
    z = np.copysign(1.0 - r * r, signed_distance)
    cos_phi = np.copysign(np.cos(phi), u)
    sin_phi = np.copysign(np.sin(phi), v)
    s = r * np.sqrt(np.maximum(0.0, 2.0 - r * r))
    return np.stack([cos_phi * s, sin_phi * s, z], axis=-1)


def latlong_directions(height: int, first_row: int = 0, rows: int | None = None) -> np.ndarray:
    """Falcor's direction at each texel centre of rows of a (height, 2·height) lat-long map."""
    width = 2 * height
    rows = height - first_row if rows is None else min(rows, height - first_row)
    u = (np.arange(width) + 0.5) / width
    v = (np.arange(first_row, first_row + rows) + 0.5) / height
    phi = np.pi * (2.0 * u[None, :] - 1.0)
    theta = np.pi * v[:, None]
    return np.stack([np.sin(theta) * np.sin(phi), np.cos(theta) * np.ones_like(phi), -np.sin(theta) * np.cos(phi)], axis=-1)


def _bilinear(image: np.ndarray, uv: np.ndarray) -> np.ndarray:
    h, w = image.shape[:2]
    x = np.clip(uv[..., 0] * w - 0.5, 0.0, w - 1.0)
    y = np.clip(uv[..., 1] * h - 0.5, 0.0, h - 1.0)
    x0, y0 = np.floor(x).astype(np.int64), np.floor(y).astype(np.int64)
    x1, y1 = np.minimum(x0 + 1, w - 1), np.minimum(y0 + 1, h - 1)
    fx, fy = (x - x0)[..., None], (y - y0)[..., None]
    top = image[y0, x0] * (1 - fx) + image[y0, x1] * fx
    bottom = image[y1, x0] * (1 - fx) + image[y1, x1] * fx
    return top * (1 - fy) + bottom * fy


def octahedral_to_latlong(image: np.ndarray, light_from_world: np.ndarray) -> np.ndarray:
    """A (N, N, 3) equal-area octahedral image -> a (H, 2H, 3) lat-long image (H = min(N, 2048)):
    each texel holds pbrt's radiance for the world direction Falcor gives it, the direction taken
    into the light's space by the 3x3 `light_from_world`."""
    height = max(1, min(image.shape[0], MAX_LATLONG_HEIGHT))
    out = np.empty((height, 2 * height, 3), np.float32)
    rows_per_chunk = max(1, (1 << 20) // (2 * height))
    for start in range(0, height, rows_per_chunk):
        dirs = latlong_directions(height, start, rows_per_chunk)
        local = dirs @ light_from_world.T
        local /= np.maximum(np.linalg.norm(local, axis=-1, keepdims=True), 1e-30)
        out[start:start + rows_per_chunk] = _bilinear(image, sphere_to_square(local))
    return out
