"""Checks of a scene file made before Assimp reads it, for the hostile inputs that crash Assimp or
make it allocate far more memory than the file could justify (found by tests/scene/test_fuzz_assimp.py):

- Collada: `<instance_node>` cycles (a node instancing itself or an ancestor: Assimp recurses until
  the stack overflows), node hierarchies nested deeper than MAX_NODE_DEPTH (its recursion
  overflows the reader's 256 MiB stack near 100,000 levels), instance graphs that expand to more than
  MAX_EXPANDED_NODES nodes (instances of instances double with every level), and `count`
  attributes larger than the file (Assimp sizes arrays by them before reading the values).
- ASCII FBX: `*N` array counts larger than the file (Assimp reserves N values).

Binary FBX arrays are checked by the reader itself (AssimpReader.cpp, checkBinaryFbxArrays).

Each check is one regular-expression scan of the file (memory-mapped), so a large file costs a
fraction of Assimp's own read. Each returns a message for the ImporterError, or None.
"""
from __future__ import annotations

import html
import mmap
import re
from pathlib import Path

MAX_NODE_DEPTH = 10_000
MAX_EXPANDED_NODES = 1 << 22

_COUNT = re.compile(rb"""\bcount\s*=\s*["']\s*\+?(\d+)""")
_FBX_ASCII_COUNT = re.compile(rb"\*(\d+)\s*\{")
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
                return _check_counts(data, _FBX_ASCII_COUNT, "an array count")
    return None


def _check_counts(data, pattern: re.Pattern, what: str) -> str | None:
    size = len(data)
    for match in pattern.finditer(data):
        if int(match.group(1)) > size:
            line = data[:match.start()].count(b"\n") + 1
            return f"line {line}: {what} of {int(match.group(1))} is more than the file's {size} bytes could hold"
    return None


def _check_collada(data) -> str | None:
    return _check_counts(data, _COUNT, "a count") or _check_node_graph(data)


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
                line = data[:match.start()].count(b"\n") + 1
                return f"line {line}: nodes are nested more than {MAX_NODE_DEPTH} deep"
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
