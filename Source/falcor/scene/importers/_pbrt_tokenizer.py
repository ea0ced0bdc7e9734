"""pbrt-v4 scene text -> tokens with line numbers, and parameter lists ("type name" [values]).

A token is a quoted string, a bracket, or a bare word (a directive name or a number). A run of bare
numbers inside brackets is kept as one `block` token so that large inline meshes are split by numpy
instead of one Python object per number.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import error

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<comment>\#[^\n]*)
  | (?P<block>\[(?P<body>[^\]"\#\[]*)\])      # [ 1 2 3 ] : numbers only, one token
  | (?P<string>"(?P<text>[^"\n]*)")
  | (?P<open>\[)
  | (?P<close>\])
  | (?P<word>[^\s\[\]"\#]+)
  | (?P<bad>.)
""", re.VERBOSE | re.DOTALL)


@dataclass
class Token:
    kind: str  # "word", "string", "block", "open", "close"
    text: str
    line: int


def tokenize(text: str, path) -> list[Token]:
    """The tokens of a whole file; raises ImporterError naming file and line on an unterminated string."""
    tokens: list[Token] = []
    line, counted_to = 1, 0
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup or "bad"
        if kind in ("space", "comment"):
            continue
        start = m.start()
        line += text.count("\n", counted_to, start)
        counted_to = start
        if kind == "bad":
            raise error(path, f"line {line}: unterminated string or unexpected character {m.group()!r}")
        if kind == "string":
            tokens.append(Token("string", m.group("text") or "", line))
        elif kind == "block":
            tokens.append(Token("block", m.group("body") or "", line))
        else:
            tokens.append(Token(str(kind), m.group(), line))
    return tokens


# --- parameter lists ---------------------------------------------------------------------------

_NUMERIC = {"integer", "float", "point2", "vector2", "point3", "vector3", "normal", "normal3", "rgb", "blackbody",
            "point", "vector", "color"}
_TUPLE_SIZE = {"point2": 2, "vector2": 2, "point3": 3, "vector3": 3, "point": 3, "vector": 3, "normal": 3, "normal3": 3,
               "rgb": 3, "color": 3}


@dataclass
class Param:
    type: str
    name: str
    values: Any  # np.ndarray (numeric) or list[str] / list[bool]
    line: int


@dataclass
class Params:
    """A directive's parameters by name, with the file/line for messages."""

    path: object
    line: int
    items: dict[str, Param] = field(default_factory=dict)

    def where(self, name: str | None = None) -> str:
        line = self.items[name].line if name in self.items else self.line
        return f"{self.path}:{line}"

    def fail(self, name: str | None, message: str):
        line = self.items[name].line if name in self.items else self.line
        return error(self.path, f"line {line}: {message}")

    def has(self, name: str) -> bool:
        return name in self.items

    def type_of(self, name: str) -> str | None:
        return self.items[name].type if name in self.items else None

    def array(self, name: str, width: int = 1, dtype=np.float64) -> np.ndarray | None:
        """A numeric parameter as an (N, width) array (or (N,) for width 1); None when absent."""
        p = self.items.get(name)
        if p is None:
            return None
        if not isinstance(p.values, np.ndarray):
            raise self.fail(name, f"parameter '{name}' must be numeric")
        v = p.values
        if width > 1:
            if len(v) % width:
                raise self.fail(name, f"parameter '{name}' has {len(v)} values, not a multiple of {width}")
            v = v.reshape(-1, width)
        return v.astype(dtype) if dtype is not np.float64 else v

    def float(self, name: str, default: float) -> float:
        v = self.array(name)
        if v is None or len(v) == 0:
            return default
        return float(v[0])

    def int(self, name: str, default: int) -> int:
        v = self.array(name)
        if v is None or len(v) == 0:
            return default
        return int(v[0])

    def string(self, name: str, default: str = "") -> str:
        p = self.items.get(name)
        if p is None:
            return default
        if isinstance(p.values, np.ndarray) or not p.values:
            raise self.fail(name, f"parameter '{name}' must be a string")
        return str(p.values[0])

    def bool(self, name: str, default: bool) -> bool:
        p = self.items.get(name)
        if p is None or not p.values:
            return default
        value = p.values[0]
        if isinstance(value, bool):
            return value
        raise self.fail(name, f"parameter '{name}' must be true or false")

    def with_defaults(self, defaults: Params | None) -> Params:
        """These parameters over the `Attribute` defaults of their kind (pbrt-v4)."""
        if defaults is None or not defaults.items:
            return self
        merged = Params(self.path, self.line, dict(defaults.items))
        merged.items.update(self.items)
        return merged


def parse_values(type_: str, name: str, raw: list[Token], path) -> Any:
    line = raw[0].line if raw else 0
    if type_ in _NUMERIC:
        text = " ".join(t.text for t in raw if t.kind in ("word", "block"))
        if any(t.kind == "string" for t in raw):
            raise error(path, f"line {line}: parameter '{name}' of type '{type_}' holds a string")
        try:
            values = np.array(text.split(), dtype=np.float64)
        except ValueError:
            raise error(path, f"line {line}: parameter '{name}' holds a value that is not a number") from None
        if not np.all(np.isfinite(values)):
            raise error(path, f"line {line}: parameter '{name}' holds NaN or infinite values")
        if type_ == "integer" and np.any(values != np.round(values)):
            raise error(path, f"line {line}: integer parameter '{name}' holds a fraction")
        size = _TUPLE_SIZE.get(type_, 1)
        if len(values) % size:
            raise error(path, f"line {line}: parameter '{name}' of type '{type_}' has {len(values)} values, not a multiple of {size}")
        return values
    if type_ == "bool":
        out = []
        for t in raw:
            for word in t.text.split():
                if word not in ("true", "false"):
                    raise error(path, f"line {t.line}: bool parameter '{name}' holds '{word}' (true or false expected)")
                out.append(word == "true")
        return out
    if type_ in ("string", "texture", "spectrum"):
        if type_ == "spectrum" and raw and all(t.kind != "string" for t in raw):
            return parse_values("float", name, raw, path)  # interleaved (wavelength, value) pairs
        return [t.text for t in raw if t.kind == "string"] or [w for t in raw for w in t.text.split()]
    raise error(path, f"line {line}: unknown parameter type '{type_}' of '{name}'")
