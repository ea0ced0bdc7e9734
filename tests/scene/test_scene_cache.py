"""The scene cache (SceneBuilderFlags.UseCache / RebuildCache, mogwai --use-cache): a cached
scene is the same scene, is rebuilt when any input changes, and a damaged file is rebuilt, never
trusted."""
import enum
import hashlib
import json
import pickle
import struct
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import falcor
from falcor import SceneBuilderFlags as Flags
from falcor.scene import cache
from falcor.scene.scene_builder import SceneBuilder
from helpers import run_mogwai

SCENE = """
import os
exec(open(os.path.join(os.path.dirname(__file__), 'extra.py')).read())  # a file the script reads itself: an input too
floor = StandardMaterial('Floor')
floor.loadTexture(MaterialTextureSlot.BaseColor, 'checker.png')
mesh = TriangleMesh.createFromFile('bump.ply')
meshID = sceneBuilder.addTriangleMesh(mesh, floor)
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Bump', Transform(scaling=float3(2, 1, 2))), meshID)
for i in range(3):  # instanced: the top level has several entries
    sceneBuilder.addMeshInstance(sceneBuilder.addNode(f'Copy{i}', Transform(translation=float3(3 * i - 3, 0, -4))), meshID)
camera = Camera('Main')
camera.position = float3(0, 2, 4)
camera.target = float3(0, 0, 0)
camera.up = float3(0, 1, 0)
sceneBuilder.addCamera(camera)
"""


def write_ply(path, n=24, seed=0):
    rng = np.random.default_rng(seed)
    x, z = np.meshgrid(np.linspace(-1, 1, n), np.linspace(-1, 1, n))
    y = 0.2 * rng.random((n, n))
    vertices = np.stack([x, y, z], -1).reshape(-1, 3)
    i = np.arange(n * n).reshape(n, n)
    a, b, c, d = i[:-1, :-1].ravel(), i[:-1, 1:].ravel(), i[1:, :-1].ravel(), i[1:, 1:].ravel()
    faces = np.concatenate([np.stack([a, c, d], 1), np.stack([a, d, b], 1)])
    lines = ["ply", "format ascii 1.0", f"element vertex {len(vertices)}", "property float x", "property float y", "property float z",
             f"element face {len(faces)}", "property list uchar int vertex_indices", "end_header"]
    lines += [" ".join(f"{v:.6f}" for v in p) for p in vertices] + [f"3 {f[0]} {f[1]} {f[2]}" for f in faces]
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture
def scene_file(tmp_path, monkeypatch):
    monkeypatch.setenv("FALCOR_SCENE_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "scene"
    folder.mkdir()
    write_ply(folder / "bump.ply")
    checker = (np.indices((8, 8)).sum(0) % 2 * 200 + 30).astype(np.uint8)
    Image.fromarray(np.stack([checker] * 3, -1)).save(folder / "checker.png")
    (folder / "extra.py").write_text("light = PointLight('Lamp')\nlight.position = float3(0, 3, 0)\nsceneBuilder.addLight(light)\n")
    (folder / "Bumps.pyscene").write_text(SCENE)
    return folder / "Bumps.pyscene"


@pytest.fixture
def imports(monkeypatch):
    """Counts scene imports (a cache hit imports nothing)."""
    calls = []
    original = SceneBuilder.importScene

    def counting(self, path, dict=None):
        calls.append(path)
        return original(self, path, dict)

    monkeypatch.setattr(SceneBuilder, "importScene", counting)
    return calls


def rays(scene, count=4000, seed=5):
    rng = np.random.default_rng(seed)
    origins = (rng.uniform(-4, 4, (count, 3)) + [0, 3, 0]).astype(np.float32)
    directions = rng.normal(size=(count, 3)).astype(np.float32)
    return scene.cast_rays(origins, directions)


def assert_same_scene(a, b):
    ha, hb = rays(a), rays(b)
    assert ha["hit"].sum() > 100  # the rays do meet the geometry
    for key in ha:
        np.testing.assert_array_equal(ha[key], hb[key])
    assert a.stats == b.stats
    assert a.getScript("s") == b.getScript("s")
    for mesh_id in range(a.stats["meshCount"]):
        ma, mb = a.native.get_mesh_arrays(mesh_id), b.native.get_mesh_arrays(mesh_id)
        for key in ma:
            np.testing.assert_array_equal(ma[key], mb[key])
    ta, tb = a.materials[0].getTexture(falcor.MaterialTextureSlot.BaseColor), b.materials[0].getTexture(falcor.MaterialTextureSlot.BaseColor)
    np.testing.assert_array_equal(ta.to_numpy(), tb.to_numpy())
    assert [l.name for l in a.lights] == [l.name for l in b.lights] == ["Lamp"]


def the_cache_file():
    files = list(cache.cache_dir().glob("*.fscene"))
    assert len(files) == 1, files
    return files[0]


def test_second_load_comes_from_the_cache_and_is_the_same_scene(scene_file, imports):
    built = falcor.load_scene(scene_file, Flags.UseCache)
    assert len(imports) == 1 and the_cache_file().name.startswith("Bumps-")
    cached = falcor.load_scene(scene_file, Flags.UseCache)
    assert len(imports) == 1  # nothing imported the second time
    assert_same_scene(falcor.load_scene(scene_file), cached)
    assert_same_scene(built, cached)
    # The cached scene is a live scene: edits reach the renderer as usual.
    cached.lights[0].intensity = float3_like(5.0)
    assert cached.update(0.0) & falcor.SceneUpdateFlags.LightIntensityChanged


def float3_like(v):
    return falcor.float3(v, v, v)


def test_every_input_is_part_of_the_key(scene_file, imports):
    falcor.load_scene(scene_file, Flags.UseCache)
    header = read_header(the_cache_file())
    assert sorted(name.rsplit("/", 1)[-1] for name in header["assets"]) == ["Bumps.pyscene", "bump.ply", "checker.png", "extra.py"]
    for name, change in [("bump.ply", lambda p: write_ply(p, seed=1)),
                         ("checker.png", lambda p: Image.new("RGB", (4, 4), (255, 0, 0)).save(p)),
                         ("extra.py", lambda p: p.write_text(p.read_text().replace("'Lamp'", "'Lamp2'"))),
                         ("Bumps.pyscene", lambda p: p.write_text(p.read_text() + "\ncamera.position = float3(0, 3, 4)\n"))]:
        before = len(imports)
        change(scene_file.parent / name)
        changed = falcor.load_scene(scene_file, Flags.UseCache)
        assert len(imports) == before + 1, f"{name} changed but the cache was used"
        assert_same_content(changed, falcor.load_scene(scene_file))
        falcor.load_scene(scene_file, Flags.UseCache)
        assert len(imports) == before + 2, f"the cache was not rewritten after {name} changed"
    assert len(list(cache.cache_dir().glob("*.fscene"))) == 1  # rewritten in place, no stale copies


def assert_same_content(a, b):
    for key, value in rays(a).items():
        np.testing.assert_array_equal(value, rays(b)[key])
    assert a.getScript("s") == b.getScript("s") and [l.name for l in a.lights] == [l.name for l in b.lights]


def read_header(path):
    data = path.read_bytes()
    start = len(b"FALCOR-SCENE-CACHE\n")
    (size,) = struct.unpack("<Q", data[start:start + 8])
    import json

    return json.loads(data[start + 8:start + 8 + size])


def test_rebuild_cache_rebuilds_and_other_flags_have_their_own_file(scene_file, imports):
    falcor.load_scene(scene_file, Flags.RebuildCache)  # writes without reading (Falcor's test_SceneCache order)
    falcor.load_scene(scene_file, Flags.UseCache)
    assert len(imports) == 1
    falcor.load_scene(scene_file, Flags.UseCache | Flags.RebuildCache)
    assert len(imports) == 2
    falcor.load_scene(scene_file, Flags.UseCache | Flags.DontMergeMaterials)
    assert len(imports) == 3 and len(list(cache.cache_dir().glob("*.fscene"))) == 2


@pytest.mark.parametrize("damage", ["truncate", "flip_geometry", "flip_contents", "garbage", "empty", "header_size"])
def test_a_damaged_cache_file_is_rebuilt_not_trusted(scene_file, imports, capfd, damage):
    reference = falcor.load_scene(scene_file, Flags.UseCache)
    path = the_cache_file()
    data = bytearray(path.read_bytes())
    header_end = len(b"FALCOR-SCENE-CACHE\n") + 8 + struct.unpack("<Q", data[19:27])[0]
    if damage == "truncate":
        data = data[: len(data) - 1000]
    elif damage == "flip_geometry":
        data[-5000] ^= 0x40
    elif damage == "flip_contents":
        data[header_end + 20] ^= 0x01
    elif damage == "garbage":
        data = bytearray(np.random.default_rng(0).integers(0, 256, len(data), dtype=np.uint8).tobytes())
    elif damage == "header_size":
        data[19:27] = struct.pack("<Q", 2**62)  # the magic intact, the size absurd
    else:
        data = bytearray()
    path.write_bytes(bytes(data))
    capfd.readouterr()
    rebuilt = falcor.load_scene(scene_file, Flags.UseCache)
    assert len(imports) == 2, "a damaged cache file was used"
    assert "not used" in capfd.readouterr().out
    assert_same_scene(reference, rebuilt)
    falcor.load_scene(scene_file, Flags.UseCache)  # and the rewritten file is good again
    assert len(imports) == 2


def test_mutated_geometry_with_a_valid_checksum_is_rejected_or_harmless(scene_file):
    """Damage the checksum can't see (the seal recomputed): every array length and tree reference
    is checked, so a load either fails with a clear error or traces a well-formed tree."""
    falcor.load_scene(scene_file, Flags.UseCache)
    path = the_cache_file()
    contents, offset = cache.read(path)
    data = path.read_bytes()
    prefix, sealed = data[:offset], bytearray(data[offset:])
    payload_start = 64
    rng = np.random.default_rng(1)
    outcomes = {"rejected": 0, "loaded": 0}
    mutant = path.with_suffix(".mutant")
    for trial in range(300):
        damaged = bytearray(sealed)
        for _ in range(int(rng.integers(1, 4))):
            position = int(rng.integers(payload_start, len(damaged)))
            damaged[position] = int(rng.integers(0, 256))
        damaged[24:32] = struct.pack("<Q", falcor.falcor_ext.content_checksum(bytes(damaged[payload_start:])))
        mutant.write_bytes(prefix + bytes(damaged))
        try:
            scene = falcor.scene.scene.Scene(pickle.loads(pickle.dumps(contents)), falcor.Settings(), geometry_cache=(mutant, offset))
        except falcor.RuntimeError as e:
            assert "Scene cache file" in str(e)
            outcomes["rejected"] += 1
            continue
        rays(scene, count=500)  # traversal of whatever was accepted must be safe
        outcomes["loaded"] += 1
    assert outcomes["rejected"] > 0 and outcomes["loaded"] > 0, outcomes


def test_an_unwritable_cache_folder_costs_the_cache_not_the_scene(scene_file, monkeypatch, capfd):
    blocker = scene_file.parent / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("FALCOR_SCENE_CACHE_DIR", str(blocker / "cache"))
    scene = falcor.load_scene(scene_file, Flags.UseCache)
    assert rays(scene)["hit"].sum() > 100
    assert "Can't write the scene cache" in capfd.readouterr().out


def test_textures_pickle_with_every_subresource():
    texture = falcor.Texture(5, 3, falcor.ResourceFormat.RGBA8UnormSrgb, 2, 0xFFFFFFFF)
    for s in range(2):
        for mip in range(texture.mip_count):
            shape = texture.to_numpy(mip, s).shape
            texture.from_numpy(np.random.default_rng(mip + 10 * s).integers(0, 256, shape, dtype=np.uint8), mip, s)
    copy = pickle.loads(pickle.dumps(texture))
    assert (copy.width, copy.height, copy.format, copy.array_size, copy.mip_count) == (5, 3, texture.format, 2, texture.mip_count)
    for s in range(2):
        for mip in range(texture.mip_count):
            np.testing.assert_array_equal(copy.to_numpy(mip, s), texture.to_numpy(mip, s))
    with pytest.raises(Exception, match="unpickling"):
        falcor.Texture.__new__(falcor.Texture).__setstate__((0, 5, 3, 1, texture.format, 1, 1, "", b"short"))


def test_a_forged_texture_state_is_refused_before_allocating():
    """A state claiming 16384 x 16384 x 2048 float texels with one byte of data raises at once
    instead of allocating terabytes."""
    texture = falcor.Texture.__new__(falcor.Texture)
    with pytest.raises(falcor.RuntimeError, match="at least"):
        texture.__setstate__((1, 16384, 16384, 1, falcor.ResourceFormat.RGBA32Float, 2048, 1, "", b"x"))


def test_mogwai_use_cache(scene_file, tmp_path):
    script = tmp_path / "load.py"
    script.write_text(f"m.loadScene(r'{scene_file}')\nprint('meshes', m.scene.stats['meshCount'])\n")
    env = {"FALCOR_SCENE_CACHE_DIR": str(tmp_path / "mogwai-cache")}
    first = run_mogwai(["--headless", "--use-cache", "--script", str(script)], env=env)
    assert first.returncode == 0, first.stderr + first.stdout
    assert "Wrote the scene cache" in first.stdout + first.stderr
    second = run_mogwai(["--headless", "--use-cache", "--script", str(script)], env=env)
    assert second.returncode == 0 and "from the cache" in second.stdout + second.stderr
    assert "meshes 1" in second.stdout
    rebuilt = run_mogwai(["--headless", "--rebuild-cache", "--script", str(script)], env=env)
    assert rebuilt.returncode == 0 and "Wrote the scene cache" in rebuilt.stdout + rebuilt.stderr


def test_cached_geometry_is_bit_identical_on_any_thread_count(tmp_path, monkeypatch):
    """The cache stores what loading computed (tangents, pre-transformed vertices, every bottom-level
    tree): on a mesh large enough for the parallel paths of the BVH build (binning, partitioning
    and subtrees over the pool), one thread and two write the same bytes."""
    import trimesh

    n = 300
    x, z = np.meshgrid(np.linspace(-1, 1, n), np.linspace(-1, 1, n))
    y = 0.1 * np.sin(7 * x) * np.cos(5 * z)
    i = np.arange(n * n).reshape(n, n)
    a, b, c, d = i[:-1, :-1].ravel(), i[:-1, 1:].ravel(), i[1:, :-1].ravel(), i[1:, 1:].ravel()
    faces = np.concatenate([np.stack([a, c, d], 1), np.stack([a, d, b], 1)])
    trimesh.Trimesh(np.stack([x, y, z], -1).reshape(-1, 3), faces, process=False).export(tmp_path / "wave.ply")
    (tmp_path / "Wave.pyscene").write_text(
        "m = StandardMaterial('M')\nmesh = TriangleMesh.createFromFile('wave.ply')\n"
        "sceneBuilder.addMeshInstance(sceneBuilder.addNode('Wave', Transform(scaling=float3(2, 1, 2))), sceneBuilder.addTriangleMesh(mesh, m))\n")
    before = falcor.get_thread_count()
    files = []
    try:
        for threads in (1, 2):
            monkeypatch.setenv("FALCOR_SCENE_CACHE_DIR", str(tmp_path / f"cache{threads}"))
            falcor.set_thread_count(threads)
            scene = falcor.load_scene(tmp_path / "Wave.pyscene", Flags.RebuildCache)
            assert scene.stats["uniqueTriangleCount"] == 2 * (n - 1) ** 2
            files.append(the_cache_file())
    finally:
        falcor.set_thread_count(before)
    geometry = [path.read_bytes()[cache.read(path)[1]:] for path in files]
    assert len(geometry[0]) > 10_000_000 and geometry[0] == geometry[1]


# ---- the cache file is data, never code -----------------------------------------------------

def forge_contents(path, contents: bytes):
    """Rewrites a cache file with other contents under a valid checksum: what anyone who can
    write the cache folder can do (the geometry moves along, still sealed)."""
    data = path.read_bytes()
    start = len(b"FALCOR-SCENE-CACHE\n")
    (size,) = struct.unpack("<Q", data[start:start + 8])
    header = json.loads(data[start + 8:start + 8 + size])
    geometry = data[cache._aligned(start + 8 + size + header["contents_size"]):]
    header.update(contents_sha256=hashlib.sha256(contents).hexdigest(), contents_size=len(contents))
    raw = json.dumps(header).encode()
    prefix = data[:start] + struct.pack("<Q", len(raw)) + raw + contents
    path.write_bytes(prefix + bytes(cache._aligned(len(prefix)) - len(prefix)) + geometry)


class TouchWhenUnpickled:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def test_a_forged_pickle_in_the_cache_is_never_run(scene_file, imports, capfd, tmp_path):
    falcor.load_scene(scene_file, Flags.UseCache)
    marker = tmp_path / "the-cache-ran-code"
    forge_contents(the_cache_file(), pickle.dumps(TouchWhenUnpickled(marker)))
    capfd.readouterr()
    rebuilt = falcor.load_scene(scene_file, Flags.UseCache)
    assert not marker.exists(), "loading the scene cache ran code the file named"
    assert len(imports) == 2 and "not used" in capfd.readouterr().out
    assert_same_content(rebuilt, falcor.load_scene(scene_file))


@pytest.mark.parametrize("forged, message", [
    ({"root": {"object": 0}, "objects": [["posix.system", {}]], "textures": [], "arrays": []}, "not a scene class"),
    ({"root": {"object": 0}, "objects": [["falcor.scene.scene.SceneContents", {"__class__": None}]], "textures": [],
      "arrays": []}, "not an attribute name"),
    ({"root": {"array": 0}, "objects": [], "textures": [], "arrays": [["<f4", [1 << 40], 0]]}, "outside the data"),
    ({"root": {"enum": "builtins.eval", "value": "1"}, "objects": [], "textures": [], "arrays": []}, "not a scene enum"),
])
def test_forged_contents_with_a_valid_checksum_are_rejected(scene_file, imports, capfd, forged, message):
    falcor.load_scene(scene_file, Flags.UseCache)
    doc = json.dumps(forged).encode()
    forge_contents(the_cache_file(), struct.pack("<Q", len(doc)) + doc)
    capfd.readouterr()
    falcor.load_scene(scene_file, Flags.UseCache)
    out = capfd.readouterr().out
    assert len(imports) == 2 and "not used" in out and message in out, out


@pytest.mark.parametrize("entry, message", [
    ([1, 16384, 16384, 1, "RGBA32Float", 2048, 1, "", 0], "at least"),  # would be terabytes: refused unallocated
    ([1, 20000, 4, 1, "RGBA8Unorm", 1, 1, "", 0], "exceeds the limit"),
    ([1, 4, 4, 1, "NoSuchFormat", 1, 1, "", 0], "format is unknown"),
    ([1, 4, 4, 1, "RGBA8Unorm", 1, 1, "", [0]], "data is not an integer"),
])
def test_forged_textures_are_refused_before_allocating(scene_file, entry, message):
    from falcor.scene import cache_contents
    from falcor.scene.scene import build_contents

    builder = SceneBuilder()
    builder.importScene(scene_file)
    data = cache_contents.encode(build_contents(builder)[0])
    (size,) = struct.unpack("<Q", data[:8])
    doc = json.loads(data[8:8 + size])
    doc["textures"][0] = entry[:8] + [doc["textures"][0][8] if entry[8] == 0 else entry[8]]
    raw = json.dumps(doc).encode()
    with pytest.raises(cache_contents.ContentsError, match=message):
        cache_contents.decode(struct.pack("<Q", len(raw)) + raw + data[8 + size:])


def structure(value, memo):
    """A comparable form of an object graph: exact types, values, array bytes, texture states,
    and which scene objects are shared."""
    if type(value) in (list, tuple):
        return type(value).__name__, [structure(v, memo) for v in value]
    if type(value) is dict:
        return "dict", [(structure(k, memo), structure(v, memo)) for k, v in value.items()]
    if isinstance(value, np.ndarray):
        return "array", value.dtype.str, value.shape, value.tobytes()
    if isinstance(value, falcor.Texture):
        return "texture", value.__getstate__()
    if type(value).__module__.startswith("falcor.scene") and not isinstance(value, enum.Enum):
        if id(value) in memo:
            return "shared", memo[id(value)]
        memo[id(value)] = len(memo)
        state = getattr(value, "__dict__", None) or {s: getattr(value, s) for s in type(value).__slots__}
        return type(value).__qualname__, structure(state, memo)
    return type(value), value


@pytest.mark.parametrize("scene", ["Bumps", "Scenes/EnvMap.pyscene", "Scenes/Lights.pyscene", "Scenes/Materials.pyscene"])
def test_contents_round_trip_through_the_data_form(scene_file, scene):
    """Every kind of value the scene classes hold (textures, env maps, animations, every light and
    material type) comes back the same, shared objects shared."""
    from falcor.scene import cache_contents
    from falcor.scene.scene import build_contents

    builder = SceneBuilder()
    builder.importScene(scene_file if scene == "Bumps" else Path(__file__).parents[2] / scene)
    contents, _ = build_contents(builder)
    back = cache_contents.decode(cache_contents.encode(contents))
    assert structure(back, {}) == structure(contents, {})


# ---- every file the import reads is an input ------------------------------------------------

ROUTES = {
    "open": "value = float(open(here / 'value.txt').read())",
    "pathlib": "value = float((here / 'value.txt').read_text())",
    "numpy": "value = float(np.loadtxt(here / 'value.txt'))",
    "os.open": "fd = os.open(here / 'value.txt', os.O_RDONLY)\nvalue = float(os.read(fd, 64))\nos.close(fd)",
}


def write_route_scene(folder, read: str):
    (folder / "Route.pyscene").write_text(
        "import os\nfrom pathlib import Path\nimport numpy as np\nhere = Path(__file__).parent\n" + read + "\n"
        "light = PointLight('Lamp')\nlight.intensity = float3(value, value, value)\nsceneBuilder.addLight(light)\n"
        "sceneBuilder.addMeshInstance(sceneBuilder.addNode('Q'), sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), StandardMaterial('M')))\n")
    return folder / "Route.pyscene"


@pytest.mark.parametrize("route", ROUTES)
def test_a_file_the_pyscene_reads_by_any_route_is_an_input(tmp_path, monkeypatch, imports, route):
    monkeypatch.setenv("FALCOR_SCENE_CACHE_DIR", str(tmp_path / "cache"))
    scene = write_route_scene(tmp_path, ROUTES[route])
    (tmp_path / "value.txt").write_text("2.0\n")
    assert falcor.load_scene(scene, Flags.UseCache).lights[0].intensity.x == 2.0
    (tmp_path / "value.txt").write_text("5.0\n")
    assert falcor.load_scene(scene, Flags.UseCache).lights[0].intensity.x == 5.0, f"{route}: the cache kept the old file"
    assert len(imports) == 2


def test_a_module_the_pyscene_imports_is_an_input_even_when_already_imported(tmp_path, monkeypatch, imports):
    monkeypatch.setenv("FALCOR_SCENE_CACHE_DIR", str(tmp_path / "cache"))
    module = f"scene_values_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{module}.py").write_text("VALUE = 2.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, module, raising=False)
    scene = write_route_scene(tmp_path, f"from {module} import VALUE as value")
    falcor.load_scene(scene)  # imports the module: the cached load below opens no file of it
    falcor.load_scene(scene, Flags.UseCache)
    assert str(tmp_path / f"{module}.py") in read_header(the_cache_file())["assets"]
    (tmp_path / f"{module}.py").write_text("VALUE = 5.0\n")
    falcor.load_scene(scene, Flags.UseCache)
    assert len(imports) == 3, "the module changed but the cache was used"
    monkeypatch.delitem(sys.modules, module)


def write_hdr(path):
    path.write_bytes(b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 2 +X 2\n" + bytes([128, 128, 128, 129]) * 4)
    return path


def test_files_read_by_cpp_are_recorded_on_the_reading_thread(tmp_path):
    from falcor.scene.asset_log import recording_assets

    hdr = write_hdr(tmp_path / "sky.hdr")
    merl = tmp_path / "short.binary"
    merl.write_bytes(b"\0" * 12)
    with recording_assets() as files:
        falcor.read_image(hdr)  # the C++ Radiance HDR reader
        with pytest.raises(falcor.RuntimeError):
            falcor.rendering.MERLBSDF(merl)  # a measured BRDF table, read by C++
    assert {str(hdr), str(merl)} <= files
    with recording_assets() as files:
        reader = threading.Thread(target=falcor.read_image, args=(hdr,))
        reader.start()
        reader.join()
    assert not files, "another thread's read was recorded here"


def test_files_of_the_engine_caches_are_not_inputs(tmp_path, monkeypatch):
    """The scene and kernel caches are derived from inputs: reading them records nothing."""
    import falcor.compute.build  # noqa: F401  (registers the kernel cache's folder)
    from falcor.scene.asset_log import recording_assets

    for variable in ("FALCOR_SCENE_CACHE_DIR", "FALCOR_KERNEL_CACHE_DIR"):
        (tmp_path / variable).mkdir()
        (tmp_path / variable / "entry").write_text("derived")
        monkeypatch.setenv(variable, str(tmp_path / variable))
    (tmp_path / "input.txt").write_text("read")
    with recording_assets() as files:
        for name in ("FALCOR_SCENE_CACHE_DIR/entry", "FALCOR_KERNEL_CACHE_DIR/entry", "input.txt"):
            (tmp_path / name).read_text()
    assert files == {str(tmp_path / "input.txt")}
