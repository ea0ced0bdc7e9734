#pragma once
#include "Rendering/Materials/AnisotropicGGX.h"
#include "Rendering/Materials/BSDFSample.h"
#include "Rendering/Materials/Fresnel.h"

namespace falcor
{
/// pbrt's dielectric: a rough (anisotropic GGX) or smooth interface between media of index iorI
/// (wi's side) and iorT, reflecting with probability F and refracting otherwise. Works for
/// wi on either side of the surface (the PBRT materials are two-sided, shading normals unflipped).
struct PBRTDielectricBSDF
{
    AnisotropicGGX D;
    float iorI = 1.f; ///< Index of refraction on the side of wi (the viewer).
    float iorT = 1.5f;

    float3 eval(const float3& wi, const float3& wo) const
    {
        float3 h;
        float F, wiDotH, woDotH;
        if (!microfacet(wi, wo, h, F, wiDotH, woDotH))
            return float3(0.f);
        const float relEta = iorT / iorI;
        const float common = D.G2(wo, wi) * D.evalNDF(h);
        if (wi.z() * wo.z() > 0.f)
            return float3(common * F / (4.f * std::abs(wi.z())));
        const float denom = woDotH + wiDotH / relEta;
        return float3(common * (1.f - F) * std::abs(wiDotH * woDotH / (denom * denom * std::abs(wi.z()))));
    }

    template<typename SampleGenerator>
    bool sample(const float3& wi, BSDFSample& s, SampleGenerator& sg) const
    {
        const float relEta = iorT / iorI, invRelEta = 1.f / relEta;
        s.weight = float3(1.f);
        if (relEta == 1.f || D.isSingular())
        {
            const float F = evalFresnelDielectric(invRelEta, std::abs(wi.z()));
            const bool reflect = sampleNext1D(sg) < F;
            s.wo = reflect ? float3(-wi.x(), -wi.y(), wi.z()) : refract(wi, float3(0.f, 0.f, wi.z() >= 0.f ? 1.f : -1.f), invRelEta);
            s.pdf = 0.f;
            s.lobeType = reflect ? kLobeDeltaReflection : kLobeDeltaTransmission;
            return s.wo.z() != 0.f; // Refraction under total internal reflection has no direction.
        }
        const float3 h = D.sample(wi, sg);
        const float wiDotH = dot(h, wi);
        const float F = evalFresnelDielectric(invRelEta, std::abs(wiDotH));
        if (sampleNext1D(sg) < F)
        {
            s.wo = h * (2.f * wiDotH) - wi;
            if (wi.z() * s.wo.z() <= 0.f)
                return false;
            s.pdf = F * D.evalVNDF(wi, h) / (4.f * std::abs(wiDotH));
            s.lobeType = kLobeSpecularReflection;
        }
        else
        {
            s.wo = refract(wi, h * (wi.z() >= 0.f ? 1.f : -1.f), invRelEta);
            if (wi.z() * s.wo.z() >= 0.f)
                return false;
            const float woDotH = dot(h, s.wo), denom = woDotH + wiDotH / relEta;
            s.pdf = (1.f - F) * D.evalVNDF(wi, h) * std::abs(woDotH) / (denom * denom);
            s.lobeType = kLobeSpecularTransmission;
        }
        s.weight = float3(D.G2(s.wo, wi) / D.G1(wi));
        return true;
    }

    float evalPdf(const float3& wi, const float3& wo) const
    {
        float3 h;
        float F, wiDotH, woDotH;
        if (!microfacet(wi, wo, h, F, wiDotH, woDotH))
            return 0.f;
        if (wi.z() * wo.z() > 0.f)
            return F * D.evalVNDF(wi, h) / (4.f * std::abs(wiDotH));
        const float denom = woDotH + wiDotH / (iorT / iorI);
        return (1.f - F) * D.evalVNDF(wi, h) * std::abs(woDotH) / (denom * denom);
    }

private:
    /// Direction of the refraction of wi about normal n (facing wi) with eta = etaI / etaT;
    /// the zero vector under total internal reflection.
    static float3 refract(const float3& wi, const float3& n, float eta)
    {
        const float cosI = dot(wi, n);
        const float sin2T = eta * eta * std::max(0.f, 1.f - cosI * cosI);
        if (sin2T >= 1.f)
            return float3(0.f);
        const float cosT = std::sqrt(1.f - sin2T);
        return -wi * eta + n * (eta * cosI - cosT);
    }

    /// The microfacet normal connecting wi and wo, its Fresnel term and cosines; false where
    /// no microfacet can (grazing, singular, index-matched, or the wrong sides of it).
    bool microfacet(const float3& wi, const float3& wo, float3& h, float& F, float& wiDotH, float& woDotH) const
    {
        const float relEta = iorT / iorI;
        if (D.isSingular() || relEta == 1.f || wi.z() * wo.z() == 0.f)
            return false;
        const bool reflect = wi.z() * wo.z() > 0.f;
        h = normalize(reflect ? wi + wo : wi / relEta + wo);
        if (h.z() < 0.f)
            h = -h;
        wiDotH = dot(wi, h), woDotH = dot(wo, h);
        if (wiDotH * wi.z() < 0.f || woDotH * wo.z() < 0.f)
            return false;
        F = evalFresnelDielectric(1.f / relEta, std::abs(wiDotH));
        return true;
    }
};
} // namespace falcor
