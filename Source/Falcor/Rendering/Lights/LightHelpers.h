#pragma once
#include "Rendering/Lights/LightLanes.h"
#include "Scene/Light.h"
#include "Scene/SceneMath.h"
#include "Utils/Math/MathHelpers.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"
#include <cfloat>
#include <span>

// Sampling Falcor's analytic lights from a shading point (Falcor's LightHelpers).
namespace falcor
{
/// Closer than this (squared), a light is treated as this far away.
constexpr float kMinLightDistSqr = 1e-9f;
/// Shadow-ray length towards lights at infinity.
constexpr float kMaxLightDistance = FLT_MAX;

/// A point on a light as seen from a shading point. `Li` is already divided by `pdf` (the
/// solid-angle density; 0 for point and directional lights, which are deltas). Per lane when F is
/// a lane type (AnalyticLightSample: one path).
template<typename F>
struct AnalyticLightSampleT
{
    vector<F, 3> posW{0.f, 0.f, 0.f};
    vector<F, 3> normalW{0.f, 0.f, 0.f};
    vector<F, 3> dir{0.f, 0.f, 0.f}; ///< Normalized, from the shading point to the light.
    F distance = 0.f;
    vector<F, 3> Li{0.f, 0.f, 0.f};
    F pdf = 0.f;

    /// Makes lane i hold the one-path sample `s`.
    void setLane(int i, const AnalyticLightSampleT<float>& s)
    {
        setLaneValue(posW, i, s.posW), setLaneValue(normalW, i, s.normalW), setLaneValue(dir, i, s.dir);
        setLaneValue(distance, i, s.distance), setLaneValue(Li, i, s.Li), setLaneValue(pdf, i, s.pdf);
    }
};
using AnalyticLightSample = AnalyticLightSampleT<float>;

namespace detail
{
/// Direction, distance and area-measure conversion for a sampled point on an area light; the
/// light emits from its front (normalW) side only.
inline bool finalizeAreaLightSample(const float3& shadingPosW, const LightData& light, AnalyticLightSample& ls)
{
    const float3 toLight = ls.posW - shadingPosW;
    const float distSqr = std::max(dot(toLight, toLight), kMinLightDistSqr);
    ls.distance = std::sqrt(distSqr);
    ls.dir = toLight / ls.distance;
    const float cosTheta = -dot(ls.normalW, ls.dir);
    if (cosTheta <= 0.f)
        return false;
    ls.Li = light.intensity * (light.surfaceArea * cosTheta / distSqr);
    ls.pdf = distSqr / (cosTheta * light.surfaceArea);
    return true;
}

inline bool sampleAreaLight(const float3& shadingPosW, const LightData& light, const float3& localPos, const float3& localNormal,
                            AnalyticLightSample& ls)
{
    ls.posW = transformPoint(light.transMat, localPos);
    ls.normalW = normalize(transformVector(light.transMatIT, localNormal));
    return finalizeAreaLightSample(shadingPosW, light, ls);
}

/// Point or spot light: inverse-square falloff, cut off outside the opening angle and smoothed over the penumbra.
inline bool samplePointLight(const float3& shadingPosW, const LightData& light, AnalyticLightSample& ls)
{
    ls.posW = light.posW;
    ls.normalW = light.dirW;
    const float3 toLight = ls.posW - shadingPosW;
    const float distSqr = std::max(dot(toLight, toLight), kMinLightDistSqr);
    ls.distance = std::sqrt(distSqr);
    ls.dir = toLight / ls.distance;
    const float cosTheta = -dot(ls.dir, light.dirW);
    float falloff = 1.f;
    if (cosTheta < light.cosOpeningAngle)
    {
        falloff = 0.f;
    }
    else if (light.penumbraAngle > 0.f)
    {
        const float t = saturate((light.openingAngle - std::acos(std::clamp(cosTheta, -1.f, 1.f))) / light.penumbraAngle);
        falloff = t * t * (3.f - 2.f * t);
    }
    ls.Li = light.intensity * (falloff / distSqr);
    ls.pdf = 0.f;
    return true;
}
} // namespace detail

/// Samples `light` as seen from shadingPosW; false when it cannot contribute there.
template<typename SampleGenerator>
bool sampleLight(const float3& shadingPosW, const LightData& light, SampleGenerator& sg, AnalyticLightSample& ls)
{
    ls = AnalyticLightSample{};
    switch (light.type)
    {
    case LightType::Point:
        return detail::samplePointLight(shadingPosW, light, ls);
    case LightType::Directional:
        ls.normalW = light.dirW;
        ls.dir = -light.dirW;
        ls.distance = kMaxLightDistance;
        ls.Li = light.intensity;
        return true;
    case LightType::Rect:
    {
        const float2 u = sampleNext2D(sg);
        return detail::sampleAreaLight(shadingPosW, light, float3(u.x() * 2.f - 1.f, u.y() * 2.f - 1.f, 0.f), float3(0.f, 0.f, 1.f), ls);
    }
    case LightType::Sphere:
    {
        const float3 p = sampleSphere(sampleNext2D(sg));
        return detail::sampleAreaLight(shadingPosW, light, p, p, ls);
    }
    case LightType::Disc:
    {
        // Polar (not concentric) mapping, as Falcor's sample_disk.
        const float2 u = sampleNext2D(sg);
        const float r = std::sqrt(u.x()), phi = 2.f * kPi * u.y();
        return detail::sampleAreaLight(shadingPosW, light, float3(r * std::cos(phi), r * std::sin(phi), 0.f), float3(0.f, 0.f, 1.f), ls);
    }
    case LightType::Distant:
    {
        ls.dir = normalize(transformVector(light.transMat, sampleCone(sampleNext2D(sg), light.cosSubtendedAngle)));
        ls.normalW = -ls.dir;
        ls.distance = kMaxLightDistance;
        ls.Li = light.intensity;
        ls.pdf = 1.f / (2.f * kPi * (1.f - light.cosSubtendedAngle));
        return true;
    }
    }
    return false;
}

/// The lanes of `active` sample lights[index[i]] from their shading points, lane by lane through
/// the one-path sampleLight, each with its lane's stream of `sg` (a lane generator); returns where
/// a light can contribute. The other lanes draw nothing and keep `ls`.
template<typename F, typename SampleGenerator>
MaskOf<F> sampleLight(const vector<F, 3>& shadingPosW, std::span<const LightData> lights, const UintOf<F>& index, SampleGenerator& sg,
                      const MaskOf<F>& active, AnalyticLightSampleT<F>& ls)
{
    MaskOf<F> valid(false);
    detail::forEachLaneStream(sg, active, [&](int i, auto& laneSg) {
        AnalyticLightSample s;
        setLaneValue(valid, i, sampleLight(laneValue(shadingPosW, i), lights[laneValue(index, i)], laneSg, s));
        ls.setLane(i, s);
    });
    return valid;
}
} // namespace falcor
