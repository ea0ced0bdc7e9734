"""Falcor's Clock: the time base of animations and of frame capture.

Time is kept in ticks of 1/(14400 * 2^16) s so that common frame rates divide exactly. With
`framerate == 0` the clock follows real time (scaled by `timeScale`); with `framerate == N` every
tick advances exactly one frame of 1/N s. The `time` and `frame` setters are deferred: the value
takes effect at the next tick, i.e. when the next frame is rendered.
"""
from __future__ import annotations

import time as _time

from .falcor_ext import Logger

TICKS_PER_SECOND = 14400 * (1 << 16)


class _Timer:
    """Real time since the previous update."""

    def __init__(self) -> None:
        self._last = _time.perf_counter()
        self.delta = 0.0

    def update(self) -> None:
        now = _time.perf_counter()
        self.delta = now - self._last
        self._last = now


class Clock:
    def __init__(self) -> None:
        self._now = 0.0
        self._delta = 0.0
        self._frames = 0
        self._framerate = 0
        self._ticks_per_frame = 0
        self._scale = 1.0
        self._paused = False
        self._deferred_time: float | None = None
        self._deferred_frame: int | None = None
        self._exit_time = 0.0
        self._exit_frame = 0
        self._start_time = 0.0
        self._end_time = -1.0
        self._timer = _Timer()
        self._set_time_now(0.0)

    # ---- helpers ----
    def _clamp(self, t: float) -> float:
        if t < self._start_time:
            return self._start_time
        return t if (self._end_time < 0 or t < self._end_time) else self._start_time + t - self._end_time

    def _time_from_frame(self, frame: int) -> float:
        return float(frame * self._ticks_per_frame) / TICKS_PER_SECOND

    def _frame_from_time(self, seconds: float) -> int:
        return int(seconds * TICKS_PER_SECOND) // self._ticks_per_frame

    def _reset_deferred(self) -> None:
        self._deferred_time = None
        self._deferred_frame = None

    def _set_time_now(self, seconds: float) -> None:
        self._reset_deferred()
        seconds = self._clamp(seconds)
        self._timer.update()
        if self._framerate:
            self._frames = self._frame_from_time(seconds)
            seconds = self._time_from_frame(self._frames)
        else:
            self._frames = 0
        self._delta = self._now - seconds
        self._now = seconds

    def _set_frame_now(self, frame: int) -> None:
        self._reset_deferred()
        self._timer.update()
        self._frames = frame
        if self._framerate:
            original = self._time_from_frame(frame)
            seconds = self._clamp(original)
            if seconds != original:
                self._frames = self._frame_from_time(seconds)
            self._delta = max(0.0, self._now - seconds)
            self._now = seconds

    # ---- Falcor API ----
    @property
    def time(self) -> float:
        return self._now

    @time.setter
    def time(self, seconds: float) -> None:
        self._reset_deferred()
        self._deferred_time = self._clamp(float(seconds))

    @property
    def frame(self) -> int:
        return self._frames

    @frame.setter
    def frame(self, frame: int) -> None:
        if int(frame) < 0:
            raise ValueError("Clock.frame must not be negative")
        self._reset_deferred()
        self._deferred_frame = int(frame)

    @property
    def framerate(self) -> int:
        return self._framerate

    @framerate.setter
    def framerate(self, fps: int) -> None:
        fps = int(fps)
        if fps < 0:
            raise ValueError("Clock.framerate must not be negative")
        self._framerate = fps
        self._ticks_per_frame = 0
        if fps:
            if TICKS_PER_SECOND % fps:
                Logger.log(Logger.Level.Warning,
                           "Clock::setFramerate() - requested FPS can't be accurately represented. Expect rounding errors")
            self._ticks_per_frame = TICKS_PER_SECOND // fps
        if self._deferred_frame is None and self._deferred_time is None:
            self._set_time_now(self._now)

    @property
    def timeScale(self) -> float:
        return self._scale

    @timeScale.setter
    def timeScale(self, scale: float) -> None:
        self._scale = float(scale)

    @property
    def startTime(self) -> float:
        return self._start_time

    @startTime.setter
    def startTime(self, t: float) -> None:
        self.setStartTime(t)

    def setStartTime(self, t: float) -> bool:
        t = float(t)
        if t <= 0.0:
            self._start_time = 0.0
            return True
        if self._end_time < 0 or t < self._end_time:
            self._start_time = t
            return True
        Logger.log(Logger.Level.Warning, f"Clock.startTime {t} rejected: it must be before endTime {self._end_time}.")
        return False

    @property
    def endTime(self) -> float:
        return self._end_time

    @endTime.setter
    def endTime(self, t: float) -> None:
        self.setEndTime(t)

    def setEndTime(self, t: float) -> bool:
        t = float(t)
        if t < 0.0 or self._start_time <= 0.0 or t > self._start_time:
            self._end_time = t
            return True
        Logger.log(Logger.Level.Warning, f"Clock.endTime {t} rejected: it must be after startTime {self._start_time}.")
        return False

    @property
    def exitTime(self) -> float:
        return self._exit_time

    @exitTime.setter
    def exitTime(self, seconds: float) -> None:
        self._exit_time = float(seconds)
        self._exit_frame = 0

    @property
    def exitFrame(self) -> int:
        return self._exit_frame

    @exitFrame.setter
    def exitFrame(self, frame: int) -> None:
        self._exit_frame = int(frame)
        self._exit_time = 0.0

    def pause(self) -> None:
        self._paused = True

    def play(self) -> None:
        self._timer.update()
        self._paused = False

    def stop(self) -> None:
        self._set_time_now(0.0)
        self._paused = True

    def step(self, frames: int = 1) -> None:
        frames = int(frames)
        self._frames = max(0, self._frames + frames)
        self._timer.update()
        if self._framerate:
            t = self._time_from_frame(self._frames)
        else:
            t = self._timer.delta * self._scale + self._now
        t = self._clamp(t)
        self._delta = t - self._now
        self._now = t

    # ---- engine side ----
    def should_exit(self) -> bool:
        return bool((self._exit_time and self._now >= self._exit_time) or (self._exit_frame and self._frames >= self._exit_frame))

    def tick(self) -> None:
        """Advances one frame: a deferred frame or time wins, else one step unless paused."""
        if self._deferred_frame is not None:
            self._set_frame_now(self._deferred_frame)
        elif self._deferred_time is not None:
            self._set_time_now(self._deferred_time)
        elif not self._paused:
            self.step()

    @property
    def paused(self) -> bool:
        """Extension (Falcor has no `paused` property in Python)."""
        return self._paused

    @property
    def delta(self) -> float:
        return self._delta

    def set_time_immediately(self, seconds: float) -> None:
        """Sets the time without waiting for the next tick (what loadScene does)."""
        self._set_time_now(float(seconds))

    def get_script(self, var: str) -> str:
        lines = [f"{var}.time = 0", f"{var}.framerate = {self._framerate}"]
        if self._exit_time:
            lines.append(f"{var}.exitTime = {self._exit_time!r}")
        if self._exit_frame:
            lines.append(f"{var}.exitFrame = {self._exit_frame}")
        lines.append("# If framerate is not zero, you can use the frame property to set the start frame")
        lines.append(f"# {var}.frame = 0")
        if self._paused:
            lines.append(f"{var}.pause()")
        return "\n".join(lines) + "\n"

    def __repr__(self):
        return f"Clock(time={self._now}, frame={self._frames}, framerate={self._framerate}, paused={self._paused})"
