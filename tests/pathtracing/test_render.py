"""falcor.render: one call from a scene to a numpy image."""
import numpy as np
import pytest

import falcor
from pt_helpers import SCENES


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


@pytest.mark.parametrize("kwargs", [{"spp": 0}, {"width": -1}, {"integrator": "Whitted"}, {"max_bounces": -2}])
def test_render_rejects_bad_arguments(kwargs):
    with pytest.raises(ValueError, match="falcor.render"):
        falcor.render(SCENES / "CornellBox.pyscene", **kwargs)
