"""Fuzz: damaged and hostile FBX (binary and ASCII) and Collada files through the Assimp importer.

Random cases start from the shared assets and truncate them, flip bytes, or put hostile values in
them (binary FBX: array lengths, encodings and compressed sizes, record offsets and counts; ASCII FBX
and Collada: numbers, counts and indices). Written cases cover what Assimp itself crashes on or
over-allocates for, which the importer's checks refuse (_assimp_checks.py): Collada instance cycles,
nesting 100,000 deep, instance expansion bombs, counts larger than the file. Loading must succeed or
raise falcor.ImporterError naming the file; never crash, hang or allocate without bound (each kind
runs in a child process under a memory limit). `FALCOR_FUZZ_EXAMPLES` sets the number of random
cases per kind (25 by default).
"""
import os

import pytest

from helpers import run_python

EXAMPLES = int(os.environ.get("FALCOR_FUZZ_EXAMPLES", "25"))
MEMORY_LIMIT = 6 << 30
HERE = os.path.dirname(os.path.abspath(__file__))

CHILD = r'''
import re, struct, sys, tempfile
sys.path.insert(0, {here!r})  # fbx_binary
from pathlib import Path
from hypothesis import HealthCheck, given, settings, strategies as st
import falcor
import fbx_binary
from fuzz_cases import Outcomes, truncated_or_flipped
from shared_files import shared_path

KIND, EXAMPLES = {kind!r}, {examples}
SOURCES = {{
    "fbx-binary": [("fbx", "box.fbx"), ("fbx", "phong_cube.fbx"), ("fbx", "animation_with_skeleton.fbx")],
    "fbx-ascii": [("fbx", "cubes_with_mirroring_and_pivot.fbx"), ("fbx", "box_orphant_embedded_texture.fbx"),
                  ("fbx", "maxPbrMaterial_metalRough.fbx")],
    "collada": [("collada", "box_nested_animation.dae"), ("collada", "teapot_instancenodes.DAE")],
}}[KIND]
VALID = [Path(shared_path("assets", *s)).read_bytes() for s in SOURCES]
SUFFIX = ".dae" if KIND == "collada" else ".fbx"
HOSTILE_INTS = st.sampled_from([0, 1, 2, 3, 255, 2**16, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**63 - 1])
HOSTILE_TEXT = st.sampled_from(["-1", "0", "4294967295", "4294967296", "2147483648", "99999999999999999999",
                                "nan", "inf", "-inf", "1e999", "-1e999", "1e-45", "", "#", "&amp;"])
folder = Path(tempfile.mkdtemp())


def walk(records):
    for r in records:
        yield r
        yield from walk(r.children)


def binary_structure(data):
    """(array property offsets, record offsets) of a binary FBX file."""
    version = struct.unpack_from("<I", data, 23)[0]
    records = list(walk(fbx_binary.read(data)))
    arrays = [p for r in records for p, (code, _) in zip(r.prop_offsets, r.props) if code in "fdlib"]
    return version, arrays, [r.offset for r in records]


@st.composite
def damaged(draw):
    data = bytearray(draw(st.sampled_from(VALID)))
    modes = ["truncate", "flip", "hostile"]
    mode = draw(st.sampled_from(modes))
    if mode in ("truncate", "flip"):
        return truncated_or_flipped(draw, bytes(data), mode)
    if KIND == "fbx-binary":
        version, arrays, records = binary_structure(bytes(data))
        for _ in range(draw(st.integers(1, 3))):
            if draw(st.booleans()):  # an array's length, encoding or compressed size
                field = draw(st.integers(0, 2))
                struct.pack_into("<I", data, draw(st.sampled_from(arrays)) + 1 + 4 * field,
                                 draw(HOSTILE_INTS) & 0xFFFFFFFF)
            else:  # a record's end offset, property count or property bytes
                wide = version >= 7500
                size = 8 if wide else 4
                value = draw(HOSTILE_INTS) & ((1 << (8 * size)) - 1)
                struct.pack_into("<Q" if wide else "<I", data, draw(st.sampled_from(records)) + size * draw(st.integers(0, 2)), value)
        return bytes(data)
    text = data.decode("latin-1")
    numbers = list(re.finditer(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", text))
    for _ in range(draw(st.integers(1, 6))):  # numbers: coordinates, indices, counts, matrices
        m = draw(st.sampled_from(numbers))
        text = text[:m.start()] + draw(HOSTILE_TEXT) + text[m.end():]
        numbers = list(re.finditer(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", text))
    return text.encode("latin-1")


outcomes = Outcomes()


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(damaged())
def fuzz(content):
    path = folder / ("case" + SUFFIX)
    path.write_bytes(content)
    outcomes.load(falcor.load_scene, path)


fuzz()
print(outcomes)
'''


@pytest.mark.parametrize("kind", ["fbx-binary", "fbx-ascii", "collada"])
def test_damaged_files(kind):
    r = run_python(CHILD.format(kind=kind, examples=EXAMPLES, here=HERE), timeout=1800, memory_limit=MEMORY_LIMIT)
    assert r.returncode == 0 and "outcomes" in r.stdout, f"{kind}:\n{r.stdout[-2000:]}\n{r.stderr[-5000:]}"


# --- written hostile files: what Assimp crashes on or over-allocates for ------------------------------

WRITTEN = r'''
import re, struct, sys, tempfile
sys.path.insert(0, {here!r})  # fbx_binary
from pathlib import Path
import falcor
import fbx_binary
from shared_files import shared_path

TEAPOT = Path(shared_path("assets", "collada", "teapot_instancenodes.DAE")).read_text()
BOX = Path(shared_path("assets", "collada", "box_nested_animation.dae")).read_text()
INSTANCE = '<instance_node url="#Teapot01-node"/>'


def fbx_binary_walk(records):
    for r in records:
        yield r
        yield from fbx_binary_walk(r.children)


def nested(depth):
    return "".join(f'<node id="n{{i}}" name="n{{i}}">' for i in range(depth)) + "</node>" * depth


def bomb(levels):
    """Node k instances node k-1 twice: 2**levels nodes once expanded."""
    nodes = '<node id="b0" name="b0"/>' + "".join(
        f'<node id="b{{k}}" name="b{{k}}"><instance_node url="#b{{k - 1}}"/><instance_node url="#b{{k - 1}}"/></node>'
        for k in range(1, levels + 1))
    return TEAPOT.replace("<library_visual_scenes>", f"<library_nodes>{{nodes}}</library_nodes><library_visual_scenes>")\
        .replace(INSTANCE, f'<instance_node url="#b{{levels}}"/>')


CASES = {{
    "self_instance.dae": (TEAPOT.replace(INSTANCE, '<instance_node url="#hansong"/>'), "cycle"),
    "mutual_instance.dae": (TEAPOT.replace(INSTANCE, '<instance_node url="#inner"/><node id="inner" name="inner">'
                                                     '<instance_node url="#hansong"/></node>'), "cycle"),
    "instance_by_name.dae": (TEAPOT.replace(INSTANCE, '<instance_node url="#whatever"/>'), "cycle"),
    "escaped_url.dae": (TEAPOT.replace(INSTANCE, '<instance_node url="&#35;hansong" note="a>b"/>'), "cycle"),
    "deep.dae": (TEAPOT.replace(INSTANCE, nested(100_000)), "nested more than"),
    "deep_ok.dae": (TEAPOT.replace(INSTANCE, nested(5_000)), None),
    "bomb.dae": (bomb(40), "expand to more than"),
    "small_bomb.dae": (bomb(6), None),
    "huge_count.dae": (BOX.replace('count="24"', 'count="4000000000"'), "more than the file"),
    "huge_accessor.dae": (BOX.replace('count="8" stride="3"', 'count="2000000000" stride="3"'), "more than the file"),
    "index_not_a_number.dae": (re.sub(r"<p>(\d+)", "<p>1e-45", BOX, count=1), "not part of an index"),
    "index_nan.dae": (re.sub(r"<p>(\d+)", "<p>nan", BOX, count=1), "not part of an index"),
    "negative_count.dae": (BOX.replace('count="12">', 'count="-1">', 1), "a count of 4294967295"),
    "hex_count.dae": (BOX.replace('count="24"', 'count="0x7fffffff"'), "a count of 2147483647"),
    "huge_offset.dae": (BOX.replace('offset="2" set="1"', 'offset="4000000" set="1"'), "indices, more than the file"),
    "huge_vcount.dae": (re.sub(r"<vcount>(\d+)", "<vcount>4000000000", BOX, count=1), "more than the file"),
    "few_weights.dae": (BOX.replace('<vertex_weights count="8">', '<vertex_weights count="1">'), "weights for 1 vertices"),
    "joint_out_of_range.dae": (BOX.replace("<v>0 0 0 1 0 2", "<v>0 0 0 1 7 2"), "refers to joint 7"),
    "weight_out_of_range.dae": (BOX.replace("<v>0 0 0 1 0 2 0 3 0 4 0 5 0 6", "<v>0 0 0 1 0 2 0 3 0 4 0 5 0 4294967295"),
                                "refers to weight 4294967295"),
    "joint_minus_one.dae": (BOX.replace("<v>0 0 0 1 0 2", "<v>0 0 0 1 -1 2"), None),  # Collada's bind shape joint
    "empty_bind_poses.dae": (BOX.replace('bind_poses-array" count="16"', 'bind_poses-array" count="0"'),
                             "from an array of 0 values"),
    "huge_stride.dae": (BOX.replace('count="8" stride="3"', 'count="8" stride="4294967295"'), "stride 4294967295"),
    "binary_array.fbx": (None, "more than any zlib data expands to"),
    "binary_layer.fbx": (None, "has no index"),
    "ascii_layer.fbx": (Path(shared_path("assets", "fbx", "maxPbrMaterial_metalRough.fbx")).read_text()
                        .replace("\t\tLayer: 0 {{", "\t\tLayer:  {{", 1), "a Layer has no index"),
    "ascii_count.fbx": (Path(shared_path("assets", "fbx", "cubes_with_mirroring_and_pivot.fbx")).read_text()
                        .replace("Vertices: *24 {{", "Vertices: *4000000000 {{", 1), "more than the file"),
}}
folder = Path(tempfile.mkdtemp())
box = fbx_binary.read(Path(shared_path("assets", "fbx", "box.fbx")).read_bytes())
(folder / "deep_binary.fbx").write_bytes(fbx_binary.write(box, nesting=100_000))
(folder / "deep_ascii.fbx").write_text(CASES["ascii_count.fbx"][0].replace("*4000000000", "*24")
                                       .replace("Connections:  {{", "X: {{" * 100_000 + "}}" * 100_000 + "\nConnections:  {{"))
binary = bytearray(Path(shared_path("assets", "fbx", "box.fbx")).read_bytes())
vertices = next(r for r in fbx_binary_walk(fbx_binary.read(bytes(binary))) if r.name == "Vertices")
struct.pack_into("<II", binary, vertices.prop_offsets[0] + 1, 2**31 + 1, 1)  # 2^31 + 1 doubles, "zlib"
(folder / "binary_array.fbx").write_bytes(bytes(binary))
layer = next(r for r in fbx_binary_walk(box) if r.name == "Layer")
layer.props = []  # the layer index Assimp reads without checking
(folder / "binary_layer.fbx").write_bytes(fbx_binary.write(box))
for name, (text, _) in CASES.items():
    if text is not None:
        (folder / name).write_text(text)
for name, expected in [*((n, e) for n, (_, e) in CASES.items()), ("deep_binary.fbx", "ok"), ("deep_ascii.fbx", "ok")]:
    try:
        falcor.load_scene(folder / name)
        outcome = "ok"
    except falcor.ImporterError as e:
        assert name in str(e), str(e)
        outcome = str(e)
    print(name, "->", outcome.splitlines()[0][:300])
    if expected is None:
        assert outcome == "ok", (name, outcome)
    elif expected != "ok":
        assert expected in outcome, (name, outcome)
print("done")
'''


def test_written_hostile_files_are_refused_or_loaded():
    r = run_python(WRITTEN.format(here=HERE), timeout=900, memory_limit=MEMORY_LIMIT)
    assert r.returncode == 0 and "done" in r.stdout, f"{r.stdout[-3000:]}\n{r.stderr[-5000:]}"
