"""The render-script context shared by every script Mogwai runs, and config export."""
from __future__ import annotations

import os
import types
from pathlib import Path

from . import falcor_ext as _ext
from .scene.pyscene import thread_search_path


class _ExitRequest:
    """`exit(code=0)` of render scripts: asks the app to stop once control returns to it."""

    def __init__(self, renderer) -> None:
        self._renderer = renderer

    def __call__(self, errorCode: int = 0) -> None:
        self._renderer.request_exit(errorCode)

    def __repr__(self):
        return "Call exit() to stop rendering and end the process."


def make_globals(renderer) -> dict:
    """Globals of Mogwai's script context: `from falcor import *` plus m, t, fc, tc, exit, ..."""
    import falcor

    g: dict = {"__name__": "__main__", "__builtins__": __builtins__}
    exec("from falcor import *", g)
    g.update(
        m=renderer, t=renderer.clock, fc=renderer.frameCapture, tc=renderer.timingCapture,
        exit=_ExitRequest(renderer), renderFrame=renderer.renderFrame,
        resizeFrameBuffer=renderer.resizeFrameBuffer, resizeSwapChain=renderer.resizeFrameBuffer,
        setWindowPos=lambda x, y: None, __file__=None,
    )
    falcor._active_renderer = renderer
    return g


def run_script(renderer, path) -> None:
    path = Path(os.fspath(path))
    resolved = path if path.exists() else Path(_ext.AssetResolver.default_resolver.resolve_path(str(path)) or path)
    if not resolved.is_file():
        raise _ext.RuntimeError(f"Error when loading configuration file: {path}: file not found.")
    resolved = resolved.resolve()
    if renderer.script_globals is None:
        renderer.script_globals = make_globals(renderer)
    context = renderer.script_globals
    context["__file__"] = str(resolved)
    try:
        with thread_search_path(resolved.parent):
            exec(compile(resolved.read_text(), str(resolved), "exec"), context)
    finally:
        context["__file__"] = None


def create_graph_from_file(path):
    """RenderGraph.createFromFile: runs a graph script where `m.addGraph` collects graphs; returns
    the last graph added (None if none). The script runs as `__falcor_graph__`, not `__main__`, so
    a render script's Mogwai part (`if __name__ == "__main__" and "m" in globals():`) is skipped."""
    path = Path(os.fspath(path))
    if not path.is_file():
        raise _ext.RuntimeError(f"Can't load render graph file '{path}': file not found.")
    added = []
    g: dict = {"__name__": "__falcor_graph__", "__file__": str(path.resolve())}
    exec("from falcor import *", g)
    g["m"] = types.SimpleNamespace(addGraph=added.append)
    exec(compile(path.read_text(), str(path), "exec"), g)
    return added[-1] if added else None


def config_script(renderer) -> str:
    """What `m.saveConfig(path)` writes: graphs, frame buffer, UI, clock and frame capture."""
    parts = []
    for graph in renderer.graphs:
        parts.append(graph.to_script())
        fn = "render_graph_" + graph.name.replace(" ", "_").replace("/", "_").replace("\\", "_")
        parts.append(f"m.addGraph({fn}())\n")
    scene = renderer.scene
    if scene is not None and renderer._scene_path is not None:
        path = os.fspath(renderer._scene_path).replace("\\", "/")
        parts.append(f"\n# Scene\nm.loadScene('{path}')\n" + scene.getScript("m.scene"))
    w, h = renderer.frame_buffer_size
    parts.append(f"\n# Window Configuration\nm.resizeFrameBuffer({w}, {h})\nm.ui = {renderer.ui}\n")
    parts.append("\n# Clock Settings\n" + renderer.clock.get_script("m.clock"))
    fc = renderer.frameCapture
    parts.append(f"\n# Frame Capture\nm.frameCapture.outputDir = {fc.outputDir!r}\n"
                 f"m.frameCapture.baseFilename = {fc.baseFilename!r}\n")
    for name, frames in fc._frames.items():
        parts.append(f"m.frameCapture.addFrames(m.getGraph({name!r}), {frames})\n")
    return "".join(parts)
