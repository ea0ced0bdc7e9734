"""`falcor.render`: one call from a scene to an image, without writing a graph (like Mitsuba's
`mi.render`). It builds Falcor's path-tracing graph (VBufferRT -> PathTracer or
MinimalPathTracer), renders `spp` frames of one sample each and averages them."""
from __future__ import annotations

import os

import numpy as np

from . import falcor_ext as _ext
from .renderer import Renderer
from .scene import Scene

_TRACERS = ("PathTracer", "MinimalPathTracer")


def render(scene: Scene | str | os.PathLike[str], spp: int = 64, width: int = 640, height: int = 360, *, max_bounces: int = 3,
           integrator: str = "PathTracer", properties: dict | None = None, seed: int = 0) -> np.ndarray:
    """Renders `scene` and returns linear RGB as a float32 array of shape (height, width, 3).

    scene: a scene file path (.pyscene, glTF, ...) or a scene from `falcor.load_scene`; its
    camera is used with the image's aspect ratio. spp: samples per pixel, one per frame, each
    with its own sub-pixel position (Halton) and random numbers. max_bounces: the tracer's
    maxSurfaceBounces (PathTracer) or maxBounces (MinimalPathTracer). integrator: "PathTracer" or
    "MinimalPathTracer". properties: further pass properties (they override the above). seed:
    mixed into the random numbers (`RenderGraph.seed`; 0 is Falcor's seeding): different seeds
    give independent samples. The same arguments give the same bits on any thread count.
    """
    if integrator not in _TRACERS:
        raise ValueError(f"falcor.render: integrator must be one of {_TRACERS}, not {integrator!r}")
    if int(spp) < 1 or int(width) < 1 or int(height) < 1 or int(max_bounces) < 0 or int(seed) < 0:
        raise ValueError(f"falcor.render: spp, width and height must be positive and max_bounces, seed not negative "
                         f"(got spp={spp}, width={width}, height={height}, max_bounces={max_bounces}, seed={seed})")
    props = {"maxSurfaceBounces" if integrator == "PathTracer" else "maxBounces": int(max_bounces)}
    if integrator == "PathTracer":
        props["useSER"] = False  # A GPU scheduling switch: off, so a CPU render does not warn about it.
    props.update(properties or {})

    graph = _ext.RenderGraph("Render")
    graph.create_pass("VBufferRT", "VBufferRT", {"samplePattern": "Halton", "sampleCount": int(spp)})
    graph.create_pass(integrator, integrator, props)
    graph.add_edge("VBufferRT.vbuffer", f"{integrator}.vbuffer")
    graph.add_edge("VBufferRT.viewW", f"{integrator}.viewW")
    graph.mark_output(f"{integrator}.color")
    graph.seed = int(seed)

    m = Renderer(int(width), int(height))
    m.addGraph(graph)
    if isinstance(scene, (str, os.PathLike)):
        m.loadScene(scene)
    else:
        m.set_scene(scene)
    # All four channels: a contiguous sum runs three times as fast as one over the strided RGB view.
    total = np.zeros((int(height), int(width), 4), np.float64)
    for _ in range(int(spp)):
        m.renderFrame()
        total += np.asarray(graph.get_output(f"{integrator}.color"))
    return (total[..., :3] / int(spp)).astype(np.float32)
