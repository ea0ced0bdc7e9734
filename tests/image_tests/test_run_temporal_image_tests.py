"""Falcor's TAA and SVGF image tests through `mogwai` (test_TAA.py, test_SVGF.py), run and checked
like the others in test_run_image_tests.py, whose runner and stand-in media they use."""
from __future__ import annotations

import numpy as np

from .test_run_image_tests import capture_names, image_test, media  # noqa: F401 (media is a fixture)

FRAMES = (1, 16, 64)


def high_frequency(img: np.ndarray) -> float:
    """Mean absolute difference between an image and its 3x3 box blur: the pixel-scale noise."""
    padded = np.pad(img, ((1, 1), (1, 1), (0, 0)), mode="edge")
    h, w = img.shape[:2]
    blurred = sum(padded[dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3)) / 9
    return float(np.abs(img - blurred).mean())


def test_TAA(media, tmp_path):
    names = ["default"] + [f"alpha.{v}" for v in (0.0, 0.5, 1.0)] + [f"colorBoxSigma.{v}" for v in (0.0, 7.5, 15.0)]
    with image_test("TAA", capture_names(names, "TAA.colorOut", "png", FRAMES), media, tmp_path) as cap:
        for name in names:
            for frame in FRAMES:
                assert cap[f"{name}.TAA.colorOut.{frame}.png"][..., :3].max() > 0, (name, frame)
        # The history starts black: the first frame is darker than later ones.
        assert cap["default.TAA.colorOut.1.png"].mean() < cap["default.TAA.colorOut.16.png"].mean()
        # A color box of zero size clamps the history to the neighbourhood mean, so the output depends
        # only on the current frame; frames 16 and 64 have the same Halton jitter (16 samples).
        np.testing.assert_array_equal(cap["colorBoxSigma.0.0.TAA.colorOut.16.png"], cap["colorBoxSigma.0.0.TAA.colorOut.64.png"])


SVGF_OUTPUTS = [("SVGFPass.Filtered image", "exr"), ("PathTracer.color", "exr"), ("PathTracer.albedo", "png"), ("GBufferRaster.posW", "exr"),
                ("GBufferRaster.guideNormalW", "exr"), ("GBufferRaster.emissive", "exr"), ("GBufferRaster.pnFwidth", "exr"),
                ("GBufferRaster.linearZ", "exr"), ("GBufferRaster.mvec", "exr")]


def test_SVGF(media, tmp_path):
    expected = set().union(*(capture_names(["default"], output, ext, FRAMES) for output, ext in SVGF_OUTPUTS))
    with image_test("SVGF", expected, media, tmp_path) as cap:
        for frame in FRAMES:
            filtered, noisy = cap[f"default.SVGFPass.Filtered image.{frame}.exr"], cap[f"default.PathTracer.color.{frame}.exr"]
            assert np.isfinite(filtered).all()
            # SVGF removes most pixel-scale noise and keeps the image's brightness.
            assert high_frequency(filtered) < 0.5 * high_frequency(noisy), frame
            assert abs(filtered.mean() - noisy.mean()) < 0.1 * noisy.mean(), frame
