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
