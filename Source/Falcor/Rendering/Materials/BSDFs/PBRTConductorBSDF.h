#pragma once
#include "Rendering/Materials/AnisotropicGGX.h"
#include "Rendering/Materials/BSDFSample.h"
#include "Rendering/Materials/Fresnel.h"

namespace falcor
{
/// pbrt's conductor: anisotropic GGX reflection with the complex Fresnel term of eta + i·k;
/// a perfect mirror when the distribution is singular.
struct PBRTConductorBSDF
{
    AnisotropicGGX D;
    float3 eta{1.f, 1.f, 1.f};
    float3 k{0.f, 0.f, 0.f};

    float3 eval(const float3& wi, const float3& wo) const
    {
        if (D.isSingular() || std::min(wi.z(), wo.z()) < kMinCosTheta)
            return float3(0.f);
        const float3 h = normalize(wi + wo);
        return evalFresnelConductor(eta, k, std::abs(dot(wi, h))) * (D.G2(wo, wi) * D.evalNDF(h) / (4.f * wi.z()));
    }

    template<typename SampleGenerator>
    bool sample(const float3& wi, BSDFSample& s, SampleGenerator& sg) const
    {
        if (wi.z() < kMinCosTheta)
            return false;
        if (D.isSingular())
        {
            s.wo = float3(-wi.x(), -wi.y(), wi.z());
            s.weight = evalFresnelConductor(eta, k, wi.z());
            s.pdf = 0.f;
            s.lobeType = kLobeDeltaReflection;
            return true;
        }
        const float3 h = D.sample(wi, sg);
        const float wiDotH = dot(wi, h);
        s.wo = h * (2.f * wiDotH) - wi;
        if (s.wo.z() < kMinCosTheta)
            return false;
        s.weight = evalFresnelConductor(eta, k, wiDotH) * (D.G2(s.wo, wi) / D.G1(wi));
        s.pdf = D.evalVNDF(wi, h) / (4.f * std::abs(wiDotH));
        s.lobeType = kLobeSpecularReflection;
        return true;
    }

    float evalPdf(const float3& wi, const float3& wo) const
    {
        if (D.isSingular() || std::min(wi.z(), wo.z()) < kMinCosTheta)
            return 0.f;
        const float3 h = normalize(wi + wo);
        return D.evalVNDF(wi, h) / (4.f * std::abs(dot(wi, h)));
    }
};
} // namespace falcor
