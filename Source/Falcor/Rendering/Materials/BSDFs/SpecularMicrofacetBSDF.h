#pragma once
#include "Rendering/Materials/BSDFSample.h"
#include "Rendering/Materials/Fresnel.h"
#include "Rendering/Materials/IsotropicGGX.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"
#include <cfloat>

namespace falcor
{
/// A rough (GGX) or smooth dielectric interface: reflection and refraction chosen by the
/// dielectric Fresnel term (Walter et al. 2007). eta = etaI / etaT; transmitted radiance is
/// tinted by `transmissionAlbedo`. Written once over F: float (SpecularMicrofacetBSDF) or
/// FloatLanes<W> (one interface per lane, smooth and rough lanes mixed).
template<typename F>
struct SpecularMicrofacetBSDFT
{
    using Float = F;
    using F3 = vector<F, 3>;
    using Mask = MaskOf<F>;
    using U = UintOf<F>;

    F3 transmissionAlbedo{1.f, 1.f, 1.f};
    F alpha = 0.f;
    F eta = 1.f;
    U activeLobes = kLobeAll;

    F3 eval(const F3& wi, const F3& wo) const
    {
        Mask black = min(wi.z(), abs(wo.z())) < kMinCosTheta || alpha == 0.f;
        if (all(black))
            return F3(F(0.f));
        const Mask isReflection = wo.z() > 0.f;
        black = black || (activeLobes & select(isReflection, U(kLobeSpecularReflection), U(kLobeSpecularTransmission))) == 0u;
        if (all(black))
            return F3(F(0.f));
        const F3 h = halfVector(wi, wo, isReflection);
        const F wiDotH = dot(wi, h), woDotH = dot(wo, h);
        // Refraction through h needs wi above and wo below the microfacet. Falcor's eval omits
        // this test (its pdf has it), which lets NEE count light BSDF sampling can never reach.
        black = black || (!isReflection && woDotH >= 0.f);
        if (all(black))
            return F3(F(0.f));
        const F D = evalNdfGGX(alpha, h.z());
        const F G = evalMaskingSmithGGXCorrelated(alpha, wi.z(), abs(wo.z()));
        const F Fr = evalFresnelDielectric(eta, wiDotH);
        const F3 f = selectLazy(
            isReflection, [&] { return F3(Fr * D * G * 0.25f / wi.z()); },
            [&] {
                const F sqrtDenom = woDotH + eta * wiDotH;
                const F t = eta * eta * wiDotH * woDotH / (wi.z() * sqrtDenom * sqrtDenom);
                return transmissionAlbedo * ((1.f - Fr) * D * G * abs(t));
            });
        return select(black, F3(F(0.f)), f);
    }

    /// Draws one number (the lobe) in the lanes of `active` that face the viewer, and two more
    /// (the normal) in those of them that are rough and have a lobe on; the result is false in
    /// the other lanes.
    template<typename SampleGenerator>
    Mask sample(const F3& wi, BSDFSampleT<F>& s, SampleGenerator& sg, const Mask& active = true) const
    {
        s.lobeType = kLobeSpecularReflection;
        const Mask facing = active && !(wi.z() < kMinCosTheta);
        const F lobeSample = detail::sampleNext1DWhere<F>(sg, facing);
        const Mask delta = alpha == 0.f;
        const Mask hasReflection = (activeLobes & select(delta, U(kLobeDeltaReflection), U(kLobeSpecularReflection))) != 0u;
        const Mask hasTransmission = (activeLobes & select(delta, U(kLobeDeltaTransmission), U(kLobeSpecularTransmission))) != 0u;
        Mask valid = facing && (hasReflection || hasTransmission);
        if (!any(valid))
            return valid;

        F3 h(F(0.f), F(0.f), F(1.f));
        F pdf = 0.f;
        const Mask rough = valid && !delta;
        if (any(rough))
        {
            F pdfH;
            const F3 sampled = sampleGGX_VNDF(alpha, wi, detail::sampleNext2DWhere<F>(sg, rough), pdfH);
            h = select(rough, sampled, h), pdf = select(rough, pdfH, pdf);
        }
        const F wiDotH = dot(wi, h);
        F cosThetaT;
        const F Fr = evalFresnelDielectric(eta, wiDotH, cosThetaT);
        const Mask both = hasReflection && hasTransmission;
        const Mask isReflection = select(both, Mask(lobeSample < Fr), hasReflection);
        valid = valid && !(!both && hasTransmission && Fr == 1.f);
        const F3 wo = selectLazy(isReflection, [&] { return h * (2.f * wiDotH) - wi; }, [&] { return h * (eta * wiDotH - cosThetaT) - wi * eta; });
        s.wo = select(valid, wo, s.wo);
        const Mask up = wo.z() > 0.f;
        valid = valid && !(abs(wo.z()) < kMinCosTheta || select(isReflection, !up, up));
        // When only one of the two is active, the Fresnel factor of that one goes into the weight.
        const F selected = select(isReflection, Fr, 1.f - Fr);

        const Mask smooth = valid && delta;
        if (any(smooth))
        {
            F3 weight = select(isReflection, F3(F(1.f)), transmissionAlbedo);
            weight = select(both, weight, weight * selected);
            s.pdf = select(smooth, F(0.f), s.pdf);
            s.weight = select(smooth, weight, s.weight);
            s.lobeType = select(smooth, select(isReflection, U(kLobeDeltaReflection), U(kLobeDeltaTransmission)), s.lobeType);
        }
        const Mask glossy = valid && !delta;
        if (any(glossy))
        {
            const F woDotH = dot(wo, h);
            const F G = evalMaskingSmithGGXCorrelated(alpha, wi.z(), abs(wo.z()));
            F3 weight(G * (1.f + evalLambdaGGX(alpha * alpha, wi.z())));
            weight = selectLazy(isReflection, [&] { return weight; }, [&] { return weight * (transmissionAlbedo * (eta * eta)); });
            F glossyPdf = selectLazy(isReflection, [&] { return pdf / (4.f * woDotH); }, [&] { return refractionPdf(pdf, wiDotH, woDotH); });
            glossyPdf = select(both, glossyPdf * selected, glossyPdf);
            weight = select(both, weight, weight * selected);
            s.pdf = select(glossy, glossyPdf, s.pdf);
            s.weight = select(glossy, weight, s.weight);
            s.lobeType = select(glossy, select(isReflection, U(kLobeSpecularReflection), U(kLobeSpecularTransmission)), s.lobeType);
        }
        return valid;
    }

    F evalPdf(const F3& wi, const F3& wo) const
    {
        Mask zero = min(wi.z(), abs(wo.z())) < kMinCosTheta || alpha == 0.f;
        if (all(zero))
            return F(0.f);
        const Mask isReflection = wo.z() > 0.f;
        const Mask hasReflection = (activeLobes & kLobeSpecularReflection) != 0u;
        const Mask hasTransmission = (activeLobes & kLobeSpecularTransmission) != 0u;
        zero = zero || select(isReflection, !hasReflection, !hasTransmission);
        if (all(zero))
            return F(0.f);
        const F3 h = halfVector(wi, wo, isReflection);
        const F wiDotH = dot(wi, h), woDotH = dot(wo, h);
        zero = zero || (!isReflection && woDotH > 0.f);
        if (all(zero))
            return F(0.f);
        const F Fr = evalFresnelDielectric(eta, wiDotH);
        const F pdfH = evalPdfGGX_VNDF(alpha, wi, h);
        F pdf = selectLazy(isReflection, [&] { return pdfH / (4.f * woDotH); }, [&] { return refractionPdf(pdfH, wiDotH, woDotH); });
        pdf = select(hasReflection && hasTransmission, pdf * select(isReflection, Fr, 1.f - Fr), pdf);
        return select(zero, F(0.f), pdf);
    }

private:
    /// The microfacet normal that maps wi to wo, in the upper hemisphere.
    F3 halfVector(const F3& wi, const F3& wo, const Mask& isReflection) const
    {
        const F3 h = normalize(wo + wi * select(isReflection, F(1.f), eta));
        return select(h.z() < 0.f, -h, h);
    }

    /// Half-vector density times the Jacobian of refraction.
    F refractionPdf(const F& pdfH, const F& wiDotH, const F& woDotH) const
    {
        const F sqrtDenom = woDotH + eta * wiDotH;
        const F denom = sqrtDenom * sqrtDenom;
        return select(denom > 0.f, pdfH * abs(woDotH) / denom, F(FLT_MAX));
    }
};
using SpecularMicrofacetBSDF = SpecularMicrofacetBSDFT<float>;
} // namespace falcor
