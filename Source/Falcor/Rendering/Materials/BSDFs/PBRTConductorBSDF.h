#pragma once
#include "Rendering/Materials/AnisotropicGGX.h"
#include "Rendering/Materials/BSDFSample.h"
#include "Rendering/Materials/Fresnel.h"

namespace falcor
{
/// pbrt's conductor: anisotropic GGX reflection with the complex Fresnel term of eta + i·k;
/// a perfect mirror when the distribution is singular. Written once over F: float
/// (PBRTConductorBSDF) or FloatLanes<W> (one conductor per lane, rough and mirror lanes mixed).
template<typename F>
struct PBRTConductorBSDFT
{
    using Float = F;
    using F3 = vector<F, 3>;

    AnisotropicGGXT<F> D;
    F3 eta{1.f, 1.f, 1.f};
    F3 k{0.f, 0.f, 0.f};

    F3 eval(const F3& wi, const F3& wo) const
    {
        const MaskOf<F> black = D.isSingular() || eitherBelowMinCos(wi, wo);
        if (all(black))
            return F3(F(0.f));
        const F3 h = normalize(wi + wo);
        const F3 f = evalFresnelConductor(eta, k, abs(dot(wi, h))) * (D.G2(wo, wi) * D.evalNDF(h) / (4.f * wi.z()));
        return select(black, F3(F(0.f)), f);
    }

    /// Draws two numbers in the rough lanes of `active` that face the viewer; the result is false
    /// in the other lanes (whose `s` is unspecified).
    template<typename SampleGenerator>
    MaskOf<F> sample(const F3& wi, BSDFSampleT<F>& s, SampleGenerator& sg, const MaskOf<F>& active = true) const
    {
        const MaskOf<F> facing = active && !(wi.z() < kMinCosTheta);
        const MaskOf<F> singular = D.isSingular();
        const MaskOf<F> mirror = facing && singular, rough = facing && !singular;
        MaskOf<F> valid = mirror;
        if (any(mirror))
        {
            s.wo = select(mirror, F3(-wi.x(), -wi.y(), wi.z()), s.wo);
            s.weight = select(mirror, evalFresnelConductor(eta, k, wi.z()), s.weight);
            s.pdf = select(mirror, F(0.f), s.pdf);
            s.lobeType = select(mirror, UintOf<F>(kLobeDeltaReflection), s.lobeType);
        }
        if (any(rough))
        {
            const F3 h = D.sample(wi, sg, rough);
            const F wiDotH = dot(wi, h);
            const F3 wo = h * (2.f * wiDotH) - wi;
            const MaskOf<F> above = rough && !(wo.z() < kMinCosTheta);
            s.wo = select(rough, wo, s.wo);
            s.weight = select(above, evalFresnelConductor(eta, k, wiDotH) * (D.G2(wo, wi) / D.G1(wi)), s.weight);
            s.pdf = select(above, D.evalVNDF(wi, h) / (4.f * abs(wiDotH)), s.pdf);
            s.lobeType = select(above, UintOf<F>(kLobeSpecularReflection), s.lobeType);
            valid = valid || above;
        }
        return valid;
    }

    F evalPdf(const F3& wi, const F3& wo) const
    {
        const MaskOf<F> zero = D.isSingular() || eitherBelowMinCos(wi, wo);
        if (all(zero))
            return F(0.f);
        const F3 h = normalize(wi + wo);
        return select(zero, F(0.f), D.evalVNDF(wi, h) / (4.f * abs(dot(wi, h))));
    }

    /// Lane i as a one-lane BSDF, and back (for the scalar setup and fallback of a lane).
    PBRTConductorBSDFT<float> lane(int i) const
    {
        return {AnisotropicGGX{float2(D.alpha.x()[i], D.alpha.y()[i])}, laneValue(eta, i), laneValue(k, i)};
    }
    void setLane(int i, const PBRTConductorBSDFT<float>& b)
    {
        D.alpha.x().set(i, b.D.alpha.x()), D.alpha.y().set(i, b.D.alpha.y());
        setLaneValue(eta, i, b.eta), setLaneValue(k, i, b.k);
    }
};
using PBRTConductorBSDF = PBRTConductorBSDFT<float>;
} // namespace falcor
