#pragma once
#include "Rendering/Materials/BSDFProperties.h"
#include "Rendering/Materials/BSDFs/StandardBSDF.h"
#include "Rendering/Materials/ShadingUtils.h"
#include <optional>

namespace falcor
{
/// The standard material set up at one hit (Falcor's StandardMaterialInstance): its shading
/// frame, BSDF parameters and emission. Directions are in world space; wo points away from the
/// surface towards the light, sd.V towards the viewer.
struct StandardMaterialInstance
{
    ShadingFrame sf;
    StandardBSDFData data;
    float3 emission{0.f, 0.f, 0.f};
    uint32_t activeLobes = kLobeAll; ///< Lobes an integrator leaves enabled (disableCaustics).

    float3 eval(const ShadingData& sd, const float3& wo) const
    {
        const float3 wiLocal = sf.toLocal(sd.V), woLocal = sf.toLocal(wo);
        if (!isValidHemisphereReflectionOrTransmission(sd, sf, wiLocal, woLocal, wo))
            return float3(0.f);
        return bsdfFor(wiLocal).eval(wiLocal, woLocal);
    }

    /// Draws wo from the BSDF or, without importance sampling, from the cosine-weighted hemisphere
    /// (both hemispheres, evenly, for transmissive materials).
    template<typename SampleGenerator>
    bool sample(const ShadingData& sd, SampleGenerator& sg, BSDFSample& s, bool useImportanceSampling = true) const
    {
        const float3 wiLocal = sf.toLocal(sd.V);
        bool valid;
        if (useImportanceSampling)
            valid = bsdfFor(wiLocal).sample(wiLocal, s, sg);
        else
            valid = sampleReference(wiLocal, s, sg);
        const float3 woLocal = s.wo;
        s.wo = sf.fromLocal(woLocal);
        return valid && isValidHemisphereReflectionOrTransmission(sd, sf, wiLocal, woLocal, s.wo);
    }

    float evalPdf(const ShadingData& sd, const float3& wo, bool useImportanceSampling = true) const
    {
        const float3 wiLocal = sf.toLocal(sd.V), woLocal = sf.toLocal(wo);
        if (!isValidHemisphereReflectionOrTransmission(sd, sf, wiLocal, woLocal, wo))
            return 0.f;
        if (!useImportanceSampling)
            return std::abs(woLocal.z()) * kInvPi * (isTransmissive() ? 0.5f : 1.f);
        return bsdfFor(wiLocal).evalPdf(wiLocal, woLocal);
    }

    BSDFProperties getProperties() const
    {
        BSDFProperties p;
        p.guideNormal = sf.N;
        p.emission = emission;
        p.roughness = data.roughness * data.roughness < kMinGGXAlpha ? 0.f : data.roughness;
        p.diffuseReflectionAlbedo = data.diffuse * ((1.f - data.diffuseTransmission) * (1.f - data.specularTransmission));
        p.diffuseTransmissionAlbedo = data.transmission * (data.diffuseTransmission * (1.f - data.specularTransmission));
        p.specularReflectionAlbedo = data.specular * (1.f - data.specularTransmission);
        p.specularTransmissionAlbedo = data.specular * data.specularTransmission;
        p.specularReflectance = data.specular;
        p.isTransmissive = isTransmissive();
        return p;
    }

    uint32_t getLobeTypes() const { return data.getLobeTypes(); }

private:
    /// The BSDF for view wiLocal. Integrators ask eval, evalPdf and sample of one view in a row:
    /// its lobe probabilities are set up once (each instance lives in one thread).
    const StandardBSDF& bsdfFor(const float3& wiLocal) const
    {
        if (!mCachedBSDF || !(mCachedWi == wiLocal) || mCachedLobes != activeLobes)
        {
            mCachedBSDF.emplace(wiLocal, data, activeLobes);
            mCachedWi = wiLocal, mCachedLobes = activeLobes;
        }
        return *mCachedBSDF;
    }

    bool isTransmissive() const { return data.diffuseTransmission > 0.f || data.specularTransmission > 0.f; }

    template<typename SampleGenerator>
    bool sampleReference(const float3& wiLocal, BSDFSample& s, SampleGenerator& sg) const
    {
        s.wo = sampleCosineHemisphereConcentric(sampleNext2D(sg), s.pdf);
        s.lobeType = kLobeDiffuseReflection;
        if (isTransmissive())
        {
            if (sampleNext1D(sg) < 0.5f)
            {
                s.wo.z() = -s.wo.z();
                s.lobeType = kLobeDiffuseTransmission;
            }
            s.pdf *= 0.5f;
        }
        if (std::min(wiLocal.z(), std::abs(s.wo.z())) < kMinCosTheta || s.pdf == 0.f)
            return false;
        s.weight = bsdfFor(wiLocal).eval(wiLocal, s.wo) / s.pdf;
        return true;
    }

    mutable std::optional<StandardBSDF> mCachedBSDF;
    mutable float3 mCachedWi{0.f, 0.f, 0.f};
    mutable uint32_t mCachedLobes = kLobeAll;
};
} // namespace falcor
