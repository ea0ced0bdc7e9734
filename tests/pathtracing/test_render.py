"""falcor.render: one call from a scene to a numpy image."""
import functools

import numpy as np
import pytest

import falcor
from helpers import run_concurrently
from pt_helpers import SCENES, animated_scene, render_frames, vbuffer_graph


def test_render_returns_linear_rgb_and_repeats_bits():
    img = falcor.render(SCENES / "CornellBox.pyscene", spp=4, width=40, height=24, seed=3)
    assert img.shape == (24, 40, 3) and img.dtype == np.float32
    assert np.isfinite(img).all() and img.mean() > 0.01
    assert np.array_equal(img, falcor.render(str(SCENES / "CornellBox.pyscene"), spp=4, width=40, height=24, seed=3))
    assert not np.array_equal(img, falcor.render(SCENES / "CornellBox.pyscene", spp=4, width=40, height=24, seed=4))


@pytest.mark.parametrize("integrator", ["PathTracer", "MinimalPathTracer"])
def test_seeds_draw_independent_samples(integrator):
    """RenderGraph.seed: renders with nearby seeds have uncorrelated noise (a frame offset would
    share frames: seeds 1 and 2 at 2 spp would correlate by 0.5)."""
    def render(seed):
        img = falcor.render(SCENES / "CornellBox.pyscene", spp=2, width=40, height=24, seed=seed, integrator=integrator)
        return img.mean(axis=-1).ravel().astype(np.float64)

    # Differences of independent renders: pure noise, uncorrelated unless samples are shared
    # (with a frame offset, 1 and 101 vs 2 and 102 would share two of four frames: 0.5).
    a, b = render(1) - render(101), render(2) - render(102)
    lit = np.abs(a) + np.abs(b) > 0  # pixels with noise (not the light or the background)
    correlation = np.corrcoef(a[lit], b[lit])[0, 1]
    # Independent samples: the estimate's standard error is about 1/sqrt(n).
    assert abs(correlation) < 4 / np.sqrt(lit.sum()), correlation


def test_render_a_loaded_scene_with_the_minimal_path_tracer():
    scene = falcor.load_scene(str(SCENES / "CornellBox.pyscene"))
    img = falcor.render(scene, spp=2, width=32, height=32, integrator="MinimalPathTracer", max_bounces=1)
    assert img.shape == (32, 32, 3) and img.max() >= 85.0  # The light, seen directly.


def test_an_animated_scene_renders_at_one_time():
    """Every frame at `time` (default 0), not at the wall-clock time it is rendered: repeated
    calls give the same bits, and a time past the 2 s animation loops to the same picture."""
    scene = animated_scene()
    at_half = falcor.render(scene, spp=3, width=24, height=16, time=0.5)
    assert np.array_equal(at_half, falcor.render(scene, spp=3, width=24, height=16, time=0.5))
    assert np.array_equal(at_half, falcor.render(scene, spp=3, width=24, height=16, time=2.5))
    assert np.array_equal(falcor.render(scene, spp=3, width=24, height=16), falcor.render(scene, spp=3, width=24, height=16, time=0))
    assert not np.array_equal(at_half, falcor.render(scene, spp=3, width=24, height=16, time=1.0))


def test_an_animated_scene_renders_the_same_bits_on_one_and_two_threads():
    scene, threads = animated_scene(), falcor.get_thread_count()
    try:
        falcor.set_thread_count(1)
        one = falcor.render(scene, spp=2, width=24, height=16, time=0.8)
        falcor.set_thread_count(2)
        assert np.array_equal(one, falcor.render(scene, spp=2, width=24, height=16, time=0.8))
    finally:
        falcor.set_thread_count(threads)


def scene_state(scene: falcor.Scene) -> list:
    """What a user (or a render graph) can see of a scene between frames."""
    native = scene.native
    camera = scene.camera
    return [[getattr(camera, f) for f in camera._FIELDS], [(l.position, l.direction) for l in scene.lights],
            {k: np.asarray(v).tolist() for k, v in native.camera_data.items()}, native.camera_changes, native.updates,
            [{k: np.asarray(v).tolist() for k, v in native.get_instance(i).items()} for i in range(native.instance_count)],
            [{k: np.asarray(v).tolist() for k, v in native.get_light(i).items()} for i in range(native.active_light_count)],
            scene.bounds.min_point, scene.bounds.max_point, scene.cast_rays([[0.6, 3, 0]], [[0, -1, 0]])["t"].tolist()]


def test_a_render_leaves_the_scene_as_it_was():
    """A loaded scene in the middle of its own animation (a Renderer at 30 fps, jittered VBuffer):
    a render at another time and aspect ratio changes nothing the owner sees, and the owner's
    next frames are the bits they would have been without it."""
    def owner_frames(interrupt: bool) -> np.ndarray:
        graph = vbuffer_graph("MinimalPathTracer", {"maxBounces": 1}, {"samplePattern": "Halton", "sampleCount": 8})
        m = falcor.Renderer(20, 12)
        m.addGraph(graph)
        m.set_scene(animated_scene())
        m.clock.framerate = 30
        first = render_frames(m, graph, 3)
        if interrupt:
            before = scene_state(m.scene)
            falcor.render(m.scene, spp=2, width=9, height=15, time=1.7)
            assert scene_state(m.scene) == before
        return np.concatenate([first, render_frames(m, graph, 3)])

    assert np.array_equal(owner_frames(interrupt=True), owner_frames(interrupt=False))


def test_edits_made_before_a_render_still_reach_the_owner():
    """The render shows the owner's edits, and the owner's next update still reports them."""
    scene = animated_scene()
    scene.animated = False
    scene.update(0.0)
    scene.lights[0].intensity = falcor.float3(9)
    scene.camera.focalLength = 35
    scene.materials[0].baseColor = falcor.float4(0.2, 0.4, 0.6, 1)
    scene.renderSettings = falcor.SceneRenderSettings(useAnalyticLights=False)
    dark = falcor.render(scene, spp=1, width=8, height=8)
    assert dark.max() == 0  # no analytic lights: the render saw the edit
    F = falcor.SceneUpdateFlags
    assert scene.update(0.0) == F.LightIntensityChanged | F.CameraPropertiesChanged | F.MaterialsChanged | F.RenderSettingsChanged
    assert scene.native.get_light(0)["intensity"] == pytest.approx((9, 9, 9))


def test_a_loaded_scene_renders_the_same_bits_every_time():
    scene = falcor.load_scene(str(SCENES / "CornellBox.pyscene"))
    first = falcor.render(scene, spp=3, width=20, height=12, seed=5)
    assert np.array_equal(first, falcor.render(scene, spp=3, width=20, height=12, seed=5))
    assert np.array_equal(first, falcor.render(SCENES / "CornellBox.pyscene", spp=3, width=20, height=12, seed=5))


def test_renders_from_threads_give_the_sequential_bits():
    scene = animated_scene()
    calls = [dict(seed=seed, time=time, spp=2, width=16, height=10) for seed, time in ((1, 0.0), (2, 0.7), (1, 1.3), (3, 0.7))]
    sequential = [falcor.render(scene, **kwargs) for kwargs in calls]
    results = run_concurrently([functools.partial(falcor.render, scene, **kwargs) for kwargs in calls])
    for got, expected in zip(results, sequential):
        assert np.array_equal(got, expected)


@pytest.mark.parametrize("kwargs, error, named", [
    ({"spp": 0}, ValueError, "spp must be from 1 to 4294967295"),
    ({"spp": 2.0}, TypeError, "spp must be an integer"),
    ({"width": -1}, ValueError, "width must be from 1 to 16384"),
    ({"width": 2**33}, ValueError, "width must be from 1 to 16384, not 8589934592"),
    ({"height": "12"}, TypeError, "height must be an integer"),
    ({"max_bounces": -2}, ValueError, "max_bounces must be from 0 to 254"),
    ({"max_bounces": True}, TypeError, "max_bounces must be an integer"),
    ({"seed": 2**40}, ValueError, "seed must be from 0 to 4294967295"),
    ({"seed": -1}, ValueError, "seed must be from 0"),
    ({"integrator": "Whitted"}, ValueError, "integrator must be one of"),
    ({"properties": [("maxBounces", 2)]}, TypeError, "properties must be a dict"),
    ({"time": -0.5}, ValueError, "time must be finite and not negative"),
    ({"time": float("nan")}, ValueError, "time must be finite"),
    ({"time": "1"}, TypeError, "time must be a number of seconds"),
])
def test_render_rejects_bad_arguments_naming_them(kwargs, error, named):
    with pytest.raises(error, match=f"^falcor.render: {named}"):
        falcor.render(SCENES / "CornellBox.pyscene", **kwargs)


def test_render_rejects_a_scene_of_the_wrong_type():
    with pytest.raises(TypeError, match="scene must be a falcor.Scene or a file path, not int"):
        falcor.render(3)
