#pragma once
#include "Utils/Math/Vector.h"
#include "Utils/Simd/Lane.h"
#include <algorithm>
#include <cmath>

namespace falcor
{
/// Schlick's approximation, generalized to any reflectance f90 at grazing angles. Per lane when
/// F is a lane type.
template<typename F>
FALCOR_VECTOR_INLINE F evalFresnelSchlick(const F& f0, const std::type_identity_t<F>& f90, const std::type_identity_t<F>& cosTheta)
{
    const F m = max(1.f - cosTheta, F(0.f));
    const F m2 = m * m;
    return f0 + (f90 - f0) * (m2 * m2 * m);
}

template<typename F>
FALCOR_VECTOR_INLINE vector<F, 3> evalFresnelSchlick(const vector<F, 3>& f0, const std::type_identity_t<F>& f90,
                                                     const std::type_identity_t<F>& cosTheta)
{
    const F m = max(1.f - cosTheta, F(0.f));
    const F m2 = m * m;
    return f0 + (vector<F, 3>(f90) - f0) * (m2 * m2 * m);
}

/// Unpolarized Fresnel reflectance of a dielectric interface; eta = etaI / etaT. A negative
/// cosThetaI means the ray arrives from the other side. cosThetaT is 0 under total internal
/// reflection. Per lane when F is a lane type.
template<typename F>
FALCOR_VECTOR_INLINE F evalFresnelDielectric(F eta, F cosThetaI, F& cosThetaT)
{
    const MaskOf<F> fromBelow = cosThetaI < 0.f;
    if (any(fromBelow))
    {
        eta = select(fromBelow, 1.f / eta, eta);
        cosThetaI = select(fromBelow, -cosThetaI, cosThetaI);
    }
    const F sinThetaTSq = eta * eta * (1.f - cosThetaI * cosThetaI);
    const MaskOf<F> totalInternal = sinThetaTSq > 1.f;
    if (all(totalInternal))
    {
        cosThetaT = F(0.f);
        return F(1.f);
    }
    cosThetaT = sqrt(1.f - sinThetaTSq);
    const F rs = (eta * cosThetaI - cosThetaT) / (eta * cosThetaI + cosThetaT);
    const F rp = (eta * cosThetaT - cosThetaI) / (eta * cosThetaT + cosThetaI);
    const F R = 0.5f * (rs * rs + rp * rp);
    if (any(totalInternal))
    {
        cosThetaT = select(totalInternal, F(0.f), cosThetaT);
        return select(totalInternal, F(1.f), R);
    }
    return R;
}

template<typename F>
FALCOR_VECTOR_INLINE F evalFresnelDielectric(const F& eta, const std::type_identity_t<F>& cosThetaI)
{
    F cosThetaT;
    return evalFresnelDielectric(eta, F(cosThetaI), cosThetaT);
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
