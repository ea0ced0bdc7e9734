"""AccumulatePass: running averages checked bit for bit against numpy versions of Falcor's
Accumulate.cs.slang formulas, overflow modes, resets, pass-through and option handling."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import falcor
from helpers import read_texture

F32 = np.float32


class SequenceSource(falcor.RenderPass):
    """Outputs frame `i % len(frames)` of a registered sequence on its i-th execution."""

    sequences: dict[str, np.ndarray] = {}

    def __init__(self, props):
        super().__init__()
        self.key = props["key"]
        self.format = props.get("format", "RGBA32Float")
        self.counter = 0

    def reflect(self, compile_data):
        h, w = self.sequences[self.key].shape[1:3]
        r = falcor.RenderPassReflection()
        r.add_output("out", "frame").format(getattr(falcor.ResourceFormat, self.format)).texture2D(w, h)
        return r

    def execute(self, render_context, render_data):
        frames = self.sequences[self.key]
        out = np.asarray(render_data["out"])
        out[...] = frames[self.counter % len(frames)].reshape(out.shape)
        self.counter += 1

    def get_properties(self):
        return {"key": self.key, "format": self.format}


falcor.register_render_pass(SequenceSource, "SequenceSource", "Test source of changing frames")
_keys = itertools.count()


def add_sequence(frames: np.ndarray) -> str:
    key = f"seq{next(_keys)}"
    SequenceSource.sequences[key] = frames
    return key


def make_graph(frames: np.ndarray, props: dict | None = None, fmt: str = "RGBA32Float"):
    """Graph SequenceSource -> AccumulatePass 'Acc' with `Acc.output` marked; sized like the frames."""
    g = falcor.RenderGraph("accumulate")
    g.create_pass("Src", "SequenceSource", {"key": add_sequence(frames), "format": fmt})
    acc = g.create_pass("Acc", "AccumulatePass", props or {})
    g.add_edge("Src.out", "Acc.input")
    g.mark_output("Acc.output")
    g.resize(frames.shape[2], frames.shape[1])
    return g, acc


def run_frames(g, count: int) -> list[np.ndarray]:
    outputs = []
    for _ in range(count):
        g.execute()
        outputs.append(read_texture(g.get_output("Acc.output")))
    return outputs


def random_frames(count, h=5, w=7, seed=0, scale=1.0):
    return (np.random.default_rng(seed).random((count, h, w, 4)) * scale).astype(F32)


# ---- Independent numpy model of Falcor's shader and frame bookkeeping --------------------------

def reference(frames, mode="Single", max_frames=0, overflow="Stop"):
    """Outputs Falcor's AccumulatePass produces for `frames` (float32 inputs, RGBA)."""
    outputs, n = [], 0
    moving_average = max_frames > 0
    s = c = None
    for x in frames:
        if max_frames and n == max_frames:
            if overflow == "Stop":
                outputs.append(outputs[-1])
                continue
            if overflow == "Reset":
                n = 0
        if n == 0:
            s = np.zeros(x.shape, np.float64 if mode == "Double" else F32)
            c = np.zeros(x.shape, F32)
        w = F32(1) / F32(n + 1)  # float weight, also in Double mode
        if mode == "Single":
            s = s + (x - s) * w if moving_average else s + x
            out = s if moving_average else s * w
        elif mode == "SingleCompensated":
            y = x - c
            t = s + y
            c = (t - s) - y
            s = t
            out = t / F32(n + 1)
        else:
            w64 = np.float64(w)
            s = s * (1.0 - w64) + x.astype(np.float64) * w64 if moving_average else s + x.astype(np.float64)
            out = (s if moving_average else s * w64).astype(F32)
        outputs.append(out)
        if max_frames == 0 or mode == "SingleCompensated" or n < max_frames:
            n += 1
    return outputs


# ---- Averaging -------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["Single", "SingleCompensated", "Double"])
def test_running_mean_bit_exact(mode):
    frames = random_frames(9)
    g, _ = make_graph(frames, {"precisionMode": mode})
    got = run_frames(g, len(frames))
    for k, (out, ref) in enumerate(zip(got, reference(frames, mode))):
        assert out.dtype == F32 and out.shape == frames[0].shape
        np.testing.assert_array_equal(out, ref, err_msg=f"frame {k}")
        np.testing.assert_allclose(out, frames[: k + 1].astype(np.float64).mean(axis=0), rtol=1e-6, atol=1e-7)


def test_single_stores_sum_and_multiplies_by_reciprocal():
    # Falcor keeps the float sum and scales it by the float 1/N: with these values that differs
    # from dividing by N in the last bit, which pins down the formula.
    frames = np.full((3, 1, 1, 4), [0.1, 0.7, 1.3, 2.9], F32)
    g, _ = make_graph(frames)
    out = run_frames(g, 3)[-1]
    s = frames[0] + frames[1] + frames[2]
    np.testing.assert_array_equal(out, s * (F32(1) / F32(3)))
    assert not np.array_equal(s * (F32(1) / F32(3)), s / F32(3))


def long_small_increments(count=3000):
    """A big first value followed by many small ones: float sums lose the small increments."""
    frames = np.full((count, 2, 2, 4), 1e-3, F32)
    frames[:, 1, 1, :] = 3.7e-4
    frames[0] = 100.0
    return frames


def test_compensated_and_double_beat_single_on_small_increments():
    frames = long_small_increments()
    exact = frames.astype(np.float64).mean(axis=0)
    errors = {}
    for mode in ["Single", "SingleCompensated", "Double"]:
        g, _ = make_graph(frames, {"precisionMode": mode})
        for _ in range(len(frames)):
            g.execute()
        out = read_texture(g.get_output("Acc.output"))
        np.testing.assert_array_equal(out, reference(frames, mode)[-1])
        errors[mode] = np.abs(out - exact).max() / np.abs(exact).max()
    assert errors["Single"] > 1e-4
    assert errors["SingleCompensated"] < 1e-6
    assert errors["Double"] < 1e-6
    assert errors["SingleCompensated"] < errors["Single"] / 100


def test_integer_input_is_accumulated_as_float():
    frames = np.random.default_rng(3).integers(0, 1000, (4, 3, 5), dtype=np.uint32)
    g, _ = make_graph(frames, fmt="R32Uint")
    out = run_frames(g, 4)[-1]
    rgba = np.zeros(frames.shape + (4,), F32)
    rgba[..., 0] = frames
    rgba[..., 3] = 1  # missing alpha reads as 1
    np.testing.assert_array_equal(out, reference(rgba)[-1])


# ---- Frame limit and overflow ----------------------------------------------------------------

@pytest.mark.parametrize("mode", ["Single", "Double", "SingleCompensated"])
@pytest.mark.parametrize("overflow", ["Stop", "Reset", "EMA"])
def test_max_frame_count_overflow_modes(mode, overflow):
    frames = random_frames(9, seed=5)
    g, _ = make_graph(frames, {"precisionMode": mode, "maxFrameCount": 3, "overflowMode": overflow})
    got = run_frames(g, len(frames))
    for k, (out, ref) in enumerate(zip(got, reference(frames, mode, 3, overflow))):
        np.testing.assert_array_equal(out, ref, err_msg=f"frame {k}")


def test_overflow_semantics():
    frames = random_frames(6, seed=6)
    mean3 = frames[:3].astype(np.float64).mean(axis=0)

    g, _ = make_graph(frames, {"maxFrameCount": 3, "overflowMode": "Stop"})
    out = run_frames(g, 6)
    for k in range(3, 6):  # the image is kept
        np.testing.assert_array_equal(out[k], out[2])
    np.testing.assert_allclose(out[2], mean3, rtol=1e-6)

    g, _ = make_graph(frames, {"maxFrameCount": 3, "overflowMode": "Reset"})
    out = run_frames(g, 6)
    np.testing.assert_array_equal(out[3], frames[3])  # a fresh start
    np.testing.assert_allclose(out[5], frames[3:6].astype(np.float64).mean(axis=0), rtol=1e-6)

    g, _ = make_graph(frames, {"maxFrameCount": 3, "overflowMode": "EMA"})
    out = run_frames(g, 6)
    for k in range(3, 6):  # constant weight 1/(maxFrameCount+1) from the limit on
        np.testing.assert_allclose(out[k], out[k - 1] + (frames[k] - out[k - 1]) / 4, rtol=1e-6)


# ---- Resets ----------------------------------------------------------------------------------

def test_reset_method_restarts_accumulation():
    frames = random_frames(5, seed=7)
    g, acc = make_graph(frames)
    run_frames(g, 3)
    assert acc.reset() is None
    out = run_frames(g, 2)
    np.testing.assert_array_equal(out[0], frames[3])
    np.testing.assert_array_equal(out[1], reference(frames[3:5])[-1])


def test_enabled_attribute_toggle_resets():
    frames = random_frames(6, seed=8)
    g, acc = make_graph(frames, {"enabled": False})
    assert acc.enabled is False
    out = run_frames(g, 2)
    np.testing.assert_array_equal(out[1], frames[1])  # disabled: plain copy
    acc.enabled = True
    assert acc.enabled is True
    assert g.get_pass("Acc").getDictionary()["enabled"] is True
    out = run_frames(g, 3)
    np.testing.assert_array_equal(out[-1], reference(frames[2:5])[-1])
    acc.enabled = True  # no change: no reset
    np.testing.assert_array_equal(run_frames(g, 1)[0], reference(frames[2:6])[-1])


def test_resolution_change_resets():
    frames = random_frames(3, seed=9)
    g, _ = make_graph(frames)
    run_frames(g, 3)
    bigger = random_frames(2, h=6, w=9, seed=10)
    g.update_pass("Src", {"key": add_sequence(bigger)})
    g.resize(9, 6)
    out = run_frames(g, 2)
    np.testing.assert_array_equal(out[0], bigger[0])
    np.testing.assert_array_equal(out[1], reference(bigger)[-1])


# ---- Disabled / size mismatch ----------------------------------------------------------------

def test_disabled_with_other_size_blits_bilinearly():
    frames = random_frames(2, h=6, w=8, seed=11)
    g, _ = make_graph(frames, {"enabled": False, "outputSize": "Fixed", "fixedOutputSize": [4, 3]})
    out = run_frames(g, 2)[-1]
    # Halving: bilinear taps at output texel centers average 2x2 blocks.
    expected = frames[1].reshape(3, 2, 4, 2, 4).mean(axis=(1, 3))
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_size_mismatch_while_enabled_disables_pass(capfd):
    frames = random_frames(2, h=6, w=8, seed=12)
    g, acc = make_graph(frames, {"outputSize": "Fixed", "fixedOutputSize": [4, 3]})
    out = run_frames(g, 1)[0]
    assert "AccumulatePass I/O sizes don't match. The pass will be disabled." in capfd.readouterr().out
    assert acc.enabled is False
    np.testing.assert_allclose(out, frames[0].reshape(3, 2, 4, 2, 4).mean(axis=(1, 3)), rtol=1e-6)


def test_disabled_integer_input(capfd):
    # Integers can't be blitted: same size -> converted copy; other size -> cleared with a warning.
    frames = np.random.default_rng(14).integers(0, 1000, (2, 4, 6), dtype=np.uint32)
    g, _ = make_graph(frames, {"enabled": False}, fmt="R32Uint")
    out = run_frames(g, 2)[-1]
    np.testing.assert_array_equal(out[..., 0], frames[1])
    np.testing.assert_array_equal(out[..., 3], 1)
    g, _ = make_graph(frames, {"enabled": False, "outputSize": "Fixed", "fixedOutputSize": [3, 2]}, fmt="R32Uint")
    np.testing.assert_array_equal(run_frames(g, 1)[0], 0)
    assert "AccumulatePass unsupported I/O configuration. The output will be cleared." in capfd.readouterr().out


def test_half_output_size():
    frames = random_frames(1, h=6, w=8)
    g, _ = make_graph(frames, {"enabled": False, "outputSize": "Half"})
    assert run_frames(g, 1)[0].shape == (3, 4, 4)


def test_integer_output_format_rejected():
    g, _ = make_graph(random_frames(1), {"outputFormat": "RGBA32Uint"})
    with pytest.raises(falcor.RuntimeError, match="integer format"):
        g.execute()


def test_normalized_output_format():
    frames = random_frames(2, seed=13)
    g, _ = make_graph(frames, {"outputFormat": "RGBA16Float"})
    out = run_frames(g, 2)[-1]
    assert g.get_output("Acc.output").format == falcor.ResourceFormat.RGBA16Float
    np.testing.assert_array_equal(out, reference(frames)[-1].astype(np.float16))


# ---- Options ---------------------------------------------------------------------------------

def test_defaults_and_round_trip():
    g = falcor.RenderGraph("props")
    g.create_pass("A", "AccumulatePass")
    assert g.get_pass("A").getDictionary() == {
        "enabled": True, "outputSize": "Default", "autoReset": True, "precisionMode": "Single",
        "maxFrameCount": 0, "overflowMode": "Stop"}
    props = {"enabled": False, "outputFormat": "RGBA16Float", "outputSize": "Fixed", "fixedOutputSize": [64, 32],
             "autoReset": False, "precisionMode": "SingleCompensated", "maxFrameCount": 12, "overflowMode": "EMA"}
    g.create_pass("B", "AccumulatePass", dict(reversed(props.items())))
    d = g.get_pass("B").getDictionary()
    assert d == props and list(d) == list(props)  # Falcor's key order
    g.update_pass("B", d)
    assert g.get_pass("B").getDictionary() == d
    g.update_pass("B", {"outputSize": "Half", "fixedOutputSize": [64, 32]})
    assert "fixedOutputSize" not in g.get_pass("B").getDictionary()


def test_deprecated_enable_accumulation(capfd):
    g = falcor.RenderGraph("dep")
    assert g.create_pass("A", "AccumulatePass", {"enableAccumulation": False}).enabled is False
    assert "'enableAccumulation' is deprecated" in capfd.readouterr().out
    assert g.create_pass("B", "AccumulatePass", {"enabled": True, "enableAccumulation": False}).enabled is True
    assert "enableAccumulation" not in g.get_pass("B").getDictionary()


def test_unknown_key_and_wrong_types(capfd):
    g = falcor.RenderGraph("bad")
    g.create_pass("A", "AccumulatePass", {"precision": "Double"})
    assert "Unknown property 'precision' in AccumulatePass properties." in capfd.readouterr().out
    with pytest.raises(falcor.RuntimeError, match="enabled"):
        g.create_pass("B", "AccumulatePass", {"enabled": 1})
    with pytest.raises(falcor.RuntimeError, match="Invalid enum name 'Fast'"):
        g.create_pass("C", "AccumulatePass", {"precisionMode": "Fast"})
    with pytest.raises(falcor.RuntimeError, match="Invalid enum name"):
        g.create_pass("D", "AccumulatePass", {"overflowMode": "stop"})
    acc = g.create_pass("E", "AccumulatePass")
    with pytest.raises(falcor.RuntimeError):
        acc.enabled = "yes"
