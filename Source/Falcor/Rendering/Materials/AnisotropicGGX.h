#pragma once
#include "Utils/Math/MathHelpers.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"
#include <algorithm>
#include <cmath>

namespace falcor
{
/// The anisotropic GGX distribution of the PBRT materials (alpha per tangent axis, pbrt-v4's
/// TrowbridgeReitzDistribution as Falcor's AnisotropicGGX): D, Smith masking, and sampling of
/// the normals visible from a direction. Directions are local; functions treat w and -w alike
/// where the math allows (masking), so they serve both sides of a two-sided interface.
struct AnisotropicGGX
{
    float2 alpha{0.f, 0.f};

    /// So smooth it is better treated as a perfect mirror or window.
    bool isSingular() const { return alpha.x() < 1e-3f && alpha.y() < 1e-3f; }
    float getIsotropicRoughness() const { return std::max(alpha.x(), alpha.y()); }

    /// Smith Λ(w), symmetric in w.
    float smithLambda(const float3& w) const
    {
        const float cos2 = w.z() * w.z(), sin2 = std::max(1.f - cos2, 0.f);
        const float tan2 = sin2 / cos2;
        if (std::isinf(tan2))
            return 0.f;
        const float alpha2 = sin2 == 0.f ? alpha.x() * alpha.x()
                                         : (w.x() * w.x() * alpha.x() * alpha.x() + w.y() * w.y() * alpha.y() * alpha.y()) / sin2;
        return 0.5f * (std::sqrt(1.f + alpha2 * tan2) - 1.f);
    }
    float G1(const float3& w) const { return 1.f / (1.f + smithLambda(w)); }
    /// Height-correlated masking-shadowing (for reflection; the PBRT materials use it for refraction too).
    float G2(const float3& wo, const float3& wi) const { return 1.f / (1.f + smithLambda(wo) + smithLambda(wi)); }

    float evalNDF(const float3& h) const
    {
        const float cos2 = h.z() * h.z(), sin2 = std::max(1.f - cos2, 0.f);
        const float tan2 = sin2 / cos2;
        if (std::isinf(tan2) || cos2 * cos2 < 1e-16f)
            return 0.f;
        const float e = sin2 == 0.f ? 0.f : tan2 * (h.x() * h.x() / (alpha.x() * alpha.x()) + h.y() * h.y() / (alpha.y() * alpha.y())) / sin2;
        return 1.f / (kPi * alpha.x() * alpha.y() * cos2 * cos2 * (1.f + e) * (1.f + e));
    }

    /// D_w(h) = G1(w) · |w·h| · D(h) / |w.z|.
    float evalVNDF(const float3& w, const float3& h) const
    {
        return w.z() == 0.f ? 0.f : G1(w) * std::abs(dot(w, h)) * evalNDF(h) / std::abs(w.z());
    }

    /// A normal visible from w (Heitz 2018, by projecting a disc sample onto the stretched
    /// hemisphere), in the upper hemisphere; density evalVNDF(w, h).
    template<typename SampleGenerator>
    float3 sample(const float3& w, SampleGenerator& sg) const
    {
        float3 wh = normalize(float3(alpha.x() * w.x(), alpha.y() * w.y(), w.z()));
        if (wh.z() < 0.f)
            wh = -wh;
        const float3 t1 = wh.x() * wh.x() + wh.y() * wh.y() > 0.f ? normalize(float3(-wh.y(), wh.x(), 0.f)) : float3(1.f, 0.f, 0.f);
        const float3 t2 = cross(wh, t1);
        const float r = std::sqrt(sampleNext1D(sg));
        const float phi = 2.f * kPi * sampleNext1D(sg);
        const float p1 = r * std::cos(phi);
        const float s = 0.5f * (1.f + wh.z());
        const float p2 = (1.f - s) * std::sqrt(1.f - p1 * p1) + s * r * std::sin(phi);
        const float3 nh = t1 * p1 + t2 * p2 + wh * std::sqrt(std::max(0.f, 1.f - p1 * p1 - p2 * p2));
        return normalize(float3(alpha.x() * nh.x(), alpha.y() * nh.y(), std::max(0.f, nh.z())));
    }
};
} // namespace falcor
