"""Soak: resident memory must not grow while a process renders and reloads for a long time.

    python tests/soak/soak.py frames  N [--warmup W]   # N frames of a graph holding every pass
    python tests/soak/soak.py reloads N [--warmup W]   # N loads of the Cornell box (+ one frame each)

Prints one JSON line: the resident set size after the warm-up and at the end, and the growth
in between. Allocators keep freed memory for reuse, so the first iterations grow the process
until its pools are warm; a leak shows as growth that continues after that. `test_soak.py`
runs a short profile in CI; docs/security.md records the long profile's figures.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

import falcor

ROOT = Path(__file__).resolve().parents[2]
CORNELL_BOX = ROOT / "Scenes" / "CornellBox.pyscene"
SIZE = (64, 48)


def resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class NoiseSource(falcor.RenderPass):
    """A Python pass in the graph: new numpy noise every frame into an RGBA32Float output."""

    def __init__(self, props):
        super().__init__()
        self.rng = np.random.default_rng(1)

    def reflect(self, compile_data):
        r = falcor.RenderPassReflection()
        r.add_output("out", "noise").format(falcor.ResourceFormat.RGBA32Float)
        return r

    def execute(self, render_context, render_data):
        out = np.asarray(render_data["out"])
        out[...] = self.rng.random(out.shape, dtype=np.float32)


falcor.register_render_pass(NoiseSource, "SoakNoiseSource", "Soak test noise")

# (pass name, type, properties); then the edges. Every registered C++ pass type is used.
PASSES = [
    ("Noise", "SoakNoiseSource", {}),
    ("Loader", "ImageLoader", {"filename": str(ROOT / "Scenes" / "Images" / "Sunset.exr")}),
    ("GBuffer", "GBufferRT", {}),
    ("VBuffer", "VBufferRT", {}),
    ("Debugger", "SceneDebugger", {}),
    ("Accumulate", "AccumulatePass", {"maxFrameCount": 7, "overflowMode": "Reset"}),
    ("Blur", "GaussianBlur", {"kernelWidth": 9}),
    ("PostFX", "SimplePostFX", {"bloomAmount": 0.3}),
    ("ToneMapper", "ToneMapper", {"autoExposure": True}),
    ("Composite", "Composite", {}),
    ("CrossFade", "CrossFade", {}),
    ("ColorMap", "ColorMapPass", {"autoRange": True}),
    ("SideBySide", "SideBySidePass", {}),
    ("SplitScreen", "SplitScreenPass", {}),
    ("Invalid", "InvalidPixelDetectionPass", {}),
    ("Modulate", "ModulateIllumination", {}),
    ("Error", "ErrorMeasurePass", {}),
    ("FLIP", "FLIPPass", {"isHDR": True}),
    ("Blit", "BlitPass", {"outputFormat": "RGBA8UnormSrgb"}),
]
EDGES = [
    ("VBuffer.vbuffer", "Debugger.vbuffer"),
    ("GBuffer.emissive", "Accumulate.input"),
    ("Accumulate.output", "Blur.src"),
    ("Blur.dst", "PostFX.src"),
    ("PostFX.dst", "ToneMapper.src"),
    ("ToneMapper.dst", "Composite.A"),
    ("Loader.dst", "Composite.B"),
    ("Composite.out", "CrossFade.A"),
    ("Noise.out", "CrossFade.B"),
    ("Noise.out", "ColorMap.input"),
    ("CrossFade.out", "SideBySide.leftInput"),
    ("Debugger.output", "SideBySide.rightInput"),
    ("ColorMap.output", "SplitScreen.leftInput"),
    ("SideBySide.output", "SplitScreen.rightInput"),
    ("SplitScreen.output", "Invalid.src"),
    ("Invalid.dst", "Modulate.emission"),
    ("GBuffer.diffuseOpacity", "Modulate.diffuseReflectance"),
    ("Modulate.output", "Error.Source"),
    ("Noise.out", "Error.Reference"),
    ("Error.Output", "FLIP.testImage"),
    ("Noise.out", "FLIP.referenceImage"),
    ("FLIP.errorMapDisplay", "Blit.src"),
]
OUTPUTS = ["Blit.dst", "FLIP.errorMap", "Debugger.output"]


def every_pass_graph(scene) -> falcor.RenderGraph:
    g = falcor.RenderGraph("Soak")
    for name, pass_type, props in PASSES:
        g.create_pass(name, pass_type, props)
    for src, dst in EDGES:
        g.add_edge(src, dst)
    for output in OUTPUTS:
        g.mark_output(output)
    g.set_scene(scene)
    g.resize(*SIZE, falcor.ResourceFormat.RGBA32Float)
    return g


def run_frames(count: int, warmup: int) -> dict:
    scene = falcor.load_scene(CORNELL_BOX)
    graph = every_pass_graph(scene)
    after_warmup = None
    for frame in range(warmup + count):
        if frame == warmup:
            after_warmup = resident_bytes()
        if frame % 10 == 0:  # a camera move now and then: scene updates reach the passes
            scene.camera.position = falcor.float3(0.0, 0.28, 1.2 + 0.001 * (frame % 100))
            graph.on_scene_updates(int(scene.update(frame / 60.0)))
        graph.execute()
    return report("frames", count, warmup, after_warmup)


def run_reloads(count: int, warmup: int) -> dict:
    graph = None
    after_warmup = None
    for i in range(warmup + count):
        if i == warmup:
            after_warmup = resident_bytes()
        scene = falcor.load_scene(CORNELL_BOX)
        if graph is None:
            graph = falcor.RenderGraph("Reload")
            graph.create_pass("VBuffer", "VBufferRT", {})
            graph.create_pass("Debugger", "SceneDebugger", {})
            graph.add_edge("VBuffer.vbuffer", "Debugger.vbuffer")
            graph.mark_output("Debugger.output")
            graph.resize(*SIZE)
        graph.set_scene(scene)
        graph.execute()
    return report("reloads", count, warmup, after_warmup)


def report(kind: str, count: int, warmup: int, after_warmup: int) -> dict:
    end = resident_bytes()
    return {"kind": kind, "count": count, "warmup": warmup, "rss_after_warmup": after_warmup,
            "rss_end": end, "growth": end - after_warmup}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=["frames", "reloads"])
    parser.add_argument("count", type=int)
    parser.add_argument("--warmup", type=int, default=20)
    args = parser.parse_args(argv)
    run = run_frames if args.kind == "frames" else run_reloads
    print(json.dumps(run(args.count, args.warmup)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
