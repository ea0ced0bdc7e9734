"""Mogwai's `Renderer` (the global `m` of render scripts) and the render-script context.

One frame (`renderFrame`), as Mogwai runs it: exit check -> clock tick -> frame-capture and
timing hooks -> scene update -> execute the active graph -> scheduled captures -> profiler.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from . import falcor_ext as _ext
from .clock import Clock
from .frame_capture import FrameCapture, TimingCapture
from .profiler import Profiler
from .settings import Settings
from .scene import Scene, SceneBuilderFlags, load_scene

if TYPE_CHECKING:
    from .frame_capture import CaptureTrigger

_CLEAR_COLOR = (0.38, 0.52, 0.10, 1.0)


class Renderer:
    """Mogwai's renderer: its graphs (one active), the frame buffer, the scene, the clock, the
    profiler and the capture extensions. Render scripts reach it as `m`."""

    def __init__(self, width: int = 1920, height: int = 1080) -> None:
        self._graphs: list[_ext.RenderGraph] = []
        self._active = 0
        self._main_outputs: dict[str, str] = {}  # graph name -> first marked output when added
        self._fb_size = (int(width), int(height))
        self._fb_format = _ext.ResourceFormat.BGRA8UnormSrgb
        self._scene: Scene | None = None
        self._scene_path: str | os.PathLike[str] | None = None
        self._scene_updates: dict[int, int] = {}  # id(graph) -> scene updates it hasn't seen yet
        self._settings = Settings()
        self.clock = Clock()
        self.profiler = Profiler()
        self.frameCapture = FrameCapture(self)
        self.timingCapture = TimingCapture()
        self.ui = True
        self.keyCallback: Callable | None = None
        self.sceneUpdateCallback: Callable[[Scene | None, float], None] | None = None
        self.scene_build_flags = 0  # --use-cache / --rebuild-cache
        self.shutdown_requested = False
        self.exit_code = 0
        self.frames_rendered = 0
        self.script_globals: dict | None = None  # the shared render-script context

    # ---- graphs ----
    @property
    def activeGraph(self) -> _ext.RenderGraph | None:
        """The graph renderFrame() executes (None before any graph is added)."""
        return self._graphs[self._active] if self._graphs else None

    def addGraph(self, graph: _ext.RenderGraph) -> None:
        """Adds a graph, sized to the frame buffer and given the scene; it replaces a graph of the
        same name (with a warning), else the first graph added stays the active one."""
        if graph is None:
            raise _ext.RuntimeError("Can't add an empty graph")
        graph.resize(*self._fb_size, self._fb_format)
        graph.set_scene(self._scene)
        for i, g in enumerate(self._graphs):
            if g.name == graph.name:
                _ext.Logger.log(_ext.Logger.Level.Warning,
                                f"Replacing existing graph \"{graph.name}\" with new graph.")
                self._graphs[i] = graph
                self._record_main_output(graph)
                return
        self._graphs.append(graph)
        self._record_main_output(graph)

    def _record_main_output(self, graph: _ext.RenderGraph) -> None:
        outputs = graph.outputs
        self._main_outputs[graph.name] = outputs[0][0] if outputs else ""

    def setActiveGraph(self, graph: _ext.RenderGraph) -> None:
        """Makes `graph` the one rendered (it is added first if needed)."""
        if all(g is not graph for g in self._graphs):
            self.addGraph(graph)
        self._active = next(i for i, g in enumerate(self._graphs) if g is graph or g.name == graph.name)

    def removeGraph(self, graph: _ext.RenderGraph | str) -> None:
        """Removes a graph (by object or name). Raises falcor.RuntimeError if there is none of that name."""
        name = graph if isinstance(graph, str) else graph.name
        index = next((i for i, g in enumerate(self._graphs) if g.name == name), None)
        if index is None:
            raise _ext.RuntimeError(f"Can't find a graph named '{name}'. There's nothing to remove.")
        del self._graphs[index]
        self._main_outputs.pop(name, None)
        if self._active >= index and self._active > 0:
            self._active -= 1

    def getGraph(self, name: str) -> _ext.RenderGraph | None:
        """The graph of that name, or None."""
        return next((g for g in self._graphs if g.name == name), None)

    @property
    def graphs(self) -> list[_ext.RenderGraph]:
        """Extension: every graph added, in order."""
        return list(self._graphs)

    # ---- frame buffer ----
    def resizeFrameBuffer(self, width: int, height: int, /) -> None:
        """Resizes the frame buffer: every graph's default texture size and the camera's aspect ratio."""
        if int(width) <= 0 or int(height) <= 0:
            raise _ext.RuntimeError(f"Invalid frame buffer size {width}x{height}.")
        self._fb_size = (int(width), int(height))
        for g in self._graphs:
            g.resize(*self._fb_size, self._fb_format)
        if self._scene is not None:
            self._scene.camera.aspectRatio = self._fb_size[0] / self._fb_size[1]

    resizeSwapChain = resizeFrameBuffer

    @property
    def frame_buffer_size(self) -> tuple[int, int]:
        """Extension: (width, height) of the target frame buffer."""
        return self._fb_size

    def frame_buffer(self) -> _ext.Texture:
        """Extension: the frame buffer as Mogwai would present it (BGRA8UnormSrgb): the active
        graph's main output blitted over the clear color. Made on demand (Mogwai blits each frame)."""
        fb = _ext.Texture(*self._fb_size, self._fb_format)
        import numpy as np
        np.asarray(fb)[...] = np.asarray([round(255 * _srgb(c)) for c in _CLEAR_COLOR[2::-1]] + [255], np.uint8)
        graph = self.activeGraph
        main = self._main_outputs.get(graph.name) if graph is not None else None
        if graph is not None and main and graph.is_compiled:
            _ext.RenderContext().blit(graph.get_output(main), fb)
        return fb

    # ---- scenes ----
    @property
    def scene(self) -> Scene | None:
        """The loaded scene, or None."""
        return self._scene

    def loadScene(self, path: str | os.PathLike[str], buildFlags: SceneBuilderFlags | int = SceneBuilderFlags.Default) -> None:
        """Loads a scene for all graphs: the camera takes the frame buffer's aspect ratio and the
        clock restarts at time 0. `--use-cache`/`--rebuild-cache` add their build flags."""
        flags = SceneBuilderFlags(int(buildFlags) | int(self.scene_build_flags))
        try:
            scene = load_scene(path, flags, self._settings)
        except _ext.ImporterError as e:
            where = getattr(e, "path", "") or os.fspath(path)
            raise _ext.RuntimeError(f"Failed to load scene.\n\nError in {where}\n\n{e}") from e
        self._set_scene(scene, path)

    def set_scene(self, scene: Scene | None, path: str | os.PathLike[str] | None = None) -> None:
        """Extension: makes an already loaded scene (`falcor.load_scene`) the scene of every graph,
        as `loadScene` does after loading."""
        self._set_scene(scene, path)

    def unloadScene(self) -> None:
        """Removes the scene from every graph."""
        self._set_scene(None, None)

    def _set_scene(self, scene: Scene | None, path: str | os.PathLike[str] | None) -> None:
        self._scene, self._scene_path = scene, path
        if scene is not None:
            scene.camera.aspectRatio = self._fb_size[0] / self._fb_size[1]
        for g in self._graphs:
            g.set_scene(scene)
        self._scene_updates.clear()
        self.clock.set_time_immediately(0.0)

    def _update_scene(self) -> None:
        """Brings the scene to the clock's time; every graph collects the changes until it runs."""
        if self.sceneUpdateCallback is not None:
            self.sceneUpdateCallback(self._scene, self.clock.time)
        if self._scene is None:
            return
        updates = self._scene.update(self.clock.time)
        if updates:
            for g in self._graphs:
                self._scene_updates[id(g)] = self._scene_updates.get(id(g), 0) | updates

    # ---- settings ----
    def getSettings(self) -> Settings:
        return self._settings

    def addOptions(self, options: dict | None = None) -> None:
        self._settings.addOptions(options)

    def addFilteredAttributes(self, attributes: dict) -> None:
        self._settings.addFilteredAttributes(attributes)

    def clearOptions(self) -> None:
        self._settings.clearOptions()

    def clearFilteredAttributes(self) -> None:
        self._settings.clearFilteredAttributes()

    # ---- frames ----
    def request_exit(self, code: int = 0) -> None:
        """Ends the process with `code` once control returns to Mogwai (what a script's exit() does)."""
        self.shutdown_requested = True
        self.exit_code = int(code)

    def renderFrame(self) -> None:
        """Renders one frame: clock tick, capture hooks, scene update, the active graph, captures."""
        if self.clock.should_exit():
            self.shutdown_requested = True
        self.clock.tick()
        self.timingCapture.begin_frame(time.perf_counter())
        graph = self.activeGraph
        self._update_scene()
        if graph is not None:
            updates = self._scene_updates.pop(id(graph), 0)
            if updates:
                graph.on_scene_updates(updates)
            start = time.perf_counter()
            graph.execute()
            for pass_name, ms in graph.pass_times:
                self.profiler.record(f"/onFrameRender/RenderGraphExe::execute()/{pass_name}", ms)
            self.profiler.record("/onFrameRender/RenderGraphExe::execute()", (time.perf_counter() - start) * 1000.0)
            self.frameCapture.end_frame(graph)
        self.profiler.end_frame()
        self.frames_rendered += 1

    # ---- scripts ----
    def script(self, path: str | os.PathLike[str]) -> None:
        """Runs a render script in the shared script context (its folder searched first for assets)."""
        from .scripting import run_script

        run_script(self, path)

    def saveConfig(self, path: str | os.PathLike[str]) -> None:
        """Writes a script that restores the graphs, scene, frame buffer, clock and captures."""
        from .scripting import config_script
        from .image_io import atomic_write

        text = config_script(self)
        atomic_write(Path(os.fspath(path)), lambda tmp: Path(tmp).write_text(text))


def _srgb(v: float) -> float:
    return v * 12.92 if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055
