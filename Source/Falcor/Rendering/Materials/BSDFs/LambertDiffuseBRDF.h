#pragma once
#include "Rendering/Materials/BSDFSample.h"
#include "Utils/Math/MathHelpers.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"

namespace falcor
{
/// Lambertian reflection: f = albedo / π, sampled by cosine. Directions are local (z = normal);
/// wi points to the viewer, wo to the light, as in every BSDF here. Written once over F: float
/// (LambertDiffuseBRDF) or FloatLanes<W> (W BSDFs, one per lane).
template<typename F>
struct LambertDiffuseBRDFT
{
    using Float = F;
    using F3 = vector<F, 3>;

    F3 albedo{0.f, 0.f, 0.f};

    F3 eval(const F3& wi, const F3& wo) const { return select(eitherBelowMinCos(wi, wo), F3(F(0.f)), albedo * (kInvPi * wo.z())); }

    /// Draws two numbers in the lanes of `active` only; the result is false in the other lanes
    /// (their `s` is unspecified). Where the result is false, s.weight is left as it was.
    template<typename SampleGenerator>
    MaskOf<F> sample(const F3& wi, BSDFSampleT<F>& s, SampleGenerator& sg, const MaskOf<F>& active = true) const
    {
        s.wo = sampleCosineHemisphereConcentric(sampleNext2D(sg, active), s.pdf);
        s.lobeType = kLobeDiffuseReflection;
        const MaskOf<F> valid = active && !eitherBelowMinCos(wi, s.wo);
        s.weight = select(valid, albedo, s.weight);
        return valid;
    }

    F evalPdf(const F3& wi, const F3& wo) const { return select(eitherBelowMinCos(wi, wo), F(0.f), kInvPi * wo.z()); }

    /// Lane i as a one-lane BSDF, and back (for the scalar setup and fallback of a lane).
    LambertDiffuseBRDFT<float> lane(int i) const { return {laneValue(albedo, i)}; }
    void setLane(int i, const LambertDiffuseBRDFT<float>& b) { setLaneValue(albedo, i, b.albedo); }
};
using LambertDiffuseBRDF = LambertDiffuseBRDFT<float>;
} // namespace falcor
