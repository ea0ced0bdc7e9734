#pragma once
// The test hook `falcor.rendering._lanes_lights` (LightBindings.cpp): the emissive and
// environment-map samplers evaluated at the active instruction set's lane width
// (LightLanesCheck.lanes.cpp) and, for reference, one row at a time through their one-path
// functions. Both write the same words per row, so tests compare the bits.
#include "Rendering/Lights/EmissiveLightSampler.h"
#include "Rendering/Lights/EnvMapSampler.h"
#include "Rendering/Lights/LightHelpers.h"
#include "Utils/Sampling/UniformSampleGenerator.h"
#include <bit>
#include <cstddef>

namespace falcor
{
/// One row per evaluation: inputs (row-major, `count` rows) and the output words.
struct LightLanesCheckIO
{
    size_t count = 0;
    const float* posW = nullptr;          ///< (count, 3) shading points.
    const float* normalW = nullptr;       ///< (count, 3).
    const uint8_t* upper = nullptr;       ///< Upper hemisphere only.
    const uint8_t* active = nullptr;      ///< Rows that evaluate (the others: masked-off lanes).
    const uint32_t* seed = nullptr;       ///< Sample number of each row's generator (its pixel: the row).
    const uint32_t* triangle = nullptr;   ///< evalPdf: the light triangle hit (any value).
    uint32_t lightCount = 0;              ///< Light triangles: evalSelectionPdf is asked only below.
    const float* posOnLight = nullptr;    ///< (count, 3).
    const float* normalOnLight = nullptr; ///< (count, 3).
    const float* dir = nullptr;           ///< (count, 3) toUv input.
    const float* uv = nullptr;            ///< (count, 2) evalUv / evalPdfUv input.
    std::span<const LightData> lights;    ///< The scene's analytic lights.
    const uint32_t* light = nullptr;      ///< The analytic light each row samples (valid where active).
    uint32_t* out = nullptr;              ///< (count, kLightCheckWords).
};

/// Output words per row: emissive valid, triangle, posW, normalW, dir, distance, Le, pdf, the next
/// random number after it, evalPdf, evalSelectionPdf; env valid, dir, Le, pdf, next number; toUv,
/// evalUv, evalPdfUv; analytic valid, posW, normalW, dir, distance, Li, pdf, next number.
inline constexpr size_t kLightCheckWords = 50;

/// The generator of a check row.
inline UniformSampleGenerator lightCheckGenerator(size_t row, uint32_t seed)
{
    return UniformSampleGenerator(uint2(uint32_t(row) & 0xffffu, uint32_t(row) >> 16), seed);
}

/// Everything a row computes, per lane when F is a lane type.
template<typename F>
struct LightCheckResults
{
    MaskOf<F> emissiveValid = false;
    TriangleLightSampleT<F> emissive;
    F emissiveNext = 0.f, emissivePdf = 0.f, selectionPdf = 0.f;
    MaskOf<F> envValid = false;
    EnvMapSampleT<F> env;
    F envNext = 0.f;
    vector<F, 2> uv{0.f, 0.f};
    vector<F, 3> Le{0.f, 0.f, 0.f};
    F pdfUv = 0.f;
    MaskOf<F> analyticValid = false;
    AnalyticLightSampleT<F> analytic;
    F analyticNext = 0.f;
};

namespace detail
{
template<typename T>
void putWord(uint32_t*& out, const T& x)
{
    if constexpr (std::is_same_v<T, bool>)
        *out++ = x ? 1u : 0u;
    else
        *out++ = std::bit_cast<uint32_t>(x);
}
template<typename T, int N>
void putWord(uint32_t*& out, const vector<T, N>& v)
{
    for (int c = 0; c < N; ++c)
        putWord(out, v.data[c]);
}
} // namespace detail

/// Writes lane `lane` of `r` as the kLightCheckWords words of one row.
template<typename F>
void storeLightCheckRow(const LightCheckResults<F>& r, int lane, uint32_t* out)
{
    auto put = [&](const auto& x) { detail::putWord(out, laneValue(x, lane)); };
    put(r.emissiveValid), put(r.emissive.triangleIndex), put(r.emissive.posW), put(r.emissive.normalW), put(r.emissive.dir);
    put(r.emissive.distance), put(r.emissive.Le), put(r.emissive.pdf), put(r.emissiveNext), put(r.emissivePdf), put(r.selectionPdf);
    put(r.envValid), put(r.env.dir), put(r.env.Le), put(r.env.pdf), put(r.envNext), put(r.uv), put(r.Le), put(r.pdfUv);
    put(r.analyticValid), put(r.analytic.posW), put(r.analytic.normalW), put(r.analytic.dir), put(r.analytic.distance);
    put(r.analytic.Li), put(r.analytic.pdf), put(r.analyticNext);
}

/// The reference: row by row through the one-path functions (an inactive row draws nothing).
inline void lightScalarCheck(const EmissiveLightSampler& emissive, const EnvMapSampler& env, const LightLanesCheckIO& io)
{
    auto row3 = [](const float* a, size_t k) { return float3(a[3 * k], a[3 * k + 1], a[3 * k + 2]); };
    for (size_t k = 0; k < io.count; ++k)
    {
        LightCheckResults<float> r;
        const bool active = io.active[k] != 0, upper = io.upper[k] != 0;
        const float3 posW = row3(io.posW, k), normalW = row3(io.normalW, k);
        const uint32_t triangle = io.triangle[k];
        UniformSampleGenerator sg = lightCheckGenerator(k, io.seed[k]);
        if (active)
            r.emissiveValid = emissive.sampleLight(posW, normalW, upper, sg, r.emissive);
        r.emissiveNext = sampleNext1D(sg);
        if (active)
            r.emissivePdf = emissive.evalPdf(posW, normalW, upper, triangle, row3(io.posOnLight, k), row3(io.normalOnLight, k));
        if (active && triangle < io.lightCount)
            r.selectionPdf = emissive.evalSelectionPdf(posW, normalW, upper, triangle);
        UniformSampleGenerator envSg = lightCheckGenerator(k, io.seed[k]);
        if (active)
            r.envValid = env.sample(envSg, r.env);
        r.envNext = sampleNext1D(envSg);
        const float2 uv(io.uv[2 * k], io.uv[2 * k + 1]);
        if (active)
            r.uv = env.toUv(row3(io.dir, k)), r.Le = env.evalUv(uv);
        r.pdfUv = env.evalPdfUv(uv);
        UniformSampleGenerator lightSg = lightCheckGenerator(k, io.seed[k]);
        if (active)
            r.analyticValid = sampleLight(posW, io.lights[io.light[k]], lightSg, r.analytic);
        r.analyticNext = sampleNext1D(lightSg);
        storeLightCheckRow(r, 0, io.out + k * kLightCheckWords);
    }
}

/// The lane kernel of the active ISA over the rows of `io` (LightLanesCheck.lanes.cpp); returns its lane width.
FALCOR_API int lightLanesCheck(const EmissiveLightSampler& emissive, const EnvMapSampler& env, const LightLanesCheckIO& io);
} // namespace falcor
