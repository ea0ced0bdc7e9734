"""GBufferRT and VBufferRT (GBuffer library): options, scene-less frames, camera jitter patterns,
culling, alpha test, depth of field, graph-dictionary values and per-pixel values against numpy
references of Falcor's formulas. Conformance with native Falcor frames: test_gbuffer_oracle.py."""
import math
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import falcor

CORNELL = Path(__file__).resolve().parents[2] / "Scenes" / "CornellBox.pyscene"

GBUFFER_DEFAULTS = {"outputSize": "Default", "samplePattern": "Center", "sampleCount": 16, "useAlphaTest": True,
                    "adjustShadingNormals": True, "forceCullMode": False, "cull": "Back"}


# ---- helpers ----------------------------------------------------------------------------------

def quad_pyscene(tmp_path, camera_height=2.0, material="", extra="") -> str:
    """A 2x2 quad at y = 0 facing +Y and a camera above (height > 0) or below it looking at it."""
    up = "float3(0, 0, -1)"
    text = f"""
quadMaterial = StandardMaterial('Quad')
quadMaterial.baseColor = float4(0.2, 0.4, 0.8, 1.0)
quadMaterial.roughness = 0.3
quadMaterial.metallic = 0.5
{material}
node = sceneBuilder.addNode('Quad', Transform(scaling=float3(2, 1, 2)))
sceneBuilder.addMeshInstance(node, sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), quadMaterial))
{extra}
camera = Camera()
camera.position = float3(0, {camera_height}, 0)
camera.target = float3(0, 0, 0)
camera.up = {up}
sceneBuilder.addCamera(camera)
"""
    path = tmp_path / f"quad_{abs(hash(text))}.pyscene"
    path.write_text(text)
    return str(path)


def render(scene, pass_type, props, outputs, size=(32, 32), frames=1):
    """Renders `frames` frames with mogwai's per-frame flow; returns (renderer, {output: array})."""
    m = falcor.Renderer(*size)
    g = falcor.RenderGraph("G")
    g.create_pass("P", pass_type, props)
    for o in outputs:
        g.mark_output(f"P.{o}")
    m.addGraph(g)
    if scene is not None:
        m.loadScene(str(scene))
    m.clock.pause()
    for _ in range(frames):
        m.renderFrame()
    return m, {o: g.get_output(f"P.{o}").to_numpy() for o in outputs}


# ---- options ----------------------------------------------------------------------------------

def test_default_properties_and_key_order():
    g = falcor.createPass("GBufferRT").getDictionary()
    assert list(g.items()) == list({**GBUFFER_DEFAULTS, "texLOD": "Mip0", "useTraceRayInline": False, "useDOF": True}.items())
    v = falcor.createPass("VBufferRT").getDictionary()
    assert list(v.items()) == list({**GBUFFER_DEFAULTS, "useTraceRayInline": False, "useDOF": True}.items())


def test_round_trip_fixed_size_and_deprecated_key():
    props = {"outputSize": "Fixed", "fixedOutputSize": [20, 10], "samplePattern": "Halton", "sampleCount": 4,
             "disableAlphaTest": True, "forceCullMode": True, "cull": "Front", "texLOD": "RayDiffs", "useDOF": False}
    g = falcor.RenderGraph("G")
    g.create_pass("P", "GBufferRT", props)
    d = g.get_pass("P").getDictionary()
    assert d["fixedOutputSize"] == [20, 10] and d["useAlphaTest"] is False and "disableAlphaTest" not in d
    assert d["texLOD"] == "RayDiffs" and d["cull"] == "Front"
    g.update_pass("P", d)
    assert g.get_pass("P").getDictionary() == d
    g.mark_output("P.posW")
    g.execute()
    assert g.get_output("P.posW").to_numpy().shape[:2] == (10, 20)
    # useAlphaTest wins over the deprecated key.
    both = falcor.createPass("VBufferRT", {"useAlphaTest": True, "disableAlphaTest": True}).getDictionary()
    assert both["useAlphaTest"] is True


def test_unknown_keys_are_silent_and_wrong_types_raise(capfd):
    falcor.createPass("GBufferRT", {"noSuchKey": 1})
    falcor.createPass("VBufferRT", {"texLOD": "Mip0"})  # GBufferRT's key: not VBufferRT's, ignored
    assert "Unknown property" not in capfd.readouterr().out
    with pytest.raises(Exception, match="sampleCount"):
        falcor.createPass("GBufferRT", {"sampleCount": "many"})
    with pytest.raises(Exception, match="samplePattern"):
        falcor.createPass("VBufferRT", {"samplePattern": "Random"})
    with pytest.raises(Exception, match="useDOF"):
        falcor.createPass("VBufferRT", {"useDOF": 1})


def test_channels_and_formats():
    r = falcor.RenderGraph("G")
    r.create_pass("G", "GBufferRT", {})
    r.create_pass("V", "VBufferRT", {})
    expected_g = {"posW": "RGBA32Float", "texC": "RG32Float", "texGrads": "RGBA16Float", "mtlData": "RGBA32Uint",
                  "vbuffer": "RGBA32Uint", "depth": "R32Float", "linearZ": "RG32Float", "mvecW": "RGBA16Float",
                  "normWRoughnessMaterialID": "RGB10A2Unorm", "time": "R32Uint", "mask": "R32Float"}
    for field, fmt in expected_g.items():
        r.mark_output(f"G.{field}")
    for field in ["vbuffer", "depth", "mvec", "viewW", "time", "mask"]:
        r.mark_output(f"V.{field}")
    r.execute()
    for field, fmt in expected_g.items():
        assert r.get_output(f"G.{field}").format == getattr(falcor.ResourceFormat, fmt), field
    assert r.get_output("V.vbuffer").format == falcor.ResourceFormat.RGBA32Uint


# ---- frames ----------------------------------------------------------------------------------

def test_no_scene_clears_every_output():
    outputs = ["posW", "mvec", "mtlData", "vbuffer", "depth", "linearZ", "normWRoughnessMaterialID", "mask"]
    m, first = render(CORNELL, "GBufferRT", {}, outputs)
    assert all(np.any(a != 0) for a in first.values())
    m.unloadScene()
    m.renderFrame()
    for o in outputs:
        assert not np.any(m.activeGraph.get_output(f"P.{o}").to_numpy()), o
    _, v = render(None, "VBufferRT", {}, ["vbuffer", "depth", "mask"])
    assert not any(np.any(a) for a in v.values())


class DictionaryProbe(falcor.RenderPass):
    """Reads the G-buffer's graph-dictionary values after it ran."""

    seen = {}

    def __init__(self, props=None):
        super().__init__()

    def reflect(self, compile_data):
        r = falcor.RenderPassReflection()
        r.add_input("in", "")
        r.add_output("out", "").format(falcor.ResourceFormat.R32Float)
        return r

    def execute(self, ctx, rd):
        d = rd.dictionary
        DictionaryProbe.seen = {k: d[k] for k in ("_gbufferAdjustShadingNormals", "_prngDimension") if k in d}


falcor.register_render_pass(DictionaryProbe, "GBufferDictionaryProbe")


@pytest.mark.parametrize("props, aperture, expected", [
    ({}, 0.0, {"_gbufferAdjustShadingNormals": True, "_prngDimension": 0}),
    ({"adjustShadingNormals": False}, 0.02, {"_gbufferAdjustShadingNormals": False, "_prngDimension": 2}),
    ({"useDOF": False}, 0.02, {"_gbufferAdjustShadingNormals": True}),
])
def test_dictionary_values(props, aperture, expected):
    m = falcor.Renderer(16, 16)
    g = falcor.RenderGraph("G")
    g.create_pass("V", "VBufferRT", props)
    g.create_pass("Probe", "GBufferDictionaryProbe", {})
    g.add_edge("V.mask", "Probe.in")
    g.mark_output("Probe.out")
    m.addGraph(g)
    m.loadScene(str(CORNELL))
    m.scene.camera.apertureRadius = aperture
    m.renderFrame()
    assert DictionaryProbe.seen == expected


# ---- camera jitter ---------------------------------------------------------------------------

def halton_reference(count, period):
    def radical_inverse(i, base):
        r, f = np.float32(0), np.float32(1)
        while i > 0:
            f = np.float32(f / np.float32(base))
            r = np.float32(r + f * np.float32(i % base))
            i //= base
        return r

    def centered(v):
        s = np.float32(v + np.float32(0.5))
        return np.float32(s - np.floor(s) - np.float32(0.5))

    return [(centered(radical_inverse(i % period, 2)), centered(radical_inverse(i % period, 3))) for i in range(count)]


class MT19937:
    """std::mt19937 with its default seed (5489)."""

    def __init__(self, seed=5489):
        self.mt = [0] * 624
        self.mt[0] = seed
        for i in range(1, 624):
            self.mt[i] = (1812433253 * (self.mt[i - 1] ^ (self.mt[i - 1] >> 30)) + i) & 0xFFFFFFFF
        self.index = 624

    def __call__(self):
        if self.index >= 624:
            for i in range(624):
                y = (self.mt[i] & 0x80000000) | (self.mt[(i + 1) % 624] & 0x7FFFFFFF)
                self.mt[i] = self.mt[(i + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
            self.index = 0
        y = self.mt[self.index]
        self.index += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        return y ^ (y >> 18)


def uniform_below(rng, n):
    """libstdc++'s uniform_int_distribution over [0, n) for a 32-bit engine (Lemire's method)."""
    product = rng() * n
    low = product & 0xFFFFFFFF
    if low < n:
        threshold = (-n & 0xFFFFFFFF) % n
        while low < threshold:
            product = rng() * n
            low = product & 0xFFFFFFFF
    return product >> 32


def shuffle(values, rng):
    """libstdc++'s std::shuffle (two swap positions per draw when the range allows)."""
    i = 1
    if len(values) % 2 == 0:
        j = uniform_below(rng, 2)
        values[1], values[j] = values[j], values[1]
        i = 2
    while i < len(values):
        r = i + 1
        x = uniform_below(rng, r * (r + 1))
        values[i], values[x // (r + 1)] = values[x // (r + 1)], values[i]
        values[i + 1], values[x % (r + 1)] = values[x % (r + 1)], values[i + 1]
        i += 2


def canonical_float(rng):
    """libstdc++'s generate_canonical<float> from one 32-bit draw."""
    u = np.float32(np.float32(rng()) / np.float32(4294967296.0))
    return u if u < 1 else np.nextafter(np.float32(1), np.float32(0))


def stratified_reference(count, bins_x, bins_y):
    rng, perm, out = MT19937(), list(range(bins_x * bins_y)), []
    for k in range(count):
        if k % len(perm) == 0:
            shuffle(perm, rng)
        cell = perm[k % len(perm)]
        x = np.float32((np.float32(cell % bins_x) + canonical_float(rng)) / np.float32(bins_x))
        y = np.float32((np.float32(cell // bins_x) + canonical_float(rng)) / np.float32(bins_y))
        out.append((np.float32(x - np.float32(0.5)), np.float32(y - np.float32(0.5))))
    return out


DX_PATTERN = [(1, -3), (-1, 3), (5, 1), (-3, -5), (-5, 5), (-7, -1), (3, 7), (7, -7)]


@pytest.mark.parametrize("pattern, count, reference", [
    ("DirectX", 8, [(x / 16, y / 16) for x, y in DX_PATTERN] * 2),
    ("Halton", 5, halton_reference(12, 5)),
    ("Stratified", 16, stratified_reference(20, 4, 4)),
    ("Stratified", 6, stratified_reference(8, 2, 3)),  # 2 x 3: the first factor >= floor(sqrt)
])
def test_camera_jitter_follows_falcor_sequences(pattern, count, reference):
    """The camera takes the next pattern sample each frame, divided by the frame size. The
    pattern is attached during the first frame, after that frame's camera update (Falcor's
    order), so frame 1 is unjittered and frame k uses sample k-2."""
    m = falcor.Renderer(16, 8)
    g = falcor.RenderGraph("G")
    g.create_pass("V", "VBufferRT", {"samplePattern": pattern, "sampleCount": count})
    g.mark_output("V.vbuffer")
    m.addGraph(g)
    m.loadScene(str(CORNELL))
    m.clock.pause()
    jitter = []
    for _ in range(len(reference) + 1):
        m.renderFrame()
        c = m.scene.native.camera_data
        jitter.append((c["jitterX"], c["jitterY"]))
    assert jitter[0] == (0.0, 0.0)
    expected = [(float(np.float32(x) * np.float32(1 / 16)), float(np.float32(y) * np.float32(1 / 8))) for x, y in reference]
    assert jitter[1:] == expected


def test_directx_pattern_has_eight_samples(capfd):
    m, _ = render(CORNELL, "VBufferRT", {"samplePattern": "DirectX"}, ["vbuffer"], size=(8, 8))
    assert m.activeGraph.get_pass("P").getDictionary()["sampleCount"] == 8
    assert "DxSamplePattern() currently requires sampleCount = 8. Using that number." in capfd.readouterr().out


# ---- rays: culling, alpha test, depth of field -----------------------------------------------

def test_primary_rays_equal_the_cameras_per_pixel_rays():
    """VBufferRT makes a row's pinhole rays ahead, a group at a time (Camera::computeRowPinhole):
    every ray is still the camera's own ray for its pixel, bit for bit, on a jittered frame whose
    width leaves partial groups and a partial 64-pixel chunk (131 = 2 x 64 + 3)."""
    width, height = 131, 5
    m = falcor.Renderer(width, height)
    g = falcor.RenderGraph("G")
    g.create_pass("V", "VBufferRT", {"samplePattern": "Halton", "sampleCount": 4})
    g.mark_output("V.viewW")
    m.addGraph(g)
    m.loadScene(str(CORNELL))
    m.clock.pause()
    for _ in range(3):  # Frame 1 is unjittered; frame 3 uses a Halton sample.
        m.renderFrame()
    c = m.scene.native.camera_data
    assert (c["jitterX"], c["jitterY"]) != (0.0, 0.0)
    view = g.get_output("V.viewW").to_numpy()
    expected = np.array([[m.scene.native.compute_camera_ray((x, y), (width, height))["dir"] for x in range(width)]
                         for y in range(height)], np.float32)
    assert np.array_equal(view[..., :3], -expected)


@pytest.mark.parametrize("force, cull, above, below", [
    (False, "Front", True, True),  # cull is ignored unless forced: no culling
    (True, "None", True, True),
    (True, "Back", True, False),
    (True, "Front", False, True),
])
def test_cull_modes(tmp_path, force, cull, above, below):
    props = {"forceCullMode": force, "cull": cull}
    for height, expected in ((2.0, above), (-2.0, below)):
        _, out = render(quad_pyscene(tmp_path, height), "VBufferRT", props, ["mask"], size=(8, 8))
        assert bool(out["mask"][4, 4]) == expected, (height, cull)


def test_alpha_test(tmp_path):
    """A quad whose base-color alpha is 0 on its left half, above an opaque floor: the alpha test
    lets primary rays through the transparent half."""
    texels = np.full((8, 8, 4), 255, np.uint8)
    texels[:, :4, 3] = 0
    Image.fromarray(texels, "RGBA").save(tmp_path / "mask.png")
    material = f"quadMaterial.loadTexture(MaterialTextureSlot.BaseColor, r'{tmp_path / 'mask.png'}')"
    floor = """
floorMaterial = StandardMaterial('Floor')
floorNode = sceneBuilder.addNode('Floor', Transform(scaling=float3(8, 1, 8), translation=float3(0, -1, 0)))
sceneBuilder.addMeshInstance(floorNode, sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), floorMaterial))
"""
    scene = quad_pyscene(tmp_path, 2.0, material, floor)
    heights = {}
    for props in ({}, {"useAlphaTest": False}, {"disableAlphaTest": True}):
        _, out = render(scene, "GBufferRT", props, ["posW"], size=(16, 16))
        heights[str(props)] = out["posW"][8, [5, 10], 1]
    assert heights["{}"].tolist() == [-1.0, 0.0]  # left half: the floor; right half: the quad
    assert heights["{'useAlphaTest': False}"].tolist() == [0.0, 0.0]
    assert heights["{'disableAlphaTest': True}"].tolist() == [0.0, 0.0]


def uniform_samples(px, py, frame):
    """Falcor's UniformSampleGenerator(pixel, frame).next2D() (SplitMix64 -> xoshiro128**), vectorized."""
    def spread(v):
        v = v.astype(np.uint64) & np.uint64(0xFFFF)
        for shift, mask in ((8, 0x00FF00FF), (4, 0x0F0F0F0F), (2, 0x33333333), (1, 0x55555555)):
            v = (v | (v << np.uint64(shift))) & np.uint64(mask)
        return v

    with np.errstate(over="ignore"):
        state = (np.uint64(frame) << np.uint64(32)) | spread(px) | (spread(py) << np.uint64(1))
        words = []
        for _ in range(2):
            state = state + np.uint64(0x9E3779B97F4A7C15)
            z = state
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z = z ^ (z >> np.uint64(31))
            words += [z & np.uint64(0xFFFFFFFF), z >> np.uint64(32)]
        s = [w.astype(np.uint32) for w in words]

        def rotl(x, k):
            return (x << np.uint32(k)) | (x >> np.uint32(32 - k))

        out = []
        for _ in range(2):
            result = rotl(s[0] * np.uint32(5), 7) * np.uint32(9)
            t = s[1] << np.uint32(9)
            s[2] ^= s[0]
            s[3] ^= s[1]
            s[1] ^= s[2]
            s[0] ^= s[3]
            s[2] ^= t
            s[3] = rotl(s[3], 11)
            out.append((result >> np.uint32(8)).astype(np.float32) * np.float32(2.0**-24))
    return out


def test_depth_of_field(tmp_path):
    """Thin lens (aperture 0.05, focus on the back wall): each ray starts at Falcor's random lens
    point for (pixel, frame 0) and passes through the pinhole ray's point on the focal plane. Hits
    on the back wall (the focal plane) therefore stay put; nearer surfaces spread."""
    size = 24
    outputs = ["posW", "viewW"]
    m = falcor.Renderer(size, size)
    g = falcor.RenderGraph("G")
    for name, use_dof in (("Lens", True), ("Pinhole", False)):
        g.create_pass(name, "GBufferRT", {"useDOF": use_dof})
        for o in outputs:
            g.mark_output(f"{name}.{o}")
    m.addGraph(g)
    m.loadScene(str(CORNELL))
    cam = m.scene.camera
    cam.apertureRadius, cam.focalDistance = 0.05, 1.475  # the back wall is at z = -0.275
    m.renderFrame()
    lens = {o: g.get_output(f"Lens.{o}").to_numpy() for o in outputs}
    pin = {o: g.get_output(f"Pinhole.{o}").to_numpy() for o in outputs}

    c = m.scene.native.camera_data
    U, V, W, eye = (np.array(c[k], np.float64) for k in ("cameraU", "cameraV", "cameraW", "posW"))
    py, px = np.mgrid[0:size, 0:size]
    ndc_x, ndc_y = (px + 0.5) / size * 2 - 1, 1 - (py + 0.5) / size * 2
    focus = eye + ndc_x[..., None] * U + ndc_y[..., None] * V + W
    ux, uy = uniform_samples(px, py, 0)
    r, phi = np.sqrt(ux), 2 * np.pi * uy
    origin = eye + c["apertureRadius"] * ((r * np.cos(phi))[..., None] * U / np.linalg.norm(U)
                                          + (r * np.sin(phi))[..., None] * V / np.linalg.norm(V))
    direction = (focus - origin) / np.linalg.norm(focus - origin, axis=-1, keepdims=True)
    np.testing.assert_allclose(lens["viewW"][..., :3], -direction, atol=2e-6)

    back_wall = np.isclose(pin["posW"][..., 2], -0.275, atol=1e-4) & np.isclose(lens["posW"][..., 2], -0.275, atol=1e-4)
    assert back_wall.mean() > 0.1
    np.testing.assert_allclose(lens["posW"][back_wall], pin["posW"][back_wall], atol=1e-5)
    floor = np.isclose(pin["posW"][..., 1], 0, atol=1e-6) & np.isclose(lens["posW"][..., 1], 0, atol=1e-6)
    assert np.abs(lens["posW"][floor] - pin["posW"][floor]).max() > 1e-3


# ---- per-pixel values --------------------------------------------------------------------------

def test_hit_values_against_falcor_formulas(tmp_path):
    """Looking straight down on the metal-rough quad: posW on the ray, normals, the standard
    material's albedos, the packed header and lobes, depth/linearZ from the projection, view
    direction, octahedral guide normal, and the background values of misses."""
    size = 16
    outputs = ["posW", "normW", "faceNormalW", "guideNormalW", "texC", "texGrads", "mvec", "mtlData", "vbuffer", "depth",
               "linearZ", "diffuseOpacity", "specRough", "emissive", "viewW", "mask", "time", "normWRoughnessMaterialID"]
    m, out = render(quad_pyscene(tmp_path, 3.0), "GBufferRT", {}, outputs, size=(size, size))
    c = m.scene.native.camera_data
    hit = out["mask"] == 1
    assert hit[size // 2, size // 2] and not hit.all()

    # Diffuse = base * (1 - metallic), specular = lerp(F0 = 0.04, base, metallic) (half-precision params).
    base = np.float16([0.2, 0.4, 0.8]).astype(np.float32)
    np.testing.assert_allclose(out["diffuseOpacity"][hit], np.append(base * 0.5, 1.0)[None].repeat(hit.sum(), 0), rtol=1e-6)
    np.testing.assert_allclose(out["specRough"][hit][:, :3], np.tile(0.04 + (base - 0.04) * 0.5, (hit.sum(), 1)), rtol=1e-6)
    assert np.allclose(out["specRough"][hit][:, 3], np.float16(0.3))
    assert not out["emissive"].any() and not out["texGrads"].any() and not out["time"].any()
    for n in ("normW", "faceNormalW", "guideNormalW"):
        np.testing.assert_allclose(out[n][hit], np.tile([0, 1, 0, 0], (hit.sum(), 1)), atol=1e-6)

    # Material header: Standard type, all lobes, basic; alpha threshold 0.5 as half; lobes diffuse + specular.
    mtl = out["mtlData"][hit]
    assert (mtl[:, 0] == 0).all() and (mtl[:, 1] == (1 | 0xFF << 20 | 1 << 31)).all()
    assert (mtl[:, 2] == 0x3800).all() and (mtl[:, 3] == 0x3).all()

    # V-buffer: Triangle (1) in the top 3 bits; one instance (0 bits) and two triangles (1 bit).
    vb = out["vbuffer"][hit]
    assert (vb[:, 0] >> 29 == 1).all() and (vb[:, 0] & ~np.uint32(1) == 1 << 29).all() and (vb[:, 1] == 0).all()
    bary = vb[:, 2:].view(np.float32)
    assert (bary >= 0).all() and (bary.sum(-1) <= 1 + 1e-6).all()

    # Projection: depth = z/w and linearZ = w of viewProjMatNoJitter · posW; the slope of a plane
    # facing the camera is zero; viewW = -normalize(posW - eye).
    p = np.concatenate([out["posW"][hit][:, :3], np.ones((hit.sum(), 1))], 1).astype(np.float64)
    clip = p @ np.array(c["viewProjMatNoJitter"], np.float64).T
    np.testing.assert_allclose(out["depth"][hit], clip[:, 2] / clip[:, 3], rtol=1e-6)
    np.testing.assert_allclose(out["linearZ"][hit][:, 0], clip[:, 3], rtol=1e-6)
    assert np.abs(out["linearZ"][hit][:, 1]).max() < 1e-5
    eye = np.array(c["posW"])
    to_hit = p[:, :3] - eye
    np.testing.assert_allclose(out["viewW"][hit][:, :3], -to_hit / np.linalg.norm(to_hit, axis=1, keepdims=True), atol=1e-6)
    np.testing.assert_allclose(out["posW"][hit][:, 1], 0, atol=1e-6)
    # Octahedral map of +Y is (0.5, 1); roughness 0.3; material slot 0 (RGB10A2 words).
    words = out["normWRoughnessMaterialID"].view(np.uint32).reshape(size, size).astype(np.int64)
    guide = np.stack([words & 1023, (words >> 10) & 1023, (words >> 20) & 1023, words >> 30], -1) / [1023, 1023, 1023, 3]
    np.testing.assert_allclose(guide[hit], np.tile([0.5, 1.0, np.float16(0.3), 0], (hit.sum(), 1)), atol=1 / 1023)

    # Misses: depth 1, linearZ at the background distance, Unreal's default guide normal, zeros.
    miss = ~hit
    assert (out["depth"][miss] == 1).all() and (out["linearZ"][miss][:, 0] == 1e8).all()
    n = np.float32([0.2215, 0.2215, 0.2215])
    oct_xy = n[:2] / np.abs(n).sum() * 0.5 + 0.5
    np.testing.assert_allclose(guide[miss][:, :2], np.tile(oct_xy, (miss.sum(), 1)), atol=1 / 1023)
    assert not out["posW"][miss].any() and not out["mtlData"][miss].any() and not out["vbuffer"][miss].any()


def test_motion_vectors_follow_camera_movement(tmp_path):
    """After the camera moves, mvec = screen position of posW under last frame's camera minus the
    pixel center (y down), for hits and for the far background; mvecW = 0 for static geometry."""
    size = 16
    m = falcor.Renderer(size, size)
    g = falcor.RenderGraph("G")
    g.create_pass("P", "GBufferRT", {})
    for o in ("posW", "mvec", "mvecW", "mask", "disocclusion", "viewW"):
        g.mark_output(f"P.{o}")
    m.addGraph(g)
    m.loadScene(quad_pyscene(tmp_path, 3.0))
    m.clock.pause()
    m.renderFrame()
    m.scene.camera.position = falcor.float3(0.3, 3.5, 0.1)
    m.renderFrame()
    out = {o: g.get_output(f"P.{o}").to_numpy() for o in ("posW", "mvec", "mvecW", "mask", "disocclusion", "viewW")}
    c = m.scene.native.camera_data
    py, px = np.mgrid[0:size, 0:size]
    center = np.stack([(px + 0.5) / size, (py + 0.5) / size], -1)
    eye = np.array(c["posW"], np.float64)
    hit = out["mask"] == 1
    world = np.where(hit[..., None], out["posW"][..., :3], eye - out["viewW"][..., :3] * 1e8)
    prev = np.concatenate([world, np.ones((size, size, 1))], -1) @ np.array(c["prevViewProjMatNoJitter"]).T
    screen = np.stack([prev[..., 0] / prev[..., 3] * 0.5 + 0.5, prev[..., 1] / prev[..., 3] * -0.5 + 0.5], -1)
    np.testing.assert_allclose(out["mvec"], screen - center, atol=2e-5)
    assert np.abs(out["mvec"]).max() > 0.01 and not out["mvecW"].any()
    cur = np.concatenate([world, np.ones((size, size, 1))], -1) @ np.array(c["viewProjMatNoJitter"]).T
    np.testing.assert_allclose(out["disocclusion"][hit], (prev[..., 3] - cur[..., 3])[hit], atol=1e-4)


def test_texture_gradients(tmp_path):
    """texGrads of the 2x2 quad (uv = (x + 1) / 2, (z + 1) / 2) seen from above, against numpy
    versions of Falcor's formulas. RayDiffs: the per-pixel change of the (unnormalized) camera
    direction, 2·U/W and 2·V/H over the focal distance, times the hit distance, moved onto the
    plane along the ray. RayCones: the cone footprint ellipse on the plane (radius hitT·tan(pixel
    spread angle), 24 mm film for the angle), axes along the ray's projection and across it."""
    size = 32
    scene = quad_pyscene(tmp_path, 3.0)
    m, diffs = render(scene, "GBufferRT", {"texLOD": "RayDiffs"}, ["texGrads", "posW", "viewW", "mask"], (size, size))
    _, cones = render(scene, "GBufferRT", {"texLOD": "RayCones"}, ["texGrads"], (size, size))
    c = m.scene.native.camera_data
    hit = diffs["mask"] == 1
    d = -diffs["viewW"][hit][:, :3].astype(np.float64)
    t = np.linalg.norm(diffs["posW"][hit][:, :3] - np.array(c["posW"]), axis=1)

    def uv_offset(world):  # world offsets on the plane y = 0 -> uv
        return world[:, [0, 2]] / 2

    def onto_plane(q):
        return q - d * (q[:, 1:2] / d[:, 1:2])

    U, V = np.array(c["cameraU"]), np.array(c["cameraV"])
    q = np.outer(t, U * 2 / size / c["focalDistance"])
    r = np.outer(t, V * 2 / size / c["focalDistance"])
    expected = np.concatenate([uv_offset(onto_plane(q)), uv_offset(onto_plane(r))], 1)
    np.testing.assert_allclose(diffs["texGrads"][hit], expected, rtol=2e-3, atol=1e-5)

    fov = 2 * math.atan(0.5 * 24 / c["focalLength"])
    radius = t * math.tan(math.atan(2 * math.tan(fov / 2) / size))
    n = np.array([0.0, 1.0, 0.0])

    def scaled(axis):
        projected = axis - d * np.sum(d * axis, 1, keepdims=True)
        return axis * (radius / np.maximum(1e-4, np.linalg.norm(projected, axis=1)))[:, None]

    axis0 = scaled(d - np.outer(d @ n, n))
    axis1 = scaled(np.cross(n, axis0))
    expected = np.concatenate([uv_offset(axis0), uv_offset(axis1)], 1)
    np.testing.assert_allclose(cones["texGrads"][hit], expected, rtol=2e-3, atol=1e-5)


def test_same_bits_on_any_thread_count():
    """Rows are independent: jittered, depth-of-field frames are identical on 1 and 3 threads."""
    def frames(threads):
        falcor.set_thread_count(threads)
        try:
            m = falcor.Renderer(24, 20)
            g = falcor.RenderGraph("G")
            g.create_pass("P", "GBufferRT", {"samplePattern": "Stratified", "sampleCount": 4})
            for o in ("posW", "mvec", "vbuffer", "linearZ"):
                g.mark_output(f"P.{o}")
            m.addGraph(g)
            m.loadScene(str(CORNELL))
            m.scene.camera.apertureRadius = 0.03
            m.clock.pause()
            result = []
            for _ in range(3):
                m.renderFrame()
                result += [g.get_output(f"P.{o}").to_numpy().tobytes() for o in ("posW", "mvec", "vbuffer", "linearZ")]
            return result
        finally:
            falcor.set_thread_count(2)

    assert frames(1) == frames(3)
