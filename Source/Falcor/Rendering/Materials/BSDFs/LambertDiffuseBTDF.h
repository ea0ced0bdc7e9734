#pragma once
#include "Rendering/Materials/BSDFSample.h"
#include "Utils/Math/MathHelpers.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"

namespace falcor
{
/// Lambertian transmission to the far side: f = albedo / π for wo below the surface. Written
/// once over F: float (LambertDiffuseBTDF) or FloatLanes<W> (one BTDF per lane).
template<typename F>
struct LambertDiffuseBTDFT
{
    using Float = F;
    using F3 = vector<F, 3>;

    F3 albedo{0.f, 0.f, 0.f};

    F3 eval(const F3& wi, const F3& wo) const { return select(belowMinCos(wi, wo), F3(F(0.f)), albedo * (kInvPi * -wo.z())); }

    /// Draws two numbers in the lanes of `active` only; the result is false in the other lanes.
    template<typename SampleGenerator>
    MaskOf<F> sample(const F3& wi, BSDFSampleT<F>& s, SampleGenerator& sg, const MaskOf<F>& active = true) const
    {
        s.wo = sampleCosineHemisphereConcentric(detail::sampleNext2DWhere<F>(sg, active), s.pdf);
        s.wo.z() = -s.wo.z();
        s.lobeType = kLobeDiffuseTransmission;
        const MaskOf<F> valid = active && !belowMinCos(wi, s.wo);
        s.weight = select(valid, albedo, s.weight);
        return valid;
    }

    F evalPdf(const F3& wi, const F3& wo) const { return select(belowMinCos(wi, wo), F(0.f), kInvPi * -wo.z()); }

private:
    /// wi grazing or below, or wo grazing or above: no transmission.
    static MaskOf<F> belowMinCos(const F3& wi, const F3& wo) { return min(wi.z(), -wo.z()) < kMinCosTheta; }
};
using LambertDiffuseBTDF = LambertDiffuseBTDFT<float>;
} // namespace falcor
