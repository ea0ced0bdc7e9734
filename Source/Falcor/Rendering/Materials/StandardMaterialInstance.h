#pragma once
#include "Rendering/Materials/BSDFProperties.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"
#include "Rendering/Materials/BSDFs/StandardBSDF.h"
#include "Rendering/Materials/ShadingUtils.h"
#include <optional>

namespace falcor
{
/// The standard material set up at one hit (Falcor's StandardMaterialInstance): its shading
/// frame, BSDF parameters and emission. Directions are in world space; wo points away from the
/// surface towards the light, sd.V towards the viewer.
///
/// Written once over F: float (StandardMaterialInstance, one hit) or FloatLanes<W> (W hits, one
/// per lane, with `sd` a ShadingDataT of the same lanes). Lanes are filled from one-path
/// instances (`setLane`) as createStandardMaterialInstance set them up, so each lane's results
/// have that instance's bits.
template<typename F>
struct StandardMaterialInstanceT
{
    using F3 = vector<F, 3>;
    using Mask = MaskOf<F>;
    using U = UintOf<F>;

    ShadingFrameT<F> sf;
    StandardBSDFDataT<F> data;
    F3 emission{0.f, 0.f, 0.f};
    U activeLobes = kLobeAll; ///< Lobes an integrator leaves enabled (disableCaustics).

    template<typename SD>
    F3 eval(const SD& sd, const F3& wo) const
    {
        const F3 wiLocal = sf.toLocal(sd.V), woLocal = sf.toLocal(wo);
        const Mask valid = isValidHemisphereReflectionOrTransmission(sd, sf, wiLocal, woLocal, wo);
        if (!any(valid))
            return F3(F(0.f));
        return select(valid, bsdfFor(wiLocal).eval(wiLocal, woLocal), F3(F(0.f)));
    }

    /// Draws wo from the BSDF or, without importance sampling, from the cosine-weighted hemisphere
    /// (both hemispheres, evenly, for transmissive materials). Draws only in the lanes of
    /// `active`; the result is false in the other lanes, whose `s` is unspecified.
    template<typename SD, typename SampleGenerator>
    Mask sample(const SD& sd, SampleGenerator& sg, BSDFSampleT<F>& s, bool useImportanceSampling = true, const Mask& active = true) const
    {
        const F3 wiLocal = sf.toLocal(sd.V);
        const Mask valid = useImportanceSampling ? bsdfFor(wiLocal).sample(wiLocal, s, sg, active) : sampleReference(wiLocal, s, sg, active);
        const F3 woLocal = s.wo;
        s.wo = sf.fromLocal(woLocal);
        return valid && isValidHemisphereReflectionOrTransmission(sd, sf, wiLocal, woLocal, s.wo);
    }

    template<typename SD>
    F evalPdf(const SD& sd, const F3& wo, bool useImportanceSampling = true) const
    {
        const F3 wiLocal = sf.toLocal(sd.V), woLocal = sf.toLocal(wo);
        const Mask valid = isValidHemisphereReflectionOrTransmission(sd, sf, wiLocal, woLocal, wo);
        if (!any(valid))
            return F(0.f);
        if (!useImportanceSampling)
            return select(valid, abs(woLocal.z()) * kInvPi * select(isTransmissive(), F(0.5f), F(1.f)), F(0.f));
        return select(valid, bsdfFor(wiLocal).evalPdf(wiLocal, woLocal), F(0.f));
    }

    /// One path's properties (F = float only).
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

    U getLobeTypes() const { return data.getLobeTypes(); }

    /// Lane i as a one-path instance (for the scalar fallback of one lane, or its properties).
    StandardMaterialInstanceT<float> lane(int i) const
    {
        StandardMaterialInstanceT<float> mi;
        mi.sf = ShadingFrame{laneValue(sf.T, i), laneValue(sf.B, i), laneValue(sf.N, i)};
        mi.data = data.lane(i), mi.emission = laneValue(emission, i), mi.activeLobes = laneValue(activeLobes, i);
        return mi;
    }

    /// Makes lane i the one-path instance `mi` (as createStandardMaterialInstance set it up for lane i's hit).
    void setLane(int i, const StandardMaterialInstanceT<float>& mi)
    {
        setLaneValue(sf.T, i, mi.sf.T), setLaneValue(sf.B, i, mi.sf.B), setLaneValue(sf.N, i, mi.sf.N);
        data.setLane(i, mi.data), setLaneValue(emission, i, mi.emission), setLaneValue(activeLobes, i, mi.activeLobes);
        mCachedBSDF.reset();
    }

private:
    /// The BSDF for view wiLocal. Integrators ask eval, evalPdf and sample of one view in a row:
    /// its lobe probabilities are set up once (each instance lives in one thread).
    const StandardBSDFT<F>& bsdfFor(const F3& wiLocal) const
    {
        const Mask sameView = wiLocal.x() == mCachedWi.x() && wiLocal.y() == mCachedWi.y() && wiLocal.z() == mCachedWi.z();
        if (!mCachedBSDF || !all(sameView) || !all(mCachedLobes == activeLobes))
        {
            mCachedBSDF.emplace(wiLocal, data, activeLobes);
            mCachedWi = wiLocal, mCachedLobes = activeLobes;
        }
        return *mCachedBSDF;
    }

    Mask isTransmissive() const { return data.diffuseTransmission > 0.f || data.specularTransmission > 0.f; }

    template<typename SampleGenerator>
    Mask sampleReference(const F3& wiLocal, BSDFSampleT<F>& s, SampleGenerator& sg, const Mask& active) const
    {
        s.wo = sampleCosineHemisphereConcentric(detail::sampleNext2DWhere<F>(sg, active), s.pdf);
        s.lobeType = kLobeDiffuseReflection;
        const Mask transmissive = isTransmissive();
        if (any(transmissive))
        {
            const Mask below = transmissive && detail::sampleNext1DWhere<F>(sg, active && transmissive) < 0.5f;
            s.wo.z() = select(below, -s.wo.z(), s.wo.z());
            s.lobeType = select(below, U(kLobeDiffuseTransmission), s.lobeType);
            s.pdf = select(transmissive, s.pdf * 0.5f, s.pdf);
        }
        const Mask valid = active && !(min(wiLocal.z(), abs(s.wo.z())) < kMinCosTheta || s.pdf == 0.f);
        if (any(valid))
            s.weight = select(valid, bsdfFor(wiLocal).eval(wiLocal, s.wo) / s.pdf, s.weight);
        return valid;
    }

    mutable std::optional<StandardBSDFT<F>> mCachedBSDF;
    mutable F3 mCachedWi{0.f, 0.f, 0.f};
    mutable U mCachedLobes = kLobeAll;
};
using StandardMaterialInstance = StandardMaterialInstanceT<float>;
} // namespace falcor
