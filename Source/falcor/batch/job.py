"""Batch job files: parsing and validating the YAML, and expanding a job into tasks.

The format is documented in docs/batch.md. Every error names the job file, the line and the key.
A job expands into tasks, one per (scene, sweep combination, camera, frame): each renders and
captures one frame, so a task is the unit that is retried, skipped when done, and spread over
workers.
"""
from __future__ import annotations

import difflib
import hashlib
import itertools
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from .. import falcor_ext as _ext
from .. import image_io

if TYPE_CHECKING:
    from .video import VideoSpec  # video.py imports this module
from ..scene.cache import build_identity

FORMATS = ("auto", "png", "exr", "npy")
POSE_KEYS = {"position": 3, "target": 3, "up": 3, "focalLength": 0, "focalDistance": 0, "apertureRadius": 0}
MAX_TASKS = 100_000  # a range or a sweep product can be astronomically large: refused before expanding
MAX_FRAME = 2**53    # frame numbers whose clock times are exact
_TOP_KEYS = ("name", "graph", "scenes", "resolution", "frames", "times", "framerate", "accumulate", "cameras", "camera_path",
             "sweep", "outputs", "format", "output_dir", "seed", "retries", "video", "scene_cache")


class JobError(ValueError):
    """A job file that can't be run: names the file, the line and the key."""


@dataclass(frozen=True)
class Output:
    name: str    # "Pass.field"
    format: str  # one of FORMATS


@dataclass(frozen=True)
class Task:
    """One captured frame of one scene under one setting of the swept properties."""
    key: str                 # stable and unique in the job: "<base>@<frame>"
    base_name: str           # capture base name: scene stem, sweep values, camera index
    scene: str               # absolute path
    frame: int               # the frame number in file names
    time: float              # clock time of the frame (seconds)
    timed: bool              # the job lists times (clock without framerate), not frames
    properties: dict         # {"Pass": {"property": value}} set on the graph's passes
    pose: dict | None        # camera pose of the frame, or None for the scene's camera
    prev: tuple | None       # (time, pose) of the previous frame (motion vectors), or None
    seed: int                # RenderGraph.seed of the task
    fingerprint: str         # hash of everything that decides the output bits


@dataclass
class Job:
    path: Path               # the job file
    name: str
    graph_file: Path
    graph_name: str | None   # which graph of the file (None: its only one)
    scenes: list[Path]
    resolution: tuple[int, int]
    framerate: int
    accumulate: int
    outputs: list[Output] | None  # None: the graph's marked outputs
    default_format: str
    output_dir: Path
    seed: int
    retries: int
    video: VideoSpec | None = None  # None: no videos
    scene_cache: bool = False  # load scenes through the scene cache (SceneBuilderFlags.UseCache)
    tasks: list[Task] = field(default_factory=list)
    lines: dict = field(default_factory=dict, repr=False)  # key path -> line in the job file

    @property
    def manifest_path(self) -> Path:
        return self.output_dir / "manifest.jsonl"

    def error(self, keypath: tuple, message: str) -> JobError:
        return _error(self.path, self.lines, keypath, message)


# ---- YAML with line numbers ----

def _error(path: Path, lines: dict, keypath: tuple, message: str) -> JobError:
    line = next((lines[keypath[:n]] for n in range(len(keypath), -1, -1) if keypath[:n] in lines), None)
    where = f"{path}:{line}" if line is not None else str(path)
    key = ".".join(str(k) for k in keypath)
    return JobError(f"{where}: {key + ': ' if key else ''}{message}")


# Bounds on what a job file may make the loader build: a few kilobytes of nested aliases
# ("billion laughs") would otherwise expand to billions of values.
MAX_FILE_BYTES = 16 << 20
MAX_DEPTH = 32                 # nesting levels, aliases expanded
MAX_ALIASED_VALUES = 100_000   # values that aliases add to the document, in all


class _Alias:
    """Where an alias is used, and the node it names (PyYAML's composer returns the anchored node
    itself, which hides both the line of the alias and that a node contains itself)."""

    def __init__(self, target, start_mark):
        self.target, self.start_mark = target, start_mark


class _JobLoader(yaml.SafeLoader):
    """SafeLoader that keeps aliases as _Alias and refuses nesting deeper than MAX_DEPTH (the
    composer recurses per level: a page of brackets would raise RecursionError)."""

    def __init__(self, text: str):
        super().__init__(text)
        self._depth = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            return _Alias(super().compose_node(parent, index), mark)
        if self._depth >= MAX_DEPTH:
            raise yaml.composer.ComposerError(None, None, f"nested deeper than {MAX_DEPTH} levels", self.peek_event().start_mark)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _read_yaml(path: Path) -> tuple[object, dict]:
    """The document as plain Python values, and the line of every key path."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise JobError(f"{path}: the job file is larger than {MAX_FILE_BYTES >> 20} MiB")
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise JobError(f"{path}: can't read the job file: {e}") from None
    loader = None
    try:
        loader = _JobLoader(text)
        node = loader.get_single_node()
        document = _Document(loader, path)
        return (document.value(node, ()) if node is not None else None), document.lines
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        raise JobError(f"{path}:{mark.line + 1 if mark else '?'}: not valid YAML: {e.problem or e}") from None
    except yaml.reader.ReaderError as e:  # a character YAML does not allow
        line = text.count("\n", 0, e.position) + 1
        raise JobError(f"{path}:{line}: not valid YAML: the character U+{e.character:04X} is not allowed") from None
    finally:
        if loader is not None:
            loader.dispose()


class _Document:
    """Plain Python values of a composed document and the line of every key path. Each use of an
    alias builds its own copy of the values, within MAX_ALIASED_VALUES and MAX_DEPTH."""

    def __init__(self, loader: _JobLoader, path: Path):
        self.loader, self.path = loader, path
        self.lines: dict = {}
        self._aliased_values = 0
        self._open: set[int] = set()  # the nodes being built: an alias to one of them is recursive

    def error(self, keypath: tuple, line: int, message: str) -> JobError:
        return _error(self.path, {keypath: line}, keypath, message)

    def value(self, node, keypath: tuple, alias_line: int | None = None):
        """`alias_line`: the line of the alias whose expansion this value is part of."""
        if isinstance(node, _Alias):
            alias_line = alias_line or node.start_mark.line + 1
            if id(node.target) in self._open:
                raise self.error(keypath, node.start_mark.line + 1, "the alias refers to a value that contains it")
            node = node.target
        line = node.start_mark.line + 1
        if alias_line is not None:
            self._aliased_values += 1
            if self._aliased_values > MAX_ALIASED_VALUES:
                raise self.error(keypath, alias_line, f"aliases expand to more than {MAX_ALIASED_VALUES} values")
        if len(keypath) > MAX_DEPTH:
            raise self.error(keypath, alias_line or line, f"nested deeper than {MAX_DEPTH} levels")
        self.lines[keypath] = line
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node, keypath)
        self._open.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                return [self.value(item, keypath + (i,), alias_line) for i, item in enumerate(node.value)]
            return self._mapping(node, keypath, alias_line)
        finally:
            self._open.discard(id(node))

    def _mapping(self, node, keypath: tuple, alias_line: int | None) -> dict:
        out = {}
        for key_node, value_node in node.value:
            key_line = key_node.start_mark.line + 1
            key_node = key_node.target if isinstance(key_node, _Alias) else key_node
            key = self._scalar(key_node, keypath) if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, (str, int, float, bool)):
                raise self.error(keypath, key_line, "mapping keys must be scalars")
            if key in out:
                raise self.error(keypath + (key,), key_line, "duplicate key")
            out[key] = self.value(value_node, keypath + (key,), alias_line)
            self.lines[keypath + (key,)] = key_line
        return out

    def _scalar(self, node, keypath: tuple):
        try:
            return self.loader.construct_object(node, deep=True)
        except yaml.MarkedYAMLError:
            raise
        except Exception as e:  # PyYAML converts tagged scalars unchecked: `!!bool x` raises KeyError, `!!timestamp x` AttributeError
            raise self.error(keypath, node.start_mark.line + 1, f"can't read the value {node.value!r}: {type(e).__name__}: {e}") from None


# ---- values ----

class _Reader:
    """Typed access to the document's values, raising JobErrors that point at the key."""

    def __init__(self, path: Path, data: dict, lines: dict):
        self.path, self.data, self.lines = path, data, lines

    def error(self, keypath, message) -> JobError:
        return _error(self.path, self.lines, tuple(keypath), message)

    def get(self, key, default=None):
        return self.data.get(key, default)

    def int(self, keypath, value, minimum=None, maximum=None) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(keypath, f"expected an integer, got {value!r}")
        if minimum is not None and value < minimum:
            raise self.error(keypath, f"must be at least {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise self.error(keypath, f"must be at most {maximum}, got {value}")
        return value

    def number(self, keypath, value) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self.error(keypath, f"expected a finite number, got {value!r}")
        return float(value)

    def list(self, keypath, value, allow_scalar=False) -> list:
        if allow_scalar and not isinstance(value, (list, dict)):
            return [value]
        if not isinstance(value, list) or not value:
            raise self.error(keypath, f"expected a non-empty list, got {value!r}")
        return value

    def fs_path(self, keypath, value, what: str) -> Path:
        """An absolute path (relative ones are relative to the job file)."""
        if not isinstance(value, str) or not value or "\0" in value:
            raise self.error(keypath, f"expected {what} path, got {value!r}")
        p = Path(value)
        return p if p.is_absolute() else self.path.parent / p

    def file(self, keypath, value) -> Path:
        p = self.fs_path(keypath, value, "a file")
        try:
            if p.is_file():
                return p.resolve()
        except OSError as e:  # e.g. a name too long for the file system
            raise self.error(keypath, f"can't read '{p}': {e.strerror}") from None
        raise self.error(keypath, f"file not found: '{p}'")


def load_job(path) -> Job:
    """Reads and validates a job file and expands its tasks. Raises JobError naming the file,
    line and key of the first problem; nothing is rendered or written."""
    path = Path(os.fspath(path)).resolve()
    data, lines = _read_yaml(path)
    if not isinstance(data, dict):
        raise JobError(f"{path}: a job file is a mapping of keys (graph, scenes, frames, ...)")
    r = _Reader(path, data, lines)
    for key in data:
        if key not in _TOP_KEYS:
            close = difflib.get_close_matches(str(key), _TOP_KEYS, n=1)
            raise r.error((key,), "unknown key" + (f" (did you mean '{close[0]}'?)" if close else f"; known keys: {', '.join(_TOP_KEYS)}"))
    for required in ("graph", "scenes"):
        if required not in data:
            raise r.error((), f"the job has no '{required}'")

    graph = data["graph"]
    graph_name = None
    if isinstance(graph, dict):
        unknown = set(graph) - {"file", "name"}
        if unknown or "file" not in graph:
            raise r.error(("graph",), "expected a file path or {file: ..., name: ...}")
        graph_name = graph.get("name")
        if graph_name is not None and not isinstance(graph_name, str):
            raise r.error(("graph", "name"), f"expected a graph name, got {graph_name!r}")
        graph_file = r.file(("graph", "file"), graph["file"])
    else:
        graph_file = r.file(("graph",), graph)

    scenes = [r.file(("scenes", i), s) for i, s in enumerate(r.list(("scenes",), data["scenes"], allow_scalar=True))]
    stems: dict[str, Path] = {}
    for i, s in enumerate(scenes):
        if s.stem in stems and stems[s.stem] != s:
            raise r.error(("scenes", i), f"'{s}' and '{stems[s.stem]}' would write files of the same names ('{s.stem}.*')")
        stems[s.stem] = s
    if len(set(scenes)) != len(scenes):
        raise r.error(("scenes",), "a scene is listed twice")

    resolution = data.get("resolution", [1920, 1080])
    if not isinstance(resolution, list) or len(resolution) != 2:
        raise r.error(("resolution",), f"expected [width, height], got {resolution!r}")
    # Larger frames would fail in every task: the graph's textures can't be created.
    resolution = tuple(r.int(("resolution", i), v, minimum=1, maximum=_ext.Texture.MAX_DIMENSION) for i, v in enumerate(resolution))

    framerate = r.int(("framerate",), data.get("framerate", 60), minimum=1)
    accumulate = r.int(("accumulate",), data.get("accumulate", 1), minimum=1)
    seed = r.int(("seed",), data.get("seed", 0), minimum=0)
    retries = r.int(("retries",), data.get("retries", 2), minimum=0)
    default_format = data.get("format", "auto")
    if default_format not in FORMATS:
        raise r.error(("format",), f"expected one of {', '.join(FORMATS)}, got {default_format!r}")
    outputs = _outputs(r, default_format)
    output_dir = r.fs_path(("output_dir",), data.get("output_dir", path.stem + "_out"), "a folder")
    name = data.get("name", path.stem)
    if not isinstance(name, str):
        raise r.error(("name",), f"expected a string, got {name!r}")

    job = Job(path=path, name=name, graph_file=graph_file, graph_name=graph_name, scenes=scenes, resolution=resolution,
              framerate=framerate, accumulate=accumulate, outputs=outputs, default_format=default_format,
              output_dir=output_dir.resolve(), seed=seed, retries=retries, lines=lines)
    job.video = _video(r, framerate, outputs)
    job.scene_cache = r.get("scene_cache", False)
    if not isinstance(job.scene_cache, bool):
        raise r.error(("scene_cache",), f"expected true or false, got {job.scene_cache!r}")
    frames = _frames(r, framerate)
    cameras, camera_path = _cameras(r, len(frames))
    settings = _sweep(r)
    factors = {("scenes",): len(scenes), ("sweep",): len(settings), ("cameras",): len(cameras),
               ("times" if "times" in data else "frames",): len(frames)}
    _check_count(r, max(factors, key=lambda keypath: factors[keypath]), math.prod(factors.values()), "tasks (scenes x settings x cameras x frames)")
    job.tasks = _expand(job, frames, cameras, camera_path, settings, continuous="times" not in data)
    if outputs is not None:  # with the graph's channel masks too in worker.validate
        check_file_names(job, [(("outputs", i), o.name, "", o.format) for i, o in enumerate(outputs)])
    return job


def _outputs(r: _Reader, default_format: str) -> list[Output] | None:
    if "outputs" not in r.data:
        return None
    result: list = []
    for i, item in enumerate(r.list(("outputs",), r.data["outputs"], allow_scalar=True)):
        fmt = default_format
        if isinstance(item, dict):
            if set(item) - {"name", "format"} or "name" not in item:
                raise r.error(("outputs", i), "expected 'Pass.field' or {name: Pass.field, format: ...}")
            fmt = item.get("format", default_format)
            if fmt not in FORMATS:
                raise r.error(("outputs", i, "format"), f"expected one of {', '.join(FORMATS)}, got {fmt!r}")
            item = item["name"]
        _check_output_name(r, ("outputs", i), item)
        if any(o.name == item for o in result):
            raise r.error(("outputs", i), f"'{item}' is listed twice")
        result.append(Output(item, fmt))
    return result


def _check_output_name(r: _Reader, keypath: tuple, name) -> None:
    if not isinstance(name, str) or name.count(".") != 1:
        raise r.error(keypath, f"expected an output name 'Pass.field', got {name!r}")


def _video(r: _Reader, framerate: int, outputs: list[Output] | None):
    """`video: true` or {fps, quality, outputs}: MP4s of the PNG capture series (see batch/video.py)."""
    from .video import VideoSpec, require_encoder

    value = r.get("video", False)
    if value is False:
        return None
    if value is True:
        value = {}
    if not isinstance(value, dict) or set(value) - {"fps", "quality", "outputs"}:
        raise r.error(("video",), "expected true or {fps: ..., quality: 0-10, outputs: [Pass.field, ...]}")
    fps = r.number(("video", "fps"), value.get("fps", framerate))
    quality = r.number(("video", "quality"), value.get("quality", 8))
    if not fps > 0 or not 0 <= quality <= 10:
        raise r.error(("video",), f"fps must be positive and quality within 0-10 (got fps {fps}, quality {quality})")
    names = None
    if "outputs" in value:
        names = tuple(r.list(("video", "outputs"), value["outputs"], allow_scalar=True))
        for i, name in enumerate(names):
            _check_output_name(r, ("video", "outputs", i), name)
        if outputs is not None:  # else the graph's marked outputs, checked in worker.validate
            check_video_outputs(r, names, {o.name: o.format for o in outputs})
    try:
        require_encoder()
    except ImportError as e:
        raise r.error(("video",), str(e)) from e
    return VideoSpec(fps=fps, quality=quality, outputs=names)


def check_video_outputs(errors, names: tuple, formats: dict[str, str]) -> None:
    """Every output named under video.outputs is captured, as PNG. `formats`: the captured
    outputs' formats; `errors`: the job or its _Reader (whose error() names the key)."""
    for i, name in enumerate(names):
        if name not in formats:
            raise errors.error(("video", "outputs", i), f"'{name}' is not one of the job's outputs ({', '.join(formats)})")
        if formats[name] in ("exr", "npy"):
            raise errors.error(("video", "outputs", i), f"'{name}' is captured as {formats[name]}; videos are made of PNG frames")


def _frames(r: _Reader, framerate: int) -> list[tuple[int, float]]:
    """(frame number in file names, clock time) of every captured frame."""
    if "frames" in r.data and "times" in r.data:
        raise r.error(("times",), "give either 'frames' or 'times', not both")
    if "times" in r.data:
        times = [r.number(("times", i), t) for i, t in enumerate(r.list(("times",), r.data["times"], allow_scalar=True))]
        for i, t in enumerate(times):
            if t < 0:
                raise r.error(("times", i), f"times must not be negative, got {t}")
        if len(set(times)) != len(times):
            raise r.error(("times",), "a time is listed twice")
        return list(enumerate(times))
    spec = r.data.get("frames", [0])
    if isinstance(spec, dict):
        unknown = set(spec) - {"start", "stop", "step"}
        if unknown or "stop" not in spec:
            raise r.error(("frames",), "expected a list of frames or {start: ..., stop: ..., step: ...} (stop excluded)")
        start = r.int(("frames", "start"), spec.get("start", 0), minimum=0, maximum=MAX_FRAME)
        stop = r.int(("frames", "stop"), spec["stop"], minimum=start + 1, maximum=MAX_FRAME + 1)
        step = r.int(("frames", "step"), spec.get("step", 1), minimum=1)
        _check_count(r, ("frames",), len(range(start, stop, step)), "frames")
        frames = list(range(start, stop, step))
    else:
        frames = [r.int(("frames", i), f, minimum=0, maximum=MAX_FRAME)
                  for i, f in enumerate(r.list(("frames",), spec, allow_scalar=True))]
        if len(set(frames)) != len(frames):
            raise r.error(("frames",), "a frame is listed twice")
    return [(f, f / framerate) for f in frames]


def _pose(r: _Reader, keypath: tuple, value) -> dict:
    if not isinstance(value, dict) or not value:
        raise r.error(keypath, f"expected a camera pose {{position: [x, y, z], target: [...], up: [...], ...}}, got {value!r}")
    pose: dict[str, float | list[float]] = {}
    for key, v in value.items():
        if key not in POSE_KEYS:
            raise r.error(keypath + (key,), f"unknown camera key; known: {', '.join(POSE_KEYS)}")
        if POSE_KEYS[key]:
            if not isinstance(v, list) or len(v) != 3:
                raise r.error(keypath + (key,), f"expected [x, y, z], got {v!r}")
            pose[key] = [r.number(keypath + (key, i), c) for i, c in enumerate(v)]
        else:
            pose[key] = r.number(keypath + (key,), v)
    return pose


def _cameras(r: _Reader, frame_count: int) -> tuple[list[dict | None], list[dict] | None]:
    if "cameras" in r.data and "camera_path" in r.data:
        raise r.error(("camera_path",), "give either 'cameras' (views) or 'camera_path' (a pose per frame), not both")
    cameras: list[dict | None] = [None]
    if "cameras" in r.data:
        cameras = [_pose(r, ("cameras", i), c) for i, c in enumerate(r.list(("cameras",), r.data["cameras"]))]
    path = None
    if "camera_path" in r.data:
        path = [_pose(r, ("camera_path", i), c) for i, c in enumerate(r.list(("camera_path",), r.data["camera_path"]))]
        if len(path) != frame_count:
            raise r.error(("camera_path",), f"{len(path)} poses for {frame_count} frames: give one pose per frame")
    return cameras, path


def _sweep(r: _Reader) -> list[dict]:
    """The settings of the swept properties: [{"Pass.property": value, ...}, ...]."""
    spec = r.data.get("sweep")
    if spec is None:
        return [{}]
    if isinstance(spec, dict):
        keys, values = [], []
        for key, vals in spec.items():
            _check_property_key(r, ("sweep", key), key)
            vals = r.list(("sweep", key), vals, allow_scalar=True)
            for i, value in enumerate(vals):
                _check_property_value(r, ("sweep", key, i), value)
            if len({_canonical(v) for v in vals}) != len(vals):
                raise r.error(("sweep", key), "a value is listed twice")
            keys.append(key)
            values.append(vals)
        _check_count(r, ("sweep",), math.prod(len(v) for v in values), "settings")
        return [dict(zip(keys, combo)) for combo in itertools.product(*values)]
    settings = []
    for i, item in enumerate(r.list(("sweep",), spec)):
        if not isinstance(item, dict) or not item:
            raise r.error(("sweep", i), "expected a mapping of 'Pass.property': value")
        for key, value in item.items():
            _check_property_key(r, ("sweep", i, key), key)
            _check_property_value(r, ("sweep", i, key), value)
        settings.append(dict(item))
    seen = set()
    for i, setting in enumerate(settings):
        if _canonical(setting) in seen:
            raise r.error(("sweep", i), "the same settings are listed twice")
        seen.add(_canonical(setting))
    return settings


def _check_property_key(r: _Reader, keypath: tuple, key) -> None:
    if not isinstance(key, str) or key.count(".") != 1 or not all(key.split(".")):
        raise r.error(keypath, f"expected 'Pass.property', got {key!r}")


def _check_property_value(r: _Reader, keypath: tuple, value) -> None:
    """Property values are plain data (they go into file names, the manifest's JSON and pass
    properties): strings, numbers, booleans, null, and lists and string-keyed mappings of them."""
    if isinstance(value, list):
        for i, item in enumerate(value):
            _check_property_value(r, keypath + (i,), item)
    elif isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise r.error(keypath + (key,), f"keys of a property value are strings, got {key!r}")
            _check_property_value(r, keypath + (key,), item)
    elif value is not None and not isinstance(value, (str, int, float)):
        raise r.error(keypath, f"expected a string, number, boolean, list or mapping, got {type(value).__name__} {value!r}")


def _check_count(r: _Reader, keypath: tuple, count: int, what: str) -> None:
    if count > MAX_TASKS:
        raise r.error(keypath, f"{count} {what}: a job has at most {MAX_TASKS} tasks")


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, default=str)


# ---- tasks ----

_UNSAFE = re.compile(r"[^A-Za-z0-9._=+-]")


def format_value(value) -> str:
    """A property value as it appears in file names (stable across runs and platforms)."""
    if isinstance(value, float):
        text = repr(value)
    elif isinstance(value, (list, tuple)):
        text = "_".join(format_value(v) for v in value)
    elif isinstance(value, dict):
        text = "_".join(f"{k}-{format_value(v)}" for k, v in sorted(value.items()))
    else:
        text = str(value)
    return _UNSAFE.sub("_", text)


def base_name(scene: Path, setting: dict, camera_index: int | None) -> str:
    """`<scene stem>[__Pass.property=value ...][__cam<i>]`: Falcor's capture base name per task."""
    parts = [scene.stem] + [f"{key}={format_value(value)}" for key, value in setting.items()]
    if camera_index is not None:
        parts.append(f"cam{camera_index}")
    return "__".join(parts)


def capture_name(base: str, output: str, frame: int, mask_suffix: str, ext: str) -> str:
    """The file of one output of a task: Falcor's `<base>.<Pass>.<field>.<frame>[.<mask>].<ext>`."""
    return f"{base}.{output}.{frame}{mask_suffix}.{ext}"


def check_file_names(job: Job, captures: list[tuple[tuple, str, str, str]]) -> None:
    """Refuses a job whose longest file name, or path, is more than the output folder's file system
    allows (else every task would render, then fail to write, on every retry). `captures`: (key
    path naming it, output, mask suffix, format) of every file a task writes."""
    if not job.tasks or not captures:
        return
    task = max(job.tasks, key=lambda t: len(f"{t.base_name}{t.frame}".encode()))
    keypath, output, suffix, fmt = max(captures, key=lambda c: len(f"{c[1]}{c[2]}".encode()))
    ext = "png" if fmt == "auto" else fmt  # every format's extension has 3 letters (auto: png or exr)
    # Files are written under a longer temporary name first.
    name = image_io.temporary_path(Path(capture_name(task.base_name, output, task.frame, suffix, ext))).name
    name_max, path_max = _name_limits(job.output_dir)
    if len(name.encode()) > name_max:
        scene = Path(task.scene)
        parts = [(len(scene.stem), ("scenes", job.scenes.index(scene))), (len(output), keypath)]
        parts += [(len(f"{p}.{k}={format_value(v)}"), ("sweep", f"{p}.{k}")) for p, props in task.properties.items()
                  for k, v in props.items()]
        culprit = max(parts, key=lambda part: part[0])[1]
        raise job.error(culprit, f"file names would be up to {len(name.encode())} bytes long ('{name[:80]}...'); the file "
                                 f"system of '{job.output_dir}' allows {name_max}")
    path_length = len(os.fsencode(job.output_dir / name))
    if path_length >= path_max:
        raise job.error(("output_dir",), f"file paths would be up to {path_length} bytes long; the file system allows {path_max - 1}")


def _name_limits(folder: Path) -> tuple[int, int]:
    """(longest file name, longest path) in bytes on the file system of `folder`, or of its
    nearest existing parent when it does not exist yet."""
    existing = next(p for p in (folder, *folder.parents) if os.path.isdir(p))
    try:
        return os.pathconf(existing, "PC_NAME_MAX"), os.pathconf(existing, "PC_PATH_MAX")
    except (OSError, ValueError):  # no such limits on this platform: the usual ones
        return 255, 4096


def file_hash(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def task_seed(job_seed: int, key: str) -> int:
    """The task's RenderGraph.seed: from (job seed, task key) only, so any worker renders the same bits."""
    return int.from_bytes(hashlib.sha256(f"{job_seed}:{key}".encode()).digest()[:4], "little")


def _expand(job: Job, frames: list, cameras: list, camera_path: list | None, settings: list[dict], continuous: bool) -> list[Task]:
    """Tasks in scene order (a worker's consecutive tasks mostly share its cached scene). With
    `continuous` (frames, not times), each task first steps the scene through the previous frame."""
    common = {
        "graph": file_hash(job.graph_file), "graph_name": job.graph_name, "resolution": job.resolution,
        "framerate": job.framerate, "accumulate": job.accumulate,
        "outputs": [(o.name, o.format) for o in job.outputs] if job.outputs is not None else None,
        "format": job.default_format, "engine": build_identity(),  # files tasks read are in the manifest (batch.inputs)
    }
    scene_hashes = {s: file_hash(s) for s in job.scenes}
    tasks: list[Task] = []
    names: dict[str, object] = {}
    frame_index = {f: i for i, (f, _) in enumerate(frames)}
    for scene, setting, (cam_index, camera) in itertools.product(job.scenes, settings, enumerate(cameras)):
        base = base_name(scene, setting, cam_index if len(cameras) > 1 else None)
        properties: dict = {}
        for key, value in setting.items():
            pass_name, prop = key.split(".")
            properties.setdefault(pass_name, {})[prop] = value
        for i, (frame, time) in enumerate(frames):
            pose = camera_path[i] if camera_path else camera
            prev = None
            if continuous and frame > 0:
                # The previous frame's time and pose, so motion vectors are those of a continuous run.
                before = frame_index.get(frame - 1)
                prev_pose = camera_path[before] if camera_path and before is not None else pose
                prev = ((frame - 1) / job.framerate, prev_pose)
            key = f"{base}@{frame}"
            if key in names:
                raise job.error(("sweep",), f"two tasks would be named '{key}' (settings {names[key]} and {setting}): "
                                            "their values look the same in file names")
            names[key] = setting
            seed = task_seed(job.seed, key)
            fingerprint = hashlib.sha256(_canonical({
                **common, "scene": scene_hashes[scene], "key": key, "time": time, "properties": properties,
                "pose": pose, "prev": prev, "seed": seed}).encode()).hexdigest()
            tasks.append(Task(key=key, base_name=base, scene=str(scene), frame=frame, time=time, timed=not continuous,
                              properties=properties,
                              pose=pose, prev=prev, seed=seed, fingerprint=fingerprint))
    return tasks
