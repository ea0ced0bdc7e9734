#pragma once
#include "Utils/Math/Vector.h"
#include <algorithm>
#include <cmath>

namespace falcor
{
/// Schlick's approximation, generalized to any reflectance f90 at grazing angles.
inline float evalFresnelSchlick(float f0, float f90, float cosTheta)
{
    const float m = std::max(1.f - cosTheta, 0.f);
    const float m2 = m * m;
    return f0 + (f90 - f0) * (m2 * m2 * m);
}

inline float3 evalFresnelSchlick(const float3& f0, float f90, float cosTheta)
{
    const float m = std::max(1.f - cosTheta, 0.f);
    const float m2 = m * m;
    return f0 + (float3(f90) - f0) * (m2 * m2 * m);
}

/// Unpolarized Fresnel reflectance of a dielectric interface; eta = etaI / etaT. A negative
/// cosThetaI means the ray arrives from the other side. cosThetaT is 0 under total internal reflection.
inline float evalFresnelDielectric(float eta, float cosThetaI, float& cosThetaT)
{
    if (cosThetaI < 0.f)
    {
        eta = 1.f / eta;
        cosThetaI = -cosThetaI;
    }
    const float sinThetaTSq = eta * eta * (1.f - cosThetaI * cosThetaI);
    if (sinThetaTSq > 1.f)
    {
        cosThetaT = 0.f;
        return 1.f;
    }
    cosThetaT = std::sqrt(1.f - sinThetaTSq);
    const float rs = (eta * cosThetaI - cosThetaT) / (eta * cosThetaI + cosThetaT);
    const float rp = (eta * cosThetaT - cosThetaI) / (eta * cosThetaT + cosThetaI);
    return 0.5f * (rs * rs + rp * rp);
}

inline float evalFresnelDielectric(float eta, float cosThetaI)
{
    float cosThetaT;
    return evalFresnelDielectric(eta, cosThetaI, cosThetaT);
}
} // namespace falcor

namespace falcor
{
/// Fresnel reflectance of a conductor with complex index of refraction eta + i·k (Shirley's
/// formulation), per color channel.
inline float evalFresnelConductor(float eta, float k, float cosThetaI)
{
    const float cos2 = cosThetaI * cosThetaI;
    const float sin2 = std::max(1.f - cos2, 0.f);
    const float sin4 = sin2 * sin2;
    const float inner = eta * eta - k * k - sin2;
    const float a2b2 = std::sqrt(std::max(inner * inner + 4.f * eta * eta * k * k, 0.f));
    const float a = std::sqrt(std::max(0.5f * (a2b2 + inner), 0.f));
    const float rs = ((a2b2 + cos2) - 2.f * a * cosThetaI) / ((a2b2 + cos2) + 2.f * a * cosThetaI);
    const float rp = ((cos2 * a2b2 + sin4) - 2.f * a * cosThetaI * sin2) / ((cos2 * a2b2 + sin4) + 2.f * a * cosThetaI * sin2);
    return 0.5f * (rs + rs * rp);
}

inline float3 evalFresnelConductor(const float3& eta, const float3& k, float cosThetaI)
{
    return float3(evalFresnelConductor(eta.x(), k.x(), cosThetaI), evalFresnelConductor(eta.y(), k.y(), cosThetaI),
                  evalFresnelConductor(eta.z(), k.z(), cosThetaI));
}
} // namespace falcor
