#pragma once
#include "Rendering/Materials/BSDFs/FrostbiteDiffuseBRDF.h"
#include "Rendering/Materials/BSDFs/LambertDiffuseBTDF.h"
#include "Rendering/Materials/BSDFs/SpecularMicrofacetBRDF.h"
#include "Rendering/Materials/BSDFs/SpecularMicrofacetBSDF.h"
#include "Utils/Color/ColorHelpers.h"
#include <array>

namespace falcor
{
/// Below this GGX alpha (roughness²) the standard BSDF is a perfect mirror.
constexpr float kMinGGXAlpha = 0.0064f;

/// Parameters of the standard BSDF at one hit (Falcor's StandardBSDFData), one set per lane
/// when F is a lane type.
template<typename F>
struct StandardBSDFDataT
{
    using F3 = vector<F, 3>;

    F3 diffuse{0.f, 0.f, 0.f};
    F3 specular{0.f, 0.f, 0.f}; ///< Reflectance at normal incidence.
    F roughness = 0.f;          ///< Before remapping: alpha = roughness².
    F metallic = 0.f;
    F eta = 1.f;                ///< Relative IoR at the interface, etaI / etaT.
    F3 transmission{0.f, 0.f, 0.f};
    F diffuseTransmission = 0.f;  ///< Mix of the diffuse BRDF (0) and BTDF (1).
    F specularTransmission = 0.f; ///< Mix of the opaque BRDFs (0) and the dielectric BSDF (1).
    MaskOf<F> thinSurface = false;

    /// The lobes these parameters have, per lane.
    UintOf<F> getLobeTypes() const
    {
        using U = UintOf<F>;
        const MaskOf<F> isDelta = roughness * roughness < kMinGGXAlpha;
        U lobes = select(isDelta, U(kLobeDeltaReflection), U(kLobeSpecularReflection));
        const MaskOf<F> diffuseLobes = anyPositive(diffuse) && specularTransmission < 1.f;
        lobes = select(diffuseLobes && diffuseTransmission < 1.f, lobes | kLobeDiffuseReflection, lobes);
        lobes = select(diffuseLobes && diffuseTransmission > 0.f, lobes | kLobeDiffuseTransmission, lobes);
        const U transmission = select(isDelta, U(kLobeDeltaTransmission), U(kLobeSpecularTransmission));
        return select(specularTransmission > 0.f, lobes | transmission, lobes);
    }

    /// Lane i as one path's parameters, and back.
    StandardBSDFDataT<float> lane(int i) const
    {
        return {laneValue(diffuse, i), laneValue(specular, i), laneValue(roughness, i), laneValue(metallic, i), laneValue(eta, i),
                laneValue(transmission, i), laneValue(diffuseTransmission, i), laneValue(specularTransmission, i), laneValue(thinSurface, i)};
    }
    void setLane(int i, const StandardBSDFDataT<float>& d)
    {
        setLaneValue(diffuse, i, d.diffuse), setLaneValue(specular, i, d.specular), setLaneValue(roughness, i, d.roughness);
        setLaneValue(metallic, i, d.metallic), setLaneValue(eta, i, d.eta), setLaneValue(transmission, i, d.transmission);
        setLaneValue(diffuseTransmission, i, d.diffuseTransmission), setLaneValue(specularTransmission, i, d.specularTransmission);
        setLaneValue(thinSurface, i, d.thinSurface);
    }
};
using StandardBSDFData = StandardBSDFDataT<float>;

/// Falcor's standard BSDF: Frostbite diffuse reflection, Lambertian diffuse transmission, GGX
/// specular reflection and a GGX dielectric BSDF, mixed by the transmission weights. Sampling
/// picks one lobe with probability ∝ its estimated albedo; `sample` reports the mixture's pdf.
/// Written once over F: float (StandardBSDF) or FloatLanes<W> (one BSDF per lane, each picking
/// its own lobe).
template<typename F>
class StandardBSDFT
{
public:
    using Float = F;
    using F3 = vector<F, 3>;
    using Mask = MaskOf<F>;
    using U = UintOf<F>;

    StandardBSDFT(const F3& wi, const StandardBSDFDataT<F>& data, const U& activeLobes = kLobeAll)
    {
        const F3& t = data.transmission;
        const F3 transmissionAlbedo = selectLazy(data.thinSurface, [&] { return t; }, [&] { return F3(sqrt(t.x()), sqrt(t.y()), sqrt(t.z())); });
        mDiffuseReflection = {data.diffuse, data.roughness};
        mDiffuseTransmission = {transmissionAlbedo};
        const F roughAlpha = data.roughness * data.roughness;
        const F alpha = select(roughAlpha < kMinGGXAlpha, F(0.f), roughAlpha);
        mSpecularReflection = {data.specular, alpha, activeLobes};
        mSpecularTransmission = {transmissionAlbedo, select(data.eta == 1.f, F(0.f), alpha), data.eta, activeLobes};
        mDiffTrans = data.diffuseTransmission;
        mSpecTrans = data.specularTransmission;

        const F metallicBRDF = data.metallic * (1.f - mSpecTrans);
        const F dielectricBSDF = (1.f - data.metallic) * (1.f - mSpecTrans);
        const F diffuseWeight = luminance(data.diffuse);
        const F specularWeight = luminance(evalFresnelSchlick(data.specular, 1.f, wi.z()));
        auto ifActive = [&](uint32_t lobes, const F& p) { return select((activeLobes & lobes) != 0u, p, F(0.f)); };
        mProb[0] = ifActive(kLobeDiffuseReflection, diffuseWeight * dielectricBSDF * (1.f - mDiffTrans));
        mProb[1] = ifActive(kLobeDiffuseTransmission, diffuseWeight * dielectricBSDF * mDiffTrans);
        mProb[2] = ifActive(kLobeSpecularReflection | kLobeDeltaReflection, specularWeight * (metallicBRDF + dielectricBSDF));
        mProb[3] = ifActive(kLobeSpecular | kLobeDelta, mSpecTrans);
        const F sum = mProb[0] + mProb[1] + mProb[2] + mProb[3];
        const Mask positive = sum > 0.f;
        for (F& p : mProb)
            p = select(positive, p / sum, p);
    }

    F3 eval(const F3& wi, const F3& wo) const
    {
        F3 f(F(0.f));
        forEachLobe([&](int k, const auto& lobe) {
            const Mask on = mProb[k] > 0.f;
            if (any(on))
                f = select(on, f + lobe.eval(wi, wo) * lobeScale(k), f);
        });
        return f;
    }

    /// Draws the lobe in the lanes of `active`, then as the chosen lobe's sample does; the result
    /// is false in the other lanes (whose `s` is unspecified).
    template<typename SampleGenerator>
    Mask sample(const F3& wi, BSDFSampleT<F>& s, SampleGenerator& sg, const Mask& active = true) const
    {
        s = BSDFSampleT<F>{};
        F prob;
        const Lobes picked = pickLobe(detail::sampleNext1DWhere<F>(sg, active), prob);
        const Mask drawn = active && !(prob == 0.f);
        if (!any(drawn))
            return drawn;

        Mask valid = false;
        F scale = 0.f;
        forEachLobe([&](int k, const auto& lobe) {
            const Mask mine = drawn && picked[k];
            if (!any(mine))
                return;
            scale = select(mine, lobeScale(k), scale);
            // Where every lane took this lobe (always, for one path), it samples straight into s.
            if (all(mine))
            {
                valid = lobe.sample(wi, s, sg, mine);
                return;
            }
            BSDFSampleT<F> lobeSample;
            valid = select(mine, lobe.sample(wi, lobeSample, sg, mine), valid);
            assignWhere(mine, s, lobeSample);
        });
        s.weight *= scale / prob;
        // The mixture's density at wo: the other lobes could have produced it too (delta lobes excepted).
        const Mask mixed = drawn && s.pdf > 0.f;
        if (any(mixed))
            s.pdf = select(mixed, prob * s.pdf + evalPdfExcept(wi, s.wo, picked), s.pdf);
        return valid;
    }

    F evalPdf(const F3& wi, const F3& wo) const { return evalPdfExcept(wi, wo, Lobes{false, false, false, false}); }

private:
    using Lobes = std::array<Mask, 4>;

    /// Calls fn(k, lobe k) for the lobes in the order of mProb.
    template<typename Fn>
    void forEachLobe(Fn&& fn) const
    {
        fn(0, mDiffuseReflection), fn(1, mDiffuseTransmission), fn(2, mSpecularReflection), fn(3, mSpecularTransmission);
    }

    /// Lobe k's weight in the mixture.
    F lobeScale(int k) const
    {
        switch (k)
        {
        case 0:
            return (1.f - mSpecTrans) * (1.f - mDiffTrans);
        case 1:
            return (1.f - mSpecTrans) * mDiffTrans;
        case 2:
            return 1.f - mSpecTrans;
        default:
            return mSpecTrans;
        }
    }

    /// The lobe whose interval of the CDF holds u (the last one past the end), per lane, and its
    /// probability. Stops where no lane goes further, as one path's search does.
    Lobes pickLobe(const F& u, F& prob) const
    {
        Lobes picked{false, false, false, false};
        F cdf = mProb[0];
        Mask further = u >= cdf;
        picked[0] = !further, prob = mProb[0];
        for (int k = 1; k < 4 && any(further); ++k)
        {
            Mask next = false;
            if (k < 3)
            {
                cdf = select(further, cdf + mProb[k], cdf);
                next = further && u >= cdf;
            }
            picked[k] = further && !next;
            prob = select(picked[k], mProb[k], prob);
            further = next;
        }
        return picked;
    }

    F evalPdfExcept(const F3& wi, const F3& wo, const Lobes& skip) const
    {
        F pdf = 0.f;
        forEachLobe([&](int k, const auto& lobe) {
            const Mask on = mProb[k] > 0.f && !skip[k];
            if (any(on))
                pdf = select(on, pdf + mProb[k] * lobe.evalPdf(wi, wo), pdf);
        });
        return pdf;
    }

    static void assignWhere(const Mask& mask, BSDFSampleT<F>& s, const BSDFSampleT<F>& from)
    {
        s.wo = select(mask, from.wo, s.wo), s.pdf = select(mask, from.pdf, s.pdf);
        s.weight = select(mask, from.weight, s.weight), s.lobeType = select(mask, from.lobeType, s.lobeType);
    }

    FrostbiteDiffuseBRDFT<F> mDiffuseReflection;
    LambertDiffuseBTDFT<F> mDiffuseTransmission;
    SpecularMicrofacetBRDFT<F> mSpecularReflection;
    SpecularMicrofacetBSDFT<F> mSpecularTransmission;
    F mDiffTrans = 0.f, mSpecTrans = 0.f;
    F mProb[4] = {0.f, 0.f, 0.f, 0.f}; ///< Selection probability of each lobe, in the order above.
};
using StandardBSDF = StandardBSDFT<float>;
} // namespace falcor
