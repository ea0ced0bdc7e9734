#pragma once
#include "Rendering/Materials/BSDFProperties.h"
#include "Rendering/Materials/ShadingUtils.h"

namespace falcor
{
/// Which (wi, wo) pairs a BSDF may connect, on top of its own support.
enum class BSDFSides
{
    Reflection, ///< One-sided reflector: wi and wo above the shading plane, back faces black.
    FullSphere, ///< Two-sided: wi on either side, reflection and transmission (PBRT dielectrics).
};

/// A material at a hit that is one BSDF in a shading frame (the PBRT materials): world-space
/// eval/sample/pdf around the local BSDF with Falcor's hemisphere checks. The material's
/// properties and lobes come from `materialProperties(bsdf, sf)` and `materialLobeTypes(bsdf)`,
/// overloaded per BSDF beside its setup.
template<typename BSDF, BSDFSides Sides>
struct BSDFMaterialInstance
{
    ShadingFrame sf;
    BSDF bsdf;

    /// Stochastic BSDFs (layered ones) draw from `sg`; the others ignore it.
    template<typename SampleGenerator>
    float3 eval(const ShadingData& sd, const float3& wo, SampleGenerator& sg) const
    {
        const float3 wiLocal = sf.toLocal(sd.V), woLocal = sf.toLocal(wo);
        if (!isValid(sd, wiLocal, woLocal, wo))
            return float3(0.f);
        if constexpr (requires { bsdf.eval(wiLocal, woLocal, sg); })
            return bsdf.eval(wiLocal, woLocal, sg);
        else
            return bsdf.eval(wiLocal, woLocal);
    }

    template<typename SampleGenerator>
    bool sample(const ShadingData& sd, SampleGenerator& sg, BSDFSample& s, bool /*useImportanceSampling*/ = true) const
    {
        const float3 wiLocal = sf.toLocal(sd.V);
        if (!bsdf.sample(wiLocal, s, sg))
            return false;
        const float3 woLocal = s.wo;
        s.wo = sf.fromLocal(woLocal);
        return (s.pdf > 0.f || s.isLobe(kLobeDelta)) && isValid(sd, wiLocal, woLocal, s.wo);
    }

    float evalPdf(const ShadingData& sd, const float3& wo, bool /*useImportanceSampling*/ = true) const
    {
        const float3 wiLocal = sf.toLocal(sd.V), woLocal = sf.toLocal(wo);
        return isValid(sd, wiLocal, woLocal, wo) ? bsdf.evalPdf(wiLocal, woLocal) : 0.f;
    }

    BSDFProperties getProperties() const { return materialProperties(bsdf, sf); }
    uint32_t getLobeTypes() const { return materialLobeTypes(bsdf); }

private:
    bool isValid(const ShadingData& sd, const float3& wiLocal, const float3& woLocal, const float3& wo) const
    {
        if constexpr (Sides == BSDFSides::Reflection)
            return isValidHemisphereReflection(sd, sf, wiLocal, woLocal, wo);
        else
            return isValidHemisphereReflectionOrTransmission(sd, sf, wiLocal, woLocal, wo, true);
    }
};
} // namespace falcor
