#pragma once
#include "Rendering/Materials/BSDFSample.h"
#include "Utils/Math/MathHelpers.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"

namespace falcor
{
/// Falcor's cloth BRDF: a Lambertian base plus a sheen lobe (Estevez and Kulla's "Charlie"
/// distribution with Neubelt and Pettineo's visibility) of constant reflectance f0, sampled by cosine.
struct ClothBRDF
{
    float roughness = 0.5f; ///< Linear roughness of the sheen.
    float3 f0{0.04f, 0.04f, 0.04f};
    float3 diffuseColor{0.f, 0.f, 0.f};

    float3 eval(const float3& wi, const float3& wo) const
    {
        if (std::min(wi.z(), wo.z()) < kMinCosTheta)
            return float3(0.f);
        return evalWeight(wi, wo) * (kInvPi * wo.z());
    }

    template<typename SampleGenerator>
    bool sample(const float3& wi, BSDFSample& s, SampleGenerator& sg) const
    {
        s.wo = sampleCosineHemisphereConcentric(sampleNext2D(sg), s.pdf);
        s.lobeType = kLobeDiffuseReflection;
        if (std::min(wi.z(), s.wo.z()) < kMinCosTheta)
            return false;
        s.weight = evalWeight(wi, s.wo);
        return true;
    }

    float evalPdf(const float3& wi, const float3& wo) const
    {
        return std::min(wi.z(), wo.z()) < kMinCosTheta ? 0.f : kInvPi * wo.z();
    }

private:
    /// f · π / cos θo.
    float3 evalWeight(const float3& wi, const float3& wo) const
    {
        const float3 h = normalize(wi + wo);
        // Falcor divides by the roughness; zero would give NaN, so the sheen stays this rough at least.
        const float invAlpha = 1.f / std::max(roughness, 1e-3f);
        const float sin2h = std::max(1.f - h.z() * h.z(), 0.0078125f);
        const float D = (2.f + invAlpha) * std::pow(sin2h, 0.5f * invAlpha) / (2.f * kPi);
        const float V = 1.f / (4.f * (wo.z() + wi.z() - wo.z() * wi.z()));
        return (diffuseColor * kInvPi + f0 * (D * V)) * kPi;
    }
};
} // namespace falcor
