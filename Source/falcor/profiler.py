"""Falcor's Profiler: per-event CPU times (ms) of the frames rendered, with running statistics
and optional capture of every frame's values. Render passes report their CPU time as events named
`/onFrameRender/RenderGraphExe::execute()/<pass>`; on a CPU engine there is no GPU time."""
from __future__ import annotations

import contextlib
import math
import time


class _Stats:
    __slots__ = ("count", "mean", "m2", "min", "max", "last", "average")

    def __init__(self) -> None:
        self.count, self.mean, self.m2 = 0, 0.0, 0.0
        self.min, self.max = math.inf, -math.inf
        self.last, self.average = 0.0, 0.0

    def add(self, v: float) -> None:
        self.count += 1
        d = v - self.mean
        self.mean += d / self.count
        self.m2 += d * (v - self.mean)
        self.min, self.max, self.last = min(self.min, v), max(self.max, v), v
        # Falcor's "average" is an exponential moving average of recent frames.
        self.average = v if self.count == 1 else 0.9 * self.average + 0.1 * v

    def as_dict(self) -> dict:
        std = math.sqrt(self.m2 / self.count) if self.count > 1 else 0.0
        return {"min": self.min, "max": self.max, "mean": self.mean, "std_dev": std}


class Profiler:
    def __init__(self) -> None:
        self.enabled = True
        self.paused = False
        self._stats: dict[str, _Stats] = {}
        self._frame: dict[str, float] = {}
        self._capture: dict[str, list[float]] | None = None
        self._capture_frames = 0

    @property
    def is_capturing(self) -> bool:
        return self._capture is not None

    @property
    def events(self) -> dict:
        out = {}
        for name, s in self._stats.items():
            out[f"{name}/cpu_time"] = {"name": f"{name}/cpu_time", "value": s.last, "average": s.average,
                                       "stats": s.as_dict()}
        return out

    def record(self, name: str, milliseconds: float) -> None:
        """Adds a CPU time (ms) to the event `name` of the current frame."""
        if self.enabled and not self.paused:
            self._frame[name] = self._frame.get(name, 0.0) + milliseconds

    @contextlib.contextmanager
    def event(self, name: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.record(name if name.startswith("/") else "/" + name, (time.perf_counter() - start) * 1000.0)

    def end_frame(self) -> None:
        for name, ms in self._frame.items():
            self._stats.setdefault(name, _Stats()).add(ms)
            if self._capture is not None:
                self._capture.setdefault(name, [0.0] * self._capture_frames).append(ms)
        if self._capture is not None:
            self._capture_frames += 1
            for values in self._capture.values():
                values.extend([0.0] * (self._capture_frames - len(values)))
        self._frame = {}

    def reset_stats(self) -> None:
        self._stats.clear()

    def start_capture(self, reserved_frames: int = 1000) -> None:
        self._capture, self._capture_frames = {}, 0

    def end_capture(self) -> dict | None:
        if self._capture is None:
            return None
        events = {}
        for name, records in self._capture.items():
            s = _Stats()
            for v in records:
                s.add(v)
            key = f"{name}/cpu_time"
            events[key] = {"name": key, "stats": s.as_dict(), "records": records}
        result = {"frame_count": self._capture_frames, "events": events}
        self._capture = None
        return result
