"""Fuzz: `falcor.render` from several threads at once on one loaded scene.

Each case draws a few small renders (seed, scene time, samples, size, integrator, bounces) of an
animated scene, makes them one after the other, then all at once from one thread each: every
concurrent result has the sequential bits, and the scene is left as it was. The scene is shared
by all cases, so a render's bits also can't depend on what rendered before. `FALCOR_FUZZ_EXAMPLES`
sets the number of cases (CI: 20; long profile: 10,000).
"""
import functools
import os

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

import falcor
from helpers import run_concurrently
from pt_helpers import animated_scene

EXAMPLES = int(os.environ.get("FALCOR_FUZZ_EXAMPLES", "20"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))

render_arguments = st.fixed_dictionaries({
    "seed": st.integers(0, 2**32 - 1),
    "time": st.floats(0.0, 5.0),
    "spp": st.integers(1, 2),
    "width": st.integers(1, 12),
    "height": st.integers(1, 12),
    "integrator": st.sampled_from(["PathTracer", "MinimalPathTracer"]),
    "max_bounces": st.integers(0, 2),
})


@functools.cache
def shared_scene() -> falcor.Scene:
    return animated_scene()


def camera_and_light(scene: falcor.Scene) -> tuple:
    camera, light = scene.camera, scene.lights[0]
    return camera.position, camera.target, camera.aspectRatio, light.position, scene.native.camera_data["jitterX"]


@FUZZ
@given(st.lists(render_arguments, min_size=2, max_size=5))
def test_concurrent_renders_give_the_sequential_bits(calls):
    scene = shared_scene()
    before = camera_and_light(scene)
    sequential = [falcor.render(scene, **kwargs) for kwargs in calls]
    concurrent = run_concurrently([functools.partial(falcor.render, scene, **kwargs) for kwargs in calls])
    for kwargs, expected, got in zip(calls, sequential, concurrent):
        assert isinstance(got, np.ndarray) and np.array_equal(got, expected), (kwargs, got)
    assert camera_and_light(scene) == before
