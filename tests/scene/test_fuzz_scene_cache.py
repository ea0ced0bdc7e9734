"""Fuzz: scene cache files and concurrent scene loads.

Cache files: a valid file of a real scene (lights and animations; textures) is damaged (truncated,
bytes flipped anywhere) or forged (its contents document or header rewritten with hostile values
and then sealed with valid checksums, as anyone who can write the cache folder can). A
`UseCache` load must give the scene, from the file or rebuilt, never run code the file names,
crash, hang or allocate without bound (cases run in a child process under a memory limit).

Concurrent loads: several threads load pyscenes of different folders (assets of the same names)
at once, with and without the shared scene cache: each gets its own scene, bit for bit the
single-threaded one, and the resolver's search paths are left as they were.
`FALCOR_FUZZ_EXAMPLES` sets the number of cases (CI: 25; long profile: 10,000).
"""
import os

import pytest

from helpers import run_python

EXAMPLES = int(os.environ.get("FALCOR_FUZZ_EXAMPLES", "25"))
MEMORY_LIMIT = 6 << 30
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CACHE_CHILD = r'''
import hashlib, json, math, os, struct, sys, tempfile
from pathlib import Path
import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st
import falcor
from falcor import SceneBuilderFlags as Flags
from falcor.scene import cache

SCENE, EXAMPLES = Path({scene!r}), {examples}
folder = Path(tempfile.mkdtemp())
os.environ["FALCOR_SCENE_CACHE_DIR"] = str(folder / "cache")
falcor.Logger.verbosity = falcor.Logger.Level.Error
MARKER = folder / "code-ran"


def the_cache_file():
    (path,) = cache.cache_dir().glob("*.fscene")
    return path


def ray_hits(scene):
    rng = np.random.default_rng(3)
    origins = rng.uniform(-3, 3, (300, 3)).astype(np.float32) + np.float32([0, 4, 0])
    directions = rng.normal(size=(300, 3)).astype(np.float32) - np.float32([0, 2, 0])
    hits = scene.cast_rays(origins, directions)
    return {{k: v.tobytes() for k, v in hits.items()}}


REFERENCE = ray_hits(falcor.load_scene(SCENE, Flags.UseCache))
VALID = the_cache_file().read_bytes()
START = len(b"FALCOR-SCENE-CACHE\n")
(HEADER_SIZE,) = struct.unpack("<Q", VALID[START:START + 8])
HEADER = json.loads(VALID[START + 8:START + 8 + HEADER_SIZE])
CONTENTS = VALID[START + 8 + HEADER_SIZE:START + 8 + HEADER_SIZE + HEADER["contents_size"]]
GEOMETRY = VALID[cache._aligned(START + 8 + HEADER_SIZE + HEADER["contents_size"]):]
(DOC_SIZE,) = struct.unpack("<Q", CONTENTS[:8])
DOC, BLOB = json.loads(CONTENTS[8:8 + DOC_SIZE]), CONTENTS[8 + DOC_SIZE:]


def sealed(header, contents, geometry=GEOMETRY):
    header = dict(header, contents_sha256=hashlib.sha256(contents).hexdigest(), contents_size=len(contents))
    raw = json.dumps(header).encode()
    prefix = VALID[:START] + struct.pack("<Q", len(raw)) + raw + contents
    return prefix + bytes(cache._aligned(len(prefix)) - len(prefix)) + geometry


def nested(depth):
    return json.loads("[" * depth + "]" * depth)


HOSTILE = st.sampled_from([
    -1, 0, 2**31, 2**64 + 3, 10**30, math.nan, math.inf, -math.inf, 1.5, "x", "", None, True, [], {{}}, nested(100),
    {{"object": 10**9}}, {{"object": -1}}, {{"array": 10**9}}, {{"scalar": 0}}, {{"texture": 0}}, {{"texture": 10**6}},
    {{"enum": "posix.system", "value": "touch " + str(MARKER)}}, {{"vector": "builtins.eval", "values": ["1"]}},
    {{"tuple": [{{"object": 0}}] * 3}}, {{"dict": [[[], 1]]}}, {{"dict": [[{{"object": 0}}, 1]]}}, {{"path": 5}},
    ["posix.system", {{}}], ["falcor.scene.scene.SceneContents", {{"__class__": "x"}}], ["<f4", [2**40], 0],
    ["|O", [1], 0], ["<f8", [-1], 0], [1, 16384, 16384, 1, "RGBA32Float", 2048, 1, "", 0],
    [1, 20000, 4, 1, "RGBA8Unorm", 1, 1, "", 0], [1, 4, 4, 1, "Unknown", 1, 1, "", 0], [9, 4, 4, 1, "RGBA8Unorm", 1, 1, "", 0],
    [1, 4, 4, 1, "RGBA8Unorm", 1, 1, "", []], [1, 4, 4, 1, "RGBA8Unorm", 1, 1, [], 0], {{"enum": "falcor.scene.scene_builder.SceneBuilderFlags", "value": 2**70}},
])
HEADER_VALUES = st.sampled_from([None, 5, "x", [], {{}}, {{"/dev/zero": "0" * 64}}, {{"/proc/self/mem": ""}},
                                 {{str(folder / "fifo"): ""}}, 2**62, -1, nested(100), cache.FORMAT])


def paths(value, prefix=()):
    """Every place in a JSON value (lists and objects), to pick one to replace."""
    yield prefix
    if isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, prefix + (i,))
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, prefix + (k,))


DOC_PATHS = [p for p in paths(DOC) if p]


def replaced(doc, path, value):
    """A copy of `doc` with `value` at `path` (the same document where an earlier replacement
    took the path away)."""
    doc = json.loads(json.dumps(doc))
    target = doc
    try:
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    except (TypeError, KeyError, IndexError):
        pass
    return doc


@st.composite
def damaged(draw):
    mode = draw(st.sampled_from(["truncate", "flip", "forge_contents", "forge_blob", "forge_header", "deep"]))
    if mode == "deep":  # nested past any parser's recursion limit, checksum valid
        depth = draw(st.sampled_from([10**3, 10**5]))
        raw = b"[" * depth + b"]" * depth
        return sealed(HEADER, struct.pack("<Q", len(raw)) + raw + BLOB)
    if mode == "truncate":
        return VALID[:draw(st.integers(0, len(VALID) - 1))]
    if mode == "flip":
        data = bytearray(VALID)
        for _ in range(draw(st.integers(1, 8))):
            data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
        return bytes(data)
    if mode == "forge_blob":  # the array bytes: any values, checksum valid
        blob = bytearray(BLOB)
        for _ in range(draw(st.integers(1, 16))):
            if blob:
                blob[draw(st.integers(0, len(blob) - 1))] = draw(st.integers(0, 255))
        doc = json.dumps(DOC).encode()
        return sealed(HEADER, struct.pack("<Q", len(doc)) + doc + bytes(blob))
    if mode == "forge_header":
        header = dict(HEADER)
        header[draw(st.sampled_from(["format", "assets", "contents_size", "contents_sha256", "extra"]))] = draw(HEADER_VALUES)
        raw = json.dumps(header).encode()
        return VALID[:START] + struct.pack("<Q", len(raw)) + raw + VALID[START + 8 + HEADER_SIZE:]
    doc = DOC
    for _ in range(draw(st.integers(1, 4))):
        doc = replaced(doc, draw(st.sampled_from(DOC_PATHS)), draw(HOSTILE))
    raw = json.dumps(doc).encode()
    return sealed(HEADER, struct.pack("<Q", len(raw)) + raw + BLOB)


os.mkfifo(folder / "fifo")
outcomes = {{}}


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(damaged())
def fuzz(content):
    the_cache_file().write_bytes(content)
    hits = ray_hits(falcor.load_scene(SCENE, Flags.UseCache))  # from the file or rebuilt: never an error
    assert not MARKER.exists(), "a cache file ran code"
    outcome = "rebuilt or intact" if hits == REFERENCE else "forged values accepted"
    outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert ray_hits(falcor.load_scene(SCENE, Flags.UseCache)) == hits  # a rejected file was rewritten, an accepted one stays


fuzz()
print("outcomes", outcomes)
'''


@pytest.mark.parametrize("scene", ["Lights", "TexturedQuads"])
def test_damaged_and_forged_cache_files(scene):
    code = CACHE_CHILD.format(scene=os.path.join(REPO, "Scenes", f"{scene}.pyscene"), examples=EXAMPLES)
    r = run_python(code, timeout=1800, memory_limit=MEMORY_LIMIT)
    assert r.returncode == 0 and "outcomes" in r.stdout, f"{scene}:\n{r.stdout[-2000:]}\n{r.stderr[-5000:]}"


THREADS_CHILD = r'''
import os, tempfile, threading
from pathlib import Path
import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st
from PIL import Image
import falcor
from falcor import SceneBuilderFlags as Flags

EXAMPLES = {examples}
root = Path(tempfile.mkdtemp())
os.environ["FALCOR_SCENE_CACHE_DIR"] = str(root / "cache")
falcor.Logger.verbosity = falcor.Logger.Level.Error
SCRIPT = """
import time
time.sleep(0.01 * int((Path(__file__).parent / 'delay.txt').read_text()))
m = StandardMaterial('M')
m.loadTexture(MaterialTextureSlot.BaseColor, 'albedo.png')
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Q'), sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), m))
"""
scenes = []
for i in range(3):
    folder = root / f"scene{{i}}"
    folder.mkdir()
    pixels = np.zeros((2, 2, 3), np.uint8)
    pixels[0, 0] = 50 + 60 * i
    Image.fromarray(pixels).save(folder / "albedo.png")
    (folder / "delay.txt").write_text(str(i))
    (folder / "Quad.pyscene").write_text("from pathlib import Path\n" + SCRIPT)
    scenes.append(folder / "Quad.pyscene")


def albedo(scene):
    return int(scene.materials[0].getTexture(falcor.MaterialTextureSlot.BaseColor).to_numpy()[0])


EXPECTED = [albedo(falcor.load_scene(s)) for s in scenes]
resolver = falcor.AssetResolver.default_resolver
SEARCH_PATHS = list(resolver.get_search_paths())


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.integers(0, 2), st.sampled_from([0, int(Flags.UseCache), int(Flags.RebuildCache)])),
                min_size=2, max_size=5))
def fuzz(loads):
    results = [None] * len(loads)

    def load(i):
        scene, flags = loads[i]
        try:
            results[i] = albedo(falcor.load_scene(scenes[scene], flags))
        except Exception as e:
            results[i] = e

    threads = [threading.Thread(target=load, args=(i,)) for i in range(len(loads))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [EXPECTED[scene] for scene, _ in loads], (loads, results)
    assert list(resolver.get_search_paths()) == SEARCH_PATHS


fuzz()
print("done")
'''


def test_concurrent_scene_loads():
    r = run_python(THREADS_CHILD.format(examples=EXAMPLES), timeout=1800, memory_limit=MEMORY_LIMIT)
    assert r.returncode == 0 and "done" in r.stdout, f"{r.stdout[-2000:]}\n{r.stderr[-5000:]}"
