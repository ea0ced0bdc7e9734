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


def animated_scene() -> falcor.Scene:
    """A floor, a card sliding above it, a point light and a camera looking down, all three
    animated over 2 s (shadows and highlights move with the time)."""
    b = falcor.SceneBuilder()
    floor, card = falcor.StandardMaterial("Floor"), falcor.StandardMaterial("Card")
    floor.baseColor, card.baseColor = falcor.float4(0.8, 0.8, 0.8, 1), falcor.float4(0.9, 0.2, 0.1, 1)
    b.addMeshInstance(b.addNode("Floor", falcor.Transform(scaling=falcor.float3(4))),
                      b.addTriangleMesh(falcor.TriangleMesh.createQuad(), floor))
    card_node = b.addNode("Card", falcor.Transform(translation=falcor.float3(0, 0.5, 0)))
    b.addMeshInstance(card_node, b.addTriangleMesh(falcor.TriangleMesh.createQuad(falcor.float2(0.6)), card))
    slide = falcor.Animation("slide", card_node, 2.0)
    for t, x in ((0.0, -1.0), (2.0, 1.0)):
        slide.addKeyframe(t, falcor.Transform(translation=falcor.float3(x, 0.5, 0)))
    b.addAnimation(slide)
    light, camera = falcor.PointLight("Light"), falcor.Camera("Camera")
    light.intensity = falcor.float3(4)
    b.addLight(light)
    b.addCamera(camera)
    for obj, name, start, end in ((light, "lightAnim", (0.5, 2, 0), (-0.5, 2, 0.5)), (camera, "cameraAnim", (0, 3, 0.01), (0.2, 3, 0.3))):
        a = b.createAnimation(obj, name, 2.0)
        a.addKeyframe(0.0, falcor.Transform(translation=falcor.float3(*start), rotationEulerDeg=falcor.float3(-90, 0, 0)))
        a.addKeyframe(2.0, falcor.Transform(translation=falcor.float3(*end), rotationEulerDeg=falcor.float3(-90, 0, 0)))
    return b.getScene()
