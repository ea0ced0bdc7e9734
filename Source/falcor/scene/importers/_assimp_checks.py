"""Checks of a scene file made before Assimp reads it, for the hostile inputs that crash Assimp or
make it allocate far more memory than the file could justify (found by tests/scene/test_fuzz_assimp.py):

- Collada: `<instance_node>` cycles (a node instancing itself or an ancestor: Assimp recurses until
  the stack overflows), node hierarchies nested deeper than MAX_NODE_DEPTH (its recursion
  overflows the reader's 256 MiB stack near 100,000 levels), instance graphs that expand to more than
  MAX_EXPANDED_NODES nodes (instances of instances double with every level), `count`
  attributes larger than the file (Assimp sizes arrays by them before reading the values; it reads
  them as pugixml's as_uint does, so "-1" is 4294967295 and "0x10" is 16), primitives whose index
  count (count x vertices per primitive x inputs per vertex, or the sum of `<vcount>`) exceeds the
  file (it reserves that many indices), and `<p>`/`<h>` index lists holding anything but digits,
  signs and spaces (Assimp's index loop does not advance past such a character and pushes indices
  until memory runs out), and skins whose `<vertex_weights count>` is smaller than their mesh's
  position count (Assimp reads weights past the end of its arrays: SIGSEGV) or whose `<v>` names a
  joint or a weight beyond its list (Assimp writes past the end of its bone array: heap corruption;
  reads past its weights: SIGSEGV), and
  accessors reaching past their array (Assimp reads bind matrices without a bounds check: SIGSEGV).
- ASCII FBX: `*N` array counts larger than the file (Assimp reserves N values), and a `Layer:`
  without its index (Assimp reads the missing token: SIGSEGV).

Binary FBX (arrays, Layer records) is checked by the reader itself (AssimpReader.cpp, checkBinaryFbxArrays).

Each check is a regular-expression scan of the memory-mapped file: 1.35 s for a 321 MB Collada file
of 1M triangles, whose read and mapping take 2 s. Each returns a message for the ImporterError, or None.
"""
from __future__ import annotations

import html
import mmap
import re
from pathlib import Path

MAX_NODE_DEPTH = 10_000
MAX_EXPANDED_NODES = 1 << 22

_UINT = rb"([+-]?(?:0[xX][0-9a-fA-F]+|\d+))"
# Any attribute ending in "count" (a literal start keeps the scan fast: \b made it 20 times slower).
_COUNT = re.compile(rb"""count\s*=\s*["']\s*""" + _UINT)
_FBX_ASCII_COUNT = re.compile(rb"\*(\d+)\s*\{")
_FBX_ASCII_EMPTY_LAYER = re.compile(rb"Layer:[ \t]*\{")
_TAG_ATTRIBUTES = rb"""((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*"""
_PRIMITIVE = re.compile(rb"<(triangles|polylist|polygons|lines|linestrips|trifans|tristrips)\b" + _TAG_ATTRIBUTES
                        + rb"(/?)>", re.S)
_PRIMITIVE_END = re.compile(rb"</(triangles|polylist|polygons|lines|linestrips|trifans|tristrips)\s*>")
_INPUT = re.compile(rb"<input\b" + _TAG_ATTRIBUTES + rb"/?>")
_VCOUNT = re.compile(rb"<vcount\s*>([^<]*)<")
_INDEX_LIST = re.compile(rb"<(p|h)\s*>([^<]*)<")
_NOT_AN_INDEX = re.compile(rb"[^\s\d+-]")
_VERTICES_PER_PRIMITIVE = {b"triangles": 3, b"lines": 2}
# Opening tags only: bodies are cut with find() (a `(.*?)</source>` pattern took seconds on 300 MB).
_GEOMETRY = re.compile(rb"<geometry\b" + _TAG_ATTRIBUTES + rb">")
_VERTICES = re.compile(rb"<vertices\b" + _TAG_ATTRIBUTES + rb">")
_SOURCE = re.compile(rb"<source\b" + _TAG_ATTRIBUTES + rb">")
_ACCESSOR = re.compile(rb"<accessor\b" + _TAG_ATTRIBUTES + rb"/?>")
_SKIN = re.compile(rb"<skin\b" + _TAG_ATTRIBUTES + rb">")
_VERTEX_WEIGHTS = re.compile(rb"<vertex_weights\b" + _TAG_ATTRIBUTES + rb">(.*?)</vertex_weights\s*>", re.S)
_ARRAY = re.compile(rb"<(?:float_array|int_array|Name_array|IDREF_array|bool_array)\b" + _TAG_ATTRIBUTES + rb"/?>")
_NAME_ARRAY = re.compile(rb"<(?:Name_array|IDREF_array)\b" + _TAG_ATTRIBUTES + rb">")
_WEIGHT_INDICES = re.compile(rb"<v\s*>([^<]*)<")
_ATTRIBUTE = re.compile(rb"""([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
# <node ...>, </node>, <node .../>, <instance_node .../>; attribute values may hold '>'.
_NODE_TAG = re.compile(rb"""<(/?)(node|instance_node)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(/?)>""")


def check(path: Path) -> str | None:
    """Why Assimp must not read the file, or None."""
    with open(path, "rb") as f:
        try:
            data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # an empty file: Assimp says what is wrong with it
            return None
        with data:
            head = data[:64]
            if b"<COLLADA" in data[:4096] or path.suffix.lower() == ".dae":
                return _check_collada(data)
            if path.suffix.lower() == ".fbx" and not head.startswith(b"Kaydara FBX Binary"):
                return _check_counts(data, _FBX_ASCII_COUNT, "an array count") or _check_fbx_layers(data)
    return None


def _line(data, offset: int) -> int:
    return data[:offset].count(b"\n") + 1


def _uint(text: bytes) -> int:
    """An unsigned attribute as pugixml's as_uint reads it (decimal or 0x hex; a minus sign wraps)."""
    negative = text.startswith(b"-")
    digits = text.lstrip(b"+-")
    value = int(digits, 16) if digits[:2].lower() == b"0x" else int(digits)
    return (-value) % (1 << 32) if negative else min(value, 1 << 64)


def _uint_or_zero(text: str) -> int:
    match = re.match(_UINT, text.strip().encode())
    return _uint(match.group(1)) if match else 0


def _check_counts(data, pattern: re.Pattern, what: str) -> str | None:
    size = len(data)
    for match in pattern.finditer(data):
        value = _uint(match.group(1))
        if value > size:
            return f"line {_line(data, match.start())}: {what} of {value} is more than the file's {size} bytes could hold"
    return None


def _check_fbx_layers(data) -> str | None:
    """A geometry's `Layer:` must carry its index: Assimp reads it without checking (SIGSEGV)."""
    for match in _FBX_ASCII_EMPTY_LAYER.finditer(data):
        if match.start() == 0 or not data[match.start() - 1:match.start()].isalnum():  # not "SubLayer:"
            return f"line {_line(data, match.start())}: a Layer has no index"
    return None


def _check_collada(data) -> str | None:
    return (_check_counts(data, _COUNT, "a count") or _check_index_lists(data) or _check_primitives(data)
            or _check_sources(data) or _check_node_graph(data))


def _check_sources(data) -> str | None:
    sources = _sources(data)
    return _check_accessors(data, sources) or _check_skins(data, sources)


def _body(data, start: int, tag: bytes) -> bytes:
    """The text from `start` to the closing `</tag` (or the end of the file)."""
    end = data.find(b"</" + tag, start)
    return data[start:end if end >= 0 else len(data)]


def _sources(data) -> dict[str, tuple[int, int, int, int, int, int]]:
    """Every <source> by id: (where it starts, array values, accessor count, offset, stride, params)."""
    sources = {}
    for source in _SOURCE.finditer(data):
        end = data.find(b"</source", source.end())
        end = end if end >= 0 else len(data)
        at = data.find(b"<accessor", source.end(), end)
        array = _ARRAY.search(data, source.end(), at) if at >= 0 else None
        accessor = _ACCESSOR.match(data, at) if at >= 0 else None
        if not array or not accessor:
            continue
        a = _attributes(accessor.group(1))
        params = data[at:end].count(b"<param")
        sources[_attributes(source.group(1)).get("id", "")] = (
            source.start(), _uint_or_zero(_attributes(array.group(1)).get("count", "")), _uint_or_zero(a.get("count", "")),
            _uint_or_zero(a.get("offset", "")), _uint_or_zero(a.get("stride", "")) or 1, params)
    return sources


def _check_accessors(data, sources) -> str | None:
    """An accessor must lie inside its source's array: Assimp reads skin bind matrices (and other
    accessor data) without checking, so `count="0"` on a bind-pose array made it read from an empty
    array (SIGSEGV), and a short one made it read past the values."""
    for start, values, count, offset, stride, _ in sources.values():
        if count and offset + count * stride > values:
            return (f"line {_line(data, start)}: an accessor reads {count} elements of stride {stride} from "
                    f"an array of {values} values")
    return None


def _check_skins(data, sources) -> str | None:
    """A skin's <vertex_weights count> must cover its mesh's positions: Assimp looks up each vertex's
    weights by its position index without a bounds check (SIGSEGV when the count is smaller)."""
    if data.find(b"<skin") < 0:
        return None
    positions = _position_counts(data, sources)
    for skin in _SKIN.finditer(data):
        body = _body(data, skin.end(), b"skin")
        mesh = _attributes(skin.group(1)).get("source", "").lstrip("#")
        weights = _VERTEX_WEIGHTS.search(body)
        count = _uint_or_zero(_attributes(weights.group(1)).get("count", "")) if weights else 0
        if mesh in positions and count < positions[mesh]:
            return (f"line {_line(data, skin.start())}: the skin of '{mesh}' has weights for {count} vertices, "
                    f"fewer than the mesh's {positions[mesh]} positions")
        problem = _check_joint_indices(body, weights.group(2) if weights else b"", sources)
        if problem:
            return f"line {_line(data, skin.start())}: the skin of '{mesh}' {problem}"
    return None


def _position_counts(data, sources) -> dict[str, int]:
    """geometry id -> the count of the accessor of its <vertices>' POSITION source."""
    counts = {}
    for vertices in _VERTICES.finditer(data):
        opening = data.rfind(b"<geometry", 0, vertices.start())
        geometry = _GEOMETRY.match(data, opening) if opening >= 0 else None
        inputs = [_attributes(m.group(1)) for m in _INPUT.finditer(_body(data, vertices.end(), b"vertices"))]
        position = next((i.get("source", "").lstrip("#") for i in inputs if i.get("semantic") == "POSITION"), "")
        if geometry and position in sources:
            counts[_attributes(geometry.group(1)).get("id", "")] = sources[position][2]
    return counts


def _check_joint_indices(skin: bytes, weights: bytes, sources) -> str | None:
    """Joint indices in <v> must name a joint: Assimp appends each weight to the bone list at that
    index without a bounds check (a heap overflow: "malloc(): corrupted top size"). Weight indices
    must name a weight: Assimp reads the weight without one (SIGSEGV on 4294967295)."""
    inputs = [_attributes(m.group(1)) for m in _INPUT.finditer(weights)]
    weight_inputs = [i for i in inputs if i.get("semantic") == "WEIGHT"]
    joint_inputs = [i for i in inputs if i.get("semantic") == "JOINT"]
    if not joint_inputs:
        return None
    per_vertex = max((_uint_or_zero(i.get("offset", "")) for i in inputs), default=0) + 1
    joint_offset = _uint_or_zero(joint_inputs[0].get("offset", ""))
    joint_sources = {i.get("source", "").lstrip("#") for m in _INPUT.finditer(skin) for i in [_attributes(m.group(1))]
                     if i.get("semantic") == "JOINT"}
    joints = [_uint_or_zero(_attributes(n.group(1)).get("count", "")) for src in _SOURCE.finditer(skin)
              if _attributes(src.group(1)).get("id") in joint_sources
              for n in _NAME_ARRAY.finditer(_body(skin, src.end(), b"source"))]
    for v in _WEIGHT_INDICES.finditer(weights):
        if re.search(rb"[^\s\d-]", v.group(1)):
            return "has a <v> list with something other than integers"
        tokens = v.group(1).split()
        # Assimp's unsigned parse stops at a '-' (Collada's -1 joint, the bind shape) and reads 0 from there on.
        signed = next((k for k, t in enumerate(tokens) if not t.isdigit()), None)
        used = [int(j) for j in tokens[:signed][joint_offset::per_vertex]] + ([0] if signed is not None else [])
        highest = max(used, default=-1)
        if joints and highest >= min(joints):
            return f"refers to joint {highest}, but has {min(joints)} joints"
        for w in weight_inputs:
            source = sources.get(w.get("source", "").lstrip("#"))
            offset = _uint_or_zero(w.get("offset", ""))
            highest = max([int(j) for j in tokens[:signed][offset::per_vertex]] + [0], default=0)
            if source is not None and highest >= max(source[2], 1):
                return f"refers to weight {highest}, but has {source[2]} weights"
    return None


def _check_index_lists(data) -> str | None:
    for match in _INDEX_LIST.finditer(data):
        wrong = _NOT_AN_INDEX.search(match.group(2))
        if wrong:
            return (f"line {_line(data, match.start(2) + wrong.start())}: <{match.group(1).decode()}> holds "
                    f"{wrong.group().decode('latin-1')!r}, which is not part of an index")
    return None


def _check_primitives(data) -> str | None:
    """The indices each primitive element makes Assimp reserve, against the file's size."""
    size = len(data)
    for match in _PRIMITIVE.finditer(data):
        kind, attributes, empty = match.group(1), _attributes(match.group(2)), match.group(3)
        end = _PRIMITIVE_END.search(data, match.end()) if not empty else None
        body = data[match.end():end.start() if end else match.end()]
        count = _uint_or_zero(attributes.get("count", ""))
        per_vertex = max((_uint_or_zero(_attributes(m.group(1)).get("offset", "")) for m in _INPUT.finditer(body)),
                         default=0) + 1
        if kind == b"polylist":
            indices = sum(int(v) for m in _VCOUNT.finditer(body) for v in m.group(1).split() if v.isdigit())
        else:
            indices = count * _VERTICES_PER_PRIMITIVE.get(kind, 0)
        if indices * per_vertex > size:
            return (f"line {_line(data, match.start())}: <{kind.decode()}> expects {indices * per_vertex} indices, "
                    f"more than the file's {size} bytes could hold")
    for match in _VCOUNT.finditer(data):  # <vertex_weights>: the weights Assimp allocates
        total = sum(int(v) for v in match.group(1).split() if v.isdigit())
        if total > size:
            return f"line {_line(data, match.start())}: <vcount> adds up to {total}, more than the file's {size} bytes could hold"
    return None


def _attributes(text: bytes) -> dict[str, str]:
    return {m.group(1).decode("latin-1"): html.unescape((m.group(2) if m.group(2) is not None else m.group(3))
                                                        .decode("utf-8", "replace"))
            for m in _ATTRIBUTE.finditer(text)}


def _check_node_graph(data) -> str | None:
    """Nesting depth, instance cycles and the expanded size of the node graph (Assimp resolves an
    instance's url by node id, then by name; both are edges here)."""
    children: list[list[int]] = []  # node -> nested nodes
    instances: list[list[str]] = []  # node -> instanced urls without '#'
    keys: dict[str, list[int]] = {}  # id / name / sid -> nodes
    stack: list[int] = []
    for match in _NODE_TAG.finditer(data):
        closing, tag, attributes, empty = match.group(1), match.group(2), match.group(3), match.group(4)
        if tag == b"instance_node":
            url = _attributes(attributes).get("url", "")
            if stack and not closing and url.startswith("#"):
                instances[stack[-1]].append(url[1:])
            continue
        if closing:
            if stack:
                stack.pop()
            continue
        node = len(children)
        children.append([])
        instances.append([])
        for key in ("id", "name", "sid"):
            value = _attributes(attributes).get(key)
            if value:
                keys.setdefault(value, []).append(node)
        if stack:
            children[stack[-1]].append(node)
        if not empty:
            stack.append(node)
            if len(stack) > MAX_NODE_DEPTH:
                return f"line {_line(data, match.start())}: nodes are nested more than {MAX_NODE_DEPTH} deep"
    edges = [c + [t for url in urls for t in keys.get(url, [])] for c, urls in zip(children, instances)]
    return _check_expansion(edges)


def _check_expansion(edges: list[list[int]]) -> str | None:
    """A cycle, or more than MAX_EXPANDED_NODES nodes once every instance is expanded; iterative."""
    size: list[int | None] = [None] * len(edges)
    on_path = [False] * len(edges)
    for root in range(len(edges)):
        if size[root] is not None:
            continue
        work = [(root, 0)]
        on_path[root] = True
        while work:
            node, next_edge = work[-1]
            if next_edge < len(edges[node]):
                work[-1] = (node, next_edge + 1)
                child = edges[node][next_edge]
                if on_path[child]:
                    return "a node instances itself or one of its ancestors (<instance_node> cycle)"
                if size[child] is None:
                    on_path[child] = True
                    work.append((child, 0))
                continue
            total = 1 + sum(size[c] or 0 for c in edges[node])
            if total > MAX_EXPANDED_NODES:
                return f"its node instances expand to more than {MAX_EXPANDED_NODES} nodes"
            size[node] = total
            on_path[node] = False
            work.pop()
    return None
