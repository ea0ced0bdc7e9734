"""pbrt-v4 directives -> a `PbrtScene` of entities in world space (no Falcor objects yet).

Follows pbrt-v4's scene description: the current transformation matrix (CTM) multiplies on the
right (`CTM = CTM * T`), `Transform`/`ConcatTransform` take the matrix transposed (column-major),
`LookAt` gives a camera-from-world matrix, `WorldBegin` resets the CTM, `AttributeBegin/End` save and
restore the graphics state (CTM, material, area light, ReverseOrientation, `Attribute` defaults),
`ObjectBegin/End` collect shapes for `ObjectInstance`. `Include` and `Import` name files relative to
the including file.
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import error
from ._pbrt_tokenizer import Param, Params, Token, parse_values, tokenize

MAX_INCLUDE_DEPTH = 32
MAX_ATTRIBUTE_DEPTH = 10_000
MAX_FILE_BYTES = 2 << 30


@dataclass
class Entity:
    """A `Shape`, light, camera, material or texture directive with its parameters and state."""

    kind: str  # the directive's type string: "trianglemesh", "diffuse", "perspective", ...
    params: Params
    ctm: np.ndarray  # object-to-world (for a camera: camera-from-world as pbrt's CTM holds it)
    material: tuple | None = None  # ("named", name, file, line) or ("anonymous", index) or None
    area_light: Entity | None = None
    reverse: bool = False
    name: str = ""

    @property
    def where(self) -> str:
        return self.params.where()


@dataclass
class PbrtScene:
    path: Path
    camera: Entity | None = None
    film: Entity | None = None
    shapes: list[Entity] = field(default_factory=list)
    lights: list[Entity] = field(default_factory=list)
    named_materials: dict[str, Entity] = field(default_factory=dict)
    materials: list[Entity] = field(default_factory=list)
    textures: dict[str, Entity] = field(default_factory=dict)  # name -> entity (float and spectrum alike)
    objects: dict[str, list[Entity]] = field(default_factory=dict)
    instances: list[tuple[str, np.ndarray, Params]] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)


@dataclass
class _State:
    ctm: np.ndarray = field(default_factory=lambda: np.eye(4))
    material: tuple | None = None
    area_light: Entity | None = None
    reverse: bool = False
    defaults: dict[str, Params] = field(default_factory=dict)  # `Attribute "shape" ...` per kind


# --- transforms (pbrt's formulas) ----------------------------------------------------------------

def translate(x, y, z) -> np.ndarray:
    m = np.eye(4)
    m[:3, 3] = (x, y, z)
    return m


def rotate(angle_deg, x, y, z) -> np.ndarray:
    axis = np.array([x, y, z], np.float64)
    length = np.linalg.norm(axis)
    if not length > 0:
        return np.eye(4)
    a = axis / length
    s, c = math.sin(math.radians(angle_deg)), math.cos(math.radians(angle_deg))
    m = np.eye(4)
    m[:3, :3] = c * np.eye(3) + s * np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]]) + (1 - c) * np.outer(a, a)
    return m


def look_at(eye, target, up) -> np.ndarray:
    """pbrt's LookAt: camera-from-world, the camera looking down its +z with +y up."""
    eye, target, up = (np.asarray(v, np.float64) for v in (eye, target, up))
    direction = target - eye
    if not np.linalg.norm(direction) > 0 or not np.linalg.norm(up) > 0:
        return np.eye(4)
    direction /= np.linalg.norm(direction)
    right = np.cross(up / np.linalg.norm(up), direction)
    if not np.linalg.norm(right) > 0:
        return np.eye(4)  # up parallel to the view direction: pbrt leaves the CTM as it is
    right /= np.linalg.norm(right)
    new_up = np.cross(direction, right)
    world_from_camera = np.eye(4)
    world_from_camera[:3, 0], world_from_camera[:3, 1], world_from_camera[:3, 2], world_from_camera[:3, 3] = right, new_up, direction, eye
    return np.linalg.inv(world_from_camera)


# --- the parser ---------------------------------------------------------------------------------

class _Cursor:
    def __init__(self, tokens: list[Token], path: Path):
        self.tokens, self.path, self.i = tokens, path, 0

    def peek(self) -> Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def next(self, what: str) -> Token:
        t = self.peek()
        if t is None:
            last = self.tokens[-1].line if self.tokens else 1
            raise error(self.path, f"line {last}: the file ends where {what} was expected")
        self.i += 1
        return t

    def string(self, directive: Token) -> str:
        t = self.next(f"a quoted string after '{directive.text}'")
        if t.kind != "string":
            raise error(self.path, f"line {t.line}: '{directive.text}' expects a quoted string, got {t.text!r}")
        return t.text

    def numbers(self, directive: Token, count: int) -> np.ndarray:
        """`count` numbers, bare or in brackets."""
        t = self.peek()
        raw: list[Token] = []
        if t is not None and t.kind == "block":
            raw = [self.next("numbers")]
        elif t is not None and t.kind == "open":
            self.next("[")
            while (t := self.next("']'")).kind != "close":
                raw.append(t)
        else:
            # Bare numbers: words up to `count` that can't be the next directive (those start upper-case).
            while len(raw) < count and (t := self.peek()) is not None and t.kind == "word" and not t.text[0].isupper():
                raw.append(self.next("a number"))
        values = parse_values("float", directive.text, raw, self.path) if raw else np.zeros(0)
        if len(values) != count:
            raise error(self.path, f"line {directive.line}: '{directive.text}' expects {count} numbers, got {len(values)}")
        return values

    def params(self, line: int) -> Params:
        params = Params(self.path, line)
        while (t := self.peek()) is not None and t.kind == "string":
            self.i += 1
            words = t.text.split()
            if len(words) != 2:
                raise error(self.path, f"line {t.line}: expected a parameter \"type name\", got \"{t.text}\"")
            type_, name = words
            value = self.next(f"the value of parameter '{name}'")
            raw: list[Token] = [value]
            if value.kind == "open":
                raw = []
                while (v := self.next("']'")).kind != "close":
                    if v.kind == "open":
                        raise error(self.path, f"line {v.line}: '[' inside the value of '{name}'")
                    raw.append(v)
            elif value.kind == "close":
                raise error(self.path, f"line {value.line}: unexpected ']'")
            params.items[name] = Param(type_, name, parse_values(type_, name, raw, self.path), t.line)
        return params


class Parser:
    def __init__(self, path: Path, warn_once):
        self.scene = PbrtScene(path)
        self.warn_once = warn_once
        self.state = _State()
        self.stack: list[tuple[str, _State, Params | None]] = []
        self.named_coords: dict[str, np.ndarray] = {}
        self.object_name: str | None = None
        self.files: list[Path] = []  # the include chain
        self.end_time_only = False

    # -- files --
    def parse_file(self, path: Path, where: str | None = None):
        path = Path(path).resolve()
        if path in self.files:
            raise error(self.files[-1], f"{where}: '{path.name}' includes itself (through {' -> '.join(p.name for p in self.files)})")
        if len(self.files) >= MAX_INCLUDE_DEPTH:
            raise error(self.files[-1], f"{where}: Include/Import nesting deeper than {MAX_INCLUDE_DEPTH} files")
        try:
            if not path.is_file():
                raise OSError("not a regular file")
            if path.stat().st_size > MAX_FILE_BYTES:
                raise OSError(f"larger than {MAX_FILE_BYTES} bytes")
            data = path.read_bytes()
        except OSError as e:
            if self.files:
                raise error(self.files[-1], f"{where}: can't read '{path}': {e}") from None
            raise error(path, f"can't read the file: {e}") from None
        if path.suffix.lower() == ".gz" or data[:2] == b"\x1f\x8b":
            raise error(path, "gzip-compressed pbrt files are not supported; decompress it first")
        text = data.decode("utf-8", errors="replace")
        self.scene.files.append(path)
        self.files.append(path)
        try:
            self._run(_Cursor(tokenize(text, path), path))
        finally:
            self.files.pop()

    def _resolve(self, name: str) -> Path:
        p = Path(name)
        if p.is_absolute():
            return p
        here = self.files[-1].parent / p
        if here.exists():
            return here
        return self.scene.path.parent / p

    def _run(self, cur: _Cursor):
        while (t := cur.peek()) is not None:
            cur.i += 1
            if t.kind != "word":
                raise error(cur.path, f"line {t.line}: expected a directive, got {t.text!r}")
            handler = getattr(self, f"_d_{t.text}", None)
            if handler is None:
                self._skip_unknown(cur, t)
            else:
                handler(cur, t)

    def _skip_unknown(self, cur: _Cursor, t: Token):
        """An unknown directive: warned, and its arguments (everything up to the next word that starts
        upper-case, as directive names do) skipped."""
        if not t.text[:1].isupper():
            raise error(cur.path, f"line {t.line}: expected a directive, got {t.text!r}")
        while (n := cur.peek()) is not None and not (n.kind == "word" and n.text[:1].isupper()):
            cur.i += 1
        self.warn_once(f"{self._where(cur, t)}: unknown directive '{t.text}' is skipped")

    def _where(self, cur: _Cursor, t: Token) -> str:
        return f"{cur.path}:{t.line}"

    def _skip(self, cur: _Cursor, t: Token, what: str, positional: int = 1):
        for _ in range(positional):
            cur.string(t)
        cur.params(t.line)
        self.warn_once(f"{self._where(cur, t)}: {what} is skipped (not supported)")

    # -- transforms --
    def _apply(self, m: np.ndarray):
        if not self.end_time_only:
            self.state.ctm = self.state.ctm @ m

    def _d_Identity(self, cur, t):
        if not self.end_time_only:
            self.state.ctm = np.eye(4)

    def _d_Translate(self, cur, t):
        self._apply(translate(*cur.numbers(t, 3)))

    def _d_Scale(self, cur, t):
        self._apply(np.diag([*cur.numbers(t, 3), 1.0]))

    def _d_Rotate(self, cur, t):
        self._apply(rotate(*cur.numbers(t, 4)))

    def _d_LookAt(self, cur, t):
        v = cur.numbers(t, 9)
        self._apply(look_at(v[0:3], v[3:6], v[6:9]))

    def _d_Transform(self, cur, t):
        if not self.end_time_only:
            self.state.ctm = cur.numbers(t, 16).reshape(4, 4).T.copy()
        else:
            cur.numbers(t, 16)

    def _d_ConcatTransform(self, cur, t):
        self._apply(cur.numbers(t, 16).reshape(4, 4).T.copy())

    def _d_CoordinateSystem(self, cur, t):
        self.named_coords[cur.string(t)] = self.state.ctm.copy()

    def _d_CoordSysTransform(self, cur, t):
        name = cur.string(t)
        if name in self.named_coords:
            self.state.ctm = self.named_coords[name].copy()
        else:
            self.warn_once(f"{self._where(cur, t)}: CoordSysTransform to unknown coordinate system '{name}' is skipped")

    def _d_ActiveTransform(self, cur, t):
        which = cur.next("StartTime, EndTime or All")
        self.end_time_only = which.text == "EndTime"
        if which.text != "StartTime" and which.text != "All":
            self.warn_once(f"{self._where(cur, t)}: motion blur (ActiveTransform {which.text}) is skipped; "
                           "the start-time transforms are used")

    def _d_TransformTimes(self, cur, t):
        cur.numbers(t, 2)
        self.warn_once(f"{self._where(cur, t)}: TransformTimes (motion blur) is skipped")

    def _d_ReverseOrientation(self, cur, t):
        self.state.reverse = not self.state.reverse

    # -- blocks --
    def _push(self, kind: str, cur, t):
        if len(self.stack) >= MAX_ATTRIBUTE_DEPTH:
            raise error(cur.path, f"line {t.line}: more than {MAX_ATTRIBUTE_DEPTH} nested AttributeBegin/ObjectBegin")
        saved = copy.copy(self.state)
        saved.ctm = self.state.ctm.copy()
        saved.defaults = dict(self.state.defaults)
        self.stack.append((kind, saved, None))

    def _pop(self, kind: str, cur, t):
        if not self.stack:
            raise error(cur.path, f"line {t.line}: '{t.text}' without a matching begin")
        opened, saved, _ = self.stack.pop()
        if opened != kind:
            self.warn_once(f"{self._where(cur, t)}: '{t.text}' closes a {opened} block")
        if kind == "transform":
            self.state.ctm = saved.ctm
        else:
            self.state = saved

    def _d_AttributeBegin(self, cur, t):
        self._push("attribute", cur, t)

    def _d_AttributeEnd(self, cur, t):
        self._pop("attribute", cur, t)

    def _d_TransformBegin(self, cur, t):
        self.warn_once(f"{self._where(cur, t)}: TransformBegin/End are deprecated in pbrt-v4 (read as a saved CTM)")
        self._push("transform", cur, t)

    def _d_TransformEnd(self, cur, t):
        self._pop("transform", cur, t)

    def _d_Attribute(self, cur, t):
        target = cur.string(t)
        params = cur.params(t.line)
        if target not in ("shape", "light", "material", "medium", "texture"):
            raise error(cur.path, f"line {t.line}: unknown Attribute target '{target}'")
        merged = Params(cur.path, t.line, dict(self.state.defaults[target].items) if target in self.state.defaults else {})
        merged.items.update(params.items)
        self.state.defaults[target] = merged

    def _d_WorldBegin(self, cur, t):
        self.state.ctm = np.eye(4)
        self.named_coords["world"] = np.eye(4)

    def _d_WorldEnd(self, cur, t):  # pbrt-v3
        pass

    # -- options --
    def _d_Camera(self, cur, t):
        kind = cur.string(t)
        params = cur.params(t.line)
        self.scene.camera = Entity(kind, params, self.state.ctm.copy())
        try:
            self.named_coords["camera"] = np.linalg.inv(self.state.ctm)
        except np.linalg.LinAlgError:
            raise error(cur.path, f"line {t.line}: the camera transform is singular") from None

    def _d_Film(self, cur, t):
        kind = cur.string(t)
        self.scene.film = Entity(kind, cur.params(t.line), np.eye(4))

    def _options_skipped(self, cur, t):
        cur.string(t)
        cur.params(t.line)

    _d_Sampler = _d_Integrator = _d_PixelFilter = _d_Accelerator = _d_SurfaceIntegrator = _d_VolumeIntegrator = _options_skipped

    def _d_ColorSpace(self, cur, t):
        name = cur.string(t)
        if name != "srgb":
            self.warn_once(f"{self._where(cur, t)}: ColorSpace '{name}' is skipped; colours are read as sRGB (Rec.709)")

    def _d_Option(self, cur, t):
        cur.string(t)
        cur.next("an option value")

    # -- materials and textures --
    def _d_Material(self, cur, t):
        kind = cur.string(t)
        params = cur.params(t.line).with_defaults(self.state.defaults.get("material"))
        self.scene.materials.append(Entity(kind, params, self.state.ctm.copy(), name=f"material{len(self.scene.materials)}"))
        self.state.material = ("anonymous", len(self.scene.materials) - 1)

    def _d_MakeNamedMaterial(self, cur, t):
        name = cur.string(t)
        params = cur.params(t.line).with_defaults(self.state.defaults.get("material"))
        kind = params.string("type", "")
        if name in self.scene.named_materials:
            self.warn_once(f"{self._where(cur, t)}: named material '{name}' redefined; the new definition is used")
        self.scene.named_materials[name] = Entity(kind, params, self.state.ctm.copy(), name=name)

    def _d_NamedMaterial(self, cur, t):
        name = cur.string(t)
        self.state.material = ("named", name, cur.path, t.line)

    def _d_Texture(self, cur, t):
        name, value_type, kind = cur.string(t), cur.string(t), cur.string(t)
        params = cur.params(t.line).with_defaults(self.state.defaults.get("texture"))
        if value_type not in ("float", "spectrum", "color", "rgb"):
            raise error(cur.path, f"line {t.line}: texture '{name}' has unknown type '{value_type}'")
        self.scene.textures[name] = Entity(kind, params, self.state.ctm.copy(), name=name)

    # -- lights --
    def _d_LightSource(self, cur, t):
        kind = cur.string(t)
        params = cur.params(t.line).with_defaults(self.state.defaults.get("light"))
        self.scene.lights.append(Entity(kind, params, self.state.ctm.copy(), reverse=self.state.reverse))

    def _d_AreaLightSource(self, cur, t):
        kind = cur.string(t)
        params = cur.params(t.line).with_defaults(self.state.defaults.get("light"))
        self.state.area_light = Entity(kind, params, self.state.ctm.copy())

    # -- shapes and objects --
    def _d_Shape(self, cur, t):
        kind = cur.string(t)
        params = cur.params(t.line).with_defaults(self.state.defaults.get("shape"))
        entity = Entity(kind, params, self.state.ctm.copy(), self.state.material, self.state.area_light, self.state.reverse)
        if self.object_name is not None:
            self.scene.objects[self.object_name].append(entity)
        else:
            self.scene.shapes.append(entity)

    def _d_ObjectBegin(self, cur, t):
        name = cur.string(t)
        if self.object_name is not None:
            raise error(cur.path, f"line {t.line}: ObjectBegin '{name}' inside object '{self.object_name}'")
        self._push("attribute", cur, t)
        self.object_name = name
        if name in self.scene.objects:
            self.warn_once(f"{self._where(cur, t)}: object '{name}' redefined; the new definition is used")
        self.scene.objects[name] = []

    def _d_ObjectEnd(self, cur, t):
        if self.object_name is None:
            raise error(cur.path, f"line {t.line}: ObjectEnd without ObjectBegin")
        self.object_name = None
        self._pop("attribute", cur, t)

    def _d_ObjectInstance(self, cur, t):
        name = cur.string(t)
        if self.object_name is not None:
            raise error(cur.path, f"line {t.line}: ObjectInstance '{name}' inside object '{self.object_name}'")
        self.scene.instances.append((name, self.state.ctm.copy(), Params(cur.path, t.line)))

    # -- media (not supported) --
    def _d_MakeNamedMedium(self, cur, t):
        self._skip(cur, t, "MakeNamedMedium (participating media)")

    def _d_MediumInterface(self, cur, t):
        cur.string(t)
        if (n := cur.peek()) is not None and n.kind == "string" and " " not in n.text:  # the optional exterior
            cur.i += 1
        self.warn_once(f"{self._where(cur, t)}: MediumInterface (participating media) is skipped")

    # -- files --
    def _d_Include(self, cur, t):
        name = cur.string(t)
        self.parse_file(self._resolve(name), f"line {t.line}")

    def _d_Import(self, cur, t):
        """pbrt-v4's Import: the file's shapes, materials, textures and objects are added, but the
        graphics state it changes does not leak back (as pbrt parses it with a copy of the state)."""
        name = cur.string(t)
        saved_state, saved_depth = self.state, len(self.stack)
        self.state = copy.copy(saved_state)
        self.state.ctm = saved_state.ctm.copy()
        self.parse_file(self._resolve(name), f"line {t.line}")
        del self.stack[saved_depth:]
        self.state = saved_state


def parse(path: Path, warn_once) -> PbrtScene:
    parser = Parser(Path(path), warn_once)
    parser.parse_file(Path(path))
    if parser.object_name is not None:
        raise error(path, f"ObjectBegin '{parser.object_name}' is never closed")
    return parser.scene
