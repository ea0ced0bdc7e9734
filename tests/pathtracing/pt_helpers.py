"""Rendering path-tracer graphs for tests, and statistics of the frames they produce."""
from __future__ import annotations

from pathlib import Path

import numpy as np

import falcor

REPO = Path(__file__).resolve().parents[2]
SCENES = REPO / "Scenes"


def make_renderer(scene: str | Path, width: int, height: int, graph: falcor.RenderGraph) -> falcor.Renderer:
    m = falcor.Renderer()
    m.addGraph(graph)
    m.loadScene(str(scene))
    m.resizeFrameBuffer(width, height)
    return m


def vbuffer_graph(tracer: str, props: dict, vbuffer_props: dict | None = None, outputs=("color",)) -> falcor.RenderGraph:
    """VBufferRT -> `tracer` with `props`; marks the tracer's `outputs`."""
    g = falcor.RenderGraph(tracer)
    g.create_pass("vbuffer", "VBufferRT", vbuffer_props if vbuffer_props is not None else {"samplePattern": "Stratified", "sampleCount": 16})
    g.create_pass("tracer", tracer, props)
    g.add_edge("vbuffer.vbuffer", "tracer.vbuffer")
    g.add_edge("vbuffer.viewW", "tracer.viewW")
    for name in outputs:
        g.mark_output(f"tracer.{name}")
    return g


def render_frames(m: falcor.Renderer, graph: falcor.RenderGraph, frames: int, output: str = "tracer.color") -> np.ndarray:
    """(frames, H, W, 3) float64: the output's RGB after each of `frames` renders."""
    images = []
    for _ in range(frames):
        m.renderFrame()
        images.append(np.array(graph.getOutput(output))[..., :3].astype(np.float64))
    return np.stack(images)


def mean_and_stderr(frames: np.ndarray, axis=0) -> tuple[np.ndarray, np.ndarray]:
    """Mean over independent frames and its standard error."""
    n = frames.shape[axis]
    return frames.mean(axis), frames.std(axis, ddof=1) / np.sqrt(n)


def agree(a: np.ndarray, se_a: np.ndarray, b: np.ndarray, se_b: np.ndarray, sigmas: float = 4.0, rel: float = 0.0) -> np.ndarray:
    """Per-element test |a - b| <= sigmas·sqrt(se_a² + se_b²) + rel·|b|."""
    return np.abs(a - b) <= sigmas * np.sqrt(se_a**2 + se_b**2) + rel * np.abs(b)
