"""Camera: properties, derived film frame, and the renderer's matrices and ray basis (Falcor's
formulas written out in numpy)."""
import math

import numpy as np
import pytest

from falcor import Camera, float3
from scenes_for_tests import quad_scene


def f32(v):
    return float(np.float32(v))


def test_defaults():
    c = Camera()
    assert c.name == "" and Camera("cam").name == "cam"
    assert c.position == float3(0) and c.target == float3(0, 0, -1) and c.up == float3(0, 1, 0)
    assert c.focalLength == 21 and c.frameHeight == 24 and c.frameWidth == f32(42.666667)
    assert c.aspectRatio == f32(1.7777777) and c.focalDistance == 10000 and c.apertureRadius == 0
    assert c.shutterSpeed == f32(0.004) and c.ISOSpeed == 100 and c.nearPlane == f32(0.1) and c.farPlane == 1000
    assert c.animated and not c.hasAnimation


def test_frame_size_rules():
    c = Camera()
    c.aspectRatio = 2.0  # height is authoritative by default
    assert c.frameHeight == 24 and c.frameWidth == 48
    c.frameWidth = 36  # width becomes authoritative
    assert c.frameHeight == 18
    c.aspectRatio = 1.5
    assert c.frameWidth == 36 and c.frameHeight == 24
    c.frameHeight = 10
    assert c.frameWidth == 15
    c.position = [1, 2, 3]  # sequences convert
    assert c.position == float3(1, 2, 3)


def look_at(eye, center, up):
    f = (eye - center) / np.linalg.norm(eye - center)
    r = np.cross(up, f)
    r /= np.linalg.norm(r)
    u = np.cross(f, r)
    m = np.eye(4)
    m[0, :3], m[1, :3], m[2, :3] = r, u, f
    m[:3, 3] = -m[:3, :3] @ eye
    return m


def perspective(fovy, aspect, n, f):
    t = math.tan(fovy / 2)
    m = np.zeros((4, 4))
    m[0, 0], m[1, 1], m[2, 2], m[3, 2], m[2, 3] = 1 / (aspect * t), 1 / t, f / (n - f), -1, -f * n / (f - n)
    return m


def make_camera():
    c = Camera("c")
    c.position, c.target, c.up = float3(1, 2, 3), float3(0, 0, 0), float3(0, 1, 0)
    c.focalLength, c.aspectRatio, c.nearPlane, c.farPlane, c.focalDistance = 35, 1.5, 0.5, 50, 4
    return c


def test_matrices_and_ray_basis():
    scene = quad_scene(camera=make_camera())
    d = scene.native.camera_data
    eye, center, up = np.array([1, 2, 3.0]), np.zeros(3), np.array([0, 1, 0.0])
    view = look_at(eye, center, up)
    fovy = 2 * math.atan(0.5 * 24 / 35)
    proj = perspective(fovy, 1.5, 0.5, 50)
    np.testing.assert_allclose(d["viewMat"], view, atol=1e-6)
    np.testing.assert_allclose(d["projMat"], proj, atol=1e-5)
    np.testing.assert_allclose(d["viewProjMat"], proj @ view, atol=1e-5)
    np.testing.assert_allclose(d["invViewProj"] @ d["viewProjMat"], np.eye(4), atol=1e-4)
    # Ray basis: W to the focal plane, U/V half the image plane there.
    w = (center - eye) / np.linalg.norm(center - eye) * 4
    u = np.cross(w, up)
    u /= np.linalg.norm(u)
    v = np.cross(u, w / 4)
    half_h = 4 * math.tan(fovy / 2)
    np.testing.assert_allclose(d["cameraW"], w, atol=1e-5)
    np.testing.assert_allclose(d["cameraU"], u * half_h * 1.5, atol=1e-5)
    np.testing.assert_allclose(d["cameraV"], v / np.linalg.norm(v) * half_h, atol=1e-5)
    # Projecting the target lands in the middle of the image at depth in (0, 1).
    clip = d["viewProjMat"] @ [0, 0, 0, 1]
    assert abs(clip[0] / clip[3]) < 1e-6 and 0 < clip[2] / clip[3] < 1


def test_jitter_and_previous_frame():
    scene = quad_scene(camera=make_camera())
    native = scene.native
    first = native.camera_data
    np.testing.assert_allclose(first["prevViewMat"], first["viewMat"])  # the first frame has no motion
    native.set_jitter(0.25 / 100, -0.5 / 100)
    scene.update(0.0)
    d = native.camera_data
    jitter = np.eye(4)
    jitter[0, 3], jitter[1, 3] = 2 * 0.25 / 100, 2 * -0.5 / 100
    np.testing.assert_allclose(d["projMat"], jitter @ d["projMatNoJitter"], atol=1e-6)
    np.testing.assert_allclose(d["viewProjMatNoJitter"], first["viewProjMatNoJitter"], atol=1e-6)
    scene.camera.position = float3(1, 2, 4)
    scene.update(0.0)
    d = native.camera_data
    np.testing.assert_allclose(d["prevViewMat"], first["viewMat"], atol=1e-6)
    np.testing.assert_allclose(d["prevPosW"], (1, 2, 3))
    np.testing.assert_allclose(d["posW"], (1, 2, 4))
    scene.update(0.0)
    np.testing.assert_allclose(native.camera_data["prevViewMat"], d["viewMat"], atol=1e-6)


def test_orthographic():
    c = make_camera()
    c.focalLength = 0
    d = quad_scene(camera=c).native.camera_data
    h = math.sqrt(14) / 2  # half the look-at distance
    assert d["projMat"][0, 0] == pytest.approx(1 / h) and d["projMat"][1, 1] == pytest.approx(1 / h)
    assert d["projMat"][2, 2] == pytest.approx(-1 / 49.5) and d["projMat"][3, 3] == 1


def test_primary_rays():
    c = make_camera()
    c.apertureRadius = 0.1
    scene = quad_scene(camera=c)
    d = scene.native.camera_data
    u, v, w = (np.array(d[k]) for k in ("cameraU", "cameraV", "cameraW"))
    # The center of an odd-sized frame looks straight at the target; near/far are distances along the view axis.
    r = scene.native.compute_camera_ray((50, 25), (101, 51))
    np.testing.assert_allclose(r["dir"], w / np.linalg.norm(w), atol=1e-6)
    assert r["origin"] == pytest.approx((1, 2, 3)) and r["t_min"] == pytest.approx(0.5) and r["t_max"] == pytest.approx(50)
    # Top-left pixel: ndc (-1 + 1/W, 1 - 1/H).
    r = scene.native.compute_camera_ray((0, 0), (100, 50))
    ndc = np.array([-1 + 1 / 100, 1 - 1 / 50])
    expected = ndc[0] * u + ndc[1] * v + w
    expected /= np.linalg.norm(expected)
    np.testing.assert_allclose(r["dir"], expected, atol=1e-6)
    assert r["t_min"] == pytest.approx(0.5 / np.dot(expected, w / np.linalg.norm(w)), rel=1e-5)
    # Thin lens: the origin moves on the aperture, the ray still passes through the focal point.
    lens = scene.native.compute_camera_ray((0, 0), (100, 50), lens_sample=(0.25, 0.25))
    offset = 0.1 * 0.5 * (u / np.linalg.norm(u) * math.cos(math.pi / 2) + v / np.linalg.norm(v) * math.sin(math.pi / 2))
    np.testing.assert_allclose(lens["origin"], np.array([1, 2, 3]) + offset, atol=1e-6)
    focus = np.array([1, 2, 3]) + ndc[0] * u + ndc[1] * v + w
    to_focus = focus - lens["origin"]
    np.testing.assert_allclose(lens["dir"], to_focus / np.linalg.norm(to_focus), atol=1e-6)
