"""Small helpers shared by the scene objects (camera, lights, materials, env map)."""
from __future__ import annotations

import numpy as np

from ..math_types import float3


def f32(v) -> float:
    """`v` rounded to float32, as the C++ value Falcor stores."""
    return float(np.float32(float(v)))


class Versioned:
    """Counts edits so the scene pushes an object to the renderer only when it changed."""

    def __init__(self):
        self._version = 0

    def _touch(self):
        self._version += 1


def vector_property(attr: str, doc: str = ""):
    """A float3 property stored in `self.<attr>`: reads return a copy, writes convert any
    3-sequence and count as an edit (`_touch`)."""

    def get(self) -> float3:
        return float3(getattr(self, attr))

    def set(self, value):
        setattr(self, attr, float3(value))
        self._touch()

    return property(get, set, doc=doc)
