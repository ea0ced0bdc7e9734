#pragma once
#include "Utils/Math/MathHelpers.h"
#include "Utils/Simd/Lane.h"
#include <algorithm>
#include <cmath>

// The isotropic GGX (Trowbridge-Reitz) microfacet distribution with alpha = roughness²: the
// normal distribution D, Smith's masking, and sampling of the visible normals. Per lane when F
// is a lane type.
namespace falcor
{
/// D(h) for a half vector at cos(theta_h) = cosTheta.
template<typename F>
FALCOR_VECTOR_INLINE F evalNdfGGX(const F& alpha, const std::type_identity_t<F>& cosTheta)
{
    const F a2 = alpha * alpha;
    const F d = (cosTheta * a2 - cosTheta) * cosTheta + 1.f;
    return a2 / (d * d * kPi);
}

/// tan²(theta) for a direction at cos(theta) = cosTheta.
template<typename F>
FALCOR_VECTOR_INLINE F tanThetaSqr(const F& cosTheta)
{
    const F cosThetaSqr = cosTheta * cosTheta;
    return max(1.f - cosThetaSqr, F(0.f)) / cosThetaSqr;
}

/// Smith's Λ for a direction at cos(theta) = cosTheta (upper hemisphere).
template<typename F>
FALCOR_VECTOR_INLINE F evalLambdaGGX(const F& alphaSqr, const std::type_identity_t<F>& cosTheta)
{
    const MaskOf<F> below = cosTheta <= 0.f;
    if (all(below))
        return F(0.f);
    return select(below, F(0.f), 0.5f * (-1.f + sqrt(1.f + alphaSqr * tanThetaSqr(cosTheta))));
}

/// Smith's G1 = 1 / (1 + Λ).
template<typename F>
FALCOR_VECTOR_INLINE F evalG1GGX(const F& alphaSqr, const std::type_identity_t<F>& cosTheta)
{
    const MaskOf<F> below = cosTheta <= 0.f;
    if (all(below))
        return F(0.f);
    return select(below, F(0.f), 2.f / (1.f + sqrt(1.f + alphaSqr * tanThetaSqr(cosTheta))));
}

/// Height-correlated masking-shadowing G2 = 1 / (1 + Λi + Λo).
template<typename F>
FALCOR_VECTOR_INLINE F evalMaskingSmithGGXCorrelated(const F& alpha, const std::type_identity_t<F>& cosThetaI,
                                                     const std::type_identity_t<F>& cosThetaO)
{
    const F alphaSqr = alpha * alpha;
    return 1.f / (1.f + evalLambdaGGX(alphaSqr, cosThetaI) + evalLambdaGGX(alphaSqr, cosThetaO));
}

/// Density of visible normals D_wi(h) = G1(wi) · D(h) · max(0, wi·h) / wi.z.
template<typename F>
FALCOR_VECTOR_INLINE F evalPdfGGX_VNDF(const F& alpha, const vector<F, 3>& wi, const vector<F, 3>& h)
{
    return evalG1GGX(alpha * alpha, wi.z()) * evalNdfGGX(alpha, h.z()) * max(F(0.f), dot(wi, h)) / wi.z();
}

/// A visible normal for view wi, by sampling a spherical cap in the stretched configuration
/// (Dupuy and Benyoub 2023); pdf as evalPdfGGX_VNDF.
template<typename F>
FALCOR_VECTOR_INLINE vector<F, 3> sampleGGX_VNDF(const F& alpha, const vector<F, 3>& wi, const vector<F, 2>& u, F& pdf)
{
    using F3 = vector<F, 3>;
    const F3 vh = normalize(F3(alpha * wi.x(), alpha * wi.y(), wi.z()));
    const F phi = 2.f * kPi * u.x();
    const F z = mapLanes(1.f - u.y(), 1.f + vh.z(), -vh.z(), [](float a, float b, float c) { return std::fma(a, b, c); });
    const F sinTheta = sqrt(saturate(1.f - z * z));
    const F cosPhi = mapLanes(phi, [](float a) { return std::cos(a); }), sinPhi = mapLanes(phi, [](float a) { return std::sin(a); });
    const F3 nh = F3(sinTheta * cosPhi, sinTheta * sinPhi, z) + vh;
    const F3 h = normalize(F3(alpha * nh.x(), alpha * nh.y(), nh.z()));
    pdf = evalPdfGGX_VNDF(alpha, wi, h);
    return h;
}
} // namespace falcor

namespace falcor
{
/// Fitted directional albedo of the GGX BRDF (with height-correlated masking) for reflectance
/// at normal incidence f0: f0 · scale + bias (Ray Tracing Gems ch. 32, eq. 4; the fit Falcor
/// uses for its specular guide buffer).
inline float3 approxSpecularIntegralGGX(const float3& f0, float alpha, float cosTheta)
{
    cosTheta = std::abs(cosTheta);
    const float x[4] = {1.f, cosTheta, cosTheta * cosTheta, cosTheta * cosTheta * cosTheta};
    const float y[4] = {1.f, alpha, alpha * alpha, alpha * alpha * alpha};
    // Rational fits in (cosθ, α); each term is Σ row(M)·X · Y over the chosen powers.
    auto bilinear2 = [&](const float m[4]) { return (m[0] * x[0] + m[1] * x[1]) * y[0] + (m[2] * x[0] + m[3] * x[1]) * y[1]; };
    auto cubic3 = [&](const float m[9], int xi[3]) {
        const int yi[3] = {0, 1, 3};
        float sum = 0.f;
        for (int r = 0; r < 3; ++r)
            sum += (m[3 * r] * x[xi[0]] + m[3 * r + 1] * x[xi[1]] + m[3 * r + 2] * x[xi[2]]) * y[yi[r]];
        return sum;
    };
    constexpr float M1[4] = {0.995367f, -1.38839f, -0.24751f, 1.97442f};
    constexpr float M2[9] = {1.0f, 2.68132f, 52.366f, 16.0932f, -3.98452f, 59.3013f, -5.18731f, 255.259f, 2544.07f};
    constexpr float M3[4] = {-0.0564526f, 3.82901f, 16.91f, -11.0303f};
    constexpr float M4[9] = {1.0f, 4.11118f, -1.37886f, 19.3254f, -28.9947f, 16.9514f, 0.545386f, 96.0994f, -79.4492f};
    int xyw[3] = {0, 1, 3}, xzw[3] = {0, 2, 3};
    float bias = bilinear2(M1) / cubic3(M2, xyw);
    const float scale = bilinear2(M3) / cubic3(M4, xzw);
    // Falcor's guard for a specular reflectance of 0.
    bias *= saturate((f0.x() + f0.y() + f0.z()) / 3.f * 50.f);
    return f0 * std::max(0.f, scale) + float3(std::max(0.f, bias));
}
} // namespace falcor
