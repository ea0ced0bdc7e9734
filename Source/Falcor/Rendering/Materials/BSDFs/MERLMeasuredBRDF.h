#pragma once
#include "Rendering/Materials/BSDFSample.h"
#include "Rendering/Materials/MERLBRDF.h"
#include "Utils/Math/MathHelpers.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"

namespace falcor
{
/// A MERL measured BRDF as a BSDF: table lookup, sampled by cosine (Falcor samples a fitted
/// analytic lobe instead when the table comes with one; cosine sampling is the unfitted path).
struct MERLMeasuredBRDF
{
    const MERLBRDF* table = nullptr;
    float3 albedo{0.f, 0.f, 0.f}; ///< Directional albedo at the view (for getProperties).

    float3 eval(const float3& wi, const float3& wo) const { return table->eval(wi, wo); }

    template<typename SampleGenerator>
    bool sample(const float3& wi, BSDFSample& s, SampleGenerator& sg) const
    {
        s.wo = sampleCosineHemisphereConcentric(sampleNext2D(sg), s.pdf);
        s.lobeType = kLobeDiffuseReflection;
        if (std::min(wi.z(), s.wo.z()) < kMinCosTheta || s.pdf == 0.f)
            return false;
        s.weight = table->eval(wi, s.wo) / s.pdf;
        return true;
    }

    float evalPdf(const float3& wi, const float3& wo) const
    {
        return std::min(wi.z(), wo.z()) < kMinCosTheta ? 0.f : wo.z() * kInvPi;
    }
};
} // namespace falcor
