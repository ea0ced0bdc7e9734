#pragma once
#include "Rendering/Materials/BSDFSample.h"
#include "Rendering/Materials/Fresnel.h"
#include "Rendering/Materials/IsotropicGGX.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"

namespace falcor
{
/// GGX reflection with Schlick Fresnel from the specular color, height-correlated Smith masking,
/// sampled by visible normals; alpha = 0 is a perfect mirror (a delta lobe).
struct SpecularMicrofacetBRDF
{
    float3 albedo{0.f, 0.f, 0.f}; ///< Reflectance at normal incidence.
    float alpha = 0.f;
    uint32_t activeLobes = kLobeAll;

    float3 eval(const float3& wi, const float3& wo) const
    {
        if (std::min(wi.z(), wo.z()) < kMinCosTheta || alpha == 0.f || !(activeLobes & kLobeSpecularReflection))
            return float3(0.f);
        const float3 h = normalize(wi + wo);
        const float D = evalNdfGGX(alpha, h.z());
        const float G = evalMaskingSmithGGXCorrelated(alpha, wi.z(), wo.z());
        return evalFresnelSchlick(albedo, 1.f, dot(wi, h)) * (D * G * 0.25f / wi.z());
    }

    template<typename SampleGenerator>
    bool sample(const float3& wi, BSDFSample& s, SampleGenerator& sg) const
    {
        s.lobeType = kLobeSpecularReflection;
        if (wi.z() < kMinCosTheta)
            return false;
        if (alpha == 0.f)
        {
            if (!(activeLobes & kLobeDeltaReflection))
                return false;
            s.wo = float3(-wi.x(), -wi.y(), wi.z());
            s.pdf = 0.f;
            s.weight = evalFresnelSchlick(albedo, 1.f, wi.z());
            s.lobeType = kLobeDeltaReflection;
            return true;
        }
        if (!(activeLobes & kLobeSpecularReflection))
            return false;
        float pdf;
        const float3 h = sampleGGX_VNDF(alpha, wi, sampleNext2D(sg), pdf);
        const float wiDotH = dot(wi, h);
        s.wo = h * (2.f * wiDotH) - wi;
        if (s.wo.z() < kMinCosTheta)
            return false;
        // With visible-normal sampling the weight is F · G2 / G1(wi) = F · G2 · (1 + Λ(wi)).
        const float G = evalMaskingSmithGGXCorrelated(alpha, wi.z(), s.wo.z());
        const float GOverG1wi = G * (1.f + evalLambdaGGX(alpha * alpha, wi.z()));
        s.pdf = pdf / (4.f * wiDotH);
        s.weight = evalFresnelSchlick(albedo, 1.f, wiDotH) * GOverG1wi;
        return true;
    }

    float evalPdf(const float3& wi, const float3& wo) const
    {
        if (std::min(wi.z(), wo.z()) < kMinCosTheta || alpha == 0.f || !(activeLobes & kLobeSpecularReflection))
            return 0.f;
        const float3 h = normalize(wi + wo);
        return evalPdfGGX_VNDF(alpha, wi, h) / (4.f * dot(wi, h));
    }
};
} // namespace falcor
