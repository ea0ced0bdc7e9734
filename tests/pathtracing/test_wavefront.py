"""The PathTracer's wavefront and its SIMD shade stage (RenderPasses/PathTracer/PathWavefront.h,
PathShadeLanes.h): hits on materials with a lane form are shaded W paths at a time by the same
template that shades one path, so every lane width this machine runs (falcor.set_isa_limit)
must give the bits of the one-path shading (`setSimdShading(False)`), for every property that
changes what a hit does."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import falcor
from pt_helpers import make_renderer, render_frames, vbuffer_graph

SCENES = Path(__file__).resolve().parents[2] / "Scenes"
from helpers import HOST_ISAS as ISAS  # Every width this machine runs.

# Properties that change the shading of a hit: light choice and MIS, Russian roulette, bounce
# limits, caustics, sample generators, adaptive sample counts.
VARIANTS = [
    {},
    {"useRussianRoulette": True, "maxSurfaceBounces": 6},
    {"emissiveSampler": "Power", "samplesPerPixel": 2, "sampleGenerator": 1},
    {"emissiveSampler": "LightBVH", "misHeuristic": "PowerExp", "misPowerExponent": 3.0},
    {"misHeuristic": "PowerTwo", "maxDiffuseBounces": 1},
    {"useMIS": False, "emissiveSampler": "Uniform"},
    {"useNEE": False},
    {"disableCaustics": True, "useBSDFSampling": False},
]


@pytest.fixture(autouse=True)
def _restore_isa():
    yield
    falcor.set_isa_limit(None)


def render(scene: Path, props: dict, simd: bool, isa: str | None, frames: int = 2, size=(24, 16)):
    falcor.set_isa_limit(isa)
    g = vbuffer_graph("PathTracer", props)
    m = make_renderer(scene, *size, g)
    tracer = g.get_pass("tracer")
    tracer.setSimdShading(simd)
    return render_frames(m, g, frames), tracer.simdShadingStats()


def assert_same_bits(a: np.ndarray, b: np.ndarray, what: str):
    assert np.array_equal(a.view(np.uint64), b.view(np.uint64)), f"{what}: {np.count_nonzero(a != b)} values differ, max {np.abs(a - b).max()}"


@pytest.mark.parametrize("props", VARIANTS, ids=lambda p: ",".join(p) or "defaults")
def test_every_lane_width_gives_the_one_path_bits(props):
    scalar, stats = render(SCENES / "CornellBoxDiffuse.pyscene", props, False, None)
    assert stats["laneShadedHits"] == 0 and stats["scalarShadedHits"] > 0
    for isa in ISAS:
        image, stats = render(SCENES / "CornellBoxDiffuse.pyscene", props, True, isa)
        # The walls (PBRT diffuse) and the light (an opaque standard material) all have lane forms.
        assert stats["laneShadedHits"] > 0 and stats["scalarShadedHits"] == 0, stats
        assert_same_bits(scalar, image, f"{isa} {props}")


CONDUCTOR_BOX = """
def conductor(name, roughness):
    m = PBRTConductorMaterial(name)
    m.baseColor = float4(0.143, 0.374, 1.442, 1)
    m.transmissionColor = float3(3.983, 2.385, 1.603)
    m.roughness = roughness
    return m

def diffuse(name, color):
    m = PBRTDiffuseMaterial(name)
    m.baseColor = color
    return m

floor = conductor('Smooth', float2(0.0, 0.0))
ceiling = backWall = diffuse('White', float4(0.7, 0.7, 0.7, 1))
leftWall = conductor('Anisotropic', float2(0.05, 0.4))
rightWall = diffuse('Green', float4(0.1, 0.5, 0.1, 1))
largeBox = conductor('Rough', float2(0.3, 0.3))
smallBox = conductor('Glossy', float2(0.02, 0.02))
light = StandardMaterial('Light')
light.baseColor = float4(0, 0, 0, 1)
light.emissiveColor = float3(17, 12, 4)
light.emissiveFactor = 5
exec(open(%r).read())
"""


@pytest.mark.parametrize("props", [{}, {"disableCaustics": True, "emissiveSampler": "Power"}], ids=["defaults", "disableCaustics"])
def test_conductors_and_diffuse_lanes_give_the_one_path_bits(tmp_path, props):
    """PBRT conductors (mirror, glossy, rough, anisotropic) share the SIMD stage with diffuse hits:
    each lane material gets its own chunks of lanes."""
    scene = tmp_path / "ConductorBox.pyscene"
    scene.write_text(CONDUCTOR_BOX % str(SCENES / "CornellBoxGeometry.py"))
    props = {"maxSurfaceBounces": 4, **props}
    scalar, _ = render(scene, props, False, None)
    for isa in ISAS:
        image, stats = render(scene, props, True, isa)
        assert stats["laneShadedHits"] > 0 and stats["scalarShadedHits"] == 0, stats
        assert_same_bits(scalar, image, f"{isa} {props}")


@pytest.mark.parametrize("scene", ["EnvMap.pyscene", "Lights.pyscene", "Materials.pyscene", "Dielectrics.pyscene", "TexturedQuads.pyscene"])
def test_mixed_scenes_give_the_one_path_bits(scene):
    """Scenes whose paths move between lanes and one-path shading (standard, dielectric and
    textured materials, analytic lights, the environment map)."""
    scalar, _ = render(SCENES / scene, {"maxSurfaceBounces": 5}, False, None)
    image, stats = render(SCENES / scene, {"maxSurfaceBounces": 5}, True, ISAS[-1])
    assert_same_bits(scalar, image, scene)


@pytest.mark.parametrize("scene", ["CornellBox.pyscene", "Materials.pyscene", "Dielectrics.pyscene"])
@pytest.mark.parametrize("props", [{}, {"disableCaustics": True, "misHeuristic": "PowerTwo"}], ids=["defaults", "disableCaustics"])
def test_standard_material_lanes_give_the_one_path_bits(scene, props):
    """Standard materials (plastic, metal, thin translucent leaf, glass) in lanes, with lobes
    restricted per lane (disableCaustics). Glass is shaded in lanes where a path meets it from
    outside any volume (a path that refracts enters the volume after the SIMD stage); inside, one
    path at a time. In the Dielectrics scene that makes 2.2-3 lane hits for one other (1.0-1.2
    when every glass hit was one path at a time)."""
    props = {"maxSurfaceBounces": 5, **props}
    lane_hits_per_one_path = 2 if scene == "Dielectrics.pyscene" else 1
    scalar, _ = render(SCENES / scene, props, False, None)
    for isa in ISAS:
        image, stats = render(SCENES / scene, props, True, isa)
        assert stats["laneShadedHits"] > lane_hits_per_one_path * stats["scalarShadedHits"], stats
        assert_same_bits(scalar, image, f"{scene} {isa} {props}")


GUIDE_OUTPUTS = ("color", "albedo", "specularAlbedo", "indirectAlbedo", "guideNormal", "reflectionPosW")


def test_guide_outputs_give_the_one_path_bits(tmp_path):
    """With denoiser guide outputs connected, the first two vertices (whose guide data only the
    one-path code records; the second's after a specular bounce off the conductors) are shaded one
    path at a time and the later ones in lanes."""
    scene = tmp_path / "ConductorBox.pyscene"
    scene.write_text(CONDUCTOR_BOX % str(SCENES / "CornellBoxGeometry.py"))

    def outputs(simd):
        g = vbuffer_graph("PathTracer", {"maxSurfaceBounces": 5}, outputs=GUIDE_OUTPUTS)
        m = make_renderer(scene, 24, 16, g)
        tracer = g.get_pass("tracer")
        tracer.setSimdShading(simd)
        m.renderFrame()
        return {name: np.array(g.getOutput(f"tracer.{name}")).astype(np.float64) for name in GUIDE_OUTPUTS}, tracer.simdShadingStats()

    scalar, _ = outputs(False)
    lanes, stats = outputs(True)
    assert stats["laneShadedHits"] > stats["scalarShadedHits"] > 0, stats
    for name in GUIDE_OUTPUTS:
        assert_same_bits(scalar[name], lanes[name], name)


def test_adaptive_sample_counts_give_the_one_path_bits(tmp_path):
    """A sampleCount input (0 to 15 samples per pixel) changes how many paths each pixel starts."""
    from PIL import Image

    density = tmp_path / "density.png"
    Image.fromarray(((np.arange(24 * 16).reshape(16, 24) * 37) % 256).astype(np.uint8)).save(density)

    def adaptive(simd):
        g = vbuffer_graph("PathTracer", {})
        g.create_pass("density", "ImageLoader", {"filename": str(density), "srgb": False, "mips": False})
        g.create_pass("count", "Composite", {"scaleA": 16.0, "outputFormat": "Unknown"})
        g.add_edge("density.dst", "count.A")
        g.add_edge("count.out", "tracer.sampleCount")
        m = make_renderer(SCENES / "CornellBoxDiffuse.pyscene", 24, 16, g)
        g.get_pass("tracer").setSimdShading(simd)
        return render_frames(m, g, 2)

    scalar, lanes = adaptive(False), adaptive(True)
    assert_same_bits(scalar, lanes, "adaptive")
    assert np.count_nonzero(scalar.sum(axis=(0, 3)) == 0) > 0  # Pixels with no sample stay black.


def test_same_bits_on_one_and_two_threads(tmp_path):
    code = (
        "import sys, numpy as np; sys.path.insert(0, %r)\n"
        "from pt_helpers import *\n"
        "g = vbuffer_graph('PathTracer', {'samplesPerPixel': 3})\n"
        "m = make_renderer(%r, 96, 70, g)\n"
        "np.save(sys.argv[1], render_frames(m, g, 1))\n" % (os.path.dirname(__file__), str(SCENES / "CornellBoxDiffuse.pyscene"))
    )
    images = []
    for threads in ("1", "2"):
        out = tmp_path / f"t{threads}.npy"
        subprocess.run([sys.executable, "-c", code, str(out)], check=True, env=dict(os.environ, FALCOR_NUM_THREADS=threads), capture_output=True)
        images.append(np.load(out))
    assert_same_bits(images[0], images[1], "threads")


def test_set_simd_shading_checks_its_argument():
    g = vbuffer_graph("PathTracer", {})
    with pytest.raises(Exception, match="setSimdShading"):
        g.get_pass("tracer").setSimdShading(3)
