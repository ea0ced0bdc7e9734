"""The scene cache's data-only form of `SceneContents` (materials, textures, lights, cameras,
animations, the node graph): a JSON document plus the bytes of its arrays.

Reading it runs no code the file names. Objects are made only of the scene classes listed here
(by name, from a fixed table), with their attributes set as data; values are JSON values, tuples,
dicts, paths, enum members and math vectors of those classes, numpy arrays of plain dtypes, and
textures. Everything is checked as it is read: names, types, nesting depth, array shapes against
the bytes present (arrays may not overlap, so a file can't make the reader allocate more than it
holds), texture sizes (Texture's unpickling checks the bytes before allocating; each texture has
data of its own). Anything else raises `ContentsError`.
"""
from __future__ import annotations

import json
import os
import struct
from pathlib import Path, PurePath

import numpy as np

from .. import falcor_ext as _ext
from .. import math_types

MAX_DEPTH = 32  # nesting of lists, tuples and dicts in one attribute
_DTYPES = {np.dtype(t).str: np.dtype(t) for t in
           (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
            np.float16, np.float32, np.float64)}
_SIZE = struct.Struct("<Q")


class ContentsError(ValueError):
    """Cached scene contents that can't be read back."""


def _subclasses(roots) -> list:
    found, pending = [], list(roots)
    while pending:
        cls = pending.pop()
        if cls not in found:
            found.append(cls)
            pending += cls.__subclasses__()
    return found


def _name(cls) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


_tables: dict = {}


def _table(kind: str) -> dict:
    """name -> class of what a file may contain: 'objects', 'enums', 'vectors'."""
    if not _tables:
        from . import animation, camera, envmap, light, material, render_settings, scene, scene_builder, skinning, transform
        from ._enum import BoundEnum

        objects = [scene.SceneContents, scene._Geometry, scene.BuiltMesh, material._Slot, camera.Camera, animation.Animation,
                   animation._Keyframe, envmap.EnvMap, render_settings.SceneRenderSettings, transform.Transform,
                   skinning.MeshSkin]
        _tables["objects"] = {_name(c): c for c in _subclasses(objects + [material.IMaterial, light.Light])}
        _tables["enums"] = {_name(c): c for c in _subclasses([BoundEnum]) + [material.NormalMapType, scene_builder.SceneBuilderFlags]}
        _tables["vectors"] = {_name(c): c for c in _subclasses([math_types._Vector])}
    return _tables[kind]


# ---- writing --------------------------------------------------------------------------------

class _Writer:
    def __init__(self) -> None:
        self.objects: list = []
        self.textures: list = []
        self.arrays: list = []
        self.blob = bytearray()
        self.memo: dict = {}  # id(object) -> its reference (shared objects stay shared)
        self.keep: list = []  # what the memo's ids point to, alive until the end

    def value(self, v, depth: int = 0):
        if depth > MAX_DEPTH:
            raise TypeError(f"values nested deeper than {MAX_DEPTH} levels")
        if v is None or type(v) in (bool, int, float, str):
            return v
        if type(v) is list:
            return [self.value(x, depth + 1) for x in v]
        if type(v) is tuple:
            return {"tuple": [self.value(x, depth + 1) for x in v]}
        if type(v) is dict:
            return {"dict": [[self.value(k, depth + 1), self.value(x, depth + 1)] for k, x in v.items()]}
        if _name(type(v)) in _table("enums"):
            return {"enum": _name(type(v)), "value": v.value}
        if isinstance(v, PurePath):
            return {"path": os.fspath(v)}
        if _name(type(v)) in _table("vectors"):
            return {"vector": _name(type(v)), "values": list(v)}
        if isinstance(v, np.generic):
            return {"scalar": self.array(np.asarray(v))}
        if id(v) in self.memo:
            return self.memo[id(v)]
        if isinstance(v, np.ndarray):
            ref = {"array": self.array(v)}
        elif isinstance(v, _ext.Texture):
            ref = {"texture": self.texture(v)}
        elif _name(type(v)) in _table("objects"):
            ref = {"object": self.object(v)}
        else:
            raise TypeError(f"a {type(v).__module__}.{type(v).__qualname__} can't be stored in the scene cache")
        self.memo[id(v)] = ref
        self.keep.append(v)
        return ref

    def array(self, a: np.ndarray) -> int:
        if a.dtype.str not in _DTYPES:
            raise TypeError(f"arrays of {a.dtype} can't be stored in the scene cache")
        data = np.ascontiguousarray(a).tobytes()
        self.arrays.append([a.dtype.str, list(a.shape), len(self.blob)])
        self.blob += data
        return len(self.arrays) - 1

    def texture(self, t) -> int:
        kind, width, height, depth, fmt, array_size, mips, name, data = t.__getstate__()
        self.textures.append([kind, width, height, depth, fmt.name, array_size, mips, name,
                              self.array(np.frombuffer(data, np.uint8))])
        return len(self.textures) - 1

    def object(self, obj) -> int:
        index = len(self.objects)
        self.objects.append(None)  # reserved: the state may refer back to this object
        slots = [s for c in type(obj).__mro__ for s in c.__dict__.get("__slots__", ())]
        state = {**{s: getattr(obj, s) for s in slots if hasattr(obj, s)}, **getattr(obj, "__dict__", {})}
        self.objects[index] = [_name(type(obj)), {k: self.value(v) for k, v in state.items()}]
        return index


def encode(contents) -> bytes:
    """The bytes of `contents`. Raises TypeError naming a value that can't be stored."""
    writer = _Writer()
    root = writer.value(contents)
    doc = json.dumps({"root": root, "objects": writer.objects, "textures": writer.textures, "arrays": writer.arrays},
                     separators=(",", ":")).encode()
    return _SIZE.pack(len(doc)) + doc + bytes(writer.blob)


# ---- reading --------------------------------------------------------------------------------

def _check(condition, message: str) -> None:
    if not condition:
        raise ContentsError(message)


def _int(v, what: str) -> int:
    _check(type(v) is int, f"{what} is not an integer")
    return v


def _list(v, what: str) -> list:
    _check(type(v) is list, f"{what} is not a list")
    return v


def _known(kind: str, name, what: str):
    """The class of `kind` (see _table) called `name`; ContentsError if there is none."""
    cls = _table(kind).get(name) if type(name) is str else None
    if cls is None:
        raise ContentsError(f"'{name}' is not {what}")
    return cls


class _Reader:
    def __init__(self, doc: dict, blob: memoryview) -> None:
        self.blob = blob
        self.arrays = self._array_table(_list(doc.get("arrays"), "the array table"))
        self.textures = _list(doc.get("textures"), "the texture table")
        self.object_states = _list(doc.get("objects"), "the object table")
        self.made: dict = {}  # (kind, index) -> the array or texture made from it
        self.texture_data: set = set()  # arrays textures were made of: each backs one, so textures fit in the file too
        self.objects = [self._new_object(entry) for entry in self.object_states]
        for obj, (_, state) in zip(self.objects, self.object_states):
            self._fill(obj, state)

    def _array_table(self, table: list) -> list:
        """[(dtype, shape, offset, size)], checked: arrays lie in the bytes in order, never overlapping."""
        checked, end = [], 0
        for i, entry in enumerate(table):
            _check(type(entry) is list and len(entry) == 3, f"array {i} is malformed")
            dtype = _DTYPES.get(entry[0]) if type(entry[0]) is str else None
            if dtype is None:
                raise ContentsError(f"array {i} has an unknown type")
            shape = [_int(n, f"array {i}'s shape") for n in _list(entry[1], f"array {i}'s shape")]
            _check(len(shape) <= 8 and min(shape, default=0) >= 0, f"array {i} has an invalid shape")
            offset = _int(entry[2], f"array {i}'s offset")
            size = int(np.prod(shape, dtype=object)) * dtype.itemsize
            _check(end <= offset and offset + size <= len(self.blob), f"array {i} overlaps another or lies outside the data")
            end = offset + size
            checked.append((dtype, shape, offset, size))
        return checked

    def _new_object(self, entry):
        _check(type(entry) is list and len(entry) == 2 and type(entry[1]) is dict, "an object entry is malformed")
        return object.__new__(_known("objects", entry[0], "a scene class"))

    def _fill(self, obj, state: dict) -> None:
        slots = {s for c in type(obj).__mro__ for s in c.__dict__.get("__slots__", ())}
        for name, value in state.items():
            _check(type(name) is str and name.isidentifier() and not name.startswith("__"), f"'{name}' is not an attribute name")
            if slots:
                _check(name in slots, f"{type(obj).__name__} has no attribute '{name}'")
                object.__setattr__(obj, name, self.value(value))
            else:
                obj.__dict__[name] = self.value(value)

    def value(self, v, depth: int = 0):
        _check(depth <= MAX_DEPTH, f"values nested deeper than {MAX_DEPTH} levels")
        if v is None or type(v) in (bool, int, float, str):
            return v
        if type(v) is list:
            return [self.value(x, depth + 1) for x in v]
        _check(type(v) is dict and len(v) in (1, 2), "a value is malformed")
        (tag, payload), *rest = v.items()
        if tag == "tuple":
            return tuple(self.value(x, depth + 1) for x in _list(payload, "a tuple"))
        if tag == "dict":
            pairs = [_list(p, "a dict entry") for p in _list(payload, "a dict")]
            _check(all(len(p) == 2 for p in pairs), "a dict entry is malformed")
            try:
                return {self.value(k, depth + 1): self.value(x, depth + 1) for k, x in pairs}
            except TypeError as e:  # an unhashable key
                raise ContentsError(f"a dict key is invalid ({e})") from None
        if tag == "path":
            _check(type(payload) is str, "a path is not a string")
            return Path(payload)
        if tag == "enum" and rest and rest[0][0] == "value":
            cls = _known("enums", payload, "a scene enum")
            try:
                return cls(rest[0][1])
            except (ValueError, TypeError, OverflowError) as e:
                raise ContentsError(f"{payload}: {e}") from None
        if tag == "vector" and rest and rest[0][0] == "values":
            cls = _known("vectors", payload, "a vector type")
            try:
                return cls(_list(rest[0][1], "a vector's values"))
            except (ValueError, TypeError, OverflowError) as e:
                raise ContentsError(f"{payload}: {e}") from None
        if tag == "object":
            index = _int(payload, "an object reference")
            _check(0 <= index < len(self.objects), "an object reference is out of range")
            return self.objects[index]
        if tag == "array":
            return self.array(payload)
        if tag == "scalar":
            return self.array(payload)[()]
        if tag == "texture":
            return self.texture(payload)
        raise ContentsError(f"unknown value tag '{tag}'")

    def array(self, index) -> np.ndarray:
        index = _int(index, "an array reference")
        _check(0 <= index < len(self.arrays), "an array reference is out of range")
        if ("array", index) not in self.made:
            dtype, shape, offset, size = self.arrays[index]
            data = np.frombuffer(self.blob[offset:offset + size], dtype)
            self.made["array", index] = data.reshape(shape).copy()
        return self.made["array", index]

    def texture(self, index):
        index = _int(index, "a texture reference")
        _check(0 <= index < len(self.textures), "a texture reference is out of range")
        if ("texture", index) not in self.made:
            entry = _list(self.textures[index], f"texture {index}")
            _check(len(entry) == 9, f"texture {index} is malformed")
            kind, width, height, depth, fmt, array_size, mips, name, data = entry
            for what, n in (("type", kind), ("width", width), ("height", height), ("depth", depth), ("array size", array_size),
                            ("mip count", mips)):
                _check(type(n) is int and 0 <= n < 2**32, f"texture {index}'s {what} is invalid")
            _check(type(fmt) is str and fmt in _ext.ResourceFormat.__members__, f"texture {index}'s format is unknown")
            _check(type(name) is str, f"texture {index}'s name is not a string")
            _check(_int(data, f"texture {index}'s data") not in self.texture_data, f"texture {index} shares its data with another texture")
            self.texture_data.add(data)
            texture = _ext.Texture.__new__(_ext.Texture)
            try:
                texture.__setstate__((kind, width, height, depth, _ext.ResourceFormat.__members__[fmt], array_size, mips, name,
                                      self.array(data).tobytes()))
            except (_ext.RuntimeError, TypeError, MemoryError) as e:  # MemoryError: a size beyond the limits, refused unallocated
                raise ContentsError(f"texture {index}: {e}") from None
            self.made["texture", index] = texture
        return self.made["texture", index]


def decode(data: bytes):
    """The SceneContents `encode` stored in `data`. Raises ContentsError saying what is wrong."""
    from .scene import SceneContents

    view = memoryview(data)
    _check(len(view) >= _SIZE.size, "the contents are truncated")
    (doc_size,) = _SIZE.unpack_from(view)
    _check(doc_size <= len(view) - _SIZE.size, "the contents are truncated")
    try:
        doc = json.loads(bytes(view[_SIZE.size:_SIZE.size + doc_size]))
    except (ValueError, RecursionError) as e:
        raise ContentsError(f"the contents are not a JSON document ({type(e).__name__})") from None
    _check(type(doc) is dict, "the contents are not a JSON object")
    root = _Reader(doc, view[_SIZE.size + doc_size:]).value(doc.get("root"))
    _check(type(root) is SceneContents, "the contents are not a scene")
    return root
