"""`falcor.render`: one call from a scene to an image, without writing a graph (like Mitsuba's
`mi.render`). It builds Falcor's path-tracing graph (VBufferRT -> PathTracer or
MinimalPathTracer), renders `spp` frames of one sample each at one scene time and averages them."""
from __future__ import annotations

import math
import numbers
import os
from collections.abc import Mapping

import numpy as np

from . import falcor_ext as _ext
from .renderer import Renderer
from .scene import Scene, load_scene

_TRACERS = ("PathTracer", "MinimalPathTracer")
_MAX_BOUNCES = 254  # PathTracerParams::kMaxBounces
_MAX_UINT32 = 2**32 - 1


def render(scene: Scene | str | os.PathLike[str], spp: int = 64, width: int = 640, height: int = 360, *, max_bounces: int = 3,
           integrator: str = "PathTracer", properties: Mapping | None = None, seed: int = 0, time: float = 0.0) -> np.ndarray:
    """Renders `scene` and returns linear RGB as a float32 array of shape (height, width, 3).

    scene: a scene file path (.pyscene, glTF, ...) or a scene from `falcor.load_scene`; its
    camera is used with the image's aspect ratio. spp: samples per pixel, one per frame, each
    with its own sub-pixel position (Halton) and random numbers. width, height: 1 to
    `Texture.MAX_DIMENSION`. max_bounces (0 to 254): the tracer's maxSurfaceBounces (PathTracer)
    or maxBounces (MinimalPathTracer). integrator: "PathTracer" or "MinimalPathTracer".
    properties: further pass properties (they override the above). seed (0 to 2**32 - 1): mixed
    into the random numbers (`RenderGraph.seed`; 0 is Falcor's seeding): different seeds give
    independent samples. time: the scene time in seconds (>= 0) of every frame (animations).

    The same arguments give the same bits, on any thread count and whatever the scene rendered
    before. A loaded scene is left as it was (camera, lights, animation, frame history); renders
    of one scene from several threads take turns, each giving what it gives alone.
    """
    _check_arguments(scene, spp, width, height, max_bounces, integrator, properties, seed, time)
    if not isinstance(scene, Scene):
        scene = load_scene(scene)
    graph = _path_tracing_graph(integrator, int(spp), int(max_bounces), properties or {}, int(seed))
    with scene._borrowed():
        return _average_frames(scene, graph, f"{integrator}.color", int(spp), (int(width), int(height)), float(time))


def _check_arguments(scene, spp, width, height, max_bounces, integrator, properties, seed, time) -> None:
    """Raises TypeError or ValueError naming the first bad argument and what it accepts."""
    if not isinstance(scene, (Scene, str, os.PathLike)):
        raise TypeError(f"falcor.render: scene must be a falcor.Scene or a file path, not {type(scene).__name__}")
    _check_integer("spp", spp, 1, _MAX_UINT32)
    _check_integer("width", width, 1, _ext.Texture.MAX_DIMENSION)
    _check_integer("height", height, 1, _ext.Texture.MAX_DIMENSION)
    _check_integer("max_bounces", max_bounces, 0, _MAX_BOUNCES)
    _check_integer("seed", seed, 0, _MAX_UINT32)
    if integrator not in _TRACERS:
        raise ValueError(f"falcor.render: integrator must be one of {_TRACERS}, not {integrator!r}")
    if properties is not None and not isinstance(properties, Mapping):
        raise TypeError(f"falcor.render: properties must be a dict of pass properties or None, not {type(properties).__name__}")
    if isinstance(time, bool) or not isinstance(time, numbers.Real):
        raise TypeError(f"falcor.render: time must be a number of seconds, not {type(time).__name__}")
    if not (math.isfinite(time) and float(time) >= 0):
        raise ValueError(f"falcor.render: time must be finite and not negative (seconds), not {time}")


def _check_integer(name: str, value, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"falcor.render: {name} must be an integer from {low} to {high}, not {type(value).__name__}")
    if not low <= int(value) <= high:
        raise ValueError(f"falcor.render: {name} must be from {low} to {high}, not {value}")


def _path_tracing_graph(integrator: str, spp: int, max_bounces: int, properties: Mapping, seed: int) -> _ext.RenderGraph:
    props = {"maxSurfaceBounces" if integrator == "PathTracer" else "maxBounces": max_bounces}
    if integrator == "PathTracer":
        props["useSER"] = False  # A GPU scheduling switch: off, so a CPU render does not warn about it.
    props.update(properties)
    graph = _ext.RenderGraph("Render")
    graph.create_pass("VBufferRT", "VBufferRT", {"samplePattern": "Halton", "sampleCount": spp})
    graph.create_pass(integrator, integrator, props)
    graph.add_edge("VBufferRT.vbuffer", f"{integrator}.vbuffer")
    graph.add_edge("VBufferRT.viewW", f"{integrator}.viewW")
    graph.mark_output(f"{integrator}.color")
    graph.seed = seed
    return graph


def _average_frames(scene: Scene, graph: _ext.RenderGraph, output: str, spp: int, size: tuple[int, int], time: float) -> np.ndarray:
    m = Renderer(*size)
    m.addGraph(graph)
    m.set_scene(scene)
    m.clock.set_time_immediately(time)
    m.clock.pause()  # Every frame at `time`, not at the wall-clock time it is rendered.
    width, height = size
    # All four channels: a contiguous sum runs three times as fast as one over the strided RGB view.
    total = np.zeros((height, width, 4), np.float64)
    for _ in range(spp):
        m.renderFrame()
        total += np.asarray(graph.get_output(output))
    return (total[..., :3] / spp).astype(np.float32)
