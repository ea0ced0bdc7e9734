#include "Rendering/Materials/BSDFs/HairChiang16.h"

namespace falcor
{
namespace
{
constexpr float kSqrtPiOver8 = 0.626657069f;

/// Modified Bessel function of the first kind, order 0 (its series to 10 terms).
float besselI0(float x)
{
    float sum = 0.f, x2i = 1.f, factorial = 1.f, fourPow = 1.f;
    for (uint32_t i = 0; i < 10; ++i)
    {
        if (i > 1)
            factorial *= float(i);
        sum += x2i / (factorial * factorial * fourPow);
        x2i *= x * x;
        fourPow *= 4.f;
    }
    return sum;
}

float logBesselI0(float x)
{
    return x > 12.f ? x + 0.5f * (-std::log(2.f * kPi) + std::log(1.f / x) + 0.125f / x) : std::log(besselI0(x));
}

/// Longitudinal scattering Mp (d'Eon et al. 2011), in log form for small variances.
float longitudinal(float cosThetaI, float cosThetaO, float sinThetaI, float sinThetaO, float v)
{
    const float a = cosThetaI * cosThetaO / v, b = sinThetaI * sinThetaO / v;
    if (v <= 0.1f)
        return std::exp(logBesselI0(a) - b - 1.f / v + 0.6931f + std::log(0.5f / v));
    return std::exp(-b) * besselI0(a) / (std::sinh(1.f / v) * 2.f * v);
}

float logistic(float x, float s)
{
    const float e = std::exp(-std::abs(x) / s);
    return e / (s * (1.f + e) * (1.f + e));
}

float logisticCDF(float x, float s)
{
    return 1.f / (1.f + std::exp(-x / s));
}

float trimmedLogistic(float x, float s, float a, float b)
{
    return logistic(x, s) / (logisticCDF(b, s) - logisticCDF(a, s));
}

float sampleTrimmedLogistic(float u, float s, float a, float b)
{
    const float k = logisticCDF(b, s) - logisticCDF(a, s);
    return std::clamp(-s * std::log(1.f / (u * k + logisticCDF(a, s)) - 1.f), a, b);
}

/// Azimuth of lobe p's exit relative to the entry (perfect specular geometry).
float lobeAzimuth(uint32_t p, float gammaI, float gammaT)
{
    return 2.f * float(p) * gammaT - 2.f * gammaI + float(p) * kPi;
}

/// Azimuthal scattering Np: a trimmed logistic about the lobe's azimuth.
float azimuthal(float phi, uint32_t p, float s, float gammaI, float gammaT)
{
    float dphi = std::fmod(phi - lobeAzimuth(p, gammaI, gammaT), 2.f * kPi);
    if (dphi > kPi)
        dphi -= 2.f * kPi;
    if (dphi < -kPi)
        dphi += 2.f * kPi;
    return trimmedLogistic(dphi, s, -kPi, kPi);
}

float cosFromSin(float sinTheta)
{
    return std::sqrt(std::max(0.f, 1.f - sinTheta * sinTheta));
}
} // namespace

HairChiang16::HairChiang16(const float3& baseColor, float betaM, float betaN, float alphaDegrees, float ior, float eta, float h)
    : mBetaM(betaM), mBetaN(betaN), mAlpha(alphaDegrees), mIoR(ior), mEta(eta), mH(h), mSigmaA(sigmaAFromColor(baseColor, betaN))
{
    mGammaI = std::asin(std::clamp(h, -1.f, 1.f));
    const float m = 0.726f * betaM + 0.812f * betaM * betaM + 3.7f * std::pow(betaM, 20.f);
    mV[0] = m * m;
    mV[1] = 0.25f * mV[0];
    mV[2] = 4.f * mV[0];
    for (uint32_t p = 3; p <= kMaxScatterEvents; ++p)
        mV[p] = mV[2];
    mS = kSqrtPiOver8 * (0.265f * betaN + 1.194f * betaN * betaN + 5.372f * std::pow(betaN, 22.f));
    // The scales tilt R by -2α, TT by α and TRT by 4α: sin/cos of 2^k α.
    mSin2kAlpha[0] = std::sin(alphaDegrees / 180.f * kPi);
    mCos2kAlpha[0] = std::sqrt(std::max(0.f, 1.f - mSin2kAlpha[0] * mSin2kAlpha[0]));
    for (int i = 1; i < 3; ++i)
    {
        mSin2kAlpha[i] = 2.f * mCos2kAlpha[i - 1] * mSin2kAlpha[i - 1];
        mCos2kAlpha[i] = mCos2kAlpha[i - 1] * mCos2kAlpha[i - 1] - mSin2kAlpha[i - 1] * mSin2kAlpha[i - 1];
    }
}

float3 HairChiang16::sigmaAFromColor(const float3& color, float betaN)
{
    const float d = 5.969f - 0.215f * betaN + 2.532f * betaN * betaN - 10.73f * std::pow(betaN, 3.f) + 5.574f * std::pow(betaN, 4.f) +
                    0.245f * std::pow(betaN, 5.f);
    return map(color, [d](float c) {
        const float sqrtSigmaA = std::log(std::max(c, 1e-4f)) / d;
        return sqrtSigmaA * sqrtSigmaA;
    });
}

void HairChiang16::refractedPath(float sinThetaI, float3& T, float& gammaT) const
{
    const float cosThetaI = cosFromSin(sinThetaI);
    const float sinThetaT = sinThetaI / mIoR, cosThetaT = cosFromSin(sinThetaT);
    const float etap = std::sqrt(mIoR * mIoR - sinThetaI * sinThetaI) / cosThetaI;
    const float sinGammaT = mH / etap, cosGammaT = cosFromSin(sinGammaT);
    gammaT = std::asin(std::clamp(sinGammaT, -1.f, 1.f));
    const float pathLength = 2.f * cosGammaT / cosThetaT;
    T = map(mSigmaA, [pathLength](float s) { return std::exp(-s * pathLength); });
}

HairChiang16::Terms HairChiang16::attenuation(float cosThetaI, const float3& T) const
{
    const float cosGammaI = std::sqrt(std::max(0.f, 1.f - mH * mH));
    const float f = evalFresnelDielectric(mEta, cosThetaI * cosGammaI);
    Terms ap;
    ap[0] = float3(f);
    ap[1] = T * ((1.f - f) * (1.f - f));
    for (uint32_t p = 2; p < kMaxScatterEvents; ++p)
        ap[p] = ap[p - 1] * T * f;
    // Every higher order together: a geometric series.
    ap[kMaxScatterEvents] = ap[kMaxScatterEvents - 1] * T * f / (float3(1.f) - T * f);
    return ap;
}

HairChiang16::Weights HairChiang16::lobePdf(float cosThetaI, const float3& T) const
{
    const Terms ap = attenuation(cosThetaI, T);
    Weights w;
    float sum = 0.f;
    for (uint32_t p = 0; p <= kMaxScatterEvents; ++p)
        sum += w[p] = luminance(ap[p]);
    for (float& x : w)
        x /= sum;
    return w;
}

HairChiang16::Geometry HairChiang16::geometry(const float3& wi, const float3& wo) const
{
    Geometry g;
    g.sinThetaI = wi.x(), g.cosThetaI = cosFromSin(g.sinThetaI);
    g.sinThetaO = wo.x(), g.cosThetaO = cosFromSin(g.sinThetaO);
    g.phi = std::atan2(wo.z(), wo.y()) - std::atan2(wi.z(), wi.y());
    refractedPath(g.sinThetaI, g.T, g.gammaT);
    return g;
}

void HairChiang16::tiltedTheta(uint32_t p, float sinThetaI, float cosThetaI, float& sinThetaIp, float& cosThetaIp) const
{
    switch (p)
    {
    case 0:
        sinThetaIp = sinThetaI * mCos2kAlpha[1] - cosThetaI * mSin2kAlpha[1];
        cosThetaIp = cosThetaI * mCos2kAlpha[1] + sinThetaI * mSin2kAlpha[1];
        break;
    case 1:
        sinThetaIp = sinThetaI * mCos2kAlpha[0] + cosThetaI * mSin2kAlpha[0];
        cosThetaIp = cosThetaI * mCos2kAlpha[0] - sinThetaI * mSin2kAlpha[0];
        break;
    case 2:
        sinThetaIp = sinThetaI * mCos2kAlpha[2] + cosThetaI * mSin2kAlpha[2];
        cosThetaIp = cosThetaI * mCos2kAlpha[2] - sinThetaI * mSin2kAlpha[2];
        break;
    default:
        sinThetaIp = sinThetaI, cosThetaIp = cosThetaI;
    }
}

template<typename W>
W HairChiang16::sumLobes(const std::array<W, kMaxScatterEvents + 1>& weights, const Geometry& g) const
{
    W sum = weights[0] * 0.f;
    for (uint32_t p = 0; p < kMaxScatterEvents; ++p)
    {
        float sinThetaIp, cosThetaIp;
        tiltedTheta(p, g.sinThetaI, g.cosThetaI, sinThetaIp, cosThetaIp);
        sum += weights[p] * (longitudinal(std::abs(cosThetaIp), g.cosThetaO, sinThetaIp, g.sinThetaO, mV[p]) *
                             azimuthal(g.phi, p, mS, mGammaI, g.gammaT));
    }
    // The lumped higher orders: untilted, uniform in azimuth.
    sum += weights[kMaxScatterEvents] * (longitudinal(g.cosThetaI, g.cosThetaO, g.sinThetaI, g.sinThetaO, mV[kMaxScatterEvents]) / (2.f * kPi));
    return sum;
}

float3 HairChiang16::eval(const float3& wi, const float3& wo) const
{
    const Geometry g = geometry(wi, wo);
    const float3 f = sumLobes(attenuation(g.cosThetaI, g.T), g);
    return std::isnan(luminance(f)) ? float3(0.f) : f;
}

float HairChiang16::evalPdf(const float3& wi, const float3& wo) const
{
    const Geometry g = geometry(wi, wo);
    const float pdf = sumLobes(lobePdf(g.cosThetaI, g.T), g);
    return std::isnan(pdf) ? 0.f : pdf;
}

bool HairChiang16::sampleWith(const float3& wi, float2 u0, float2 u1, BSDFSample& s) const
{
    Geometry g;
    g.sinThetaI = wi.x(), g.cosThetaI = cosFromSin(g.sinThetaI);
    refractedPath(g.sinThetaI, g.T, g.gammaT);
    // Choose the lobe by its share of the attenuation.
    const Weights apPdf = lobePdf(g.cosThetaI, g.T);
    uint32_t p = 0;
    float u = u0.x();
    while (p < kMaxScatterEvents && u >= apPdf[p])
        u -= apPdf[p++];
    float sinThetaIp, cosThetaIp;
    tiltedTheta(p, g.sinThetaI, g.cosThetaI, sinThetaIp, cosThetaIp);

    // θo from Mp.
    const float v = mV[p], ux = std::max(u1.x(), 1e-5f);
    const float cosTheta = 1.f + v * std::log(ux + (1.f - ux) * std::exp(-2.f / v));
    const float sinTheta = cosFromSin(cosTheta);
    g.sinThetaO = -cosTheta * sinThetaIp + sinTheta * std::cos(u1.y() * 2.f * kPi) * cosThetaIp;
    g.cosThetaO = cosFromSin(g.sinThetaO);

    // Δφ from Np.
    g.phi = p < kMaxScatterEvents ? lobeAzimuth(p, mGammaI, g.gammaT) + sampleTrimmedLogistic(u0.y(), mS, -kPi, kPi) : u0.y() * 2.f * kPi;
    const float phiO = std::atan2(wi.z(), wi.y()) + g.phi;
    s.wo = float3(g.sinThetaO, g.cosThetaO * std::cos(phiO), g.cosThetaO * std::sin(phiO));
    // Falcor classifies every hair lobe as diffuse (for animal fur).
    s.lobeType = s.wo.z() > 0.f ? kLobeDiffuseReflection : kLobeDiffuseTransmission;
    s.pdf = sumLobes(apPdf, g);
    if (std::isnan(s.pdf) || !(s.pdf > 0.f))
    {
        s.pdf = 0.f;
        s.weight = float3(0.f);
        return false;
    }
    s.weight = eval(wi, s.wo) / s.pdf;
    return true;
}
} // namespace falcor
