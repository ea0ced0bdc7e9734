"""Same graph, same bits, on any thread count."""
import numpy as np
import pytest

import falcor
from helpers import ArraySource, read_texture


def render(threads: int) -> dict:
    falcor.set_thread_count(threads)
    try:
        rng = np.random.default_rng(7)
        ArraySource.images["det"] = (rng.random((67, 93, 4), dtype=np.float32) * 4).astype(np.float32)
        ArraySource.images["det-ref"] = rng.random((67, 93, 4), dtype=np.float32)
        g = falcor.RenderGraph("Det")
        g.create_pass("Src", "ArraySource", {"key": "det"})
        g.create_pass("Ref", "ArraySource", {"key": "det-ref"})
        g.create_pass("Acc", "AccumulatePass", {"precisionMode": "SingleCompensated"})
        g.create_pass("Blur", "GaussianBlur", {"kernelWidth": 9, "sigma": 3.0})
        g.create_pass("FX", "SimplePostFX", {"bloomAmount": 0.4, "starAmount": 0.2, "vignetteAmount": 0.3})
        g.create_pass("TM", "ToneMapper", {"autoExposure": True, "outputFormat": "RGBA32Float"})
        g.create_pass("Map", "ColorMapPass", {"autoRange": True})
        g.create_pass("Flip", "FLIPPass", {"isHDR": True, "computePooledFLIPValues": True})
        g.add_edge("Src.out", "Acc.input")
        g.add_edge("Acc.output", "Blur.src")
        g.add_edge("Blur.dst", "FX.src")
        g.add_edge("FX.dst", "TM.src")
        g.add_edge("TM.dst", "Map.input")
        g.add_edge("FX.dst", "Flip.testImage")
        g.add_edge("Ref.out", "Flip.referenceImage")
        for o in ("TM.dst", "Map.output", "Flip.errorMap"):
            g.mark_output(o)
        g.resize(93, 67, falcor.ResourceFormat.RGBA32Float)
        for _ in range(3):
            g.execute()
        return {o: read_texture(g.get_output(o)).tobytes() for o in ("TM.dst", "Map.output", "Flip.errorMap")}
    finally:
        falcor.set_thread_count(2)


def test_bit_identical_on_one_and_two_threads():
    one, two = render(1), render(2)
    for name in one:
        assert one[name] == two[name], f"{name} differs between 1 and 2 threads"


def test_thread_count_setting():
    falcor.set_thread_count(1)
    assert falcor.get_thread_count() == 1
    falcor.set_thread_count(2)
    assert falcor.get_thread_count() == 2
