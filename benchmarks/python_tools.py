"""Cost of the Python tooling: graph pictures, texture display, stub generation, type checks.

- Graph pictures: `to_svg` with the built-in layered layout against Graphviz's `dot` (when it is
  on PATH) on Falcor's PathTracer graph (7 passes) and on a generated 200-pass graph (40 layers of
  5, each pass fed by two of the previous layer), as a ratio dot / built-in.
- Display: `falcor.show` (default "auto": scan for negatives, clamp, sRGB-encode) of a 1920x1080
  RGBA32Float texture against the numpy a user would write for the same picture (clip, sRGB,
  to uint8, PIL image), as a ratio; and `_repr_png_` (the same plus PNG encoding).
- Stub generation: `_stubgen.py` on the installed extension (what every build runs), wall time.
- Type checks: `python -m falcor.typecheck Scripts Scenes/*.pyscene` with an empty mypy cache.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

import common
import falcor
from falcor import graph_picture

ROOT = Path(__file__).resolve().parents[1]


def pathtracer_graph() -> falcor.RenderGraph:
    g = falcor.RenderGraph("PathTracer")
    for name, kind in [("VBufferRT", "VBufferRT"), ("PathTracer", "PathTracer"), ("Accumulate", "AccumulatePass"),
                       ("ToneMapper", "ToneMapper")]:
        g.create_pass(name, kind, {})
    for src, dst in [("VBufferRT.vbuffer", "PathTracer.vbuffer"), ("VBufferRT.viewW", "PathTracer.viewW"),
                     ("VBufferRT.mvec", "PathTracer.mvec"), ("PathTracer.color", "Accumulate.input"),
                     ("Accumulate.output", "ToneMapper.src")]:
        g.add_edge(src, dst)
    g.mark_output("ToneMapper.dst")
    return g


def layered_graph(layers: int = 40, width: int = 5) -> falcor.RenderGraph:
    """Composite passes (inputs A and B): each fed by two passes of the previous layer."""
    g = falcor.RenderGraph("Layered")
    for layer in range(layers):
        for i in range(width):
            g.create_pass(f"P{layer}_{i}", "Composite", {})
            if layer:
                g.add_edge(f"P{layer - 1}_{i}.out", f"P{layer}_{i}.A")
                g.add_edge(f"P{layer - 1}_{(i + 1) % width}.out", f"P{layer}_{i}.B")
    for i in range(width):
        g.mark_output(f"P{layers - 1}_{i}.out")
    return g


def picture_rows(repeats: int) -> list[list]:
    rows = []
    has_dot = shutil.which("dot") is not None
    for graph in (pathtracer_graph(), layered_graph()):
        builtin = common.measure(lambda: graph_picture.to_svg(graph, "builtin"), repeats)
        dot = common.measure(lambda: graph_picture.to_svg(graph, "graphviz"), repeats) if has_dot else None
        rows.append([graph.name, len(graph.passes), len(graph.edges), builtin.median,
                     dot.median if dot else "n/a", dot.median / builtin.median if dot else "n/a"])
    return rows


def numpy_picture(values: np.ndarray) -> Image.Image:
    """What a user writes by hand for the same picture as show()'s tonemap mode."""
    c = np.clip(np.nan_to_num(values[..., :3]), 0.0, 1.0)
    c = np.where(c <= 0.0031308, c * 12.92, 1.055 * np.power(c, 1 / 2.4) - 0.055)
    return Image.fromarray((c * 255 + 0.5).astype(np.uint8))


def display_rows(repeats: int) -> list[list]:
    rng = np.random.default_rng(7)
    values = rng.lognormal(-0.5, 1.0, (1080, 1920, 4)).astype(np.float32)
    texture = falcor.Texture(1920, 1080, falcor.ResourceFormat.RGBA32Float)
    texture.from_numpy(values)
    ours = common.measure(lambda: falcor.show(texture), repeats)
    hand = common.measure(lambda: numpy_picture(texture.to_float32()), repeats)
    png = common.measure(lambda: texture._repr_png_(), repeats)
    same = np.array_equal(np.asarray(falcor.show(texture)), np.asarray(numpy_picture(values)))
    return [["show(1920x1080 RGBA32Float)", ours.median, hand.median, hand.median / ours.median, same],
            ["_repr_png_ (show + PNG)", png.median, "", "", ""]]


def timed_subprocess(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True, cwd=ROOT)
    return time.perf_counter() - start


def tooling_rows() -> list[list]:
    package = Path(os.path.abspath(falcor.__file__)).parent
    with tempfile.TemporaryDirectory() as tmp:
        stubs = timed_subprocess([sys.executable, str(package / "_stubgen.py"), str(package), tmp])
    scenes = [str(p) for p in sorted((ROOT / "Scenes").glob("*.pyscene"))]
    check = timed_subprocess([sys.executable, "-m", "falcor.typecheck", "Scripts", *scenes])
    return [["stub generation (_stubgen.py)", stubs], [f"typecheck Scripts + {len(scenes)} pyscenes, cold", check]]


def main() -> None:
    args = common.argument_parser(__doc__.splitlines()[0]).parse_args()
    repeats = args.repeats or 5
    env = common.environment()
    print(common.environment_line(env))
    pictures = picture_rows(repeats)
    common.print_table("Graph pictures: ms per SVG (median)", ["graph", "passes", "edges", "built-in", "graphviz dot",
                                                                "dot/built-in"], pictures)
    display = display_rows(repeats)
    common.print_table("Display: ms (median)", ["call", "falcor", "numpy by hand", "hand/falcor", "same pixels"], display)
    tooling = tooling_rows()
    common.print_table("Tooling: seconds", ["step", "s"], tooling)
    common.write_json(args.json, env, pictures=pictures, display=display, tooling=tooling)


if __name__ == "__main__":
    main()
