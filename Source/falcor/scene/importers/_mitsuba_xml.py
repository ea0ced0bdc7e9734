"""Reading a Mitsuba 3 scene file into a tree of plugin objects and their properties.

This is the first half of the Mitsuba importer (see mitsuba.py for the mapping): it does what
Mitsuba's own parser does before any plugin exists, with file:line on every error:

- XML through `xml.parsers.expat` (line numbers); a DOCTYPE or an ENTITY declaration is refused
  before parsing (no entity expansion at all), and so are files over `MAX_FILE_BYTES`, elements
  nested deeper than `MAX_NESTING`, more than `MAX_ELEMENTS` elements over all included files, and
  include chains deeper than Mitsuba's 15 or that include a file already being read.
- `$name` substitution in every attribute, longest name first, `\\$` escaping a dollar; the
  parameters given to the loader win over `<default>` (which only adds names not yet defined).
- Property tags (float, integer, boolean, string, point, vector, rgb, spectrum, transform),
  transforms composed as Mitsuba does (each operation is applied after the ones before it:
  M = op_n ... op_2 op_1), `<ref>` by id (resolved after the whole file is read, so references
  may point forward), `<include>` (relative to the including file), `<alias>`, `<path>`.
- version < 2.0 files: camelCase property names become snake_case, as Mitsuba upgrades them.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.parsers import expat

import numpy as np

from . import error

MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_NESTING = 100
MAX_ELEMENTS = 2_000_000
MAX_INCLUDE_DEPTH = 15  # Mitsuba's ParserConfig::max_include_depth
MAX_SPECTRUM_SAMPLES = 100_000
MAX_ATTRIBUTE_CHARS = 1 << 20  # after substitution: chained parameters could otherwise grow exponentially
FLOAT_MAX = 3.4028234663852886e38  # Mitsuba's RGB variants hold numbers as float32

OBJECT_TAGS = {"scene", "shape", "bsdf", "emitter", "sensor", "film", "sampler", "integrator", "texture",
               "rfilter", "medium", "phase", "volume", "spectrum"}
PROPERTY_TAGS = {"float", "integer", "boolean", "string", "point", "vector", "rgb", "spectrum", "transform"}
TRANSFORM_OPS = {"translate", "rotate", "scale", "matrix", "lookat"}
_FLOAT = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_SEPARATORS = re.compile(r"[\s,]+")


@dataclass
class XmlElement:
    tag: str
    attrs: dict
    file: Path
    line: int
    children: list = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass
class Prop:
    kind: str  # a PROPERTY_TAGS name
    value: Any  # float, int, bool, str, (3,) array (point, vector, rgb), spectrum tuple, (4, 4) array
    where: str


@dataclass
class Ref:
    id: str
    where: str


@dataclass
class Obj:
    """A plugin instance: <shape type="obj" id=...> with its properties and nested objects."""

    tag: str
    type: str
    id: str | None
    where: str
    props: dict[str, Prop] = field(default_factory=dict)
    children: list = field(default_factory=list)  # (name attribute or None, Obj | Ref), in file order

    def nested(self, tag: str | None = None) -> list[tuple[str | None, Obj]]:
        """The nested objects (references resolved), optionally of one tag."""
        return [(name, o) for name, o in self.children if isinstance(o, Obj) and (tag is None or o.tag == tag)]


def fail(where: str, message: str, path) -> Exception:
    """An ImporterError naming the main scene file and, in the message, file:line of the cause."""
    return error(path, f"{where}: {message}")


# --- XML -----------------------------------------------------------------------------------------


def read_xml(path: Path, main: Path, budget: list, where: str | None = None) -> XmlElement:
    """Parses one file into XmlElements; `budget` is the remaining element count (shared by includes);
    `where` is the file:line of the <include> that reads it."""
    where = where or str(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise fail(where, f"'{path}' has {size} bytes, more than the {MAX_FILE_BYTES} a scene file may have", main)
        data = path.read_bytes()
    except OSError as e:
        raise fail(where, f"'{path}' can't be read ({e.strerror or e})", main) from e
    declaration = re.search(rb"<!\s*(DOCTYPE|ENTITY)", data, re.IGNORECASE)
    if declaration:
        line = data.count(b"\n", 0, declaration.start()) + 1
        raise fail(f"{path}:{line}", "DOCTYPE and ENTITY declarations are refused (Mitsuba scenes have none)", main)
    return _parse(data, path, main, budget)


def _parse(data: bytes, path: Path, main: Path, budget: list) -> XmlElement:
    parser = expat.ParserCreate()
    stack: list[XmlElement] = []
    roots: list[XmlElement] = []

    def start(tag, attrs):
        budget[0] -= 1
        if budget[0] < 0:
            raise fail(f"{path}:{parser.CurrentLineNumber}", f"more than {MAX_ELEMENTS} XML elements", main)
        if len(stack) >= MAX_NESTING:
            raise fail(f"{path}:{parser.CurrentLineNumber}", f"elements nested more than {MAX_NESTING} deep", main)
        element = XmlElement(tag, dict(attrs), path, parser.CurrentLineNumber)
        (stack[-1].children if stack else roots).append(element)
        stack.append(element)

    def refuse(*_):
        raise fail(f"{path}:{parser.CurrentLineNumber}", "DOCTYPE and ENTITY declarations are refused", main)

    parser.StartElementHandler = start
    parser.EndElementHandler = lambda tag: stack.pop()
    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    try:
        parser.Parse(data, True)
    except expat.ExpatError as e:
        raise fail(f"{path}:{e.lineno}", f"not well-formed XML ({expat.errors.messages[e.code]})", main) from None
    return roots[0]


# --- the document ------------------------------------------------------------------------------


class Reader:
    """Turns XML elements into Obj trees: parameters, includes, references, properties."""

    def __init__(self, main: Path, params: dict[str, str]):
        self.main = main
        self.params = dict(params)  # the loader's parameters; <default> adds names not given
        self.ids: dict[str, Obj] = {}
        self.refs: list[tuple[Obj, int, Ref]] = []
        self.including: list[Path] = []
        self.search_paths: list[Path] = [main.parent]
        self.budget = [MAX_ELEMENTS]
        self.version = (3, 0, 0)

    def read(self) -> Obj:
        root = self._open(self.main, None)
        if root.tag != "scene":
            raise fail(root.where, f"the root element is <{root.tag}>, not <scene>: not a Mitsuba scene file", self.main)
        self.version = self._version(root)
        scene = Obj("scene", "scene", None, root.where)
        self.including.append(self.main)
        self._children(root, scene, 0)
        self.including.pop()
        self._resolve_references()
        return scene

    def _open(self, path: Path, where: str | None) -> XmlElement:
        return read_xml(path, self.main, self.budget, where)

    def _version(self, root: XmlElement) -> tuple:
        text = root.attrs.get("version")
        if text is None:
            raise fail(root.where, "<scene> has no version attribute (Mitsuba requires one)", self.main)
        parts = text.strip().split(".")
        if not 1 <= len(parts) <= 3 or not all(p.isdigit() and len(p) < 6 for p in parts):
            raise fail(root.where, f"invalid version number '{text}'", self.main)
        return tuple(int(p) for p in parts) + (0,) * (3 - len(parts))

    # --- elements ---

    def _children(self, element: XmlElement, parent: Obj, depth: int) -> None:
        for child in element.children:
            self._element(child, parent, depth)

    def _element(self, e: XmlElement, parent: Obj, depth: int) -> None:
        attrs = {k: self._substitute(v, e) for k, v in e.attrs.items()}
        if "name" in attrs and self.version < (2, 0, 0):
            attrs["name"] = _snake_case(attrs["name"])
        tag = e.tag
        if tag in OBJECT_TAGS and not (tag == "spectrum" and "type" not in attrs):
            self._object(e, attrs, parent, depth)
        elif tag in PROPERTY_TAGS:
            name = self._required(e, attrs, "name")
            parent.props[name] = Prop(tag, self._property(e, attrs), e.where)
        elif tag == "ref":
            parent.children.append((attrs.get("name"), Ref(self._required(e, attrs, "id"), e.where)))
            self.refs.append((parent, len(parent.children) - 1, parent.children[-1][1]))
        elif tag == "default":
            name = self._required(e, attrs, "name")
            if not name:
                raise fail(e.where, "<default>: the name is empty", self.main)
            self.params.setdefault(name, self._required(e, attrs, "value"))
        elif tag == "include":
            self._include(e, attrs, parent, depth)
        elif tag == "alias":
            source, alias = self._required(e, attrs, "id"), self._required(e, attrs, "as")
            if alias in self.ids:
                raise fail(e.where, f"<alias>: the id '{alias}' exists already", self.main)
            if source not in self.ids:
                raise fail(e.where, f"<alias>: no object has the id '{source}'", self.main)
            self.ids[alias] = self.ids[source]
        elif tag == "path":
            folder = Path(self._required(e, attrs, "value"))
            self.search_paths.insert(0, folder if folder.is_absolute() else e.file.parent / folder)
        else:
            raise fail(e.where, f"<{tag}> is not a Mitsuba scene element", self.main)

    def _object(self, e: XmlElement, attrs: dict, parent: Obj, depth: int) -> None:
        if e.tag == "scene":
            raise fail(e.where, "<scene> can only be the root element", self.main)
        obj = Obj(e.tag, self._required(e, attrs, "type"), attrs.get("id"), e.where)
        if obj.id is not None:
            if obj.id in self.ids:
                raise fail(e.where, f"the id '{obj.id}' is used twice (first at {self.ids[obj.id].where})", self.main)
            self.ids[obj.id] = obj
        parent.children.append((attrs.get("name"), obj))
        self._children(e, obj, depth + 1)
        if self.version < (2, 0, 0) and obj.type == "diffuse":  # Mitsuba's upgrade of version 1 files
            if "diffuse_reflectance" in obj.props:
                obj.props["reflectance"] = obj.props.pop("diffuse_reflectance")
            obj.children = [("reflectance" if n == "diffuse_reflectance" else n, o) for n, o in obj.children]

    def _include(self, e: XmlElement, attrs: dict, parent: Obj, depth: int) -> None:
        name = self._required(e, attrs, "filename")
        path = self.resolve(name, e.file)
        if path is None:
            raise fail(e.where, f"<include>: can't find '{name}' (searched: {', '.join(map(str, self._folders(e.file)))})", self.main)
        if path in self.including:
            chain = " -> ".join(str(p) for p in self.including + [path])
            raise fail(e.where, f"<include> of '{name}' includes a file that is already being read ({chain})", self.main)
        if len(self.including) > MAX_INCLUDE_DEPTH:
            raise fail(e.where, f"<include> nested more than {MAX_INCLUDE_DEPTH} files deep", self.main)
        root = self._open(path, e.where)
        self.including.append(path)
        if root.tag == "scene":
            self._children(root, parent, depth)  # a scene's children join the including element
        else:
            self._element(root, parent, depth)
        self.including.pop()

    def _folders(self, current: Path) -> list[Path]:
        return [current.parent] + [p for p in self.search_paths if p != current.parent]

    def resolve(self, name: str, current: Path) -> Path | None:
        """A file named in the scene: absolute, or relative to the naming file's folder, then the <path>s."""
        given = Path(name.replace("\\", "/"))
        if given.is_absolute():
            return given.resolve() if given.is_file() else None
        for folder in self._folders(current):
            candidate = folder / given
            if candidate.is_file():
                return candidate.resolve()
        return None

    def _resolve_references(self) -> None:
        for parent, index, ref in self.refs:
            target = self.ids.get(ref.id)
            if target is None:
                raise fail(ref.where, f"<ref id=\"{ref.id}\">: no object has this id", self.main)
            parent.children[index] = (parent.children[index][0], target)

    # --- attribute values ---

    def _substitute(self, value: str, e: XmlElement) -> str:
        if "$" not in value:
            return value
        for key in sorted(self.params, key=len, reverse=True):
            replacement = self.params[key].replace("$", "\\$")  # substituted text is not substituted again
            value = re.sub(r"(?<!\\)\$" + re.escape(key), _literal(replacement), value)
            if len(value) > MAX_ATTRIBUTE_CHARS:
                raise fail(e.where, f"an attribute grows past {MAX_ATTRIBUTE_CHARS} characters by parameter substitution", self.main)
        unresolved = re.search(r"(?<!\\)\$(\w*)", value)
        if unresolved:
            raise fail(e.where, f"undefined parameter ${unresolved.group(1)}", self.main)
        return value.replace("\\$", "$")

    def _required(self, e: XmlElement, attrs: dict, name: str) -> str:
        if name not in attrs:
            raise fail(e.where, f"<{e.tag}> needs a '{name}' attribute", self.main)
        return attrs[name]

    def number(self, text: str, where: str) -> float:
        text = text.strip()
        if not _FLOAT.match(text):
            raise fail(where, f"'{text[:40]}' is not a number", self.main)
        value = float(text)
        if not abs(value) <= FLOAT_MAX:
            raise fail(where, f"'{text[:40]}' is out of the float range", self.main)
        return value

    def numbers(self, text: str, where: str) -> list[float]:
        tokens = [t for t in _SEPARATORS.split(text.strip()) if t]
        return [self.number(t, where) for t in tokens]

    def _property(self, e: XmlElement, attrs: dict):
        kind = e.tag
        if kind == "transform":
            return self._transform(e)
        if kind in ("point", "vector"):
            return np.array(self._xyz(e, attrs, None))
        if kind == "spectrum":
            return self._spectrum(e, attrs)
        value = self._required(e, attrs, "value")
        if kind == "float":
            return self.number(value, e.where)
        if kind == "integer":
            if not re.fullmatch(r"\s*[+-]?\d{1,18}\s*", value):
                raise fail(e.where, f"'{value[:40]}' is not an integer", self.main)
            return int(value)
        if kind == "boolean":
            if value.strip().lower() not in ("true", "false"):
                raise fail(e.where, f"'{value[:40]}' is not true or false", self.main)
            return value.strip().lower() == "true"
        if kind == "rgb":
            values = self.numbers(value, e.where)
            if len(values) not in (1, 3):
                raise fail(e.where, f"<rgb> needs one or three values, not {len(values)}", self.main)
            return np.array(values * 3 if len(values) == 1 else values)
        return value  # string

    def _xyz(self, e: XmlElement, attrs: dict, default: float | None) -> list[float]:
        if "value" in attrs:
            values = self.numbers(attrs["value"], e.where)
            if len(values) not in (1, 3):
                raise fail(e.where, f"<{e.tag}> value needs one or three numbers, not {len(values)}", self.main)
            return values * 3 if len(values) == 1 else values
        result = []
        for axis in "xyz":
            if axis in attrs:
                result.append(self.number(attrs[axis], e.where))
            elif default is None:
                raise fail(e.where, f"<{e.tag}> needs x, y and z", self.main)
            else:
                result.append(default)
        return result

    def _spectrum(self, e: XmlElement, attrs: dict):
        """("uniform", v) or ("sampled", wavelengths, values)."""
        if ("value" in attrs) == ("filename" in attrs):
            raise fail(e.where, "<spectrum> needs either a value or a filename", self.main)
        if "filename" in attrs:
            path = self.resolve(attrs["filename"], e.file)
            if path is None:
                raise fail(e.where, f"can't find the spectrum file '{attrs['filename']}'", self.main)
            pairs = self._spd_file(path, e.where)
        else:
            text = attrs["value"].strip()
            if ":" not in text:
                values = self.numbers(text, e.where)
                if len(values) != 1:
                    raise fail(e.where, "<spectrum> needs one value or wavelength:value pairs", self.main)
                return ("uniform", values[0])
            pairs = []
            for token in (t for t in text.split(",") if t.strip()):
                if token.count(":") != 1:
                    raise fail(e.where, f"'{token.strip()[:40]}' is not a wavelength:value pair", self.main)
                w, v = token.split(":")
                pairs.append((self.number(w, e.where), self.number(v, e.where)))
                if len(pairs) > MAX_SPECTRUM_SAMPLES:
                    raise fail(e.where, f"more than {MAX_SPECTRUM_SAMPLES} spectrum samples", self.main)
        wavelengths = np.array([p[0] for p in pairs])
        if len(pairs) < 2 or np.any(np.diff(wavelengths) <= 0):
            raise fail(e.where, "a sampled spectrum needs two or more increasing wavelengths", self.main)
        return ("sampled", wavelengths, np.array([p[1] for p in pairs]))

    def _spd_file(self, path: Path, where: str) -> list:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise fail(where, f"the spectrum file '{path}' is too large", self.main)
        pairs = []
        for line in path.read_text(errors="replace").splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                values = self.numbers(line, f"{path}")
                if len(values) != 2:
                    raise fail(where, f"'{path}': '{line[:40]}' is not a wavelength and a value", self.main)
                pairs.append(tuple(values))
        return pairs

    def _transform(self, e: XmlElement) -> np.ndarray:
        matrix = np.eye(4)
        for op in e.children:
            attrs = {k: self._substitute(v, op) for k, v in op.attrs.items()}
            if op.tag not in TRANSFORM_OPS:
                raise fail(op.where, f"<{op.tag}> can't be inside <transform>", self.main)
            matrix = self._operation(op, attrs) @ matrix
        return matrix

    def _operation(self, op: XmlElement, attrs: dict) -> np.ndarray:
        m = np.eye(4)
        if op.tag == "translate":
            m[:3, 3] = self._xyz(op, attrs, 0.0)
        elif op.tag == "scale":
            m[:3, :3] = np.diag(self._xyz(op, attrs, 1.0))
        elif op.tag == "rotate":
            axis = np.array(self._xyz(op, attrs, 0.0))
            if not np.any(axis):
                raise fail(op.where, "<rotate>: the axis is zero", self.main)
            m[:3, :3] = rotation(axis, self.number(self._required(op, attrs, "angle"), op.where))
        elif op.tag == "matrix":
            values = self.numbers(self._required(op, attrs, "value"), op.where)
            if len(values) not in (9, 16):
                raise fail(op.where, f"<matrix> needs 9 or 16 values, not {len(values)}", self.main)
            n = 4 if len(values) == 16 else 3
            m[:n, :n] = np.array(values).reshape(n, n)
        else:
            m = self._lookat(op, attrs)
        if not np.all(np.isfinite(m)):
            raise fail(op.where, f"<{op.tag}> gives a matrix with infinite or NaN entries", self.main)
        return m

    def _lookat(self, op: XmlElement, attrs: dict) -> np.ndarray:
        def vector(name):
            values = self.numbers(self._required(op, attrs, name), op.where)
            if len(values) != 3:
                raise fail(op.where, f"<lookat> {name} needs three values", self.main)
            return np.array(values)

        origin, target = vector("origin"), vector("target")
        up = vector("up") if attrs.get("up", "").strip() else np.zeros(3)
        direction = target - origin
        if not np.any(up):
            up = _any_perpendicular(direction)
        with np.errstate(all="ignore"):
            direction = direction / np.linalg.norm(direction)
            left = np.cross(up, direction)
            left = left / np.linalg.norm(left)
        m = np.eye(4)
        m[:3, 0], m[:3, 1], m[:3, 2], m[:3, 3] = left, np.cross(direction, left), direction, origin
        if not np.all(np.isfinite(m)):
            raise fail(op.where, "invalid <lookat>: origin equals target, or up is parallel to the view direction", self.main)
        return m


def _literal(text: str):
    """A re.sub replacement inserting `text` as it is (no backslash or group processing)."""
    def replace(_match: re.Match) -> str:
        return text

    return replace


def rotation(axis: np.ndarray, degrees: float) -> np.ndarray:
    """Counter-clockwise rotation about `axis` (right-handed), as Mitsuba's Transform::rotate."""
    x, y, z = axis / np.linalg.norm(axis)
    s, c = math.sin(math.radians(degrees)), math.cos(math.radians(degrees))
    t = 1.0 - c
    return np.array([[t * x * x + c, t * x * y - s * z, t * x * z + s * y],
                     [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
                     [t * x * z - s * y, t * y * z + s * x, t * z * z + c]])


def _any_perpendicular(d: np.ndarray) -> np.ndarray:
    """The first tangent of Mitsuba's coordinate_system(d) (Duff et al. 2017), the up vector its
    <lookat> takes when none is given (so the image is turned as Mitsuba turns it)."""
    n = d / (np.linalg.norm(d) or 1.0)
    sign = 1.0 if n[2] >= 0 else -1.0
    a = -1.0 / (sign + n[2])
    b = n[0] * n[1] * a
    return np.array([sign * n[0] * n[0] * a + 1.0, sign * b, -sign * n[0]])


def _snake_case(name: str) -> str:
    """Mitsuba's camel_to_underscore_case: "intIOR" -> "int_ior", "maxDepth" -> "max_depth"."""
    return re.sub(r"(?<=[a-z])([A-Z]+)", lambda m: "_" + m.group(1).lower(), name)
