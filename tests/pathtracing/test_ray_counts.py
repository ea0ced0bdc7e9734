"""PathTracer `rayCount`, `pathLength` and `pixelStats` count as Falcor's PixelStats does: the
rays of every sample and of every sample's NRD guide paths add up; the path length is written
per sample (sample 0 last, so sample 0's stays); connecting either output turns the stats on.

Sample s of frame f is seeded with f · spp + s (Falcor's seeding), so with 4 samples per pixel,
frame 0 traces exactly the paths that frames 0..3 trace with 1 sample per pixel."""
import numpy as np

from pt_helpers import SCENES, make_renderer, vbuffer_graph

NRD_GUIDES = ("nrdDeltaReflectionRadianceHitDist", "nrdDeltaTransmissionRadianceHitDist")


def counts(scene: str, spp: int, frames: int, extra_outputs=()) -> tuple[list, list, dict]:
    """rayCount and pathLength after each of `frames` frames, and the last frame's pixelStats."""
    g = vbuffer_graph("PathTracer", {"samplesPerPixel": spp, "maxSurfaceBounces": 3}, {"samplePattern": "Center"},
                      outputs=("color", "rayCount", "pathLength") + tuple(extra_outputs))
    m = make_renderer(SCENES / scene, 24, 16, g)
    rays, lengths = [], []
    for _ in range(frames):
        m.renderFrame()
        rays.append(np.array(g.getOutput("tracer.rayCount")).astype(np.int64))
        lengths.append(np.array(g.getOutput("tracer.pathLength")).astype(np.int64))
    return rays, lengths, g.get_pass("tracer").pixelStats.stats


def test_ray_counts_add_up_over_samples_and_the_path_length_is_sample_zeros():
    rays1, lengths1, _ = counts("CornellBox.pyscene", 1, 4)
    rays4, lengths4, stats4 = counts("CornellBox.pyscene", 4, 1)
    np.testing.assert_array_equal(rays4[0], sum(rays1))
    np.testing.assert_array_equal(lengths4[0], lengths1[0])
    assert lengths4[0].max() == 3  # At most maxSurfaceBounces: not a sum over samples.
    assert stats4["totalRays"] == rays4[0].sum() and stats4["avgPathLength"] == lengths1[0].sum() / lengths1[0].size


def test_nrd_guide_paths_count_the_rays_of_every_sample():
    """The glass sphere's delta guide paths trace rays; Falcor traces them for every sample."""
    plain1, _, _ = counts("EnvMap.pyscene", 1, 2)
    guided1, _, _ = counts("EnvMap.pyscene", 1, 2, NRD_GUIDES)
    plain2, _, _ = counts("EnvMap.pyscene", 2, 1)
    guided2, _, _ = counts("EnvMap.pyscene", 2, 1, NRD_GUIDES)
    guide_rays = [g - p for g, p in zip(guided1, plain1)]
    assert guide_rays[0].sum() > 0
    np.testing.assert_array_equal(guided2[0] - plain2[0], guide_rays[0] + guide_rays[1])


def test_connecting_ray_count_or_path_length_turns_pixel_stats_on():
    for output in ("rayCount", "pathLength"):
        g = vbuffer_graph("PathTracer", {}, {"samplePattern": "Center"}, outputs=("color", output))
        m = make_renderer(SCENES / "CornellBox.pyscene", 16, 16, g)
        tracer = g.get_pass("tracer")
        assert tracer.pixelStats.enabled is False
        m.renderFrame()
        assert tracer.pixelStats.enabled is True and tracer.pixelStats.stats["totalRays"] > 0
