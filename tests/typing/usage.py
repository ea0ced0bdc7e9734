"""Typed use of the API: type-checked by test_typecheck.py (no errors allowed, the revealed types
asserted) and run by it, so stubs and runtime agree."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
from PIL import Image
from typing_extensions import assert_type

import falcor
from falcor import (Camera, Clock, FrameCapture, RenderGraph, RenderPass, Renderer, ResourceFormat, SceneBuilder,
                    StandardMaterial, Texture, TextureChannelFlags)


def build_graph() -> RenderGraph:
    g = RenderGraph("Typed")
    assert_type(g.create_pass("Blur", "GaussianBlur", {"kernelWidth": 5}), RenderPass)
    g.create_pass("Map", "ColorMapPass", {})
    assert_type(g.add_edge("Blur.dst", "Map.input"), int)
    g.mark_output("Map.output", TextureChannelFlags.RGB)
    g.resize(16, 8, ResourceFormat.RGBA32Float)
    return g


def look(g: RenderGraph, folder: Path) -> None:
    assert_type(g.to_dot(), str)
    g.save_picture(folder / "graph.svg", engine="builtin")
    texture = Texture(4, 2, ResourceFormat.RGBA32Float)
    assert_type(texture.width, int)
    assert_type(texture._repr_png_(), bytes)
    assert_type(texture.to_float32(), npt.NDArray[np.float32])
    assert_type(falcor.show(texture), Image.Image)
    assert_type(falcor.show(texture, folder / "t.png", mode="normalize"), Path)
    assert_type(g.scene, falcor.NativeScene | None)
    script = folder / "graph.py"
    script.write_text("g = RenderGraph('FromFile')\nm.addGraph(g)\n")
    loaded = RenderGraph.createFromFile(script)
    assert_type(loaded, RenderGraph | None)
    assert loaded is not None and loaded.name == "FromFile"


def mogwai(m: Renderer) -> None:
    assert_type(m.frameCapture, FrameCapture)
    assert_type(m.clock, Clock)
    m.frameCapture.outputDir = "captures"
    m.frameCapture.addFrames(m.activeGraph, [1, 2])
    assert_type(m.activeGraph, RenderGraph | None)


def scene(builder: SceneBuilder) -> None:
    material = StandardMaterial("Gold")
    material.roughness = 0.25
    assert_type(material.roughness, float)
    material.baseColor = falcor.float4(1.0, 0.8, 0.2, 1.0)
    camera = Camera()
    camera.position = falcor.float3(0, 1, 2)
    assert_type(camera.position.x, float)
    builder.addCamera(camera)


def run(folder: Path) -> None:
    look(build_graph(), folder)
    scene(SceneBuilder())
