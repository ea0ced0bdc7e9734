// falcor.rendering light samplers on numpy arrays: the analytic lights, the environment map and
// the emissive-triangle samplers of a scene (`falcor.Scene.native`), so their sample() can be
// checked against their pdf() (chi-square) and their estimates against closed forms.
#include "Core/PythonHelpers.h"
#include "Rendering/Lights/EmissiveLightSampler.h"
#include "Rendering/Lights/EnvMapSampler.h"
#include "Rendering/Lights/LightBVH.h"
#include "Rendering/Lights/LightBVHOptions.h"
#include "Rendering/Lights/LightHelpers.h"
#include "Rendering/Lights/LightLanesCheck.h"
#include "Scene/ShadingData.h"
#include "Utils/Sampling/UniformSampleGenerator.h"
#include <pybind11/numpy.h>
#include <memory>

namespace falcor::python
{
namespace
{
using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

std::vector<float3> directions(const py::handle& obj)
{
    FloatArray a = FloatArray::ensure(obj);
    if (!a || a.ndim() != 2 || a.shape(1) != 3)
        throw py::value_error("dirs must be an (N, 3) float array");
    std::vector<float3> v(size_t(a.shape(0)));
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = float3(a.at(i, 0), a.at(i, 1), a.at(i, 2));
    return v;
}

/// (count, 3) and (count,) float arrays and a valid mask, filled by `fill(k, dir, value, pdf)`.
template<typename Fill>
py::dict sampleArrays(uint32_t count, const char* valueName, Fill&& fill)
{
    py::array_t<float> dir({py::ssize_t(count), py::ssize_t(3)}), value({py::ssize_t(count), py::ssize_t(3)}), pdf(count);
    py::array_t<bool> valid(count);
    for (uint32_t k = 0; k < count; ++k)
    {
        float3 d(0.f), v(0.f);
        float p = 0.f;
        valid.mutable_at(k) = fill(k, d, v, p);
        for (int c = 0; c < 3; ++c)
            dir.mutable_at(k, c) = d[c], value.mutable_at(k, c) = v[c];
        pdf.mutable_at(k) = p;
    }
    py::dict result("dir"_a = dir, "pdf"_a = pdf, "valid"_a = valid);
    result[valueName] = value;
    return result;
}

UniformSampleGenerator generatorFor(uint32_t k, uint32_t seed)
{
    return UniformSampleGenerator(uint2(k & 0xffffu, k >> 16), seed);
}

/// A scene's emissive triangles with one of the samplers, kept alive together.
struct EmissiveSamplerBinding
{
    std::shared_ptr<Scene> scene;
    std::unique_ptr<EmissiveLightCollection> lights;
    std::unique_ptr<LightBVH> bvh;
    EmissiveLightSampler sampler;

    EmissiveSamplerBinding(std::shared_ptr<Scene> s, EmissiveLightSamplerType type, const LightBVHOptions& options) : scene(std::move(s))
    {
        lights = std::make_unique<EmissiveLightCollection>(*scene);
        if (type == EmissiveLightSamplerType::LightBVH)
            bvh = std::make_unique<LightBVH>(*lights, options.build);
        sampler = EmissiveLightSampler(lights.get(), &scene->getMaterials(), type, bvh.get(), options.sampler);
    }

    /// Density of each direction from (posW, normalW): the emissive surface a ray along it hits.
    py::array_t<float> pdf(const py::object& pos, const py::object& normal, bool upperOnly, const py::object& dirs) const
    {
        const float3 p = toVector<float, 3>(pos), n = toVector<float, 3>(normal);
        const std::vector<float3> d = directions(dirs);
        py::array_t<float> out(py::ssize_t(d.size()));
        for (size_t k = 0; k < d.size(); ++k)
        {
            const TriangleHit hit = scene->closestHit(Ray{p, 0.f, normalize(d[k])});
            float value = 0.f;
            if (hit.isValid())
            {
                const uint32_t triangle = lights->getTriangleIndex(hit.instanceID, hit.primitiveIndex);
                const ShadingData sd = loadShadingData(*scene, hit, normalize(d[k]));
                if (triangle != kInvalidIndex)
                    value = sampler.evalPdf(p, n, upperOnly, triangle, sd.posW, sd.getOrientedFaceNormal());
            }
            out.mutable_at(k) = value;
        }
        return out;
    }
};

/// inputs[name] as a C-contiguous array of `rows` rows of `columns` values (columns 0: a vector).
template<typename T>
py::array_t<T, py::array::c_style | py::array::forcecast> lanesCheckInput(const py::dict& inputs, const char* name, size_t rows, size_t columns)
{
    if (!inputs.contains(name))
        throw py::key_error(std::string("_lanes_lights: inputs has no '") + name + "'");
    auto a = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(inputs[name]);
    const bool fits = a && size_t(a.shape(0)) == rows && (columns == 0 ? a.ndim() == 1 : a.ndim() == 2 && size_t(a.shape(1)) == columns);
    if (!fits)
        throw py::value_error(std::string("_lanes_lights: inputs['") + name + "'] must be a (" + std::to_string(rows) +
                              (columns ? ", " + std::to_string(columns) : std::string(",")) + ") array");
    return a;
}

/// The `_lanes_lights` test hook (see Rendering/Lights/LightLanesCheck.h).
py::dict lanesLightsCheck(const std::shared_ptr<Scene>& scene, const std::string& type, const py::dict& inputs, bool lanes)
{
    const EmissiveSamplerBinding emissive(scene, PropertyValue(type).as<EmissiveLightSamplerType>("type"), LightBVHOptions{});
    const EnvMapSampler env = scene->getEnvMap() ? EnvMapSampler(*scene->getEnvMap()) : EnvMapSampler();
    const size_t rows = inputs.contains("seed") ? py::len(inputs["seed"]) : 0; // A missing seed is reported below.
    const auto pos = lanesCheckInput<float>(inputs, "pos", rows, 3), normal = lanesCheckInput<float>(inputs, "normal", rows, 3);
    const auto upper = lanesCheckInput<bool>(inputs, "upper", rows, 0), active = lanesCheckInput<bool>(inputs, "active", rows, 0);
    const auto seed = lanesCheckInput<uint32_t>(inputs, "seed", rows, 0), triangle = lanesCheckInput<uint32_t>(inputs, "triangle", rows, 0);
    const auto posOnLight = lanesCheckInput<float>(inputs, "pos_on_light", rows, 3);
    const auto normalOnLight = lanesCheckInput<float>(inputs, "normal_on_light", rows, 3);
    const auto dir = lanesCheckInput<float>(inputs, "dir", rows, 3), uv = lanesCheckInput<float>(inputs, "uv", rows, 2);
    const auto light = lanesCheckInput<uint32_t>(inputs, "light", rows, 0);
    const std::vector<LightData>& lights = scene->getActiveLights();
    for (size_t k = 0; k < rows; ++k)
        if (active.at(k) && light.at(k) >= lights.size())
            throw py::value_error("_lanes_lights: inputs['light'][" + std::to_string(k) + "] = " + std::to_string(light.at(k)) +
                                  " is not one of the scene's " + std::to_string(lights.size()) + " analytic lights");
    py::array_t<uint32_t> out({py::ssize_t(rows), py::ssize_t(kLightCheckWords)});
    LightLanesCheckIO io;
    io.count = rows;
    io.posW = pos.data(), io.normalW = normal.data(), io.seed = seed.data(), io.triangle = triangle.data();
    io.upper = reinterpret_cast<const uint8_t*>(upper.data()), io.active = reinterpret_cast<const uint8_t*>(active.data());
    io.lightCount = emissive.lights->getTriangleCount();
    io.posOnLight = posOnLight.data(), io.normalOnLight = normalOnLight.data(), io.dir = dir.data(), io.uv = uv.data();
    io.lights = lights, io.light = light.data();
    io.out = out.mutable_data();
    int laneWidth = 1;
    if (lanes)
        laneWidth = lightLanesCheck(emissive.sampler, env, io);
    else
        lightScalarCheck(emissive.sampler, env, io);
    return py::dict("words"_a = out, "lane_width"_a = laneWidth, "light_count"_a = io.lightCount);
}
} // namespace

void registerLightBindings(py::module_& root)
{
    py::module_ m = root.def_submodule("rendering");

    m.def(
        "sample_analytic_light",
        [](const std::shared_ptr<Scene>& scene, uint32_t lightIndex, const py::object& pos, uint32_t count, uint32_t seed) {
            const auto& lights = scene->getActiveLights();
            FALCOR_CHECK(lightIndex < lights.size(), "sample_analytic_light: light index ", lightIndex, " out of range (", lights.size(),
                         " lights).");
            const LightData light = lights[lightIndex];
            const float3 p = toVector<float, 3>(pos);
            return sampleArrays(count, "Li", [&](uint32_t k, float3& dir, float3& Li, float& pdf) {
                UniformSampleGenerator sg = generatorFor(k, seed);
                AnalyticLightSample ls;
                const bool valid = sampleLight(p, light, sg, ls);
                dir = ls.dir, Li = ls.Li, pdf = ls.pdf;
                return valid;
            });
        },
        "scene"_a, "light_index"_a, "pos"_a, "count"_a, "seed"_a = 0,
        "Samples the scene's active analytic light from `pos`: dict of dir, Li (radiance / pdf), pdf (solid angle; 0 for "
        "point and directional lights) and valid.");

    py::class_<EnvMapSampler>(m, "EnvMapSampler", "Importance sampling of a scene's environment map.")
        .def(py::init([](const std::shared_ptr<Scene>& scene) {
                 FALCOR_CHECK(scene->getEnvMap(), "EnvMapSampler: the scene has no environment map.");
                 return EnvMapSampler(*scene->getEnvMap());
             }),
             "scene"_a)
        .def(
            "sample",
            [](const EnvMapSampler& s, uint32_t count, uint32_t seed) {
                return sampleArrays(count, "Le", [&](uint32_t k, float3& dir, float3& Le, float& pdf) {
                    UniformSampleGenerator sg = generatorFor(k, seed);
                    EnvMapSample es;
                    const bool valid = s.sample(sg, es);
                    dir = es.dir, Le = es.Le, pdf = es.pdf;
                    return valid;
                });
            },
            "count"_a, "seed"_a = 0)
        .def(
            "pdf",
            [](const EnvMapSampler& s, const py::object& dirs) {
                const std::vector<float3> d = directions(dirs);
                py::array_t<float> out(py::ssize_t(d.size()));
                for (size_t k = 0; k < d.size(); ++k)
                    out.mutable_at(k) = s.evalPdf(d[k]);
                return out;
            },
            "dirs"_a)
        .def(
            "eval",
            [](const EnvMapSampler& s, const py::object& dirs) {
                const std::vector<float3> d = directions(dirs);
                py::array_t<float> out({py::ssize_t(d.size()), py::ssize_t(3)});
                for (size_t k = 0; k < d.size(); ++k)
                {
                    const float3 v = s.eval(d[k]);
                    for (int c = 0; c < 3; ++c)
                        out.mutable_at(k, c) = v[c];
                }
                return out;
            },
            "dirs"_a);

    py::class_<EmissiveSamplerBinding>(m, "EmissiveLightSampler", "A scene's emissive triangles with the Uniform, Power or LightBVH sampler.")
        .def(py::init([](const std::shared_ptr<Scene>& scene, const std::string& type, const py::object& lightBVHOptions) {
                 const LightBVHOptions options = lightBVHOptions.is_none()
                                                     ? LightBVHOptions{}
                                                     : LightBVHOptions::fromDict(toPropertyValue(lightBVHOptions, "lightBVHOptions"), "lightBVHOptions");
                 return std::make_unique<EmissiveSamplerBinding>(scene, PropertyValue(type).as<EmissiveLightSamplerType>("type"), options);
             }),
             "scene"_a, "type"_a, "light_bvh_options"_a = py::none(),
             "type: 'Uniform', 'Power' or 'LightBVH'; light_bvh_options: the PathTracer's `lightBVHOptions` dict.")
        .def(
            "sample",
            [](const EmissiveSamplerBinding& b, const py::object& pos, const py::object& normal, bool upperOnly, uint32_t count, uint32_t seed) {
                const float3 p = toVector<float, 3>(pos), n = toVector<float, 3>(normal);
                return sampleArrays(count, "Le", [&](uint32_t k, float3& dir, float3& Le, float& pdf) {
                    UniformSampleGenerator sg = generatorFor(k, seed);
                    TriangleLightSample ls;
                    const bool valid = b.sampler.sampleLight(p, n, upperOnly, sg, ls);
                    dir = ls.dir, Le = ls.Le, pdf = ls.pdf;
                    return valid;
                });
            },
            "pos"_a, "normal"_a, "upper_only"_a, "count"_a, "seed"_a = 0)
        .def(
            "sample_triangles",
            [](const EmissiveSamplerBinding& b, const py::object& pos, const py::object& normal, bool upperOnly, uint32_t count, uint32_t seed) {
                const float3 p = toVector<float, 3>(pos), n = toVector<float, 3>(normal);
                py::array_t<uint32_t> triangles(count);
                for (uint32_t k = 0; k < count; ++k)
                {
                    UniformSampleGenerator sg = generatorFor(k, seed);
                    TriangleLightSample ls;
                    b.sampler.sampleLight(p, n, upperOnly, sg, ls);
                    triangles.mutable_at(k) = ls.triangleIndex;
                }
                return triangles;
            },
            "pos"_a, "normal"_a, "upper_only"_a, "count"_a, "seed"_a = 0,
            "The light triangle each of `count` samples picked (0xffffffff where none was picked).")
        .def(
            "selection_pdf",
            [](const EmissiveSamplerBinding& b, const py::object& pos, const py::object& normal, bool upperOnly) {
                const float3 p = toVector<float, 3>(pos), n = toVector<float, 3>(normal);
                py::array_t<float> out(b.lights->getTriangleCount());
                for (uint32_t i = 0; i < b.lights->getTriangleCount(); ++i)
                    out.mutable_at(i) = b.sampler.evalSelectionPdf(p, n, upperOnly, i);
                return out;
            },
            "pos"_a, "normal"_a, "upper_only"_a, "Probability of picking each light triangle from (pos, normal).")
        .def("pdf", &EmissiveSamplerBinding::pdf, "pos"_a, "normal"_a, "upper_only"_a, "dirs"_a,
             "Density of sampling each direction (the emissive surface a ray along it hits; 0 where none).");

    m.def("_lanes_lights", &lanesLightsCheck, "scene"_a, "type"_a, "inputs"_a, "lanes"_a,
          "Test hook: the emissive ('Uniform', 'Power', 'LightBVH') and env-map samplers over `inputs` (numpy arrays pos, "
          "normal, upper, active, seed, triangle, pos_on_light, normal_on_light, dir, uv, light) and the analytic lights, at "
          "the active ISA's lane width (lanes=True) or one row at a time; dict of words (rows, 50) uint32 (LightLanesCheck.h), lane_width, light_count.");
}
} // namespace falcor::python
