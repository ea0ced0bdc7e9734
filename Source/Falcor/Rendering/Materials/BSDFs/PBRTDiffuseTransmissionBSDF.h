#pragma once
#include "Rendering/Materials/BSDFSample.h"
#include "Utils/Color/ColorHelpers.h"
#include "Utils/Math/MathHelpers.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"

namespace falcor
{
/// pbrt's diffuse transmission: Lambertian reflection of albedoR on the viewer's side and
/// Lambertian transmission of albedoT to the other, for wi on either side; sampling picks the
/// side in proportion to the albedos' luminance.
struct PBRTDiffuseTransmissionBSDF
{
    float3 albedoR{0.f, 0.f, 0.f};
    float3 albedoT{0.f, 0.f, 0.f};

    float3 eval(const float3& wi, const float3& wo) const
    {
        return (wi.z() * wo.z() > 0.f ? albedoR : albedoT) * (std::abs(wo.z()) * kInvPi);
    }

    template<typename SampleGenerator>
    bool sample(const float3& wi, BSDFSample& s, SampleGenerator& sg) const
    {
        s.wo = sampleCosineHemisphereConcentric(sampleNext2D(sg), s.pdf);
        if (wi.z() < 0.f)
            s.wo = -s.wo;
        const float pR = luminance(albedoR), pT = luminance(albedoT);
        if (pR + pT == 0.f)
            return false;
        if (sampleNext1D(sg) < pT / (pR + pT))
        {
            s.wo = -s.wo;
            s.weight = albedoT * ((pR + pT) / pT);
            s.pdf *= pT / (pR + pT);
            s.lobeType = kLobeDiffuseTransmission;
        }
        else
        {
            s.weight = albedoR * ((pR + pT) / pR);
            s.pdf *= pR / (pR + pT);
            s.lobeType = kLobeDiffuseReflection;
        }
        return s.pdf > 0.f;
    }

    float evalPdf(const float3& wi, const float3& wo) const
    {
        const float pR = luminance(albedoR), pT = luminance(albedoT);
        if (pR + pT == 0.f)
            return 0.f;
        return (wi.z() * wo.z() > 0.f ? pR : pT) / (pR + pT) * std::abs(wo.z()) * kInvPi;
    }
};
} // namespace falcor
