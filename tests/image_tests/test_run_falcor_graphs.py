"""Every render-pass graph of Falcor's image tests that this engine offers (35 of 39), run in one
`mogwai` process on the Arcade stand-in at a tiny frame size, with their marked outputs checked.

The graph files are our own versions in graphs/ (same passes, properties, edges and outputs as
Falcor's). The other four need passes we deliberately do not offer (SDFEditor, WARDiffPathTracer):
creating them must raise the explanation from Core/PluginRegistry.cpp, not "no such class".
"""
from __future__ import annotations

import json
import os
import subprocess

import falcor
import numpy as np
import pytest
from helpers import mogwai_command, scaled_timeout

from .test_run_image_tests import HERE, _process_report, media  # noqa: F401 (media is a fixture)

GRAPHS = sorted(p.stem for p in (HERE / "graphs").glob("*.py"))
FRAME = (48, 27)
FRAMES_RENDERED = 3

# The four graphs left out, each with the pass (and key properties) it needs and words its error must contain.
EXCLUDED = {
    "SDFEditorRenderGraphV2": ("SDFEditor", {}, "SDF grid"),
    "WARDiffPathTracerMaterialFwd": ("WARDiffPathTracer", {"maxBounces": 3, "diffMode": "ForwardDiffDebug",
                                                           "diffVarName": "CBOX_BUNNY_MATERIAL"}, "differentiat"),
    "WARDiffPathTracerTranslationBwd": ("WARDiffPathTracer", {"maxBounces": 0, "diffMode": "BackwardDiffDebug",
                                                              "diffVarName": "CBOX_BUNNY_TRANSLATION"}, "differentiat"),
    "WARDiffPathTracerTranslationFwd": ("WARDiffPathTracer", {"maxBounces": 0, "diffMode": "ForwardDiffDebug",
                                                              "diffVarName": "CBOX_BUNNY_TRANSLATION"}, "differentiat"),
}

# Outputs that are legitimately all zero here, checked for finiteness only: world-space motion and
# disocclusion (nothing moves between frames; screen-space mvec holds the jitter's rounding only),
# and GBufferRT's texture gradients (its default texLOD mode, Mip0, writes none).
MAY_BE_ZERO = {"GBufferRT.mvecW", "GBufferRT.disocclusion", "GBufferRT.texGrads"}

# The driver Mogwai runs: loads each graph file in turn, renders a few frames, saves every marked output.
DRIVER = """
import json
import numpy as np
import falcor

m.resizeFrameBuffer({width}, {height})
m.ui = False
m.clock.pause()
m.loadScene("Arcade/Arcade.pyscene")
arrays, outputs, errors = {{}}, {{}}, {{}}
for name in {graphs!r}:
    m.script(f"graphs/{{name}}.py")
    graph = m.activeGraph
    for frame in range(1, {frames} + 1):
        m.clock.frame = frame
        m.renderFrame()
    outputs[name] = [output for output, _ in graph.outputs]
    for output in outputs[name]:
        # 8-bit formats come back flat and in 0..255: give every array (height, width, channels) and unit range.
        texture = graph.getOutput(output)
        values = texture.to_numpy()
        scale = 1 / 255 if values.dtype == np.uint8 else 1
        arrays[f"{{name}}/{{output}}"] = scale * values.astype(np.float64).reshape(texture.height, texture.width, -1)
    m.removeGraph(graph)
for name, (pass_type, props) in {excluded!r}.items():
    try:
        falcor.createPass(pass_type, props)
    except Exception as e:
        errors[name] = f"{{type(e).__name__}}: {{e}}"
np.savez_compressed(r"{out_dir}/outputs.npz", **arrays)
with open(r"{out_dir}/report.json", "w") as f:
    json.dump({{"outputs": outputs, "errors": errors}}, f)
exit()
"""


class Run:
    """What the driver saved: per graph its marked outputs (as arrays) and the excluded passes' errors."""

    def __init__(self, out_dir):
        report = json.loads((out_dir / "report.json").read_text())
        self.outputs, self.errors = report["outputs"], report["errors"]
        with np.load(out_dir / "outputs.npz") as npz:
            self.arrays = {key: npz[key] for key in npz.files}

    def __getitem__(self, key: str) -> np.ndarray:
        return self.arrays[key]

    def __repr__(self):  # keeps pytest's failure reports short
        return f"Run({len(self.outputs)} graphs)"


@pytest.fixture(scope="module")
def run(media, tmp_path_factory) -> Run:  # noqa: F811 (the imported fixture, requested by name)
    out_dir = tmp_path_factory.mktemp("falcor_graphs")
    driver = out_dir / "driver.py"
    excluded = {name: spec[:2] for name, spec in EXCLUDED.items()}
    driver.write_text(DRIVER.format(width=FRAME[0], height=FRAME[1], graphs=GRAPHS, frames=FRAMES_RENDERED,
                                    excluded=excluded, out_dir=out_dir))
    args = mogwai_command() + ["--script", str(driver), "--headless"]
    timeout = scaled_timeout(120)
    try:
        done = subprocess.run(args, cwd=HERE, capture_output=True, text=True, timeout=timeout, check=False,
                              env={**os.environ, "FALCOR_MEDIA_FOLDERS": str(media.root)})
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"mogwai did not finish within {timeout} s{_process_report(args, e.stdout, e.stderr)}")
    output = _process_report(args, done.stdout, done.stderr)
    assert done.returncode == 0, f"mogwai exited with code {done.returncode}{output}"
    return Run(out_dir)


def summary(run: Run) -> str:
    """Per graph, its outputs with 'finite' / 'non-zero' flags (printed with -s, and in failures)."""
    lines = []
    for graph, outputs in run.outputs.items():
        flags = [f"{o} ({'finite' if np.isfinite(run[f'{graph}/{o}']).all() else 'NOT FINITE'}, "
                 f"{'non-zero' if run[f'{graph}/{o}'].any() else 'zero'})" for o in outputs]
        lines.append(f"{graph}: " + ", ".join(flags))
    return "\n".join(lines)


def test_all_graphs_run_with_finite_outputs(run):
    print("\n" + summary(run))
    assert len(GRAPHS) == 35 and not set(GRAPHS) & set(EXCLUDED)
    assert sorted(run.outputs) == GRAPHS, f"graphs that did not run: {sorted(set(GRAPHS) - set(run.outputs))}"
    for graph, outputs in run.outputs.items():
        assert outputs, f"{graph} marks no output"
        for output in outputs:
            values = run[f"{graph}/{output}"]
            assert values.size > 0 and np.isfinite(values).all(), f"{graph}: {output} is not finite\n{summary(run)}"
            if output not in MAY_BE_ZERO:
                assert values.any(), f"{graph}: {output} is all zero\n{summary(run)}"


def test_graph_files_import_without_mogwai(run, media):  # noqa: F811 (the imported fixture)
    """Each file also defines its graph when a script imports it (no `m`): the same outputs Mogwai rendered."""
    # The image loaders read their files from the media folder. (FALCOR_MEDIA_FOLDERS is read once
    # per process, possibly by an earlier test: the folder is searched through this thread instead.)
    resolver = falcor.AssetResolver.default_resolver
    resolver.push_thread_search_path(str(media.root))
    try:
        for name in GRAPHS:
            graph = falcor.RenderGraph.createFromFile(HERE / "graphs" / f"{name}.py")
            assert [output for output, _ in graph.outputs] == run.outputs[name], name
    finally:
        resolver.pop_thread_search_path()


def test_lit_outputs_hold_light(run):
    """The final color of every graph that renders the scene with light is a bright image, not a trace of it."""
    for graph, output in [("MinimalPathTracer", "ToneMapper.dst"), ("PathTracer", "ToneMapper.dst"),
                          ("PathTracerDielectrics", "ToneMapper.dst"), ("PathTracerMaterials", "ToneMapper.dst"),
                          ("WhittedRayTracer", "ToneMapper.dst"), ("RTXDI", "ToneMappingPass.dst"),
                          ("OptixDenoiser", "OptixDenoiser.output"), ("SVGF", "SVGFPass.Filtered image")]:
        rgb = run[f"{graph}/{output}"][..., :3]
        lit = float(np.mean(rgb.max(axis=-1) > 0.01))
        assert lit > 0.5, f"{graph}: only {lit:.0%} of {output} is lit"


def test_processing_passes_change_their_input(run):
    """Each filter's output differs from the image it was given (a pass that forwards its input would pass the other tests)."""
    for graph, output, source in [("OptixDenoiser", "OptixDenoiser.output", "ToneMappingPass.dst"),
                                  ("DLSS", "DLSSPass.output", "GBufferRaster.diffuseOpacity")]:
        out, src = run[f"{graph}/{output}"][..., :3], run[f"{graph}/{source}"][..., :3]
        assert out.shape == src.shape, f"{graph}: {output} {out.shape} vs {source} {src.shape}"
        assert np.mean(np.abs(out - src)) > 1e-4, f"{graph}: {output} equals its input {source}"


def test_raster_and_ray_traced_gbuffers_agree_on_depth(run):
    """The same scene and camera: GBufferRaster and GBufferRT see the same surfaces (most pixels' depth agrees)."""
    raster, traced = run["GBufferRaster/GBufferRaster.depth"], run["GBufferRT/GBufferRT.depth"]
    agree = float(np.mean(np.abs(raster - traced) < 1e-3))
    assert agree > 0.9, f"depth agrees on only {agree:.0%} of the pixels"


def test_inline_ray_queries_give_the_same_buffers(run):
    """useTraceRayInline changes how rays are traced, not what they hit (Falcor's references for both are shared)."""
    for inline, pipeline in [("GBufferRTInline", "GBufferRT"), ("VBufferRTInline", "VBufferRT")]:
        for output in run.outputs[inline]:
            assert np.array_equal(run[f"{inline}/{output}"], run[f"{pipeline}/{output}"]), f"{inline}: {output} differs from {pipeline}'s"


def test_raster_and_ray_traced_vbuffers_hit_the_same_triangles(run):
    """The V-buffers' first two channels (instance and primitive index) agree almost everywhere."""
    raster, traced = run["VBufferRaster/VBufferRaster.vbuffer"][..., :2], run["VBufferRT/VBufferRT.vbuffer"][..., :2]
    agree = float(np.mean((raster == traced).all(axis=-1)))
    assert agree > 0.95, f"the V-buffers agree on only {agree:.0%} of the pixels"


def test_excluded_graphs_explain_their_missing_passes(run):
    for name, (pass_type, _, words) in EXCLUDED.items():
        error = run.errors.get(name)
        assert error is not None, f"{name}: creating {pass_type} did not raise"
        assert words in error and "no such" not in error.lower(), f"{name}: {error}"
