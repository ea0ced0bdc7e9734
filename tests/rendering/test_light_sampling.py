"""Light samplers: analytic lights against closed-form irradiance, the environment map and the
emissive-triangle samplers (Uniform, Power, LightBVH) against their own pdf (chi-square)."""
import math

import numpy as np
import pytest

import falcor
from chi2 import chi2_pvalue, expected_histogram, observed_histogram

R = falcor.rendering
SCENES = __import__("pathlib").Path(__file__).resolve().parents[2] / "Scenes"
N = 200_000

AREA_LIGHTS = """
def place(light, transform):
    sceneBuilder.addLight(light)
    sceneBuilder.createAnimation(light, light.name + 'Placement', 1.0).addKeyframe(0.0, transform)

rect = RectLight('Rect')
rect.intensity = float3(2, 2, 2)
place(rect, Transform(translation=float3(0, 1.5, 0), rotationEulerDeg=float3(90, 0, 0), scaling=float3(0.6, 0.3, 1)))
disc = DiscLight('Disc')
disc.intensity = float3(3, 3, 3)
place(disc, Transform(translation=float3(0, 2, 0), rotationEulerDeg=float3(90, 0, 0), scaling=0.5))
sphere = SphereLight('Sphere')
sphere.intensity = float3(4, 4, 4)
place(sphere, Transform(translation=float3(0, 3, 0), scaling=0.4))
sun = DistantLight('Sun')
sun.direction = float3(0, -1, 0)
sun.angle = 0.1
sun.intensity = float3(5, 5, 5)
sceneBuilder.addLight(sun)
point = PointLight('Point')
point.position = float3(0, 2.5, 0)
point.intensity = float3(6, 6, 6)
sceneBuilder.addLight(point)
"""


def rect_corner_form_factor(x, y):
    """Form factor from a point to a parallel rectangle of sides x·h, y·h with one corner above it."""
    a, b = math.sqrt(1 + x * x), math.sqrt(1 + y * y)
    return (x / a * math.atan(y / a) + y / b * math.atan(x / b)) / (2 * math.pi)


def irradiance_closed_forms():
    """Irradiance at the origin, normal +Y, from each light above (in the scene's order)."""
    return {
        "Rect": 2 * math.pi * 4 * rect_corner_form_factor(0.6 / 1.5, 0.3 / 1.5),
        "Disc": 3 * math.pi * 0.5**2 / (2**2 + 0.5**2),
        "Sphere": 4 * math.pi * (0.4 / 3) ** 2,
        # A distant light's intensity is the irradiance it gives facing it (Falcor's convention),
        # spread uniformly over a cone of half angle `angle`: E[cos θ] = (1 + cos angle) / 2.
        "Sun": 5 * (1 + math.cos(0.1)) / 2,
        "Point": 6 / 2.5**2,
    }


@pytest.fixture(scope="module")
def area_scene():
    scene = falcor.load_scene_from_string(AREA_LIGHTS)
    scene.update(0.0)
    return scene.native


@pytest.mark.parametrize("index, name", list(enumerate(["Rect", "Disc", "Sphere", "Sun", "Point"])))
def test_analytic_light_irradiance(area_scene, index, name):
    """E[Li · cos θ] is the irradiance each light's closed form gives."""
    s = R.sample_analytic_light(area_scene, index, (0, 0, 0), N, seed=index)
    cos = np.clip(s["dir"][:, 1], 0.0, None)
    contribution = np.where(s["valid"], s["Li"][:, 0] * cos, 0.0).astype(np.float64)
    mean, se = contribution.mean(), contribution.std() / math.sqrt(N)
    expected = irradiance_closed_forms()[name]
    assert abs(mean - expected) <= 5 * se + 2e-4 * expected, (name, mean, expected, se)


def check_chi_square(samples, pdf, n_theta=20, n_phi=40):
    keep = samples["valid"] & (samples["pdf"] > 0)
    observed = observed_histogram(samples["dir"][keep], n_theta, n_phi)
    expected = expected_histogram(pdf, n_theta, n_phi) * len(samples["valid"])
    p = chi2_pvalue(observed, expected)
    assert p > 1e-3, (p, observed.sum(), expected.sum())


def test_env_map_sampler_chi_square_and_radiance():
    scene = falcor.load_scene(str(SCENES / "EnvMap.pyscene"))
    sampler = R.EnvMapSampler(scene.native)
    s = sampler.sample(N, seed=2)
    assert s["valid"].all()
    check_chi_square(s, sampler.pdf)
    np.testing.assert_allclose(s["pdf"][:1000], sampler.pdf(s["dir"][:1000]), rtol=1e-3)
    # Le is the map at the sampled (u, v); eval looks it up again from the float direction, whose
    # round trip moves the lookup by a tiny fraction of a texel: across a sharp texel edge of the
    # sunset that changes the filtered value in the fifth digit, for a few samples in a thousand.
    Le, again = s["Le"][:1000], sampler.eval(s["dir"][:1000])
    np.testing.assert_allclose(Le, again, rtol=1e-3, atol=1e-6)
    assert np.isclose(Le, again, rtol=1e-5, atol=1e-6).all(1).mean() > 0.99


# The PathTracer's lightBVHOptions: every split heuristic and builder switch, the three solid-angle
# bounds, importance sampling inside leaves.
BVH_OPTIONS = {
    "default": None,
    "Equal": {"buildOptions": {"splitHeuristicSelection": "Equal", "maxTriangleCountPerLeaf": 3}},
    "BinnedSAH-volume": {"buildOptions": {"splitHeuristicSelection": "BinnedSAH", "useVolumeOverSA": True, "binCount": 8},
                         "solidAngleBoundMethod": "BoxToCenter"},
    "SAOH-largest-deep": {"buildOptions": {"splitAlongLargest": True, "createLeavesASAP": False, "useLeafCreationCost": False,
                                           "usePreintegration": False, "useLightingCones": False},
                          "solidAngleBoundMethod": "BoxToAverage"},
    "leaf-importance": {"buildOptions": {"maxTriangleCountPerLeaf": 8}, "useUniformTriangleSampling": False,
                        "useBoundingCone": False, "disableNodeFlux": True},
}
SAMPLERS = [("Uniform", None), ("Power", None)] + [("LightBVH", name) for name in BVH_OPTIONS]


@pytest.mark.parametrize("kind, bvh_options", SAMPLERS, ids=[k if o is None else f"{k}-{o}" for k, o in SAMPLERS])
# Shading points that see every emitter unoccluded (the pdf is evaluated by tracing to the emitter).
@pytest.mark.parametrize("scene_name, pos, normal", [("CornellBox.pyscene", (-0.1, 0.001, 0.25), (0, 1, 0)),
                                                     ("Lights.pyscene", (1.2, 0.3, 1.2), (0, 1, 0))])
@pytest.mark.parametrize("upper_only", [False, True])
def test_emissive_sampler(kind, bvh_options, scene_name, pos, normal, upper_only):
    """The triangles picked follow the selection probabilities (chi-square over triangles, exact
    expectations), these sum to one, and each sample's solid-angle pdf is the one evaluated for
    a ray that hits the same point (as MIS does). Points are uniform on triangles by construction."""
    scene = falcor.load_scene(str(SCENES / scene_name))
    sampler = R.EmissiveLightSampler(scene.native, kind, BVH_OPTIONS[bvh_options] if bvh_options else None)
    selection = sampler.selection_pdf(pos, normal, upper_only).astype(np.float64)
    # Uniform and power selection always pick; the BVH gives up where no node can light the
    # point (its bounds prove every emitter faces away): that mass is the "none" outcome.
    none = 1.0 - selection.sum()
    assert abs(none) < 1e-4 if kind != "LightBVH" else -1e-4 < none < 1.0
    triangles = sampler.sample_triangles(pos, normal, upper_only, N, seed=4)
    picked = triangles < len(selection)
    observed = np.append(np.bincount(triangles[picked], minlength=len(selection)), (~picked).sum()).astype(np.float64)
    p = chi2_pvalue(observed, np.append(selection, max(none, 0.0)) * N)
    assert p > 1e-3, p

    s = sampler.sample(pos, normal, upper_only, 2000, seed=5)
    keep = s["valid"]
    assert keep.mean() > 0.2
    np.testing.assert_allclose(sampler.pdf(pos, normal, upper_only, s["dir"][keep]), s["pdf"][keep], rtol=2e-3)


def test_light_bvh_favours_the_lights_that_matter():
    """From a point beside the glowing sphere of Lights.pyscene, the BVH puts more probability on
    triangles facing the point than a uniform pick does."""
    scene = falcor.load_scene(str(SCENES / "Lights.pyscene"))
    pos, normal = (1.2, 0.3, 1.2), (0, 1, 0)
    uniform = R.EmissiveLightSampler(scene.native, "Uniform")
    bvh = R.EmissiveLightSampler(scene.native, "LightBVH")
    s = uniform.sample(pos, normal, False, 20000, seed=1)
    # Fraction of samples that land on the half of the sphere facing the point (valid ones).
    useful_uniform = s["valid"].mean()
    useful_bvh = bvh.sample(pos, normal, False, 20000, seed=1)["valid"].mean()
    assert useful_bvh > useful_uniform + 0.1, (useful_bvh, useful_uniform)


def test_light_bvh_options_errors_name_the_key():
    scene = falcor.load_scene(str(SCENES / "Lights.pyscene"))
    with pytest.raises(Exception, match="lightBVHOptions.buildOptions.splitHeuristicSelection"):
        R.EmissiveLightSampler(scene.native, "LightBVH", {"buildOptions": {"splitHeuristicSelection": "Median"}})
    with pytest.raises(Exception, match="lightBVHOptions.solidAngleBoundMethod"):
        R.EmissiveLightSampler(scene.native, "LightBVH", {"solidAngleBoundMethod": 3.5})
    with pytest.raises(Exception, match="lightBVHOptions.buildOptions"):
        R.EmissiveLightSampler(scene.native, "LightBVH", {"buildOptions": 4})


def test_light_bvh_importance_inside_leaves_favours_near_triangles():
    """With whole-sphere leaves, importance sampling inside a leaf puts more probability on the
    triangles facing the point than uniform leaf sampling does."""
    scene = falcor.load_scene(str(SCENES / "Lights.pyscene"))
    pos, normal = (1.2, 0.3, 1.2), (0, 1, 0)
    big_leaves = {"buildOptions": {"maxTriangleCountPerLeaf": 64}}
    uniform = R.EmissiveLightSampler(scene.native, "LightBVH", big_leaves)
    importance = R.EmissiveLightSampler(scene.native, "LightBVH", {**big_leaves, "useUniformTriangleSampling": False})
    useful = [s.sample(pos, normal, False, 20000, seed=1)["valid"].mean() for s in (uniform, importance)]
    assert useful[1] > useful[0] + 0.1, useful
