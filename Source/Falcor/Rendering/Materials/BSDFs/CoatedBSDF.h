#pragma once
#include "Rendering/Materials/BSDFs/PBRTDielectricBSDF.h"
#include "Utils/Color/ColorHelpers.h"
#include "Utils/Math/MathHelpers.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"

namespace falcor
{
/// A dielectric coat over a base BSDF, evaluated by a stochastic random walk between the two
/// interfaces (Guo et al. 2018, "Position-free Monte Carlo simulation for arbitrary layered
/// BSDFs", as Falcor's LayeredBSDF implements it for the PBRT coated materials: a layer of
/// thickness 1 with no medium in it). eval and sample are unbiased estimates; evalPdf is
/// Falcor's approximation (the coat's own reflection lobe mixed with a cosine term), which is
/// what MIS weighs the walk's samples with.
///
/// Falcor's walk drops everything it has gathered when Russian roulette ends it during eval;
/// here it keeps it (the unbiased estimate; see docs/compatibility.md).
template<typename Base>
struct CoatedBSDF
{
    AnisotropicGGX interfaceD;
    float coatIoR = 1.5f;    ///< Index of refraction of the coat.
    float outsideIoR = 1.f;  ///< Of the medium the viewer is in.
    Base base;
    uint32_t maxDepth = 64;  ///< Most interface events of one walk (Falcor's default).

    template<typename SampleGenerator>
    float3 eval(const float3& wi, const float3& wo, SampleGenerator& sg) const
    {
        const bool enterTop = wi.z() > 0.f, exitTop = wo.z() > 0.f;
        bool atTop = enterTop;
        float3 result(0.f);
        if (enterTop == exitTop)
            result += enterTop ? entryCoat().eval(wi, wo) : base.eval(wi, wo);
        BSDFSample s;
        if (!(enterTop ? entryCoat().sample(wi, s, sg) : base.sample(wi, s, sg)) || s.isLobe(kLobeReflection))
            return result;
        float3 w = s.wo, weight = s.weight;
        for (uint32_t depth = 0; depth < maxDepth; ++depth)
        {
            atTop = !atTop; // Crossed the layer (nothing in it attenuates).
            // Next event towards wo through the exit interface, then continue the walk.
            if (atTop == exitTop)
                result += weight * (atTop ? coatSeenFrom(-w).eval(-w, wo) : base.eval(-w, wo));
            if (!sampleInterface(atTop, -w, s, sg))
                return result;
            weight *= s.weight;
            w = s.wo;
            if (s.isLobe(kLobeTransmission))
                return result;
            if (!survivesRoulette(depth, weight, sg))
                return result;
        }
        return result;
    }

    template<typename SampleGenerator>
    bool sample(const float3& wi, BSDFSample& out, SampleGenerator& sg) const
    {
        const bool enterTop = wi.z() > 0.f;
        bool atTop = enterTop;
        BSDFSample s;
        if (!(enterTop ? entryCoat().sample(wi, s, sg) : base.sample(wi, s, sg)))
            return false;
        if (s.isLobe(kLobeReflection))
        {
            out = s;
            return true;
        }
        float3 w = s.wo, weight = s.weight;
        for (uint32_t depth = 0; depth < maxDepth; ++depth)
        {
            atTop = !atTop;
            if (!sampleInterface(atTop, -w, s, sg))
                return false;
            weight *= s.weight;
            w = s.wo;
            if (s.isLobe(kLobeTransmission))
            {
                out.wo = w;
                out.weight = weight;
                out.pdf = evalPdf(wi, w);
                // Reflection or transmission overall; delta when the walk left through a delta event.
                const bool reflected = w.z() * wi.z() > 0.f;
                out.lobeType = s.isLobe(kLobeDelta) ? (reflected ? kLobeDeltaReflection : kLobeDeltaTransmission)
                                                    : (reflected ? kLobeSpecularReflection : kLobeSpecularTransmission);
                return true;
            }
            if (!survivesRoulette(depth, weight, sg))
                return false;
        }
        return false;
    }

    float evalPdf(const float3& wi, const float3& wo) const
    {
        const bool enterTop = wi.z() > 0.f, exitTop = wo.z() > 0.f;
        const float single = enterTop != exitTop ? 0.f : exitTop ? entryCoat().evalPdf(wi, wo) : base.evalPdf(wi, wo);
        return 0.5f * (single + std::abs(wi.z()) * kInvPi);
    }

private:
    /// The coat as the walk enters it from outside.
    PBRTDielectricBSDF entryCoat() const { return {interfaceD, outsideIoR, coatIoR}; }
    /// The coat for a direction w (towards where it came from) at the top interface.
    PBRTDielectricBSDF coatSeenFrom(const float3& w) const
    {
        return w.z() >= 0.f ? PBRTDielectricBSDF{interfaceD, outsideIoR, coatIoR} : PBRTDielectricBSDF{interfaceD, coatIoR, outsideIoR};
    }

    template<typename SampleGenerator>
    bool sampleInterface(bool atTop, const float3& wi, BSDFSample& s, SampleGenerator& sg) const
    {
        return atTop ? coatSeenFrom(wi).sample(wi, s, sg) : base.sample(wi, s, sg);
    }

    /// Russian roulette on long walks with little throughput left (Falcor's rule).
    template<typename SampleGenerator>
    static bool survivesRoulette(uint32_t depth, float3& weight, SampleGenerator& sg)
    {
        const float q = std::min(luminance(weight), 1.f);
        if (depth <= 3 || q >= 0.25f)
            return true;
        if (sampleNext1D(sg) >= q)
            return false;
        weight /= q;
        return true;
    }
};
} // namespace falcor
