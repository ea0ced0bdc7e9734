"""CrossFade (Utils): out = (1-mix)*A + mix*B with a frame-driven or fixed mix."""
import numpy as np
import pytest

import falcor
from helpers import ArraySource, read_texture, run_pass

RNG = np.random.default_rng(11)
A = RNG.random((4, 5, 4), dtype=np.float32)
B = RNG.random((4, 5, 4), dtype=np.float32)


def auto_mix(frame: int, wait: int, fade: int) -> np.float32:
    """Falcor's ramp; `frame` is 1 on the first execution after a reset."""
    return np.clip((np.float32(frame) - np.float32(wait)) / np.float32(fade), 0, 1).astype(np.float32)


def faded(mix) -> np.ndarray:
    mix = np.float32(mix)
    return (np.float32(1) - mix) * A + mix * B


def make_graph(props):
    ArraySource.images["fade_a"], ArraySource.images["fade_b"] = A, B
    g = falcor.RenderGraph("fade")
    g.create_pass("SrcA", "ArraySource", {"key": "fade_a"})
    g.create_pass("SrcB", "ArraySource", {"key": "fade_b"})
    g.create_pass("Fade", "CrossFade", props)
    g.add_edge("SrcA.out", "Fade.A")
    g.add_edge("SrcB.out", "Fade.B")
    g.mark_output("Fade.out")
    g.resize(5, 4)
    return g


def run_frames(g, n):
    for _ in range(n):
        g.execute()
    return read_texture(g.get_output("Fade.out"))


def test_auto_fade_ramp_over_frames():
    g = make_graph({"waitFrameCount": 2, "fadeFrameCount": 4})
    frame = 0
    for step in [1, 1, 1, 1, 2, 1, 3]:
        out = run_frames(g, step)
        frame += step
        np.testing.assert_allclose(out, faded(auto_mix(frame, 2, 4)), rtol=1e-6, atol=1e-7)
    assert frame == 10


@pytest.mark.parametrize("frames", [1, 10, 11, 60, 110, 150])
def test_default_wait_and_fade(frames):
    out = run_pass("CrossFade", {}, {"A": A, "B": B}, ["out"], frames=frames)["out"]
    np.testing.assert_allclose(out, faded(auto_mix(frames, 10, 100)), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("factor,mix", [(0.3, 0.3), (0.0, 0.0), (1.7, 1.0), (-0.5, 0.0)])
def test_fixed_fade_factor(factor, mix):
    out = run_pass("CrossFade", {"enableAutoFade": False, "fadeFactor": factor}, {"A": A, "B": B}, ["out"], frames=3)["out"]
    np.testing.assert_allclose(out, faded(mix), rtol=1e-6, atol=1e-7)


def test_missing_inputs_read_as_zero():
    props = {"enableAutoFade": False, "fadeFactor": 0.25}
    only_a = run_pass("CrossFade", props, {"A": A}, ["out"])["out"]
    only_b = run_pass("CrossFade", props, {"B": B}, ["out"])["out"]
    np.testing.assert_allclose(only_a, np.float32(0.75) * A, rtol=1e-6)
    np.testing.assert_allclose(only_b, np.float32(0.25) * B, rtol=1e-6)
    assert not run_pass("CrossFade", props, {}, ["out"], size=(3, 2))["out"].any()


def test_resize_restarts_the_fade_but_other_recompiles_do_not():
    g = make_graph({"waitFrameCount": 1, "fadeFrameCount": 8})
    run_frames(g, 5)
    g.mark_output("SrcA.out")  # recompiles at the same size: the count goes on
    np.testing.assert_allclose(run_frames(g, 1), faded(auto_mix(6, 1, 8)), rtol=1e-6, atol=1e-7)
    g.resize(3, 2)
    out = run_frames(g, 2)
    assert out.shape == (2, 3, 4)
    np.testing.assert_allclose(out, faded(auto_mix(2, 1, 8))[:2, :3], rtol=1e-6, atol=1e-7)


def test_integer_output_is_rejected():
    with pytest.raises(falcor.RuntimeError, match="integer"):
        run_pass("CrossFade", {"outputFormat": "R32Uint"}, {"A": A}, ["out"])


def test_half_output_format():
    out = run_pass("CrossFade", {"outputFormat": "RGBA16Float", "enableAutoFade": False}, {"A": A, "B": B}, ["out"])["out"]
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out, faded(0.5).astype(np.float16))


def test_properties_round_trip_and_order():
    g = falcor.RenderGraph("props")
    props = {"fadeFactor": 0.2, "enableAutoFade": False, "waitFrameCount": 3, "fadeFrameCount": 7, "outputFormat": "RGBA16Float"}
    d = g.create_pass("F", "CrossFade", props).getDictionary()
    assert list(d) == ["outputFormat", "enableAutoFade", "waitFrameCount", "fadeFrameCount", "fadeFactor"]
    assert d["fadeFactor"] == pytest.approx(0.2) and d["waitFrameCount"] == 3 and d["enableAutoFade"] is False
    g.update_pass("F", d)
    assert g.get_pass("F").getDictionary() == d
    assert g.create_pass("D", "CrossFade", {}).getDictionary() == {
        "outputFormat": "RGBA32Float", "enableAutoFade": True, "waitFrameCount": 10, "fadeFrameCount": 100, "fadeFactor": 0.5}
    assert "outputFormat" not in g.create_pass("U", "CrossFade", {"outputFormat": "Unknown"}).getDictionary()


def test_unknown_key_warns_and_wrong_types_raise(capfd):
    falcor.RenderGraph("w").create_pass("F", "CrossFade", {"fadeCrossTest": 1})
    assert "Unknown property 'fadeCrossTest' in CrossFade properties." in capfd.readouterr().out
    for bad in [{"enableAutoFade": 1}, {"waitFrameCount": -1}, {"fadeFactor": "half"}, {"outputFormat": 3}]:
        with pytest.raises(falcor.RuntimeError):
            falcor.RenderGraph("t").create_pass("F", "CrossFade", bad)
