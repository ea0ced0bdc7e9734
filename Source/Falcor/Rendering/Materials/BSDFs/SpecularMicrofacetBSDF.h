#pragma once
#include "Rendering/Materials/BSDFSample.h"
#include "Rendering/Materials/Fresnel.h"
#include "Rendering/Materials/IsotropicGGX.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"
#include <cfloat>

namespace falcor
{
/// A rough (GGX) or smooth dielectric interface: reflection and refraction chosen by the
/// dielectric Fresnel term (Walter et al. 2007). eta = etaI / etaT; transmitted radiance is
/// tinted by `transmissionAlbedo`.
struct SpecularMicrofacetBSDF
{
    float3 transmissionAlbedo{1.f, 1.f, 1.f};
    float alpha = 0.f;
    float eta = 1.f;
    uint32_t activeLobes = kLobeAll;

    float3 eval(const float3& wi, const float3& wo) const
    {
        if (std::min(wi.z(), std::abs(wo.z())) < kMinCosTheta || alpha == 0.f)
            return float3(0.f);
        const bool isReflection = wo.z() > 0.f;
        if (!(activeLobes & (isReflection ? kLobeSpecularReflection : kLobeSpecularTransmission)))
            return float3(0.f);
        const float3 h = halfVector(wi, wo, isReflection);
        const float wiDotH = dot(wi, h), woDotH = dot(wo, h);
        // Refraction through h needs wi above and wo below the microfacet. Falcor's eval omits
        // this test (its pdf has it), which lets NEE count light BSDF sampling can never reach.
        if (!isReflection && woDotH >= 0.f)
            return float3(0.f);
        const float D = evalNdfGGX(alpha, h.z());
        const float G = evalMaskingSmithGGXCorrelated(alpha, wi.z(), std::abs(wo.z()));
        const float F = evalFresnelDielectric(eta, wiDotH);
        if (isReflection)
            return float3(F * D * G * 0.25f / wi.z());
        const float sqrtDenom = woDotH + eta * wiDotH;
        const float t = eta * eta * wiDotH * woDotH / (wi.z() * sqrtDenom * sqrtDenom);
        return transmissionAlbedo * ((1.f - F) * D * G * std::abs(t));
    }

    template<typename SampleGenerator>
    bool sample(const float3& wi, BSDFSample& s, SampleGenerator& sg) const
    {
        s.lobeType = kLobeSpecularReflection;
        if (wi.z() < kMinCosTheta)
            return false;
        const float lobeSample = sampleNext1D(sg);
        const bool delta = alpha == 0.f;
        const bool hasReflection = activeLobes & (delta ? kLobeDeltaReflection : kLobeSpecularReflection);
        const bool hasTransmission = activeLobes & (delta ? kLobeDeltaTransmission : kLobeSpecularTransmission);
        if (!(hasReflection || hasTransmission))
            return false;

        float3 h(0.f, 0.f, 1.f);
        float pdf = 0.f;
        if (!delta)
            h = sampleGGX_VNDF(alpha, wi, sampleNext2D(sg), pdf);
        const float wiDotH = dot(wi, h);
        float cosThetaT;
        const float F = evalFresnelDielectric(eta, wiDotH, cosThetaT);
        const bool both = hasReflection && hasTransmission;
        const bool isReflection = both ? lobeSample < F : hasReflection;
        if (!both && hasTransmission && F == 1.f)
            return false;
        s.wo = isReflection ? h * (2.f * wiDotH) - wi : h * (eta * wiDotH - cosThetaT) - wi * eta;
        if (std::abs(s.wo.z()) < kMinCosTheta || (s.wo.z() > 0.f) != isReflection)
            return false;
        // When only one of the two is active, the Fresnel factor of that one goes into the weight.
        const float selected = isReflection ? F : 1.f - F;

        if (delta)
        {
            s.pdf = 0.f;
            s.weight = isReflection ? float3(1.f) : transmissionAlbedo;
            if (!both)
                s.weight *= selected;
            s.lobeType = isReflection ? kLobeDeltaReflection : kLobeDeltaTransmission;
            return true;
        }

        const float woDotH = dot(s.wo, h);
        const float G = evalMaskingSmithGGXCorrelated(alpha, wi.z(), std::abs(s.wo.z()));
        s.weight = float3(G * (1.f + evalLambdaGGX(alpha * alpha, wi.z())));
        s.lobeType = isReflection ? kLobeSpecularReflection : kLobeSpecularTransmission;
        if (isReflection)
        {
            s.pdf = pdf / (4.f * woDotH);
        }
        else
        {
            s.pdf = refractionPdf(pdf, wiDotH, woDotH);
            s.weight *= transmissionAlbedo * (eta * eta);
        }
        if (both)
            s.pdf *= selected;
        else
            s.weight *= selected;
        return true;
    }

    float evalPdf(const float3& wi, const float3& wo) const
    {
        if (std::min(wi.z(), std::abs(wo.z())) < kMinCosTheta || alpha == 0.f)
            return 0.f;
        const bool isReflection = wo.z() > 0.f;
        const bool hasReflection = activeLobes & kLobeSpecularReflection;
        const bool hasTransmission = activeLobes & kLobeSpecularTransmission;
        if ((isReflection && !hasReflection) || (!isReflection && !hasTransmission))
            return 0.f;
        const float3 h = halfVector(wi, wo, isReflection);
        const float wiDotH = dot(wi, h), woDotH = dot(wo, h);
        const float F = evalFresnelDielectric(eta, wiDotH);
        float pdf = evalPdfGGX_VNDF(alpha, wi, h);
        if (isReflection)
            pdf /= 4.f * woDotH;
        else if (woDotH > 0.f)
            return 0.f;
        else
            pdf = refractionPdf(pdf, wiDotH, woDotH);
        if (hasReflection && hasTransmission)
            pdf *= isReflection ? F : 1.f - F;
        return pdf;
    }

private:
    /// The microfacet normal that maps wi to wo, in the upper hemisphere.
    float3 halfVector(const float3& wi, const float3& wo, bool isReflection) const
    {
        const float3 h = normalize(wo + wi * (isReflection ? 1.f : eta));
        return h.z() < 0.f ? -h : h;
    }

    /// Half-vector density times the Jacobian of refraction.
    float refractionPdf(float pdfH, float wiDotH, float woDotH) const
    {
        const float sqrtDenom = woDotH + eta * wiDotH;
        const float denom = sqrtDenom * sqrtDenom;
        return denom > 0.f ? pdfH * std::abs(woDotH) / denom : FLT_MAX;
    }
};
} // namespace falcor
