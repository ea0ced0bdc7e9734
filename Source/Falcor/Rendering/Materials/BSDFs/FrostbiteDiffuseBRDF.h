#pragma once
#include "Rendering/Materials/BSDFSample.h"
#include "Rendering/Materials/Fresnel.h"
#include "Utils/Math/MathHelpers.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"

namespace falcor
{
/// Disney's diffuse with Frostbite's energy renormalization (Lagarde and de Rousiers 2014): a
/// Lambertian lobe brightened at grazing angles by roughness, scaled so it stays below 1. The
/// standard material's diffuse lobe. Sampled by cosine. Written once over F: float
/// (FrostbiteDiffuseBRDF) or FloatLanes<W> (one BRDF per lane).
template<typename F>
struct FrostbiteDiffuseBRDFT
{
    using Float = F;
    using F3 = vector<F, 3>;

    F3 albedo{0.f, 0.f, 0.f};
    F roughness = 0.f; ///< Before remapping to GGX alpha.

    F3 eval(const F3& wi, const F3& wo) const
    {
        const MaskOf<F> black = eitherBelowMinCos(wi, wo);
        if (all(black))
            return F3(F(0.f));
        return select(black, F3(F(0.f)), evalWeight(wi, wo) * (kInvPi * wo.z()));
    }

    /// Draws two numbers in the lanes of `active` only; the result is false in the other lanes.
    template<typename SampleGenerator>
    MaskOf<F> sample(const F3& wi, BSDFSampleT<F>& s, SampleGenerator& sg, const MaskOf<F>& active = true) const
    {
        s.wo = sampleCosineHemisphereConcentric(detail::sampleNext2DWhere<F>(sg, active), s.pdf);
        s.lobeType = kLobeDiffuseReflection;
        const MaskOf<F> valid = active && !eitherBelowMinCos(wi, s.wo);
        if (any(valid))
            s.weight = select(valid, evalWeight(wi, s.wo), s.weight);
        return valid;
    }

    F evalPdf(const F3& wi, const F3& wo) const { return select(eitherBelowMinCos(wi, wo), F(0.f), kInvPi * wo.z()); }

private:
    /// f · π / cos(wo): the BRDF relative to a white Lambertian.
    F3 evalWeight(const F3& wi, const F3& wo) const
    {
        const F3 h = normalize(wi + wo);
        const F woDotH = dot(wo, h);
        const F energyBias = 0.5f * roughness;
        const F energyFactor = 1.f + (1.f / 1.51f - 1.f) * roughness;
        const F fd90 = energyBias + 2.f * woDotH * woDotH * roughness;
        return albedo * (evalFresnelSchlick(F(1.f), fd90, wi.z()) * evalFresnelSchlick(F(1.f), fd90, wo.z()) * energyFactor);
    }
};
using FrostbiteDiffuseBRDF = FrostbiteDiffuseBRDFT<float>;
} // namespace falcor
