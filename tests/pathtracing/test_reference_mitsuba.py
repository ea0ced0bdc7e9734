"""PathTracer against an independent renderer: the Lambertian Cornell box converged by Mitsuba 3
(shared/reference/). Falcor's maxSurfaceBounces N corresponds to Mitsuba's max_depth N + 2."""
import numpy as np
import pytest

import reference
from pt_helpers import SCENES, make_renderer, render_frames, vbuffer_graph

WIDTH, HEIGHT, FRAMES = 160, 90, 64


@pytest.mark.parametrize("surface_bounces", [2, 3])
def test_region_means_match_mitsuba(surface_bounces):
    ref = reference.load(surface_bounces + 2)
    props = {"maxSurfaceBounces": surface_bounces, "useRussianRoulette": False, "emissiveSampler": "Power", "useSER": False}
    g = vbuffer_graph("PathTracer", props, {"samplePattern": "Stratified", "sampleCount": 16})
    m = make_renderer(SCENES / "CornellBoxDiffuse.pyscene", WIDTH, HEIGHT, g)
    frames = render_frames(m, g, FRAMES)
    failures = {}
    for name, (ours, mean_ref, allowed) in reference.compare(frames, ref).items():
        if name == "light_visible":
            # Seen directly, the light is its emitted radiance plus, unlike Mitsuba's black
            # emitter, the Schlick reflection Falcor's standard material keeps even with zero
            # specular color (about 0.3 at the camera's grazing angle, of a dim ceiling).
            assert np.all(ours >= mean_ref) and np.allclose(ours, mean_ref, rtol=0.01), (name, ours)
        elif np.any(np.abs(ours - mean_ref) > allowed):
            failures[name] = (ours.tolist(), mean_ref.tolist(), allowed.tolist())
    assert not failures, failures


def test_depth_limits_are_distinguished():
    """The comparison has the power to tell bounce counts apart: a maxSurfaceBounces=2 render
    fails against the depth-5 reference in some region."""
    ref = reference.load(5)
    g = vbuffer_graph("PathTracer", {"maxSurfaceBounces": 2, "emissiveSampler": "Power"})
    m = make_renderer(SCENES / "CornellBoxDiffuse.pyscene", WIDTH, HEIGHT, g)
    frames = render_frames(m, g, FRAMES)
    off = [name for name, (ours, mean_ref, allowed) in reference.compare(frames, ref).items() if np.any(np.abs(ours - mean_ref) > allowed)]
    assert off
