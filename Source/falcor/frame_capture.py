"""Mogwai's FrameCapture and TimingCapture extensions."""
from __future__ import annotations

import os
from pathlib import Path

from . import capture
from collections.abc import Iterable
from typing import IO, TYPE_CHECKING

from .falcor_ext import Logger, RenderGraph

if TYPE_CHECKING:
    from .renderer import Renderer


class CaptureTrigger:
    """Base of the capture extensions: output folder, base file name, per-graph frame lists."""

    def __init__(self, renderer: Renderer) -> None:
        self._renderer = renderer
        self._output_dir = Path(".")
        self.baseFilename = "Mogwai"
        self._frames: dict[str, list[int]] = {}  # graph name -> frames
        self.ui = False

    @property
    def outputDir(self) -> str:
        return str(self._output_dir)

    @outputDir.setter
    def outputDir(self, path: str | os.PathLike[str]) -> None:
        # Falcor resolves relative folders against its executable's folder; a CPU engine installed
        # in site-packages resolves them against the working directory instead (documented).
        self._output_dir = Path(os.fspath(path))

    def reset(self, graph: RenderGraph | str | None = None) -> None:
        if graph is None:
            self._frames.clear()
        else:
            self._frames.pop(self._graph_name(graph), None)

    def _graph_name(self, graph: RenderGraph | str | None) -> str:
        if isinstance(graph, RenderGraph):
            return graph.name
        if self._renderer.getGraph(str(graph)) is None:
            from .falcor_ext import RuntimeError as FalcorError
            raise FalcorError(f"Can't find a graph named '{graph}'.")
        return str(graph)

    def addFrames(self, graph: RenderGraph | str | None, frames: Iterable[int]) -> None:
        """Schedules captures of `graph` at the given frame numbers."""
        name = self._graph_name(graph)
        existing = self._frames.setdefault(name, [])
        for f in frames:
            f = int(f)
            if f < 0:
                raise ValueError(f"Capture frame {f} must not be negative.")
            if f not in existing:
                existing.append(f)
        existing.sort()

    def frames_for(self, graph: RenderGraph | None) -> list[int]:
        return list(self._frames.get(graph.name, [])) if graph is not None else []

    def last_scheduled_frame(self) -> int | None:
        all_frames = [f for frames in self._frames.values() for f in frames]
        return max(all_frames) if all_frames else None

    def print(self, graph: RenderGraph | str | None = None) -> None:
        names = [self._graph_name(graph)] if graph is not None else list(self._frames)
        for name in names:
            print(f"{name}\n\tframes = {self._frames.get(name, [])}")


class FrameCapture(CaptureTrigger):
    def __init__(self, renderer: Renderer) -> None:
        super().__init__(renderer)
        self.captureAllOutputs = False
        self._writer = capture.AsyncWriter()
        self.files_written: list[str] = []  # extension: paths of every capture, in order

    def capture(self) -> None:
        """Writes every marked output of the active graph now, tagged with the current frame."""
        graph = self._renderer.activeGraph
        if graph is None:
            return
        if self.captureAllOutputs:
            self._capture_all(graph)
        else:
            self._capture_marked(graph)

    def _capture_marked(self, graph: RenderGraph) -> None:
        frame = self._renderer.clock.frame
        for name, masks in graph.outputs:
            pass_name, field = name.rsplit(".", 1)
            tex = graph.get_output(name)
            for mask in masks:
                suffix = capture.mask_suffix(mask)
                prepared = capture.prepare_output(tex, mask) if suffix is not None else None
                if prepared is None:
                    continue
                pixels, ext = prepared
                path = self._output_dir / f"{self.baseFilename}.{pass_name}.{field}.{frame}{suffix}.{ext}"
                self._writer.submit(path, pixels, ext)
                self.files_written.append(str(path))

    def _capture_all(self, graph: RenderGraph) -> None:
        marked = {name for name, _ in graph.outputs}
        added = [o for o in graph.get_available_outputs() if o not in marked]
        for o in added:
            graph.mark_output(o)
        try:
            graph.execute()
            self._capture_marked(graph)
        finally:
            for o in added:
                graph.unmark_output(o)

    def end_frame(self, graph: RenderGraph | None) -> None:
        if graph is not None and self._renderer.clock.frame in self._frames.get(graph.name, []):
            self.capture()

    def flush(self) -> None:
        """Waits until every capture is on disk (raises the first write error)."""
        self._writer.flush()


class TimingCapture:
    def __init__(self) -> None:
        self._file: IO[str] | None = None
        self._last: float | None = None

    def captureFrameTime(self, path: str | os.PathLike[str] | None) -> None:
        if self._file:
            self._file.close()
            self._file = None
        self._last = None
        if not path:
            return
        path = Path(os.fspath(path))
        if path.exists():
            Logger.log(Logger.Level.Warning, f"Frame times in '{path}' will be overwritten.")
        self._file = open(path, "w")

    def begin_frame(self, now: float) -> None:
        if self._file and self._last is not None:
            self._file.write(f"{now - self._last}\n")
            self._file.flush()
        self._last = now
