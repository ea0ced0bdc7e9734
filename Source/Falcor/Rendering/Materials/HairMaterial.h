#pragma once
#include "Rendering/Materials/BSDFProperties.h"
#include "Rendering/Materials/BSDFs/HairChiang16.h"
#include "Rendering/Materials/ShadingUtils.h"
#include "Rendering/Materials/StandardMaterial.h"

// Falcor's hair material (HairMaterial.slang): Chiang et al.'s fiber BCSDF around the shading
// tangent, with base color, and betaM, betaN, alpha (degrees) in the specular slot's RGB.
namespace falcor
{
struct HairMaterialInstance
{
    ShadingFrame sf; ///< x = tangent (along the fiber), not flipped for back faces: the BCSDF is two-sided.
    HairChiang16 bsdf;
    float3 baseColor;

    float3 eval(const ShadingData& sd, const float3& wo) const { return bsdf.eval(sf.toLocal(sd.V), sf.toLocal(wo)); }

    template<typename SampleGenerator>
    bool sample(const ShadingData& sd, SampleGenerator& sg, BSDFSample& s, bool /*useImportanceSampling*/ = true) const
    {
        if (!bsdf.sample(sf.toLocal(sd.V), s, sg))
            return false;
        s.wo = sf.fromLocal(s.wo);
        return true;
    }

    float evalPdf(const ShadingData& sd, const float3& wo, bool /*useImportanceSampling*/ = true) const
    {
        return bsdf.evalPdf(sf.toLocal(sd.V), sf.toLocal(wo));
    }

    /// As Falcor: a medium roughness and the energy split evenly between reflection and transmission.
    BSDFProperties getProperties() const
    {
        BSDFProperties p;
        p.guideNormal = sf.N, p.roughness = 0.5f;
        p.diffuseReflectionAlbedo = p.diffuseTransmissionAlbedo = baseColor * 0.5f;
        p.isTransmissive = true;
        return p;
    }
    uint32_t getLobeTypes() const { return kLobeDiffuseReflection | kLobeDiffuseTransmission; }
};

/// Where the view ray crosses the fiber's cross section, in [-1, 1] (the offset h of the BCSDF):
/// the view projected onto the cross-section plane, against the shading normal.
inline float hairOffset(const ShadingData& sd)
{
    const float3& T = sd.frame.T;
    const float3 wiProj = normalize(sd.V - T * dot(sd.V, T));
    return dot(sd.frame.N, cross(wiProj, T));
}

inline HairMaterialInstance createHair(const ShadingData& sd, const TextureLod& lod, uint32_t hints)
{
    const MaterialData& m = *sd.mtl;
    const float ior = headerIoR(m);
    const float eta = sd.frontFacing ? sd.IoR / ior : ior / sd.IoR;
    const float3 baseColor = lod.sample(m, MaterialTextureSlot::BaseColor, sd.uv, m.baseColor).xyz();
    const float4 spec = lod.sample(m, MaterialTextureSlot::Specular, sd.uv, m.specular);
    ShadingFrame sf = sd.frame;
    if (hints & kHintAdjustShadingNormal)
        adjustShadingNormal(sd, sf);
    return {sf, HairChiang16(baseColor, spec.x(), spec.y(), spec.z(), ior, eta, hairOffset(sd)), baseColor};
}
} // namespace falcor
