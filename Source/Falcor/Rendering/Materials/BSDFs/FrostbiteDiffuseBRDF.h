#pragma once
#include "Rendering/Materials/BSDFSample.h"
#include "Rendering/Materials/Fresnel.h"
#include "Utils/Math/MathHelpers.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"

namespace falcor
{
/// Disney's diffuse with Frostbite's energy renormalization (Lagarde and de Rousiers 2014): a
/// Lambertian lobe brightened at grazing angles by roughness, scaled so it stays below 1. The
/// standard material's diffuse lobe. Sampled by cosine.
struct FrostbiteDiffuseBRDF
{
    float3 albedo{0.f, 0.f, 0.f};
    float roughness = 0.f; ///< Before remapping to GGX alpha.

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
    /// f · π / cos(wo): the BRDF relative to a white Lambertian.
    float3 evalWeight(const float3& wi, const float3& wo) const
    {
        const float3 h = normalize(wi + wo);
        const float woDotH = dot(wo, h);
        const float energyBias = 0.5f * roughness;
        const float energyFactor = 1.f + (1.f / 1.51f - 1.f) * roughness;
        const float fd90 = energyBias + 2.f * woDotH * woDotH * roughness;
        return albedo * (evalFresnelSchlick(1.f, fd90, wi.z()) * evalFresnelSchlick(1.f, fd90, wo.z()) * energyFactor);
    }
};
} // namespace falcor
