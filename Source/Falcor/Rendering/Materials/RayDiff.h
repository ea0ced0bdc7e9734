#pragma once
// Ray differentials for texture level of detail (Igehy, "Tracing Ray Differentials", SIGGRAPH
// 1999), as Falcor carries them: the change of a ray's origin and direction from one pixel to
// the next in x and y, transferred to each hit and reflected or refracted with the surface.
#include "Utils/Math/Vector.h"
#include <cmath>
#include <numbers>

namespace falcor
{
struct RayDiff
{
    float3 dOdx{0.f, 0.f, 0.f}, dOdy{0.f, 0.f, 0.f};
    float3 dDdx{0.f, 0.f, 0.f}, dDdy{0.f, 0.f, 0.f};

    /// Transfer to the hit `t` along the (unit) direction D on a plane of normal N (Igehy eqs. 10, 12).
    RayDiff propagate(const float3& D, float t, const float3& N) const
    {
        float3 dodx = dOdx + dDdx * t, dody = dOdy + dDdy * t;
        const float rcpDN = 1.f / dot(D, N);
        dodx += D * (-dot(dodx, N) * rcpDN);
        dody += D * (-dot(dody, N) * rcpDN);
        return {dodx, dody, dDdx, dDdy};
    }
};

/// Direction differentials of a pinhole camera ray, the derivative of normalize(d) with d the
/// non-normalized direction through the pixel (Igehy eq. 8, for Falcor's camera rays).
inline void rayDirectionDifferentials(const float3& d, const float3& cameraU, const float3& cameraV, float2 frameDim, float3& dDdx,
                                      float3& dDdy)
{
    const float dd = dot(d, d);
    const float divd = 2.f / (dd * std::sqrt(dd));
    dDdx = (cameraU * dd - d * dot(d, cameraU)) * divd / frameDim.x();
    dDdy = -((cameraV * dd - d * dot(d, cameraV)) * divd / frameDim.y());
}

/// The hit triangle as differentials need it, in world space: two edges, the vertex normals
/// (not normalized, turned against the ray) and their interpolation at the hit.
struct RayDiffTriangle
{
    float3 edge01, edge02;
    float3 normals[3];
    float3 unnormalizedN;
    float2 texC[3];
};

/// Barycentric differentials (u, v weights of vertices 1 and 2) of the transferred differential
/// (Igehy, "Normal-Interpolated Triangles").
inline void barycentricDifferentials(const RayDiff& rd, const float3& edge01, const float3& edge02, const float3& faceNormal, float2& dBarydx,
                                     float2& dBarydy)
{
    const float3 Nu = cross(edge02, faceNormal), Nv = cross(edge01, faceNormal);
    const float3 Lu = Nu / dot(Nu, edge01), Lv = Nv / dot(Nv, edge02);
    dBarydx = float2(dot(Lu, rd.dOdx), dot(Lv, rd.dOdx));
    dBarydy = float2(dot(Lu, rd.dOdy), dot(Lv, rd.dOdy));
}

/// Differentials of a per-vertex value from barycentric differentials.
template<typename T>
inline void interpolateDifferentials(const float2& dBarydx, const float2& dBarydy, const T values[3], T& dx, T& dy)
{
    const T delta1 = values[1] - values[0], delta2 = values[2] - values[0];
    dx = delta1 * dBarydx.x() + delta2 * dBarydx.y();
    dy = delta1 * dBarydy.x() + delta2 * dBarydy.y();
}

/// Differentials of the normalized interpolated normal.
inline void normalDifferentials(const RayDiffTriangle& tri, const float2& dBarydx, const float2& dBarydy, float3& dNdx, float3& dNdy)
{
    const float3& n = tri.unnormalizedN;
    const float NN = dot(n, n);
    const float rcpNN = 1.f / (NN * std::sqrt(NN));
    float3 dndx, dndy;
    interpolateDifferentials(dBarydx, dBarydy, tri.normals, dndx, dndy);
    dNdx = (dndx * NN - n * dot(n, dndx)) * rcpNN;
    dNdy = (dndy * NN - n * dot(n, dndy)) * rcpNN;
}

/// The differential of a mirror reflection about the unit normal N (Igehy eqs. 14, 15).
inline void reflectRayDifferential(RayDiff& rd, const float3& rayDir, const RayDiffTriangle& tri, const float3& N, const float2& dBarydx,
                                   const float2& dBarydy)
{
    float3 dNdx, dNdy;
    normalDifferentials(tri, dBarydx, dBarydy, dNdx, dNdy);
    const float dDNdx = dot(rd.dDdx, N) + dot(rayDir, dNdx), dDNdy = dot(rd.dDdy, N) + dot(rayDir, dNdy);
    const float DN = dot(rayDir, N);
    rd.dDdx = rd.dDdx - (dNdx * DN + N * dDNdx) * 2.f;
    rd.dDdy = rd.dDdy - (dNdy * DN + N * dDNdy) * 2.f;
}

/// Refracts the ray (unit direction, unit normal N against it, eta = etaI / etaT) and its
/// differential (Igehy eqs. 16-19); false under total internal reflection (nothing changed).
inline bool refractRayDifferential(RayDiff& rd, const float3& rayDir, const RayDiffTriangle& tri, const float3& N, const float2& dBarydx,
                                   const float2& dBarydy, float eta, float3& refracted)
{
    const float NdotD = dot(N, rayDir);
    const float k = eta * eta * (1.f - NdotD * NdotD);
    if (k > 1.f)
        return false;
    const float NdotDprime = std::sqrt(1.f - k);
    const float mu = eta * NdotD + NdotDprime;
    refracted = rayDir * eta - N * mu;
    float3 dNdx, dNdy;
    normalDifferentials(tri, dBarydx, dBarydy, dNdx, dNdy);
    const float dDNdx = dot(rd.dDdx, N) + dot(rayDir, dNdx), dDNdy = dot(rd.dDdy, N) + dot(rayDir, dNdy);
    const float dMu = eta * (1.f + eta * NdotD / NdotDprime);
    rd.dDdx = rd.dDdx * eta - (dNdx * mu + N * (dMu * dDNdx));
    rd.dDdy = rd.dDdy * eta - (dNdy * mu + N * (dMu * dDNdy));
    return true;
}

/// Level of a lat-long environment map of `height` texels seen with these direction
/// differentials (RTG ch. 21, as Falcor).
inline float environmentMapLod(const float3& dDdx, const float3& dDdy, uint32_t height)
{
    return std::log2(length(dDdx + dDdy) * float(height) * std::numbers::inv_pi_v<float>);
}
} // namespace falcor
