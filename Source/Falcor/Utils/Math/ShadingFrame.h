#pragma once
#include "Utils/Math/Vector.h"
#include <cmath>
#include <cstdint>

namespace falcor
{
/// A unit vector orthogonal to `u` (Falcor's perp_stark).
inline float3 perpStark(const float3& u)
{
    const float3 a = abs(u);
    const uint32_t uyx = (a.x() - a.y()) < 0.f ? 1 : 0;
    const uint32_t uzx = (a.x() - a.z()) < 0.f ? 1 : 0;
    const uint32_t uzy = (a.y() - a.z()) < 0.f ? 1 : 0;
    const uint32_t xm = uyx & uzx;
    const uint32_t ym = (1 ^ xm) & uzy;
    const uint32_t zm = 1 ^ (xm | ym);
    return normalize(cross(u, float3(float(xm), float(ym), float(zm))));
}

/// Orthonormal tangent frame in world space (Falcor's ShadingFrame).
struct ShadingFrame
{
    float3 T{1.f, 0.f, 0.f}, B{0.f, 1.f, 0.f}, N{0.f, 0.f, 1.f};

    /// Frame around `normal` whose tangent lies in the plane of the normal and `tangentW.xyz`;
    /// `tangentW.w` (±1) gives the bitangent's side. Assumes the tangent is usable.
    static ShadingFrame fromNormalTangent(const float3& normal, const float4& tangentW)
    {
        ShadingFrame f;
        f.N = normalize(normal);
        f.T = normalize(tangentW.xyz() - f.N * dot(tangentW.xyz(), f.N));
        f.B = cross(f.N, f.T) * tangentW.w();
        return f;
    }

    /// As above, but invents a tangent (and reports `valid` = false) when the given one has no
    /// sign, zero length, NaNs or lies (almost) along the normal.
    static ShadingFrame createSafe(const float3& normal, const float4& tangentW, bool& valid)
    {
        ShadingFrame f;
        f.N = normalize(normal);
        const float NdotT = dot(tangentW.xyz(), f.N);
        valid = std::fabs(tangentW.w()) == 1.f && dot(tangentW.xyz(), tangentW.xyz()) > 0.f && std::fabs(NdotT) < 0.9999f;
        if (valid)
        {
            f.T = normalize(tangentW.xyz() - f.N * NdotT);
            f.B = cross(f.N, f.T) * tangentW.w();
        }
        else
        {
            f.T = perpStark(f.N);
            f.B = cross(f.N, f.T);
        }
        return f;
    }

    // Inlined: every BSDF call goes through them.
    FALCOR_VECTOR_INLINE float3 fromLocal(const float3& v) const { return T * v.x() + B * v.y() + N * v.z(); }
    FALCOR_VECTOR_INLINE float3 toLocal(const float3& v) const { return float3(dot(v, T), dot(v, B), dot(v, N)); }
};
} // namespace falcor
