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

/// The float type a BSDF computes in: its `Float` (lane-generic BSDFs), else float.
template<typename BSDF>
struct BSDFFloat
{
    using type = float;
};
template<typename BSDF>
    requires requires { typename BSDF::Float; }
struct BSDFFloat<BSDF>
{
    using type = typename BSDF::Float;
};

/// A material at a hit that is one BSDF in a shading frame (the PBRT materials): world-space
/// eval/sample/pdf around the local BSDF with Falcor's hemisphere checks. The material's
/// properties and lobes come from `materialProperties(bsdf, sf)` and `materialLobeTypes(bsdf)`,
/// overloaded per BSDF beside its setup.
///
/// A lane-generic BSDF (one written over `Float`, e.g. LambertDiffuseBRDFT<FloatLanes<W>>) makes
/// this W instances, one per lane, with the frame in lanes; `sd` is then a ShadingDataT of the
/// same lanes. Lanes are filled from scalar instances (`setLane`), so every lane is set up by the
/// scalar material code, and each lane's results have the scalar instance's bits.
template<typename BSDF, BSDFSides Sides>
struct BSDFMaterialInstance
{
    using F = typename BSDFFloat<BSDF>::type;
    using F3 = vector<F, 3>;

    ShadingFrameT<F> sf;
    BSDF bsdf;

    /// Stochastic BSDFs (layered ones, scalar only) draw from `sg`; the others ignore it.
    template<typename SD, typename SampleGenerator>
    F3 eval(const SD& sd, const F3& wo, SampleGenerator& sg) const
    {
        const F3 wiLocal = sf.toLocal(sd.V), woLocal = sf.toLocal(wo);
        const MaskOf<F> valid = isValid(sd, wiLocal, woLocal, wo);
        if (!any(valid))
            return F3(F(0.f));
        if constexpr (requires { bsdf.eval(wiLocal, woLocal, sg); })
            return bsdf.eval(wiLocal, woLocal, sg);
        else
            return select(valid, bsdf.eval(wiLocal, woLocal), F3(F(0.f)));
    }

    /// Draws only in the lanes of `active` (a lane-generic BSDF's masked draws); the result is
    /// false in the other lanes, whose `s` is unspecified.
    template<typename SD, typename SampleGenerator>
    MaskOf<F> sample(const SD& sd, SampleGenerator& sg, BSDFSampleT<F>& s, bool /*useImportanceSampling*/ = true,
                     const MaskOf<F>& active = true) const
    {
        const F3 wiLocal = sf.toLocal(sd.V);
        const MaskOf<F> sampled = sampleLocal(wiLocal, s, sg, active);
        if (!any(sampled))
            return sampled;
        const F3 woLocal = s.wo;
        s.wo = sf.fromLocal(woLocal);
        return sampled && (s.pdf > 0.f || s.isLobe(kLobeDelta)) && isValid(sd, wiLocal, woLocal, s.wo);
    }

    template<typename SD>
    F evalPdf(const SD& sd, const F3& wo, bool /*useImportanceSampling*/ = true) const
    {
        const F3 wiLocal = sf.toLocal(sd.V), woLocal = sf.toLocal(wo);
        const MaskOf<F> valid = isValid(sd, wiLocal, woLocal, wo);
        if (!any(valid))
            return F(0.f);
        return select(valid, bsdf.evalPdf(wiLocal, woLocal), F(0.f));
    }

    BSDFProperties getProperties() const { return materialProperties(bsdf, sf); }
    auto getLobeTypes() const { return materialLobeTypes(bsdf); }

    /// Lane i as a scalar instance (for the scalar fallback of one lane, or its properties).
    auto lane(int i) const
    {
        using Scalar = BSDFMaterialInstance<decltype(bsdf.lane(i)), Sides>;
        return Scalar{ShadingFrame{laneValue(sf.T, i), laneValue(sf.B, i), laneValue(sf.N, i)}, bsdf.lane(i)};
    }

    /// Makes lane i the scalar instance `mi` (as createMaterialInstance set it up for lane i's hit).
    template<typename ScalarBSDF>
    void setLane(int i, const BSDFMaterialInstance<ScalarBSDF, Sides>& mi)
    {
        setLaneValue(sf.T, i, mi.sf.T), setLaneValue(sf.B, i, mi.sf.B), setLaneValue(sf.N, i, mi.sf.N);
        bsdf.setLane(i, mi.bsdf);
    }

private:
    template<typename SampleGenerator>
    MaskOf<F> sampleLocal(const F3& wiLocal, BSDFSampleT<F>& s, SampleGenerator& sg, const MaskOf<F>& active) const
    {
        if constexpr (requires { bsdf.sample(wiLocal, s, sg, active); })
            return bsdf.sample(wiLocal, s, sg, active);
        else
            return active && bsdf.sample(wiLocal, s, sg); // Scalar-only BSDFs: one lane.
    }

    template<typename SD>
    MaskOf<F> isValid(const SD& sd, const F3& wiLocal, const F3& woLocal, const F3& wo) const
    {
        if constexpr (Sides == BSDFSides::Reflection)
            return isValidHemisphereReflection(sd, sf, wiLocal, woLocal, wo);
        else
            return isValidHemisphereReflectionOrTransmission(sd, sf, wiLocal, woLocal, wo, true);
    }
};
} // namespace falcor
