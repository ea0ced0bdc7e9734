#pragma once
#include "Rendering/Materials/BSDFProperties.h"
#include "Rendering/Materials/BSDFs/LambertDiffuseBRDF.h"
#include "Rendering/Materials/ShadingUtils.h"

namespace falcor
{
/// pbrt's "diffuse" material at one hit: a Lambertian reflector of the base color, no emission.
struct PBRTDiffuseMaterialInstance
{
    ShadingFrame sf;
    LambertDiffuseBRDF bsdf;

    float3 eval(const ShadingData& sd, const float3& wo) const
    {
        const float3 wiLocal = sf.toLocal(sd.V), woLocal = sf.toLocal(wo);
        return isValidHemisphereReflection(sd, sf, wiLocal, woLocal, wo) ? bsdf.eval(wiLocal, woLocal) : float3(0.f);
    }

    template<typename SampleGenerator>
    bool sample(const ShadingData& sd, SampleGenerator& sg, BSDFSample& s, bool /*useImportanceSampling*/ = true) const
    {
        const float3 wiLocal = sf.toLocal(sd.V);
        const bool valid = bsdf.sample(wiLocal, s, sg);
        const float3 woLocal = s.wo;
        s.wo = sf.fromLocal(woLocal);
        return valid && s.pdf > 0.f && isValidHemisphereReflection(sd, sf, wiLocal, woLocal, s.wo);
    }

    float evalPdf(const ShadingData& sd, const float3& wo, bool /*useImportanceSampling*/ = true) const
    {
        const float3 wiLocal = sf.toLocal(sd.V), woLocal = sf.toLocal(wo);
        return isValidHemisphereReflection(sd, sf, wiLocal, woLocal, wo) ? bsdf.evalPdf(wiLocal, woLocal) : 0.f;
    }

    BSDFProperties getProperties() const
    {
        BSDFProperties p;
        p.guideNormal = sf.N;
        p.roughness = 1.f;
        p.diffuseReflectionAlbedo = bsdf.albedo;
        return p;
    }

    uint32_t getLobeTypes() const { return kLobeDiffuseReflection; }
};
} // namespace falcor
