"""ErrorMeasurePass: difference image and error averages against numpy (Falcor's ErrorMeasurer.cs.slang
and ErrorMeasurePass.cpp: |source - reference|, squared for L2, optional RGB mean, background pixels
zeroed, average over all pixels, exponential running error), loaded references, CSV log, properties."""
import re

import numpy as np
import pytest

import falcor
from falcor import image_io
from helpers import ArraySource, run_pass

H, W = 12, 16
RNG = np.random.default_rng(3)
SOURCE = RNG.random((H, W, 4), dtype=np.float32)
REFERENCE = RNG.random((H, W, 4), dtype=np.float32)
POSITION = np.concatenate([RNG.random((H, W, 3)), (RNG.random((H, W, 1)) < 0.6)], -1).astype(np.float32)


def difference(source, reference, squared=True, average=False, foreground=None):
    d = np.abs(source[..., :3].astype(np.float64) - reference[..., :3])
    if squared:
        d = d * d
    if average:
        d = np.repeat(d.mean(-1, keepdims=True), 3, -1)
    if foreground is not None:
        d = d * foreground[..., None]
    return d


def frame_error(diff):
    """Per-channel mean over all pixels (background included), and its RGB mean."""
    rgb = diff.reshape(-1, 3).mean(0)
    return rgb, rgb.mean()


class Graph:
    """ErrorMeasurePass fed by ArraySources whose images can change between frames."""

    def __init__(self, props, inputs):
        self.g = falcor.RenderGraph("err")
        self.p = self.g.create_pass("E", "ErrorMeasurePass", props)
        self.keys = {}
        for field, img in inputs.items():
            self.keys[field] = f"err_{id(self)}_{field}"
            ArraySource.images[self.keys[field]] = img
            self.g.create_pass(f"S{field}", "ArraySource", {"key": self.keys[field]})
            self.g.add_edge(f"S{field}.out", f"E.{field}")
        self.g.resize(W, H)
        self.g.mark_output("E.Output")

    def run(self, **images):
        for field, img in images.items():
            ArraySource.images[self.keys[field]][...] = img
        self.g.execute()
        return np.array(self.g.get_output("E.Output"))


@pytest.mark.parametrize("squared", [True, False])
@pytest.mark.parametrize("average", [False, True])
def test_difference_image_and_error(squared, average):
    props = {"ComputeSquaredDifference": squared, "ComputeAverage": average, "SelectedOutputId": "Difference",
             "ReportRunningError": False}
    g = Graph(props, {"Source": SOURCE.copy(), "Reference": REFERENCE.copy()})
    out = g.run()
    diff = difference(SOURCE, REFERENCE, squared, average)
    np.testing.assert_allclose(out[..., :3], diff, rtol=1e-6, atol=1e-7)
    assert np.all(out[..., 3] == 0)
    rgb, avg = frame_error(diff)
    np.testing.assert_allclose(g.p.error, rgb, rtol=1e-5)
    assert g.p.avgError == pytest.approx(avg, rel=1e-5)


def test_ignore_background():
    inputs = {"Source": SOURCE, "Reference": REFERENCE, "WorldPosition": POSITION}
    out = run_pass("ErrorMeasurePass", {"SelectedOutputId": "Difference"}, inputs, ["Output"])["Output"]
    np.testing.assert_allclose(out[..., :3], difference(SOURCE, REFERENCE, foreground=POSITION[..., 3] != 0), rtol=1e-6, atol=1e-7)

    g = Graph({"ReportRunningError": False}, inputs)
    g.run()
    rgb, _ = frame_error(difference(SOURCE, REFERENCE, foreground=POSITION[..., 3] != 0))
    np.testing.assert_allclose(g.p.error, rgb, rtol=1e-5)  # still divided by all pixels, as in Falcor

    counted = run_pass("ErrorMeasurePass", {"SelectedOutputId": "Difference", "IgnoreBackground": False}, inputs, ["Output"])
    np.testing.assert_allclose(counted["Output"][..., :3], difference(SOURCE, REFERENCE), rtol=1e-6, atol=1e-7)
    # Without WorldPosition there is no background to ignore.
    alone = run_pass("ErrorMeasurePass", {"SelectedOutputId": "Difference"}, {"Source": SOURCE, "Reference": REFERENCE}, ["Output"])
    np.testing.assert_allclose(alone["Output"][..., :3], difference(SOURCE, REFERENCE), rtol=1e-6, atol=1e-7)


def test_running_error():
    sigma = 0.75
    g = Graph({"RunningErrorSigma": sigma}, {"Source": SOURCE.copy(), "Reference": REFERENCE.copy()})
    running = None
    for frame in range(4):
        source = np.clip(REFERENCE + 0.1 * (frame + 1) * (SOURCE - 0.5), 0, 1).astype(np.float32)
        g.run(Source=source)
        rgb, _ = frame_error(difference(source, REFERENCE))
        running = rgb if running is None else sigma * running + (1 - sigma) * rgb
        np.testing.assert_allclose(g.p.error, running, rtol=1e-5)
        assert g.p.avgError == pytest.approx(running.mean(), rel=1e-5)
    assert not np.allclose(running, rgb)  # the running error lags the last frame


def test_output_selection_and_no_reference():
    inputs = {"Source": SOURCE, "Reference": REFERENCE}
    assert np.array_equal(run_pass("ErrorMeasurePass", {}, inputs, ["Output"])["Output"], SOURCE)
    shown = run_pass("ErrorMeasurePass", {"SelectedOutputId": "Reference"}, inputs, ["Output"])["Output"]
    assert np.array_equal(shown, REFERENCE)
    # No reference: the source is shown whatever the selection, and nothing is measured.
    g = Graph({"SelectedOutputId": "Difference"}, {"Source": SOURCE.copy()})
    assert np.array_equal(g.run(), SOURCE)
    assert g.p.error is None and g.p.avgError is None


def test_loaded_reference(tmp_path):
    path = tmp_path / "reference.exr"
    image_io.write_exr(path, REFERENCE, half=False)
    g = Graph({"ReferenceImagePath": str(path), "SelectedOutputId": "Difference", "ReportRunningError": False},
              {"Source": SOURCE.copy()})
    assert g.p.getDictionary()["UseLoadedReference"] is True  # loading a reference selects it
    out = g.run()
    np.testing.assert_allclose(out[..., :3], difference(SOURCE, REFERENCE), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(g.p.error, frame_error(difference(SOURCE, REFERENCE))[0], rtol=1e-5)

    # Found through the asset search paths too.
    resolver = falcor.AssetResolver.default_resolver
    saved = resolver.get_search_paths()
    resolver.add_search_path(str(tmp_path))
    try:
        g2 = Graph({"ReferenceImagePath": "reference.exr", "SelectedOutputId": "Reference"}, {"Source": SOURCE.copy()})
        assert np.array_equal(g2.run(), REFERENCE)
    finally:
        resolver.set_search_paths(saved)

    with pytest.raises(falcor.RuntimeError, match="missing.exr"):
        falcor.RenderGraph("x").create_pass("E", "ErrorMeasurePass", {"ReferenceImagePath": str(tmp_path / "missing.exr")})
    (tmp_path / "broken.exr").write_bytes(b"not an exr")
    with pytest.raises(falcor.RuntimeError, match="broken.exr"):
        falcor.RenderGraph("x").create_pass("E", "ErrorMeasurePass", {"ReferenceImagePath": str(tmp_path / "broken.exr")})


@pytest.mark.parametrize("squared", [True, False])
def test_measurements_csv(tmp_path, squared):
    path = tmp_path / "errors.csv"
    g = Graph({"MeasurementsFilePath": str(path), "ComputeSquaredDifference": squared},
              {"Source": SOURCE.copy(), "Reference": REFERENCE.copy()})
    sources = [np.clip(SOURCE * s, 0, 1).astype(np.float32) for s in (1.0, 0.5, 0.25)]
    for source in sources:
        g.run(Source=source)
    lines = path.read_text().splitlines()
    norm = "L2" if squared else "L1"
    assert lines[0] == f"avg_{norm}_error,red_{norm}_error,green_{norm}_error,blue_{norm}_error"
    assert len(lines) == 1 + len(sources)
    number = r"-?\d\.\d{6}e[+-]\d{2}"  # std::scientific, 6 digits
    for line, source in zip(lines[1:], sources):
        assert re.fullmatch(",".join([number] * 4), line), line
        rgb, avg = frame_error(difference(source, REFERENCE, squared))
        np.testing.assert_allclose([float(v) for v in line.split(",")], [avg, *rgb], rtol=2e-6)


def test_unwritable_csv_warns(tmp_path, capfd):
    path = tmp_path / "no_such_dir" / "errors.csv"
    p = falcor.RenderGraph("x").create_pass("E", "ErrorMeasurePass", {"MeasurementsFilePath": str(path)})
    assert "errors.csv" in capfd.readouterr().out
    assert p.getDictionary()["MeasurementsFilePath"] == ""


def test_properties_round_trip_and_order(tmp_path):
    g = falcor.RenderGraph("props")
    g.create_pass("A", "ErrorMeasurePass")
    assert g.get_pass("A").getDictionary() == {
        "ReferenceImagePath": "", "MeasurementsFilePath": "", "IgnoreBackground": True, "ComputeSquaredDifference": True,
        "ComputeAverage": False, "UseLoadedReference": False, "ReportRunningError": True,
        "RunningErrorSigma": pytest.approx(0.995), "SelectedOutputId": "Source"}
    reference = tmp_path / "ref.exr"
    image_io.write_exr(reference, REFERENCE)
    props = {"ReferenceImagePath": str(reference), "MeasurementsFilePath": str(tmp_path / "m.csv"), "IgnoreBackground": False,
             "ComputeSquaredDifference": False, "ComputeAverage": True, "UseLoadedReference": True,
             "ReportRunningError": False, "RunningErrorSigma": 0.5, "SelectedOutputId": "Difference"}
    g.create_pass("B", "ErrorMeasurePass", dict(reversed(props.items())))
    d = g.get_pass("B").getDictionary()
    assert d == props and list(d) == list(props)
    g.update_pass("B", d)
    assert g.get_pass("B").getDictionary() == d


def test_unknown_key_wrong_types_and_read_only(capfd):
    g = falcor.RenderGraph("bad")
    p = g.create_pass("A", "ErrorMeasurePass", {"ComputeL2": True})
    assert "Unknown property 'ComputeL2' in ErrorMeasurePass properties." in capfd.readouterr().out
    with pytest.raises(falcor.RuntimeError, match="IgnoreBackground"):
        g.create_pass("B", "ErrorMeasurePass", {"IgnoreBackground": 0})
    with pytest.raises(falcor.RuntimeError, match="Invalid enum name 'Diff'"):
        g.create_pass("C", "ErrorMeasurePass", {"SelectedOutputId": "Diff"})
    with pytest.raises(falcor.RuntimeError, match="RunningErrorSigma"):
        g.create_pass("D", "ErrorMeasurePass", {"RunningErrorSigma": "high"})
    with pytest.raises(falcor.RuntimeError, match="read-only"):
        p.error = [0, 0, 0]
