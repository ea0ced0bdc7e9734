#pragma once
#include "Rendering/Materials/BSDFSample.h"
#include "Rendering/Materials/Fresnel.h"
#include "Rendering/Materials/IsotropicGGX.h"
#include "Scene/DiffuseSpecularData.h"
#include "Utils/Color/ColorHelpers.h"
#include "Utils/Math/MathHelpers.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"

namespace falcor
{
/// Falcor's DiffuseSpecularBRDF: a Disney diffuse lobe plus an isotropic GGX lobe, the shape
/// measured materials are importance sampled with. Lobes are picked by albedo luminance.
struct DiffuseSpecularBRDF
{
    float3 diffuse{0.f, 0.f, 0.f};
    float3 specular{0.f, 0.f, 0.f};
    float roughness = 0.f;

    DiffuseSpecularBRDF() = default;
    explicit DiffuseSpecularBRDF(const DiffuseSpecularData& d)
        : diffuse(d.baseColor * (1.f - d.metallic)), specular(lerp(float3(d.specular * 0.08f), d.baseColor, d.metallic)), roughness(d.roughness)
    {}

    float3 eval(const float3& wi, const float3& wo) const
    {
        if (std::min(wi.z(), wo.z()) < kMinCosTheta)
            return float3(0.f);
        return (diffuseDisney(wi, wo) + specularMicrofacet(wi, wo)) * wo.z();
    }

    template<typename SampleGenerator>
    bool sample(const float3& wi, BSDFSample& s, SampleGenerator& sg) const
    {
        float pDiffuse, pSpecular;
        lobeProbabilities(pDiffuse, pSpecular);
        const float alpha = roughness * roughness;
        const float uSelect = sampleNext1D(sg);
        const float2 u = sampleNext2D(sg);
        if (uSelect < pDiffuse)
        {
            s.wo = sampleCosineHemisphereConcentric(u, s.pdf);
            s.pdf = s.pdf * pDiffuse + pSpecular * specularPdf(wi, s.wo, alpha);
            s.lobeType = kLobeDiffuseReflection;
        }
        else
        {
            float pdf;
            const float3 h = sampleGGX_VNDF(alpha, wi, u, pdf);
            const float wiDotH = dot(wi, h);
            s.wo = h * (2.f * wiDotH) - wi;
            if (s.wo.z() <= 0.f)
                return false;
            s.pdf = pdf / (4.f * wiDotH) * pSpecular + pDiffuse * diffusePdf(s.wo);
            s.lobeType = kLobeSpecularReflection;
        }
        if (std::min(wi.z(), s.wo.z()) < kMinCosTheta || s.pdf == 0.f)
            return false;
        s.weight = eval(wi, s.wo) / s.pdf;
        return true;
    }

    float evalPdf(const float3& wi, const float3& wo) const
    {
        if (std::min(wi.z(), wo.z()) < kMinCosTheta)
            return 0.f;
        float pDiffuse, pSpecular;
        lobeProbabilities(pDiffuse, pSpecular);
        return pDiffuse * diffusePdf(wo) + pSpecular * specularPdf(wi, wo, roughness * roughness);
    }

private:
    void lobeProbabilities(float& pDiffuse, float& pSpecular) const
    {
        const float d = std::max(0.f, luminance(diffuse)), s = std::max(0.001f, luminance(specular));
        pDiffuse = d / (d + s), pSpecular = s / (d + s);
    }

    /// Burley 2012: Schlick-style retro-reflection at grazing angles.
    float3 diffuseDisney(const float3& wi, const float3& wo) const
    {
        const float woDotH = std::max(0.f, dot(wo, normalize(wi + wo)));
        const float fd90 = 0.5f + 2.f * woDotH * woDotH * roughness;
        return diffuse * (evalFresnelSchlick(1.f, fd90, wi.z()) * evalFresnelSchlick(1.f, fd90, wo.z()) * kInvPi);
    }

    float3 specularMicrofacet(const float3& wi, const float3& wo) const
    {
        const float alpha = roughness * roughness;
        const float3 h = normalize(wi + wo);
        const float D = evalNdfGGX(alpha, h.z());
        const float G = evalMaskingSmithGGXCorrelated(alpha, wi.z(), wo.z());
        return evalFresnelSchlick(specular, 1.f, dot(wi, h)) * (D * G * 0.25f / std::max(1e-6f, wi.z() * wo.z()));
    }

    static float diffusePdf(const float3& wo) { return std::max(0.f, wo.z()) * kInvPi; }

    static float specularPdf(const float3& wi, const float3& wo, float alpha)
    {
        const float3 h = normalize(wi + wo);
        return evalPdfGGX_VNDF(alpha, wi, h) / (4.f * std::max(0.f, dot(wi, h)));
    }
};
} // namespace falcor
