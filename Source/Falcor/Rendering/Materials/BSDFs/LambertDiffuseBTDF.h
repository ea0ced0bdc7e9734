#pragma once
#include "Rendering/Materials/BSDFSample.h"
#include "Utils/Math/MathHelpers.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"

namespace falcor
{
/// Lambertian transmission to the far side: f = albedo / π for wo below the surface.
struct LambertDiffuseBTDF
{
    float3 albedo{0.f, 0.f, 0.f};

    float3 eval(const float3& wi, const float3& wo) const
    {
        if (std::min(wi.z(), -wo.z()) < kMinCosTheta)
            return float3(0.f);
        return albedo * (kInvPi * -wo.z());
    }

    template<typename SampleGenerator>
    bool sample(const float3& wi, BSDFSample& s, SampleGenerator& sg) const
    {
        s.wo = sampleCosineHemisphereConcentric(sampleNext2D(sg), s.pdf);
        s.wo.z() = -s.wo.z();
        s.lobeType = kLobeDiffuseTransmission;
        if (std::min(wi.z(), -s.wo.z()) < kMinCosTheta)
            return false;
        s.weight = albedo;
        return true;
    }

    float evalPdf(const float3& wi, const float3& wo) const
    {
        return std::min(wi.z(), -wo.z()) < kMinCosTheta ? 0.f : kInvPi * -wo.z();
    }
};
} // namespace falcor
