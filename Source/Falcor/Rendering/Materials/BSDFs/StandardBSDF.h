#pragma once
#include "Rendering/Materials/BSDFs/FrostbiteDiffuseBRDF.h"
#include "Rendering/Materials/BSDFs/LambertDiffuseBTDF.h"
#include "Rendering/Materials/BSDFs/SpecularMicrofacetBRDF.h"
#include "Rendering/Materials/BSDFs/SpecularMicrofacetBSDF.h"
#include "Utils/Color/ColorHelpers.h"

namespace falcor
{
/// Below this GGX alpha (roughness²) the standard BSDF is a perfect mirror.
constexpr float kMinGGXAlpha = 0.0064f;

/// Parameters of the standard BSDF at one hit (Falcor's StandardBSDFData).
struct StandardBSDFData
{
    float3 diffuse{0.f, 0.f, 0.f};
    float3 specular{0.f, 0.f, 0.f}; ///< Reflectance at normal incidence.
    float roughness = 0.f;          ///< Before remapping: alpha = roughness².
    float metallic = 0.f;
    float eta = 1.f;                ///< Relative IoR at the interface, etaI / etaT.
    float3 transmission{0.f, 0.f, 0.f};
    float diffuseTransmission = 0.f;  ///< Mix of the diffuse BRDF (0) and BTDF (1).
    float specularTransmission = 0.f; ///< Mix of the opaque BRDFs (0) and the dielectric BSDF (1).
    bool thinSurface = false;

    uint32_t getLobeTypes() const
    {
        const bool isDelta = roughness * roughness < kMinGGXAlpha;
        uint32_t lobes = isDelta ? kLobeDeltaReflection : kLobeSpecularReflection;
        if (anyPositive(diffuse) && specularTransmission < 1.f)
        {
            if (diffuseTransmission < 1.f)
                lobes |= kLobeDiffuseReflection;
            if (diffuseTransmission > 0.f)
                lobes |= kLobeDiffuseTransmission;
        }
        if (specularTransmission > 0.f)
            lobes |= isDelta ? kLobeDeltaTransmission : kLobeSpecularTransmission;
        return lobes;
    }
};

/// Falcor's standard BSDF: Frostbite diffuse reflection, Lambertian diffuse transmission, GGX
/// specular reflection and a GGX dielectric BSDF, mixed by the transmission weights. Sampling
/// picks one lobe with probability ∝ its estimated albedo; `sample` reports the mixture's pdf.
class StandardBSDF
{
public:
    StandardBSDF(const float3& wi, const StandardBSDFData& data, uint32_t activeLobes = kLobeAll)
    {
        const float3 transmissionAlbedo = data.thinSurface ? data.transmission : map(data.transmission, [](float t) { return std::sqrt(t); });
        mDiffuseReflection = {data.diffuse, data.roughness};
        mDiffuseTransmission = {transmissionAlbedo};
        float alpha = data.roughness * data.roughness;
        if (alpha < kMinGGXAlpha)
            alpha = 0.f;
        mSpecularReflection = {data.specular, alpha, activeLobes};
        mSpecularTransmission = {transmissionAlbedo, data.eta == 1.f ? 0.f : alpha, data.eta, activeLobes};
        mDiffTrans = data.diffuseTransmission;
        mSpecTrans = data.specularTransmission;

        const float metallicBRDF = data.metallic * (1.f - mSpecTrans);
        const float dielectricBSDF = (1.f - data.metallic) * (1.f - mSpecTrans);
        const float diffuseWeight = luminance(data.diffuse);
        const float specularWeight = luminance(evalFresnelSchlick(data.specular, 1.f, wi.z()));
        mProb[0] = (activeLobes & kLobeDiffuseReflection) ? diffuseWeight * dielectricBSDF * (1.f - mDiffTrans) : 0.f;
        mProb[1] = (activeLobes & kLobeDiffuseTransmission) ? diffuseWeight * dielectricBSDF * mDiffTrans : 0.f;
        mProb[2] = (activeLobes & (kLobeSpecularReflection | kLobeDeltaReflection)) ? specularWeight * (metallicBRDF + dielectricBSDF) : 0.f;
        mProb[3] = (activeLobes & (kLobeSpecular | kLobeDelta))
                       ? mSpecTrans
                       : 0.f;
        const float sum = mProb[0] + mProb[1] + mProb[2] + mProb[3];
        if (sum > 0.f)
            for (float& p : mProb)
                p /= sum;
    }

    float3 eval(const float3& wi, const float3& wo) const
    {
        float3 f(0.f);
        if (mProb[0] > 0.f)
            f += mDiffuseReflection.eval(wi, wo) * ((1.f - mSpecTrans) * (1.f - mDiffTrans));
        if (mProb[1] > 0.f)
            f += mDiffuseTransmission.eval(wi, wo) * ((1.f - mSpecTrans) * mDiffTrans);
        if (mProb[2] > 0.f)
            f += mSpecularReflection.eval(wi, wo) * (1.f - mSpecTrans);
        if (mProb[3] > 0.f)
            f += mSpecularTransmission.eval(wi, wo) * mSpecTrans;
        return f;
    }

    template<typename SampleGenerator>
    bool sample(const float3& wi, BSDFSample& s, SampleGenerator& sg) const
    {
        s = BSDFSample{};
        const float u = sampleNext1D(sg);
        int lobe = 0;
        float cdf = mProb[0];
        while (lobe < 3 && u >= cdf)
            cdf += mProb[++lobe];
        if (mProb[lobe] == 0.f)
            return false;

        bool valid = false;
        float scale = 1.f;
        switch (lobe)
        {
        case 0:
            valid = mDiffuseReflection.sample(wi, s, sg), scale = (1.f - mSpecTrans) * (1.f - mDiffTrans);
            break;
        case 1:
            valid = mDiffuseTransmission.sample(wi, s, sg), scale = (1.f - mSpecTrans) * mDiffTrans;
            break;
        case 2:
            valid = mSpecularReflection.sample(wi, s, sg), scale = 1.f - mSpecTrans;
            break;
        default:
            valid = mSpecularTransmission.sample(wi, s, sg), scale = mSpecTrans;
            break;
        }
        s.weight *= scale / mProb[lobe];
        // The mixture's density at wo: the other lobes could have produced it too (delta lobes excepted).
        if (s.pdf > 0.f)
            s.pdf = mProb[lobe] * s.pdf + evalPdfExcept(wi, s.wo, lobe);
        return valid;
    }

    float evalPdf(const float3& wi, const float3& wo) const { return evalPdfExcept(wi, wo, -1); }

private:
    float evalPdfExcept(const float3& wi, const float3& wo, int skip) const
    {
        float pdf = 0.f;
        if (mProb[0] > 0.f && skip != 0)
            pdf += mProb[0] * mDiffuseReflection.evalPdf(wi, wo);
        if (mProb[1] > 0.f && skip != 1)
            pdf += mProb[1] * mDiffuseTransmission.evalPdf(wi, wo);
        if (mProb[2] > 0.f && skip != 2)
            pdf += mProb[2] * mSpecularReflection.evalPdf(wi, wo);
        if (mProb[3] > 0.f && skip != 3)
            pdf += mProb[3] * mSpecularTransmission.evalPdf(wi, wo);
        return pdf;
    }

    FrostbiteDiffuseBRDF mDiffuseReflection;
    LambertDiffuseBTDF mDiffuseTransmission;
    SpecularMicrofacetBRDF mSpecularReflection;
    SpecularMicrofacetBSDF mSpecularTransmission;
    float mDiffTrans = 0.f, mSpecTrans = 0.f;
    float mProb[4] = {0.f, 0.f, 0.f, 0.f}; ///< Selection probability of each lobe, in the order above.
};
} // namespace falcor
