"""NaN and infinite scene values (material parameters, env-map intensity) are refused where they
are set, naming the object and property, so no renderer ever sees them: each pass renders the
same finite frame after a refused edit as before it."""
import numpy as np
import pytest

import falcor
from pt_helpers import SCENES, make_renderer, render_frames, vbuffer_graph


def whitted_graph() -> falcor.RenderGraph:
    g = falcor.RenderGraph("WhittedRayTracer")
    g.create_pass("gbuffer", "GBufferRT", {"samplePattern": "Center", "sampleCount": 1})
    g.create_pass("tracer", "WhittedRayTracer", {"maxBounces": 3})
    for field in ("posW", "tangentW", "faceNormalW", "texC", "texGrads", "mtlData", "vbuffer"):
        g.add_edge(f"gbuffer.{field}", f"tracer.{field}")
    g.add_edge("gbuffer.normW", "tracer.normalW")
    g.mark_output("tracer.color")
    return g


GRAPHS = {
    "PathTracer": lambda: vbuffer_graph("PathTracer", {}, {"samplePattern": "Center"}),
    "MinimalPathTracer": lambda: vbuffer_graph("MinimalPathTracer", {}, {"samplePattern": "Center"}),
    "WhittedRayTracer": whitted_graph,
}


def first_frame(tracer: str, scene: str, edit=None) -> np.ndarray:
    g = GRAPHS[tracer]()
    m = make_renderer(SCENES / scene, 24, 16, g)
    if edit is not None:
        edit(m.scene)
    return render_frames(m, g, 1)[0]


@pytest.mark.parametrize("tracer", GRAPHS)
def test_nan_roughness_is_refused_and_every_pass_renders_the_same_frame(tracer):
    def edit(scene):
        with pytest.raises(RuntimeError, match=r"Material 'Floor': 'roughness' must be finite, not nan"):
            scene.getMaterial("Floor").roughness = float("nan")
        assert scene.getMaterial("Floor").roughness == 0.5

    before, after = first_frame(tracer, "CornellBox.pyscene"), first_frame(tracer, "CornellBox.pyscene", edit)
    assert np.isfinite(after).all() and after.mean() > 0
    np.testing.assert_array_equal(after, before)


@pytest.mark.parametrize("tracer", GRAPHS)
def test_infinite_env_map_intensity_is_refused_and_every_pass_renders_the_same_frame(tracer):
    def edit(scene):
        with pytest.raises(RuntimeError, match=r"EnvMap '.*Sunset\.exr': 'intensity' must be finite, not inf"):
            scene.envMap.intensity = float("inf")
        assert scene.envMap.intensity == 1.5

    before, after = first_frame(tracer, "EnvMap.pyscene"), first_frame(tracer, "EnvMap.pyscene", edit)
    assert np.isfinite(after).all() and after.mean() > 0
    np.testing.assert_array_equal(after, before)
