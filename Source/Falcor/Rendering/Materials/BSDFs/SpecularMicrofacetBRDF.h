#pragma once
#include "Rendering/Materials/BSDFSample.h"
#include "Rendering/Materials/Fresnel.h"
#include "Rendering/Materials/IsotropicGGX.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"

namespace falcor
{
/// GGX reflection with Schlick Fresnel from the specular color, height-correlated Smith masking,
/// sampled by visible normals; alpha = 0 is a perfect mirror (a delta lobe). Written once over
/// F: float (SpecularMicrofacetBRDF) or FloatLanes<W> (one BRDF per lane, mirror and rough lanes mixed).
template<typename F>
struct SpecularMicrofacetBRDFT
{
    using Float = F;
    using F3 = vector<F, 3>;

    F3 albedo{0.f, 0.f, 0.f}; ///< Reflectance at normal incidence.
    F alpha = 0.f;
    UintOf<F> activeLobes = kLobeAll;

    F3 eval(const F3& wi, const F3& wo) const
    {
        const MaskOf<F> black = blackRough(wi, wo);
        if (all(black))
            return F3(F(0.f));
        const F3 h = normalize(wi + wo);
        const F D = evalNdfGGX(alpha, h.z());
        const F G = evalMaskingSmithGGXCorrelated(alpha, wi.z(), wo.z());
        return select(black, F3(F(0.f)), evalFresnelSchlick(albedo, 1.f, dot(wi, h)) * (D * G * 0.25f / wi.z()));
    }

    /// Draws two numbers in the rough lanes of `active` that face the viewer and have the glossy
    /// lobe on; the result is false in the other lanes.
    template<typename SampleGenerator>
    MaskOf<F> sample(const F3& wi, BSDFSampleT<F>& s, SampleGenerator& sg, const MaskOf<F>& active = true) const
    {
        s.lobeType = kLobeSpecularReflection;
        const MaskOf<F> facing = active && !(wi.z() < kMinCosTheta);
        const MaskOf<F> delta = alpha == 0.f;
        const MaskOf<F> mirror = facing && delta && (activeLobes & kLobeDeltaReflection) != 0u;
        const MaskOf<F> rough = facing && !delta && (activeLobes & kLobeSpecularReflection) != 0u;
        MaskOf<F> valid = mirror;
        if (any(mirror))
        {
            s.wo = select(mirror, F3(-wi.x(), -wi.y(), wi.z()), s.wo);
            s.pdf = select(mirror, F(0.f), s.pdf);
            s.weight = select(mirror, evalFresnelSchlick(albedo, 1.f, wi.z()), s.weight);
            s.lobeType = select(mirror, UintOf<F>(kLobeDeltaReflection), s.lobeType);
        }
        if (any(rough))
        {
            F pdf;
            const F3 h = sampleGGX_VNDF(alpha, wi, detail::sampleNext2DWhere<F>(sg, rough), pdf);
            const F wiDotH = dot(wi, h);
            const F3 wo = h * (2.f * wiDotH) - wi;
            s.wo = select(rough, wo, s.wo);
            const MaskOf<F> above = rough && !(wo.z() < kMinCosTheta);
            // With visible-normal sampling the weight is F · G2 / G1(wi) = F · G2 · (1 + Λ(wi)).
            const F G = evalMaskingSmithGGXCorrelated(alpha, wi.z(), wo.z());
            const F GOverG1wi = G * (1.f + evalLambdaGGX(alpha * alpha, wi.z()));
            s.pdf = select(above, pdf / (4.f * wiDotH), s.pdf);
            s.weight = select(above, evalFresnelSchlick(albedo, 1.f, wiDotH) * GOverG1wi, s.weight);
            valid = valid || above;
        }
        return valid;
    }

    F evalPdf(const F3& wi, const F3& wo) const
    {
        const MaskOf<F> zero = blackRough(wi, wo);
        if (all(zero))
            return F(0.f);
        const F3 h = normalize(wi + wo);
        return select(zero, F(0.f), evalPdfGGX_VNDF(alpha, wi, h) / (4.f * dot(wi, h)));
    }

private:
    /// Where the glossy lobe carries nothing: either direction grazing or below, a mirror, or
    /// the lobe off.
    MaskOf<F> blackRough(const F3& wi, const F3& wo) const
    {
        return eitherBelowMinCos(wi, wo) || alpha == 0.f || (activeLobes & kLobeSpecularReflection) == 0u;
    }
};
using SpecularMicrofacetBRDF = SpecularMicrofacetBRDFT<float>;
} // namespace falcor
