"""Fuzz: corrupted asset files for every importer and image reader.

Each case starts from a small valid file (glTF, GLB, OBJ, PLY, PNG, EXR, HDR) and damages it:
truncation, flipped bytes, or for glTF hostile values in its JSON (huge counts and offsets,
indices out of range, NaN coordinates, wrong types). Loading must succeed or raise
falcor.ImporterError / falcor.RuntimeError naming the file; never crash, hang or allocate
without bound (cases run in a child process under a memory limit, see `run_python`).
`FALCOR_FUZZ_EXAMPLES` sets the number of cases per format (CI: 25; long profile: 10,000).
"""
import os

import pytest

from helpers import run_python

EXAMPLES = int(os.environ.get("FALCOR_FUZZ_EXAMPLES", "25"))
MEMORY_LIMIT = 6 << 30

CHILD = r'''
import base64, io, json, math, os, struct, sys, tempfile
from pathlib import Path
import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st
import falcor
from PIL import Image
from fuzz_cases import Outcomes, truncated_or_flipped

KIND, EXAMPLES = {kind!r}, {examples}
folder = Path(tempfile.mkdtemp())


def gltf_document():
    """Two triangles skinned to two joints (a skin exercises the skinning path at load: the
    first frame poses the mesh)."""
    positions = np.float32([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]).tobytes()
    indices = np.uint16([0, 1, 2, 1, 3, 2]).tobytes()
    joints = np.uint8([[0, 1, 0, 0]] * 4).tobytes()
    weights = np.float32([[1, 0, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0], [0, 1, 0, 0]]).tobytes()
    inverse_bind = np.float32([np.eye(4), np.eye(4)]).tobytes()
    blob = positions + indices + joints + weights + inverse_bind
    views = [(0, 48), (48, 12), (60, 16), (76, 64), (140, 128)]
    return {{
        "asset": {{"version": "2.0"}}, "scene": 0, "scenes": [{{"nodes": [0]}}],
        "nodes": [{{"mesh": 0, "skin": 0, "scale": [1, 1, 1], "children": [1, 2]}}, {{"translation": [0, 1, 0]}}, {{"rotation": [0, 0, 0.38, 0.92]}}],
        "meshes": [{{"primitives": [{{"attributes": {{"POSITION": 0, "JOINTS_0": 2, "WEIGHTS_0": 3}}, "indices": 1}}]}}],
        "skins": [{{"joints": [1, 2], "inverseBindMatrices": 4}}],
        "buffers": [{{"byteLength": len(blob), "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}}],
        "bufferViews": [{{"buffer": 0, "byteOffset": o, "byteLength": n}} for o, n in views],
        "accessors": [{{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]}},
                      {{"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"}},
                      {{"bufferView": 2, "componentType": 5121, "count": 4, "type": "VEC4"}},
                      {{"bufferView": 3, "componentType": 5126, "count": 4, "type": "VEC4"}},
                      {{"bufferView": 4, "componentType": 5126, "count": 2, "type": "MAT4"}}],
    }}


def valid_file():
    if KIND == "gltf":
        return json.dumps(gltf_document()).encode()
    if KIND == "obj":
        return b"v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\nf 1/1/1 2/1/1 3/1/1\n"
    if KIND == "ply":
        return (b"ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                b"element face 1\nproperty list uchar int vertex_indices\nend_header\n"
                + np.float32([[0, 0, 0], [1, 0, 0], [0, 1, 0]]).tobytes() + bytes([3]) + np.int32([0, 1, 2]).tobytes())
    if KIND == "hdr":
        return b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 8 +X 8\n" + bytes([2, 2, 0, 8] + [136, 128] * 4) * 8
    image = np.random.default_rng(1).random((8, 8, 3), dtype=np.float32)
    if KIND == "png":
        out = io.BytesIO()
        Image.fromarray((image * 255).astype(np.uint8)).save(out, format="PNG")
        return out.getvalue()
    if KIND == "exr":
        from falcor import image_io
        image_io.write_exr(folder / "valid.exr", image)
        return (folder / "valid.exr").read_bytes()
    raise ValueError(KIND)


VALID = valid_file()
HOSTILE = st.sampled_from([-1, 0, 2**31, 2**32 + 3, 10**12, math.nan, math.inf, "x", None, [], {{}}, 1.5, 65535])
GLTF_PATHS = [("accessors", 0, "count"), ("accessors", 1, "count"), ("accessors", 0, "byteOffset"), ("accessors", 0, "componentType"),
              ("accessors", 0, "type"), ("accessors", 1, "bufferView"), ("bufferViews", 0, "byteLength"), ("bufferViews", 1, "byteOffset"),
              ("bufferViews", 0, "byteStride"), ("buffers", 0, "byteLength"), ("nodes", 0, "mesh"), ("nodes", 0, "scale"),
              ("nodes", 0, "children"), ("meshes", 0, "primitives"), ("scenes", 0, "nodes"), ("scene",), ("accessors", 0, "max"),
              ("nodes", 0, "skin"), ("skins", 0, "joints"), ("skins", 0, "inverseBindMatrices"), ("accessors", 2, "count"),
              ("accessors", 2, "componentType"), ("accessors", 3, "count"), ("accessors", 3, "type"), ("accessors", 4, "count"),
              ("nodes", 2, "rotation"), ("nodes", 1, "translation")]


@st.composite
def damaged(draw):
    data = bytearray(VALID)
    mode = draw(st.sampled_from(["truncate", "flip", "json"] if KIND == "gltf" else ["truncate", "flip", "values"]))
    if mode in ("truncate", "flip"):
        return truncated_or_flipped(draw, VALID, mode)
    if mode == "values" and KIND in ("ply", "obj"):  # hostile numbers in the payload
        text = data.decode("latin-1")
        for token in ("3", "1", "0"):
            if draw(st.booleans()):
                text = text.replace(token, str(draw(HOSTILE)), 1)
        return text.encode("latin-1")
    if mode == "values":  # image headers: huge sizes
        return bytes(data).replace(b"8 +X 8", b"%d +X %d" % (draw(st.sampled_from([0, 1, 9, 2**16, 2**31])), draw(st.sampled_from([1, 8, 2**20]))))
    doc = gltf_document()
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(GLTF_PATHS))
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = draw(HOSTILE)
    return json.dumps(doc).encode()


def load(path):
    if KIND in ("gltf", "obj", "ply"):
        falcor.load_scene(path)
    else:
        falcor.read_image(path)


outcomes = Outcomes()


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(damaged())
def fuzz(content):
    path = folder / ("case." + KIND)
    path.write_bytes(content)
    outcomes.load(load, path, (falcor.RuntimeError,))


fuzz()
print(outcomes)
'''


@pytest.mark.parametrize("kind", ["gltf", "obj", "ply", "png", "exr", "hdr"])
def test_corrupted_files(kind):
    r = run_python(CHILD.format(kind=kind, examples=EXAMPLES), timeout=1800, memory_limit=MEMORY_LIMIT)
    assert r.returncode == 0 and "outcomes" in r.stdout, f"{kind}:\n{r.stdout[-2000:]}\n{r.stderr[-5000:]}"
