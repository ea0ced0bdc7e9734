#pragma once
#include "Utils/Math/Vector.h"
#include "Utils/Simd/Lane.h"
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
/// formulation), per color channel. Per lane when F is a lane type.
template<typename F>
FALCOR_VECTOR_INLINE F evalFresnelConductor(const F& eta, const F& k, const F& cosThetaI)
{
    const F cos2 = cosThetaI * cosThetaI;
    const F sin2 = max(1.f - cos2, F(0.f));
    const F sin4 = sin2 * sin2;
    const F inner = eta * eta - k * k - sin2;
    const F a2b2 = sqrt(max(inner * inner + 4.f * eta * eta * k * k, F(0.f)));
    const F a = sqrt(max(0.5f * (a2b2 + inner), F(0.f)));
    const F rs = ((a2b2 + cos2) - 2.f * a * cosThetaI) / ((a2b2 + cos2) + 2.f * a * cosThetaI);
    const F rp = ((cos2 * a2b2 + sin4) - 2.f * a * cosThetaI * sin2) / ((cos2 * a2b2 + sin4) + 2.f * a * cosThetaI * sin2);
    return 0.5f * (rs + rs * rp);
}

template<typename F>
FALCOR_VECTOR_INLINE vector<F, 3> evalFresnelConductor(const vector<F, 3>& eta, const vector<F, 3>& k, const F& cosThetaI)
{
    return vector<F, 3>(evalFresnelConductor(eta.x(), k.x(), cosThetaI), evalFresnelConductor(eta.y(), k.y(), cosThetaI),
                        evalFresnelConductor(eta.z(), k.z(), cosThetaI));
}
} // namespace falcor
