#pragma once
#include "Core/Macros.h"
#include "Rendering/Materials/BSDFSample.h"
#include "Rendering/Materials/Fresnel.h"
#include "Utils/Color/ColorHelpers.h"
#include "Utils/Math/MathHelpers.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"
#include <array>

namespace falcor
{
/// Hair BCSDF of Chiang et al. 2016, "A practical and controllable hair and fur model for
/// production path tracing" (as Falcor's HairChiang16, after pbrt-v3): the fiber is a rough
/// dielectric cylinder; light leaves by reflection (R), transmission (TT), one internal bounce
/// (TRT) and the rest lumped together, each a longitudinal lobe Mp times an azimuthal lobe Np,
/// attenuated by Ap (Fresnel and absorption).
///
/// Local frame: x along the fiber (the shading tangent), (y, z) its cross section with z the
/// shading normal. `h` is where the view ray crosses the cross section, in [-1, 1]. eval returns
/// f · |cos θo| as every BSDF here (Falcor omits pbrt's division by the cosine for that reason).
class FALCOR_API HairChiang16
{
public:
    static constexpr uint32_t kMaxScatterEvents = 3;

    /// betaM, betaN: longitudinal and azimuthal roughness in [0, 1]; alphaDegrees: scale tilt;
    /// ior: the fiber's index of refraction; eta: relative index for the Fresnel term.
    HairChiang16(const float3& baseColor, float betaM, float betaN, float alphaDegrees, float ior, float eta, float h);

    float3 eval(const float3& wi, const float3& wo) const;

    template<typename SampleGenerator>
    bool sample(const float3& wi, BSDFSample& s, SampleGenerator& sg) const
    {
        const float2 u0 = sampleNext2D(sg), u1 = sampleNext2D(sg);
        return sampleWith(wi, u0, u1, s);
    }

    float evalPdf(const float3& wi, const float3& wo) const;

    /// Absorption coefficient giving a fiber of this color (Chiang et al., eq. 9).
    static float3 sigmaAFromColor(const float3& color, float betaN);

private:
    using Terms = std::array<float3, kMaxScatterEvents + 1>;
    using Weights = std::array<float, kMaxScatterEvents + 1>;

    /// The angles of a (wi, wo) pair and the refracted path through the fiber that the lobes use.
    struct Geometry
    {
        float sinThetaI, cosThetaI, sinThetaO, cosThetaO;
        float phi;    ///< φo - φi.
        float gammaT; ///< Azimuth of the refracted ray.
        float3 T;     ///< Transmittance of one pass.
    };
    Geometry geometry(const float3& wi, const float3& wo) const;
    bool sampleWith(const float3& wi, float2 u0, float2 u1, BSDFSample& s) const;
    /// Ap for each lobe: Fresnel and the transmittance T of one pass through the fiber.
    Terms attenuation(float cosThetaI, const float3& T) const;
    /// The lobe selection probabilities (luminance of Ap, normalized).
    Weights lobePdf(float cosThetaI, const float3& T) const;
    /// Transmittance of one pass, and the refracted azimuth γt, for a view with sin θ = sinThetaI.
    void refractedPath(float sinThetaI, float3& T, float& gammaT) const;
    /// sin and (signed) cos of θi tilted by the scales for lobe p.
    void tiltedTheta(uint32_t p, float sinThetaI, float cosThetaI, float& sinThetaIp, float& cosThetaIp) const;
    /// Σ_p weight_p · Mp · Np over the lobes (f when weights are Ap, the pdf when they are lobePdf).
    template<typename W>
    W sumLobes(const std::array<W, kMaxScatterEvents + 1>& weights, const Geometry& g) const;

    float mBetaM, mBetaN, mAlpha, mIoR, mEta, mH;
    float3 mSigmaA;
    float mGammaI;
    std::array<float, kMaxScatterEvents + 1> mV; ///< Longitudinal variance per lobe.
    float mS;                                     ///< Azimuthal logistic scale.
    float mSin2kAlpha[3], mCos2kAlpha[3];
};
} // namespace falcor
