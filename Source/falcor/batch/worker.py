"""The worker side of a batch job: renders one task into its files.

A worker process keeps the scenes it loaded (an LRU keyed by the scene file's path and content
hash) so consecutive tasks on the same scene skip loading. The graph is rebuilt from the graph
file for every task: passes carry state across frames (frame counters, accumulation, sample
patterns), and a fresh graph is what makes a task's bits independent of the tasks the worker ran
before. Scene state that tasks change (camera, animation time, frame history) is reset per task.
"""
from __future__ import annotations

import collections
import ctypes
import dataclasses
import hashlib
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path

import numpy as np

from .. import capture, image_io
from .. import falcor_ext as _ext
from ..renderer import Renderer
from ..scene import Scene, SceneBuilderFlags, load_scene
from ..scene.asset_log import recording_assets, script_builtins
from ..scene.cache import file_digests
from . import inputs
from .job import Job, Task, capture_name, check_file_names, check_video_outputs, file_hash

MAX_CACHED_SCENES = 2
_POSE_VECTORS = ("position", "target", "up")


def load_graph(job: Job):
    """The job's render graph, fresh from its graph file: the file runs as Falcor's graph scripts
    do outside Mogwai (`from falcor import *`, no `m`), and the RenderGraph it defines at module
    level is taken (by name if it defines several)."""
    source = job.graph_file
    namespace: dict = {"__builtins__": script_builtins(), "__name__": "__falcor_batch_graph__", "__file__": str(source)}
    try:
        exec("from falcor import *", namespace)
        exec(compile(source.read_text(encoding="utf-8"), str(source), "exec"), namespace)
    except Exception as e:
        raise job.error(("graph",), f"the graph file '{source}' raised {type(e).__name__}: {e}") from e
    graphs: dict = {}
    for value in namespace.values():
        if isinstance(value, _ext.RenderGraph):
            graphs.setdefault(value.name, value)
    if job.graph_name is not None:
        if job.graph_name not in graphs:
            raise job.error(("graph", "name"), f"'{source}' defines no graph named '{job.graph_name}' (it defines: "
                                               f"{', '.join(graphs) or 'none'})")
        return graphs[job.graph_name]
    if len(graphs) != 1:
        raise job.error(("graph",), f"'{source}' defines {len(graphs)} graphs ({', '.join(graphs) or 'none'}); "
                                    "choose one with graph: {file: ..., name: ...}")
    return next(iter(graphs.values()))


def _check_file_names(job: Job, graph) -> None:
    """The names of the files tasks write, with the graph's channel masks, fit the file system."""
    listed = {o.name: i for i, o in enumerate(job.outputs or [])}
    captures = [(("outputs", listed[name]) if name in listed else ("graph",), name, capture.mask_suffix(mask) or "", fmt)
                for name, mask, fmt in _mark_outputs(job, graph)]
    check_file_names(job, captures)


def apply_properties(job: Job, graph, properties: dict) -> None:
    """Sets swept properties: each pass is recreated with its current properties plus these, as
    Falcor's `updatePass` does. Unknown passes or properties raise a JobError at the sweep key."""
    passes = {p.name: p for p in graph.passes}

    def error(pass_name, prop, message):
        keypath = ("sweep", f"{pass_name}.{prop}")
        return job.error(keypath if keypath in job.lines else ("sweep",), message)

    for pass_name, props in properties.items():
        render_pass = passes.get(pass_name)
        if render_pass is None:
            raise error(pass_name, next(iter(props)), f"the graph has no pass '{pass_name}' (it has: {', '.join(passes)})")
        current = dict(render_pass.getDictionary())
        for prop in props:
            if prop not in current:
                raise error(pass_name, prop, f"pass '{pass_name}' has no property '{prop}' (it has: {', '.join(current)})")
        try:
            graph.update_pass(pass_name, {**current, **props})
        except Exception as e:
            raise error(pass_name, next(iter(props)), f"{type(e).__name__}: {e}") from e


def validate(job: Job) -> None:
    """Checks what needs the engine before anything renders: the graph file defines the graph,
    every swept property exists and accepts every value, every listed output exists, the videos'
    outputs are captured and file names fit the file system."""
    graph = load_graph(job)
    available = set(graph.get_available_outputs())
    if job.outputs is None:
        if not graph.outputs:
            raise job.error(("graph",), f"graph '{graph.name}' marks no outputs; list the ones to capture under 'outputs'")
        if job.video is not None and job.video.outputs is not None:
            check_video_outputs(job, job.video.outputs, {name: job.default_format for name, _ in graph.outputs})
    else:
        for i, output in enumerate(job.outputs):
            if output.name not in available:
                raise job.error(("outputs", i), f"graph '{graph.name}' has no output '{output.name}'")
    _check_file_names(job, graph)
    seen = set()
    for task in job.tasks:
        setting = repr(sorted((p, sorted(v.items(), key=repr)) for p, v in task.properties.items()))
        if setting not in seen:
            seen.add(setting)
            apply_properties(job, load_graph(job), task.properties)


# ---- the scene cache ----

@dataclasses.dataclass
class _CachedScene:
    scene: Scene
    camera: dict  # the camera as loaded: what tasks may change
    inputs: dict  # {path: sha256} of every file loading it read
    stats: dict   # inputs.stats(inputs) when loaded: the scene is kept while they hold


_scenes: collections.OrderedDict = collections.OrderedDict()
# Tasks share the cached scenes' state (camera, time): one task at a time per process, even when
# a Dask worker runs several threads. Rendering itself uses the engine's thread pool.
_task_lock = threading.Lock()


def _camera_state(camera) -> dict:
    return {k: (tuple(getattr(camera, k)) if k in _POSE_VECTORS else float(getattr(camera, k))) for k in
            ("position", "target", "up", "focalLength", "focalDistance", "apertureRadius")}


def _scene(path: str, use_scene_cache: bool) -> tuple[_CachedScene, bool]:
    """The loaded scene of `path` and whether this worker had it already. With `use_scene_cache`
    a scene this worker has not seen loads through the scene cache (falcor.scene.cache), which
    workers sharing a file system share."""
    key = (path, file_hash(Path(path)))
    if key in _scenes and inputs.stats(_scenes[key].inputs) == _scenes[key].stats:
        _scenes.move_to_end(key)
        return _scenes[key], True
    with recording_assets() as files:
        scene = load_scene(path, SceneBuilderFlags.UseCache if use_scene_cache else SceneBuilderFlags.Default)
    read = file_digests(files)
    entry = _CachedScene(scene, _camera_state(scene.camera), read, inputs.stats(read))
    _scenes.pop(key, None)  # a kept scene whose inputs changed
    _scenes[key] = entry
    while len(_scenes) > MAX_CACHED_SCENES:
        _scenes.popitem(last=False)
    return entry, False


def _set_pose(camera, base: dict, pose: dict | None) -> None:
    from ..math_types import float3

    for k, v in {**base, **(pose or {})}.items():
        setattr(camera, k, float3(*v) if k in _POSE_VECTORS else v)


# ---- the worker process ----

_PR_SET_PDEATHSIG = 1


def exit_with_coordinator(coordinator_pid: int) -> None:
    """Worker process initializer: the worker dies with its coordinator, even one killed by
    SIGKILL, instead of rendering on and holding its scenes as an orphan (its pool's pipes stay
    open while any worker holds them, so it would wait forever; multiprocessing's resource
    tracker then exits too, when the last process holding its pipe is gone)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    else:  # no parent-death signal: a watchdog thread (it runs whenever the renderer releases the GIL)
        threading.Thread(target=_watch_coordinator, args=(coordinator_pid,), daemon=True).start()
    if os.getppid() != coordinator_pid:  # the coordinator died before this worker was ready
        os._exit(1)


def _watch_coordinator(coordinator_pid: int) -> None:
    while os.getppid() == coordinator_pid:
        time.sleep(0.5)
    os._exit(1)


# ---- rendering a task ----

@dataclasses.dataclass(frozen=True)
class Options:
    """How a worker process renders: render threads (0: the engine's default) and log level."""
    threads: int = 0
    log_level: _ext.Logger.Level | None = None  # None leaves the logger as it is


def render_task(job: Job, task: Task, options: Options = Options(), on_frame=None) -> dict:
    """Renders `task` and writes its captures atomically; returns its manifest record.
    `on_frame()` is called after each rendered frame (progress)."""
    with _task_lock:
        if options.threads and _ext.get_thread_count() != options.threads:
            _ext.set_thread_count(options.threads)
        if options.log_level is not None:
            _ext.Logger.verbosity = options.log_level
        return _render_task(job, task, on_frame)


def _render_task(job: Job, task: Task, on_frame) -> dict:
    start = time.perf_counter()
    cached, hit = _scene(task.scene, job.scene_cache)
    loaded = time.perf_counter()
    with recording_assets() as read:  # the graph script, its modules, files its passes read
        graph, outputs = _render(job, task, cached, on_frame)
    rendered = time.perf_counter()

    files = [_write(job, task, graph, name, mask, fmt) for name, mask, fmt in outputs]
    written = time.perf_counter()
    return {
        "key": task.key, "fingerprint": task.fingerprint, "status": "done",
        "scene": task.scene, "frame": task.frame, "time": task.time, "settings": _flat(task.properties),
        "pose": task.pose, "seed": task.seed, "outputs": files, "inputs": {**cached.inputs, **file_digests(read)},
        "timings": {"scene_load": round(loaded - start, 6), "render": round(rendered - loaded, 6),
                    "write": round(written - rendered, 6)},
        "scene_cached": hit, "worker": f"{socket.gethostname()}:{os.getpid()}",
    }


def _render(job: Job, task: Task, cached: _CachedScene, on_frame) -> tuple:
    """Renders the task's frames; returns the graph holding its outputs, and the captures."""
    graph = load_graph(job)
    apply_properties(job, graph, task.properties)
    graph.seed = task.seed
    outputs = _mark_outputs(job, graph)

    scene = cached.scene
    width, height = job.resolution
    scene.camera.aspectRatio = width / height
    scene.reset_frame_history()
    if task.prev is not None:  # the previous frame, for motion vectors as in a continuous run
        prev_time, prev_pose = task.prev
        _set_pose(scene.camera, cached.camera, prev_pose)
        scene.update(prev_time)
    _set_pose(scene.camera, cached.camera, task.pose)
    m = Renderer(width, height)
    m.addGraph(graph)
    m.set_scene(scene, task.scene)
    m.clock.framerate = 0 if task.timed else job.framerate
    m.clock.pause()
    if task.timed:
        m.clock.time = task.time
    else:
        m.clock.frame = task.frame
    for _ in range(job.accumulate):
        m.renderFrame()
        if on_frame is not None:
            on_frame()
    return graph, outputs


def _flat(properties: dict) -> dict:
    return {f"{p}.{k}": v for p, props in properties.items() for k, v in props.items()}


def _mark_outputs(job: Job, graph) -> list[tuple[str, object, str]]:
    """(output, channel mask, format) of every capture: the listed outputs (marked RGB unless the
    graph marks them already) or the graph's marked outputs with their masks."""
    marked = {name: masks for name, masks in graph.outputs}
    if job.outputs is None:
        return [(name, mask, job.default_format) for name, masks in marked.items() for mask in masks]
    result: list = []
    for output in job.outputs:
        if output.name not in marked:
            graph.mark_output(output.name)
            marked[output.name] = [_ext.TextureChannelFlags.RGB]
        result.extend((output.name, mask, output.format) for mask in marked[output.name])
    return result


def _write(job: Job, task: Task, graph, name: str, mask, fmt: str) -> dict:
    texture = graph.get_output(name)
    suffix = capture.mask_suffix(mask)
    if suffix is None:
        raise RuntimeError(f"output '{name}': channel mask {mask} can't be captured")
    if fmt == "npy":
        path = job.output_dir / capture_name(task.base_name, name, task.frame, suffix, "npy")
        data = np.array(texture, copy=True)
        image_io.atomic_write(path, lambda tmp: np.save(tmp, data))
    else:
        pixels, ext = _pixels(texture, mask, fmt)
        path = job.output_dir / capture_name(task.base_name, name, task.frame, suffix, ext)
        capture.write_output(path, pixels, ext)
    return {"file": path.name, "sha256": file_hash(path)}


def _pixels(texture, mask, fmt: str) -> tuple[np.ndarray, str]:
    """What a capture of `mask` writes: Falcor's choice (auto), or forced to EXR (the decoded
    values) or PNG (floats clipped to [0, 1] and sRGB-encoded)."""
    prepared = capture.prepare_output(texture, mask)
    if prepared is None:
        raise _ext.RuntimeError(f"Batch capture: Falcor does not capture the channel mask {mask}.")
    pixels, ext = prepared
    if fmt in ("auto", ext):
        return pixels, ext
    channels = 4 if mask == _ext.TextureChannelFlags.RGBA else 3
    values = texture.to_float32()
    if mask not in (_ext.TextureChannelFlags.RGB, _ext.TextureChannelFlags.RGBA):
        index = [_ext.TextureChannelFlags.Red, _ext.TextureChannelFlags.Green, _ext.TextureChannelFlags.Blue,
                 _ext.TextureChannelFlags.Alpha].index(mask)
        values, channels = np.repeat(values[..., index:index + 1], 3, axis=-1), 3
    if fmt == "exr":
        return np.ascontiguousarray(values[..., :channels]), "exr"
    encoded = capture._linear_to_srgb(values[..., :channels])
    return capture._unorm8(encoded), "png"


def task_digest(files: list[dict]) -> str:
    """One hash over a task's output files, for comparing runs."""
    return hashlib.sha256("".join(f"{f['file']}:{f['sha256']};" for f in files).encode()).hexdigest()
