"""Runs the image-test scripts of this folder through the `mogwai` executable, the way Falcor's
image-test runner does, and checks what they capture.

The scripts load media from Falcor's media package, which is not available here: the `media`
fixture writes synthetic stand-ins under the same relative paths and points FALCOR_MEDIA_FOLDERS
at them. Without Falcor's reference images the checks are: the exact set of capture files (names
follow Falcor's scripts), and per test a few values against numpy models of the passes or
relations between captures.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from helpers import mogwai_command, scaled_timeout  # tests/helpers.py (this folder is a package, see __init__.py)

HERE = Path(__file__).resolve().parent
IMAGE_EXTENSIONS = {".png", ".jpg", ".tga", ".bmp", ".pfm", ".exr"}  # what Falcor's runner compares
FRAME = (640, 360)  # render_frames' default resolution
TIMEOUT = scaled_timeout(300)


# ---------------------------------------------------------------------------------------------
# Synthetic media

def write_hdr(path: Path, rgb: np.ndarray) -> np.ndarray:
    """Writes a Radiance RGBE file (scanlines run-length encoded, as literal runs only) and returns
    the values a reader decodes from it: mantissa * 2^(exponent - 136)."""
    height, width, _ = rgb.shape
    peak = rgb.max(axis=2)
    _, exponent = np.frexp(peak)  # peak < 2^exponent
    visible = peak >= 1e-32
    mantissa = np.where(visible[..., None], np.floor(rgb * np.ldexp(1.0, 8 - exponent)[..., None]), 0)
    rgbe = np.zeros((height, width, 4), np.uint8)
    rgbe[..., :3] = mantissa
    rgbe[..., 3] = np.where(visible, exponent + 128, 0)

    out = bytearray(f"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y {height} +X {width}\n".encode())
    for row in rgbe:
        out += bytes([2, 2, width >> 8, width & 0xFF])
        for channel in range(4):
            data = row[:, channel].tobytes()
            for start in range(0, width, 128):
                chunk = data[start:start + 128]
                out.append(len(chunk))
                out += chunk
    path.write_bytes(bytes(out))
    return (rgbe[..., :3] * np.ldexp(1.0, rgbe[..., 3:].astype(np.int32) - 136)).astype(np.float32)


def srgb_to_linear(byte_values: np.ndarray) -> np.ndarray:
    c = byte_values / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def linear_to_srgb8(values: np.ndarray) -> np.ndarray:
    """8-bit sRGB encoding of linear values (clamped to [0, 1]), as a texture store does."""
    c = np.clip(values, 0.0, 1.0)
    return np.rint(255.0 * np.where(c <= 0.0031308, c * 12.92, 1.055 * c ** (1 / 2.4) - 0.055))


def unit_grid(width: int, height: int):
    y, x = np.mgrid[0:height, 0:width]
    return (x + 0.5) / width, (y + 0.5) / height


def disk(u, v, center, radius, aspect):
    return ((u - center[0]) * aspect) ** 2 + (v - center[1]) ** 2 < radius ** 2


def sky_hdr(width: int, height: int) -> np.ndarray:
    """Smooth sky gradients, a checkerboard of hard edges and a sun far above 1."""
    u, v = unit_grid(width, height)
    checker = np.where((np.floor(u * 16) + np.floor(v * 9)) % 2 == 0, 1.0, 0.6)
    rgb = np.stack([0.05 + 2.5 * u ** 2, 0.1 + 1.2 * (1 - v), 0.3 + 0.25 * (1 + np.sin(12 * u + 6 * v))], axis=2)
    rgb *= checker[..., None]
    rgb[disk(u, v, (0.72, 0.28), 0.06, width / height)] = (24.0, 20.0, 14.0)
    return rgb


def well_hdr(width: int, height: int) -> np.ndarray:
    """Vertical stripes over a gradient, with a bright spot."""
    u, v = unit_grid(width, height)
    stripes = np.where(np.floor(u * 80) % 2 == 0, 1.5, 0.1)
    rgb = np.stack([stripes * (0.3 + v), 0.2 + 0.6 * u, 0.8 - 0.5 * v * u], axis=2)
    rgb[disk(u, v, (0.3, 0.6), 0.08, width / height)] = (40.0, 35.0, 30.0)
    return rgb


def photo(width: int, height: int, phase: float) -> np.ndarray:
    """An 8-bit RGB test card: gradients, a checkerboard and a disk."""
    u, v = unit_grid(width, height)
    checker = (np.floor(u * 20 + phase) + np.floor(v * 12)) % 2
    rgb = np.stack([255 * u, 255 * v, 64 + 128 * checker], axis=2)
    rgb[disk(u, v, (0.5 + 0.2 * phase, 0.5), 0.2, width / height)] = (230, 40, 90)
    return np.rint(rgb).astype(np.uint8)


def smoke(width: int, height: int) -> np.ndarray:
    """An 8-bit RGBA puff: grey-blue color, alpha falling off from opaque in the middle to 0."""
    u, v = unit_grid(width, height)
    r = np.hypot((u - 0.5) * width / height, v - 0.5) / 0.45
    alpha = 255 * np.clip(1 - r, 0, 1) ** 1.5
    rgba = np.stack([180 + 60 * u, 190 + 40 * v, np.full_like(u, 220), alpha], axis=2)
    return np.rint(rgba).astype(np.uint8)


SCENES = HERE.parents[1] / "Scenes"

# Stand-in for Falcor's Arcade scene: a small lit room (an emissive panel, a point light, glossy,
# diffuse and metal boxes), cheap enough for the path tracers' frame counts at 640x360.
ARCADE = """
def material(name, color, roughness, metallic=0.0):
    m = StandardMaterial(name)
    m.baseColor = float4(color[0], color[1], color[2], 1)
    m.roughness = roughness
    m.metallic = metallic
    return m

quad, cube = TriangleMesh.createQuad(), TriangleMesh.createCube()
def place(name, mesh, mtl, **transform):
    sceneBuilder.addMeshInstance(sceneBuilder.addNode(name, Transform(**transform)), sceneBuilder.addTriangleMesh(mesh, mtl))

place('Floor', quad, material('Floor', (0.6, 0.55, 0.5), 0.8), scaling=float3(6, 1, 6))
place('Wall', quad, material('Wall', (0.3, 0.4, 0.6), 0.6), translation=float3(0, 1.5, -2), scaling=float3(6, 1, 3),
      rotationEulerDeg=float3(90, 0, 0))
place('Cabinet', cube, material('Cabinet', (0.8, 0.2, 0.1), 0.3), translation=float3(-0.8, 0.6, -0.5), scaling=float3(0.6, 1.2, 0.5))
place('Screen', cube, material('Screen', (0.9, 0.9, 0.9), 0.1, 1.0), translation=float3(0.8, 0.4, -0.3), scaling=float3(0.7, 0.8, 0.5))
panel = StandardMaterial('Panel')
panel.baseColor = float4(0, 0, 0, 1)
panel.emissiveColor = float3(1.0, 0.8, 0.6)
panel.emissiveFactor = 6
place('Panel', quad, panel, translation=float3(0, 2.5, 0), scaling=float3(2, 1, 1), rotationEulerDeg=float3(180, 0, 0))
light = PointLight('Lamp')
light.position = float3(1.5, 2, 1.5)
light.intensity = float3(3, 3, 3)
sceneBuilder.addLight(light)
camera = Camera('Main')
camera.position = float3(0, 1.3, 3.5)
camera.target = float3(0, 0.6, 0)
camera.up = float3(0, 1, 0)
sceneBuilder.addCamera(camera)
"""


def write_scene_stand_ins(root: Path):
    """Falcor's test scenes are not available: our own example scenes stand in under their paths
    (their textures and shared geometry copied beside them)."""
    (root / "Arcade").mkdir(parents=True, exist_ok=True)
    (root / "Arcade/Arcade.pyscene").write_text(ARCADE)
    stand_ins = {
        "test_scenes/nested_dielectrics.pyscene": "Dielectrics.pyscene",
        "test_scenes/material_test.pyscene": "Materials.pyscene",
        "test_scenes/cornell_box.pyscene": "CornellBox.pyscene",
        "test_scenes/tex_lod/spheres_cube.pyscene": "TexturedQuads.pyscene",
        "materials/materials.pyscene": "Materials.pyscene",
        "materials/light_leaks.pyscene": "Lights.pyscene",
        "alpha_test/alpha_test.pyscene": "TexturedQuads.pyscene",
    }
    for target, source in stand_ins.items():
        path = root / target
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SCENES / source, path)
        shutil.copyfile(SCENES / "CornellBoxGeometry.py", path.with_name("CornellBoxGeometry.py"))
        shutil.copytree(SCENES / "Textures", path.parent / "Textures", dirs_exist_ok=True)
    # PathTracerAdaptive's density map: 0 on the left quarter (no samples), rising to the right.
    density = np.zeros((FRAME[1], FRAME[0]), np.uint8)
    density[:, FRAME[0] // 4:] = np.linspace(16, 255, FRAME[0] - FRAME[0] // 4).astype(np.uint8)
    (root / "test_images").mkdir(exist_ok=True)
    Image.fromarray(density).save(root / "test_images" / "density_map.png")  # where Falcor's graph looks


class Media:
    """The media folder and, by short name, the images as a reader decodes them."""

    def __init__(self, root: Path, decoded: dict[str, np.ndarray]):
        self.root, self.decoded = root, decoded

    def __repr__(self):  # keeps pytest's failure reports short
        return f"Media({self.root})"


@pytest.fixture(scope="module")
def media(tmp_path_factory) -> Media:
    """Writes the media the graphs name.

    The 8-bit images and one HDR have the frame size, so ImageLoader's blit to the frame size is a
    plain copy and captures can be compared with exact models; 20060807_wells6_hd.hdr is twice the
    frame size, so its blit averages 2x2 blocks."""
    root = tmp_path_factory.mktemp("media")
    for folder in ("test_scenes/envmaps", "test_images/cubemap/sorsele3", "Arcade"):
        (root / folder).mkdir(parents=True)
    write_scene_stand_ins(root)
    w, h = FRAME
    decoded = {
        "sky": write_hdr(root / "test_scenes/envmaps/hallstatt4_hd.hdr", sky_hdr(w, h)),
        "well": write_hdr(root / "test_scenes/envmaps/20060807_wells6_hd.hdr", well_hdr(2 * w, 2 * h)),
    }
    for name, phase in (("posz", 0.0), ("posy", 0.5)):
        path = root / f"test_images/cubemap/sorsele3/{name}.jpg"
        Image.fromarray(photo(w, h, phase)).save(path, quality=95)
        with Image.open(path) as img:  # JPEG is lossy: models use what a reader decodes
            decoded[name] = np.asarray(img.convert("RGB"), dtype=np.float64)
    puff = smoke(w, h)
    Image.fromarray(puff, "RGBA").save(root / "test_images/smoke_puff.png")
    decoded["smoke"] = puff.astype(np.float64)
    return Media(root, decoded)


# ---------------------------------------------------------------------------------------------
# Running a test script

class Captures:
    """Capture files of one run, by file name: PNGs in 8-bit units, EXRs as floats (RGB)."""

    def __init__(self, folder: Path):
        self.folder = folder

    def __getitem__(self, name: str) -> np.ndarray:
        path = self.folder / name
        if path.suffix == ".exr":
            import OpenEXR

            with OpenEXR.File(str(path)) as f:
                return np.asarray(f.channels()["RGB"].pixels, dtype=np.float64)
        with Image.open(path) as img:
            return np.asarray(img, dtype=np.float64)


def capture_names(names, pass_field: str, ext: str, frames=(1,)) -> set[str]:
    """`<name>.<Pass>.<field>.<frame>.<ext>` for every name and frame."""
    return {f"{name}.{pass_field}.{frame}.{ext}" for name in names for frame in frames}


def _process_report(args, stdout, stderr, limit: int = 6000) -> str:
    """The command line and the tail of its output, for failure messages."""
    def tail(text) -> str:
        text = text.decode(errors="replace") if isinstance(text, bytes) else (text or "")
        return text if len(text) <= limit else "...\n" + text[-limit:]
    return f"\n--- {' '.join(args)}\n--- stdout:\n{tail(stdout)}\n--- stderr:\n{tail(stderr)}"


@contextlib.contextmanager
def image_test(script: str, expected: set[str], media, tmp_path: Path, run_only: bool = False):
    """Runs `test_<script>.py` as Falcor's runner does: Mogwai in the script's folder, started on
    a generated script that sets the capture folder and then runs the test script. Checks the
    exit code and the set of captured images, then yields the captures; any failed assertion in
    the `with` body also reports Mogwai's output."""
    out_dir = tmp_path / "results"
    out_dir.mkdir()
    gen = tmp_path / f"{script}_gen.py"
    lines = ['import falcor\nfalcor.__dict__["IMAGE_TEST_RUN_ONLY"] = True\n'] if run_only else []
    lines += [f'm.frameCapture.outputDir = r"{out_dir}"\n', f'm.script(r"test_{script}.py")\n']
    gen.write_text("".join(lines))
    args = mogwai_command() + ["--device-type", "vulkan", "--script", os.path.relpath(gen, HERE),
                               "--logfile", str(out_dir / "log.txt"), "--headless", "--precise"]
    try:
        run = subprocess.run(args, cwd=HERE, capture_output=True, text=True, timeout=TIMEOUT,
                             env={**os.environ, "FALCOR_MEDIA_FOLDERS": str(media.root)})
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"mogwai did not finish within {TIMEOUT} s{_process_report(args, e.stdout, e.stderr)}")
    output = _process_report(args, run.stdout, run.stderr)

    assert run.returncode == 0, f"mogwai exited with code {run.returncode}{output}"
    produced = {p.name for p in out_dir.iterdir()
                if p.suffix in IMAGE_EXTENSIONS and not p.name.endswith(".error.png")}
    assert produced == expected, (f"missing captures: {sorted(expected - produced)}; "
                                  f"unexpected: {sorted(produced - expected)}{output}")
    try:
        yield Captures(out_dir)
    except AssertionError as e:
        raise AssertionError(f"{e}{output}") from None


# ---------------------------------------------------------------------------------------------
# Checks shared by several tests

def assert_close(actual, expected, tol, what):
    worst = float(np.max(np.abs(actual - expected)))
    assert worst <= tol, f"{what}: max abs difference {worst:.4g} > {tol}"


def assert_differ(a, b, what):
    mean = float(np.mean(np.abs(a - b)))
    assert mean >= 0.5, f"{what}: expected different images, mean abs difference {mean:.4g}"


def assert_identical(cap, names, what):
    first = cap[names[0]]
    for name in names[1:]:
        assert np.array_equal(cap[name], first), f"{what}: {name} differs from {names[0]}"


def assert_brighter(cap, names):
    """Mean brightness strictly increases along `names`."""
    means = [float(np.mean(cap[n])) for n in names]
    assert all(a < b for a, b in zip(means, means[1:])), f"brightness not increasing: {dict(zip(names, means))}"


def linear_inputs(decoded):
    """The photo (A) and the smoke sprite (B) as the sRGB ImageLoaders read them (RGB, linear)."""
    return srgb_to_linear(decoded["posz"]), srgb_to_linear(decoded["smoke"][..., :3])


def assert_float_image(actual, expected, what):
    """Equal within the precision of the half floats EXR captures hold (relative; absolute near 0)."""
    worst = float(np.max(np.abs(actual - expected) / (1 + np.abs(expected))))
    assert worst <= 2e-3, f"{what}: max relative difference {worst:.4g} > 2e-3"


# ---------------------------------------------------------------------------------------------
# The tests

def test_ToneMapping(media, tmp_path):
    names = (["default"] + [f"operator.ToneMapOp.{op}" for op in
                            ["Linear", "Reinhard", "ReinhardModified", "HejiHableAlu", "HableUc2", "Aces"]]
             + [f"autoExposure.{b}" for b in (False, True)] + [f"exposureCompensation.{v}" for v in (-2, 0, 2)]
             + [f"{key}.{v}" for key, values in [("fNumber", (0.5, 1.0, 2.0)), ("shutter", (0.5, 1.0, 2.0)),
                                                 ("filmSpeed", (50, 100, 200))] for v in values]
             + [f"whitePoint.{v}" for v in (4000, 6500, 8000)])
    with image_test("ToneMapping", capture_names(names, "BlitPass.dst", "png"), media, tmp_path) as cap:
        png = lambda name: cap[f"{name}.BlitPass.dst.1.png"]  # noqa: E731
        # Each updatePass rebuilds the pass from the given keys only: these all equal the defaults.
        assert_identical(cap, [f"{n}.BlitPass.dst.1.png" for n in
                               ["default", "operator.ToneMapOp.Aces", "autoExposure.False", "exposureCompensation.0",
                                "fNumber.1.0", "shutter.1.0", "filmSpeed.100"]], "default settings")
        # Linear at exposure 1 is a clamp, so the capture is the image itself in 8-bit sRGB.
        assert_close(png("operator.ToneMapOp.Linear"), linear_to_srgb8(media.decoded["sky"]), 1, "Linear operator")
        assert_differ(png("operator.ToneMapOp.Linear"), png("default"), "Linear vs Aces")
        assert_differ(png("autoExposure.True"), png("default"), "autoExposure")
        assert_brighter(cap, [f"exposureCompensation.{v}.BlitPass.dst.1.png" for v in (-2, 0, 2)])
        assert_brighter(cap, [f"fNumber.{v}.BlitPass.dst.1.png" for v in (2.0, 1.0, 0.5)])
        assert_brighter(cap, [f"shutter.{v}.BlitPass.dst.1.png" for v in (2.0, 1.0, 0.5)])
        assert_brighter(cap, [f"filmSpeed.{v}.BlitPass.dst.1.png" for v in (50, 100, 200)])
        # Balancing for a warm (low-temperature) white point shifts colors toward blue.
        blueness = {k: float(np.mean(png(f"whitePoint.{k}")[..., 2] - png(f"whitePoint.{k}")[..., 0]))
                    for k in (4000, 6500, 8000)}
        assert blueness[4000] > blueness[6500] > blueness[8000], blueness


def gaussian_blur(image: np.ndarray, width: int, sigma: float) -> np.ndarray:
    """Falcor's separable blur away from the borders: taps exp(-i^2 / 2 sigma^2), i = -w/2..w/2,
    normalized; returns only the pixels whose taps all fall inside the image."""
    offsets = np.arange(width) - width // 2
    taps = np.exp(-offsets ** 2 / (2 * sigma ** 2))
    taps /= taps.sum()
    r = width // 2
    rows = sum(t * image[:, r + o:image.shape[1] - r + o] for t, o in zip(taps, offsets))
    return sum(t * rows[r + o:rows.shape[0] - r + o] for t, o in zip(taps, offsets))


def test_GaussianBlur(media, tmp_path):
    settings = {"default": (5, 2.0), "kernelWidth.5.sigma.1": (5, 1), "kernelWidth.9.sigma.1.5": (9, 1.5),
                "kernelWidth.15.sigma.2": (15, 2)}
    with image_test("GaussianBlur", capture_names(settings, "GaussianBlur.dst", "exr"), media, tmp_path) as cap:
        sky = media.decoded["sky"].astype(np.float64)
        for name, (width, sigma) in settings.items():
            r = width // 2
            blurred = cap[f"{name}.GaussianBlur.dst.1.exr"][r:-r, r:-r]
            assert_float_image(blurred, gaussian_blur(sky, width, sigma), f"blur {name}")


def test_CompositePass(media, tmp_path):
    scales = [(0.5, 1.5), (1.0, 1.0), (1.5, 0.5)]
    names = ["default", "mode.CompositeMode.Add", "mode.CompositeMode.Multiply"] + [
        f"scaleA.{a}.scaleB.{b}" for a, b in scales]
    with image_test("CompositePass", capture_names(names, "Composite.out", "exr"), media, tmp_path) as cap:
        exr = lambda name: cap[f"{name}.Composite.out.1.exr"]  # noqa: E731
        a, b = linear_inputs(media.decoded)
        assert_identical(cap, [f"{n}.Composite.out.1.exr" for n in ("default", "mode.CompositeMode.Add",
                                                                    "scaleA.1.0.scaleB.1.0")], "Add with unit scales")
        assert_float_image(exr("mode.CompositeMode.Add"), a + b, "Add")
        assert_float_image(exr("mode.CompositeMode.Multiply"), a * b, "Multiply")
        for sa, sb in scales:
            assert_float_image(exr(f"scaleA.{sa}.scaleB.{sb}"), sa * a + sb * b, f"Add, scales {sa}, {sb}")


def test_CrossFadePass(media, tmp_path):
    expected = capture_names(["default"], "CrossFade.out", "exr", frames=(10, 50))
    with image_test("CrossFadePass", expected, media, tmp_path) as cap:
        a, b = linear_inputs(media.decoded)
        for frame in (10, 50):
            # The n-th execution blends with mix = clamp((n - waitFrameCount 10) / fadeFrameCount 100, 0, 1).
            mix = np.clip((frame - 10) / 100, 0, 1)
            assert_float_image(cap[f"default.CrossFade.out.{frame}.exr"], (1 - mix) * a + mix * b, f"frame {frame}")


def color_map(values: np.ndarray, low: float, high: float, grey: bool = False) -> np.ndarray:
    """ColorMapPass output in 8-bit sRGB: values normalized to [low, high] (clamped), then Falcor's
    grey ramp or Matlab's jet, saturate(1.5 - |4x - (3, 2, 1)|)."""
    x = np.clip((values - low) / (high - low), 0, 1)[..., None]
    rgb = np.repeat(x, 3, axis=2) if grey else np.clip(1.5 - np.abs(4 * x - [3, 2, 1]), 0, 1)
    return linear_to_srgb8(rgb)


def test_ColorMapPass(media, tmp_path):
    maps = ["Grey", "Jet", "Viridis", "Plasma", "Magma", "Inferno"]
    ranges = [(0, 1), (1, 0), (0.25, 0.75)]
    names = (["default"] + [f"colorMap.ColorMap.{c}" for c in maps] + [f"colorMap.channel.{c}" for c in range(4)]
             + [f"minValue.{lo}.maxValue.{hi}" for lo, hi in ranges])
    expected = capture_names(names, "ColorMap.output", "png") | capture_names(
        ["colorMap.autoRange"], "ColorMap.output", "png", frames=(1, 2))
    with image_test("ColorMapPass", expected, media, tmp_path) as cap:
        png = lambda name, frame=1: cap[f"{name}.ColorMap.output.{frame}.png"]  # noqa: E731
        sky = np.concatenate([media.decoded["sky"], np.ones_like(media.decoded["sky"][..., :1])], axis=2)
        # The automatic range (on by default) comes from a reduction of the previous frame, so the
        # first frame after each updatePass maps the configured range; defaults: Jet, red, [0, 1].
        models = {"default": color_map(sky[..., 0], 0, 1), "colorMap.ColorMap.Jet": color_map(sky[..., 0], 0, 1),
                  "colorMap.ColorMap.Grey": color_map(sky[..., 0], 0, 1, grey=True)}
        models.update({f"colorMap.channel.{c}": color_map(sky[..., c], 0, 1) for c in range(4)})
        models.update({f"minValue.{lo}.maxValue.{hi}": color_map(sky[..., 0], lo, hi) for lo, hi in ranges})
        for name, model in models.items():
            assert_close(png(name), model, 1, name)
        for c in maps[2:]:
            assert_differ(png(f"colorMap.ColorMap.{c}"), png("colorMap.ColorMap.Jet"), f"{c} vs Jet")
        # Frame 2 has grown the range to the red channel's full range.
        red = sky[..., 0]
        assert_close(png("colorMap.autoRange"), color_map(red, 0.4, 0.6), 1, "auto range, frame 1")
        assert_close(png("colorMap.autoRange", 2), color_map(red, red.min(), red.max()), 1, "auto range, frame 2")


def comparison_model(decoded, split: int, left_shift: int = 0, right_shift: int = 0) -> np.ndarray:
    """SideBySide / SplitScreen output of the graphs' two posz loaders, 8-bit sRGB: left of `split`
    the left input at x + left_shift (bytes read as linear, so stored sRGB-encoded), from `split` on
    the right input at x + right_shift (decoded from sRGB, stored back unchanged); 0 past the input."""
    photo_bytes = decoded["posz"]
    sources = (linear_to_srgb8(photo_bytes / 255.0), photo_bytes)
    height, width, _ = photo_bytes.shape
    x = np.arange(width)
    out = np.zeros_like(photo_bytes)
    for side, (columns, source_x) in enumerate([(x < split, x + left_shift), (x >= split, x + right_shift)]):
        inside = columns & (source_x >= 0) & (source_x < width)
        out[:, inside] = sources[side][:, source_x[inside]]
    return out


def assert_comparison(actual, expected, split, what):
    """Equal within 8-bit rounding, away from the 2-pixel divider drawn at the split."""
    keep = np.abs(np.arange(actual.shape[1]) - split) >= 3
    assert_close(actual[:, keep], expected[:, keep], 1, what)


def test_SideBySide(media, tmp_path):
    names = ["default"] + [f"imageLeftBound.{v}" for v in (250, 500, 750)]
    with image_test("SideBySide", capture_names(names, "SideBySidePass.output", "png"), media, tmp_path) as cap:
        split = FRAME[0] // 2  # splitLocation defaults to half the width
        for name, bound in [("default", 0), ("imageLeftBound.250", 250), ("imageLeftBound.500", 500),
                            ("imageLeftBound.750", 750)]:
            # Both halves show their input from column imageLeftBound on (past the input: black).
            expected = comparison_model(media.decoded, split, left_shift=bound, right_shift=bound - split)
            assert_comparison(cap[f"{name}.SideBySidePass.output.1.png"], expected, split, name)


def test_SplitScreen(media, tmp_path):
    names = ["default"] + [f"splitLocation.{v}" for v in (0.5, 0.25, 0.75)]
    with image_test("SplitScreen", capture_names(names, "SplitScreenPass.output", "png"), media, tmp_path) as cap:
        for name, fraction in [("default", 0.5), ("splitLocation.0.5", 0.5), ("splitLocation.0.25", 0.25),
                               ("splitLocation.0.75", 0.75)]:
            split = int(fraction * FRAME[0])
            assert_comparison(cap[f"{name}.SplitScreenPass.output.1.png"], comparison_model(media.decoded, split),
                              split, name)


def test_SimplePostFX(media, tmp_path):
    names = ["default", "nobloom", "nochromatic", "nodistort", "fullydisabled"]
    with image_test("SimplePostFX", capture_names(names, "BlitPass.dst", "png"), media, tmp_path) as cap:
        png = lambda name: cap[f"{name}.BlitPass.dst.1.png"]  # noqa: E731
        well = media.decoded["well"].astype(np.float64)
        h, w, _ = well.shape
        halved = well.reshape(h // 2, 2, w // 2, 2, 3).mean(axis=(1, 3))  # bilinear blit to half size
        assert_close(png("fullydisabled"), linear_to_srgb8(halved), 1, "disabled: the loaded image")
        wiped = int(np.ceil(0.33 * FRAME[0]))  # x < wipe * width shows the unprocessed source
        assert_close(png("default")[:, :wiped], png("fullydisabled")[:, :wiped], 1, "wiped columns")
        for before, after in zip(names, names[1:]):
            assert_differ(png(before)[:, wiped:], png(after)[:, wiped:], f"{before} vs {after}")


def test_ModulateIllumination(media, tmp_path):
    expected = capture_names(["default"], "ModulateIllumination.output", "exr")
    with image_test("ModulateIllumination", expected, media, tmp_path) as cap:
        a, b = linear_inputs(media.decoded)
        # diffuse radiance B times reflectance A, plus specular radiance B (no specular reflectance).
        assert_float_image(cap["default.ModulateIllumination.output.1.exr"], a * b + b, "output")


def test_FLIPPass(media, tmp_path):
    names = (["default", "useMagma.False", "useMagma.True", "isHDR.False", "isHDR.True"]
             + [f"toneMapper.FLIPToneMapperType.{t}" for t in ("ACES", "Hable", "Reinhard")])
    with image_test("FLIPPass", capture_names(names, "FLIP.errorMapDisplay", "png"), media, tmp_path) as cap:
        png = lambda name: cap[f"{name}.FLIP.errorMapDisplay.1.png"]  # noqa: E731
        assert_identical(cap, [f"{n}.FLIP.errorMapDisplay.1.png" for n in
                               ("default", "useMagma.True", "isHDR.False")], "LDR with magma (defaults)")
        assert_identical(cap, [f"{n}.FLIP.errorMapDisplay.1.png" for n in
                               ("isHDR.True", "toneMapper.FLIPToneMapperType.ACES")], "HDR with ACES")
        grey = png("useMagma.False")
        assert np.array_equal(grey[..., 0], grey[..., 1]) and np.array_equal(grey[..., 1], grey[..., 2]), "no magma"
        assert np.max(grey) > 0, "the two loaders differ, so the error can't be 0 everywhere"
        assert_differ(png("isHDR.True"), png("default"), "HDR vs LDR")
        for t in ("Hable", "Reinhard"):
            assert_differ(png(f"toneMapper.FLIPToneMapperType.{t}"), png("isHDR.True"), f"{t} vs ACES")


# ---------------------------------------------------------------------------------------------
# Path tracers and material viewers (stand-in scenes: see write_scene_stand_ins)

PT_OUTPUTS = [("color", "exr"), ("albedo", "png"), ("specularAlbedo", "png"), ("indirectAlbedo", "png"), ("guideNormal", "exr"),
              ("reflectionPosW", "exr"), ("rayCount", "exr"), ("pathLength", "exr")]


def tone_mapped(name, frame, ext="png"):
    return {f"{name}.ToneMapper.dst.{frame}.{ext}", f"{name}.ToneMapper.dst.{frame}.A.{ext}"}


def roughness_of(image):
    """Mean absolute Laplacian of the luminance: pixel noise."""
    lum = image[..., :3].mean(axis=-1)
    return float(np.abs(4 * lum[1:-1, 1:-1] - lum[:-2, 1:-1] - lum[2:, 1:-1] - lum[1:-1, :-2] - lum[1:-1, 2:]).mean())


def test_MinimalPathTracer(media, tmp_path):
    with image_test("MinimalPathTracer", tone_mapped("default", 128, "exr"), media, tmp_path) as cap:
        img = cap["default.ToneMapper.dst.128.exr"]
        assert np.isfinite(img).all() and img.mean() > 0.01
        np.testing.assert_array_equal(cap["default.ToneMapper.dst.128.A.exr"][..., 0], 1.0)  # Alpha, captured alone.


def test_PathTracer(media, tmp_path):
    expected = tone_mapped("default", 1) | {f"default.PathTracer.{o}.1.{e}" for o, e in PT_OUTPUTS}
    with image_test("PathTracer", expected, media, tmp_path) as cap:
        color = cap["default.PathTracer.color.1.exr"]
        assert np.isfinite(color).all() and color.mean() > 0.01
        # (rayCount and pathLength are captured as Falcor captures unsigned words: word / (2^32 - 1) in half floats.)
        assert cap["default.PathTracer.albedo.1.png"].mean() > 10
        normals = cap["default.PathTracer.guideNormal.1.exr"]
        lengths = np.linalg.norm(normals, axis=-1)
        assert np.abs(lengths[lengths > 0.5] - 1).max() < 1e-2  # Unit guide normals where there is geometry.


def test_PathTracerDielectrics(media, tmp_path):
    with image_test("PathTracerDielectrics", tone_mapped("default", 1) | tone_mapped("default", 256), media, tmp_path) as cap:
        first, converged = cap["default.ToneMapper.dst.1.png"], cap["default.ToneMapper.dst.256.png"]
        assert converged.mean() > 5
        assert roughness_of(converged) < 0.5 * roughness_of(first)  # Accumulation removes most of the noise.


def test_PathTracerMaterials(media, tmp_path):
    names = ["material_test", "materials", "light_leaks", "alpha_test", "alpha_test_disabled"]
    with image_test("PathTracerMaterials", set().union(*(tone_mapped(n, 16) for n in names)), media, tmp_path) as cap:
        for n in names:
            assert cap[f"{n}.ToneMapper.dst.16.png"].mean() > 2, n
        # Without the alpha test the cut-out parts of the leaves become opaque: the images differ.
        cut, opaque = cap["alpha_test.ToneMapper.dst.16.png"], cap["alpha_test_disabled.ToneMapper.dst.16.png"]
        assert (np.abs(cut - opaque).max(axis=-1) > 40).mean() > 0.002, "useAlphaTest False should fill the cut-outs"


def test_PathTracerAdaptive(media, tmp_path):
    with image_test("PathTracerAdaptive", tone_mapped("default", 16), media, tmp_path) as cap:
        img = cap["default.ToneMapper.dst.16.png"][..., :3]
        quarter = FRAME[0] // 4
        assert not img[:, :quarter].any()  # Density 0: no samples, black.
        assert img[:, quarter:].mean() > 5


def test_PathTracerReload(media, tmp_path):
    expected = set().union(*(tone_mapped(n, 1) | {f"{n}.PathTracer.{o}.1.{e}" for o, e in PT_OUTPUTS}
                             for n in ("cornell_box", "nested_dielectrics")))
    with image_test("PathTracerReload", expected, media, tmp_path) as cap:
        a, b = cap["cornell_box.PathTracer.color.1.exr"], cap["nested_dielectrics.PathTracer.color.1.exr"]
        assert a.mean() > 0.01 and b.mean() > 0.01 and np.isfinite(a).all() and np.isfinite(b).all()
        assert_differ(cap["cornell_box.ToneMapper.dst.1.png"], cap["nested_dielectrics.ToneMapper.dst.1.png"], "scene reload")


def test_BSDFViewer(media, tmp_path):
    with image_test("BSDFViewer", {"default.AccumulatePass.output.64.exr"}, media, tmp_path) as cap:
        img = cap["default.AccumulatePass.output.64.exr"]
        # White background light around the sphere; the Arcade floor material scatters less than all of it.
        np.testing.assert_allclose(img[0, 0], 1.0, rtol=1e-3)
        center = img[FRAME[1] // 2 - 20:FRAME[1] // 2 + 20, FRAME[0] // 2 - 20:FRAME[0] // 2 + 20]
        assert 0.2 < center.mean() < 1.0


def test_TextureLOD(media, tmp_path):
    names = [f"texLODMode.{m}" for m in ("Mip0", "RayCones", "RayDiffs")]
    with image_test("TextureLOD", capture_names(names, "ToneMapper.dst", "png"), media, tmp_path) as cap:
        mip0 = cap["texLODMode.Mip0.ToneMapper.dst.1.png"]
        assert mip0.mean() > 2
        for mode in ("RayCones", "RayDiffs"):  # Coarser mips on the receding floor.
            assert roughness_of(cap[f"texLODMode.{mode}.ToneMapper.dst.1.png"]) < roughness_of(mip0), mode


def test_run_only_mode_renders_without_capturing(media, tmp_path):
    # The runner's run-only mode: the script runs to its end but render_frames captures nothing.
    with image_test("ModulateIllumination", set(), media, tmp_path, run_only=True):
        pass
