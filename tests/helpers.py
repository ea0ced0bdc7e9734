"""Shared test utilities: feed numpy images into a graph and read pass outputs back."""
from __future__ import annotations

import itertools
import threading
from typing import Any, Callable

import numpy as np

import falcor

_FORMATS = {
    (np.dtype(np.float32), 1): falcor.ResourceFormat.R32Float,
    (np.dtype(np.float32), 2): falcor.ResourceFormat.RG32Float,
    (np.dtype(np.float32), 4): falcor.ResourceFormat.RGBA32Float,
    (np.dtype(np.uint32), 1): falcor.ResourceFormat.R32Uint,
    (np.dtype(np.uint32), 4): falcor.ResourceFormat.RGBA32Uint,
    (np.dtype(np.uint8), 1): falcor.ResourceFormat.R8Uint,
    (np.dtype(np.int32), 1): falcor.ResourceFormat.R32Int,
}


class ArraySource(falcor.RenderPass):
    """Outputs a fixed numpy image (H, W, C) on `out`. Images are keyed by the `key` property."""

    images: dict[str, np.ndarray] = {}

    def __init__(self, props):
        super().__init__()
        self.key = props["key"]
        self.format = props.get("format")

    def reflect(self, compile_data):
        img = self.images[self.key]
        h, w = img.shape[:2]
        channels = img.shape[2] if img.ndim == 3 else 1
        fmt = getattr(falcor.ResourceFormat, self.format) if self.format else _FORMATS[(img.dtype, channels)]
        r = falcor.RenderPassReflection()
        r.add_output("out", "image").format(fmt).texture2D(w, h)
        return r

    def execute(self, render_context, render_data):
        out = render_data["out"]
        img = self.images[self.key]
        if self.format:
            out.from_numpy(np.ascontiguousarray(img))
        else:
            np.asarray(out)[...] = img.reshape(np.asarray(out).shape)

    def get_properties(self):
        return {"key": self.key}


falcor.register_render_pass(ArraySource, "ArraySource", "Test source of numpy images")


class FormatCopy(falcor.RenderPass):
    """Requires input `src` in the `format` property's format and copies it to `dst` (same format)."""

    def __init__(self, props):
        super().__init__()
        self.format = getattr(falcor.ResourceFormat, props["format"])

    def reflect(self, compile_data):
        r = falcor.RenderPassReflection()
        r.add_input("src", "").format(self.format)
        r.add_output("dst", "").format(self.format)
        return r

    def execute(self, render_context, render_data):
        np.asarray(render_data["dst"])[...] = np.asarray(render_data["src"])


falcor.register_render_pass(FormatCopy, "FormatCopy", "Test pass requiring one input format")
_keys = itertools.count()


def run_pass(pass_type: str, props: dict, inputs: dict[str, np.ndarray], outputs: list[str], size=None,
             frames: int = 1, input_formats: dict[str, str] | None = None) -> dict[str, np.ndarray]:
    """Runs one pass over numpy inputs for `frames` frames; returns its outputs as float arrays.

    `size` (w, h) is the graph's default size (defaults to the first input's size).
    `input_formats` optionally names the ResourceFormat an input is stored in (data given raw).
    """
    g = falcor.RenderGraph("test")
    g.create_pass("P", pass_type, props)
    for field, img in inputs.items():
        key = f"img{next(_keys)}"
        ArraySource.images[key] = img
        fmt = (input_formats or {}).get(field)
        g.create_pass(f"Src_{field}", "ArraySource", {"key": key, **({"format": fmt} if fmt else {})})
        g.add_edge(f"Src_{field}.out", f"P.{field}")
    if size is None:
        first = next(iter(inputs.values()), None)
        size = (first.shape[1], first.shape[0]) if first is not None else (16, 16)
    g.resize(size[0], size[1])
    for o in outputs:
        g.mark_output(f"P.{o}")
    for _ in range(frames):
        g.execute()
    return {o: read_texture(g.get_output(f"P.{o}")) for o in outputs}


def render_whitted(scene_path, props: dict | None = None, size: int = 9) -> np.ndarray:
    """One frame of GBufferRT (pixel centers) -> WhittedRayTracer on a scene file: the color's RGB
    as float64, shape (size, size, 3)."""
    g = falcor.RenderGraph("Whitted")
    g.create_pass("GBuffer", "GBufferRT", {"samplePattern": "Center"})
    g.create_pass("Whitted", "WhittedRayTracer", props or {})
    for field in ("posW", "tangentW", "faceNormalW", "texC", "mtlData", "vbuffer"):
        g.add_edge(f"GBuffer.{field}", f"Whitted.{field}")
    g.add_edge("GBuffer.normW", "Whitted.normalW")
    g.mark_output("Whitted.color")
    m = falcor.Renderer()
    m.addGraph(g)
    m.loadScene(str(scene_path))
    m.resizeFrameBuffer(size, size)
    m.renderFrame()
    return np.array(g.getOutput("Whitted.color"))[..., :3].astype(np.float64)


def read_texture(tex) -> np.ndarray:
    """Texture contents as an array of shape (H, W, C) in its natural element type."""
    a = np.array(tex, copy=True)
    return a if a.ndim == 3 else a[..., None]


def mogwai_command() -> list[str]:
    """The `mogwai` executable under test: $FALCOR_MOGWAI, else the one on PATH (pip install puts
    it in the environment's bin/)."""
    import os
    import shutil

    exe = os.environ.get("FALCOR_MOGWAI") or shutil.which("mogwai")
    if not exe:
        raise RuntimeError("mogwai is not on PATH; install the package (pip install .) or set FALCOR_MOGWAI")
    return [exe]


def scaled_timeout(seconds: float) -> float:
    """A subprocess time limit, stretched by FALCOR_TEST_TIMEOUT_SCALE for slow builds: the
    limits catch hangs, and a sanitizer build legitimately runs several times slower."""
    import os

    return seconds * float(os.environ.get("FALCOR_TEST_TIMEOUT_SCALE", "1"))


def run_mogwai(args: list[str], cwd=None, env=None, timeout: float = 120):
    """Runs mogwai with `args`; returns the CompletedProcess (text stdout/stderr)."""
    import os
    import subprocess

    return subprocess.run(mogwai_command() + list(args), cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=scaled_timeout(timeout))


def run_python(code: str, env=None, timeout: float = 300, memory_limit: int | None = None):
    """Runs `code` in a fresh interpreter (with tests/ importable): a crash there fails the test
    that called it instead of ending the test run. Returns the CompletedProcess (text output).

    `memory_limit` (bytes) makes an unbounded allocation in the child fail instead of exhausting
    the machine: an address-space limit, or under AddressSanitizer (which reserves terabytes of
    address space for itself) its largest-allocation option, with failed allocations throwing.
    """
    import os
    import subprocess
    import sys
    import textwrap

    tests = os.path.dirname(os.path.abspath(__file__))
    path = os.pathsep.join(p for p in [tests, os.environ.get("PYTHONPATH", "")] if p)
    env = {**os.environ, "PYTHONPATH": path, **(env or {})}
    code = textwrap.dedent(code)
    if memory_limit and "libasan" in env.get("LD_PRELOAD", ""):
        env["ASAN_OPTIONS"] = f"{env.get('ASAN_OPTIONS', '')}:max_allocation_size_mb={memory_limit >> 20}:allocator_may_return_null=1"
    elif memory_limit:
        code = f"import resource\nresource.setrlimit(resource.RLIMIT_AS, ({memory_limit}, {memory_limit}))\n" + code
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=scaled_timeout(timeout), env=env)


def run_concurrently(calls: list[Callable[[], Any]]) -> list:
    """Runs each call on a thread of its own, all released at once; their results in order (an
    exception a call raised stands as its result)."""
    results: list = [None] * len(calls)
    start = threading.Barrier(len(calls))

    def run(i: int) -> None:
        start.wait()
        try:
            results[i] = calls[i]()
        except Exception as e:
            results[i] = e

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


# Instruction sets by width; the ones this machine runs (falcor.set_isa_limit accepts each).
ISAS = ["sse2", "avx2", "avx512"]
HOST_ISAS = ISAS[: ISAS.index(falcor.host_isa()) + 1]


def isa_fixture(request):
    """Body of the `isa` fixtures: runs the test with falcor's kernels capped at request.param."""
    falcor.set_isa_limit(request.param)
    assert falcor.active_isa() == request.param
    yield request.param
    falcor.set_isa_limit(None)

