#pragma once
#include "Utils/Math/Vector.h"
#include "Utils/Simd/Lane.h"
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>

// Warps from the unit square to the shapes light transport samples (Falcor's MathHelpers), each
// with the density it produces.
namespace falcor
{
constexpr float kPi = std::numbers::pi_v<float>;
constexpr float kInvPi = std::numbers::inv_pi_v<float>;
/// The largest float below 1: where a uniform number in [0, 1) is clamped to stay below one.
constexpr float kOneMinusUlp = 0x1.fffffep-1f;

/// Per lane when F is a lane type (Utils/Simd/Lane.h).
template<typename F>
auto anyPositive(const vector<F, 3>& v)
{
    return v.x() > 0.f || v.y() > 0.f || v.z() > 0.f;
}

inline float maxComponent(const float3& v)
{
    return std::max(v.x(), std::max(v.y(), v.z()));
}

/// Whether a squared length is usable as is: finite and not below the smallest normal float
/// (false for lengths beyond ~1e±19, for zero and for NaN). Per lane when F is a lane type.
template<typename F>
FALCOR_VECTOR_INLINE MaskOf<F> isNormalFinite(const F& lengthSq)
{
    // One unsigned compare of the bits: exponents 1..254 with the sign bit clear.
    const UintOf<F> bits = mapLanes(lengthSq, [](float x) { return std::bit_cast<uint32_t>(x); });
    return bits - 0x00800000u < 0x7F000000u;
}

/// `r`, with each lane outside `keep` replaced by `scalarFn` of that lane's `args`: the rare path
/// of a lane-generic function, written once for one lane and run lane by lane. For F = float,
/// `keep ? r : scalarFn(args...)`.
template<typename F, typename Fn, typename... Args>
FALCOR_VECTOR_INLINE vector<F, 3> perLaneFallback(const MaskOf<F>& keep, const vector<F, 3>& r, Fn&& scalarFn, const Args&... args)
{
    if constexpr (kLaneWidth<F> == 1)
        return keep ? r : scalarFn(args...);
    else
    {
        vector<F, 3> out = r;
        for (int i = 0; i < kLaneWidth<F>; ++i)
            if (!keep[i])
                setLaneValue(out, i, scalarFn(laneValue(args, i)...));
        return out;
    }
}

/// normalize(v) for a v whose dot(v, v) overflows or underflows (scenes at scale 1e±20..30): v
/// divided by its largest absolute component first. Zero, inf and NaN give normalize's NaN. Out
/// of line: the rare path stays out of the shading code it guards.
[[gnu::cold, gnu::noinline]] inline float3 normalizeRescaled(const float3& v)
{
    const float largest = maxComponent(abs(v));
    if (!(largest > 0.f && largest <= std::numeric_limits<float>::max()))
        return v / length(v);
    const float3 w = v / largest;
    return w / length(w);
}

/// normalize(v), and a unit vector for any finite nonzero v, even where dot(v, v) overflows or
/// underflows. Usable squared lengths keep normalize's bits.
FALCOR_VECTOR_INLINE float3 normalizeAnyScale(const float3& v)
{
    const float lengthSq = dot(v, v);
    if (isNormalFinite(lengthSq)) [[likely]]
        return v / std::sqrt(lengthSq);
    return normalizeRescaled(v);
}

/// normalizeAnyScale(v), but v itself when it is zero (an invalid tangent stays zero). Per lane
/// when F is a lane type.
template<typename F>
FALCOR_VECTOR_INLINE vector<F, 3> safeNormalize(const vector<F, 3>& v)
{
    const F lengthSq = dot(v, v);
    const MaskOf<F> usable = isNormalFinite(lengthSq);
    const vector<F, 3> r = v / sqrt(lengthSq);
    if (all(usable)) [[likely]]
        return r;
    return perLaneFallback(usable, r, [](const float3& x) { return x == float3(0.f) ? x : normalizeRescaled(x); }, v);
}

/// crossAnyScale's rare path (out of line, as normalizeRescaled).
[[gnu::cold, gnu::noinline]] inline float3 crossRescaled(const float3& a, const float3& b, const float3& c)
{
    const float largestA = maxComponent(abs(a)), largestB = maxComponent(abs(b));
    return largestA > 0.f && largestB > 0.f ? cross(a / largestA, b / largestB) : c;
}

/// A vector along cross(a, b) that neither overflows nor underflows for edges of lengths up to
/// 1e±30: cross(a, b) itself when its squared length is usable, else the cross product of a and b
/// each divided by its largest absolute component (a positive factor: same direction).
/// Per lane when F is a lane type.
template<typename F>
FALCOR_VECTOR_INLINE vector<F, 3> crossAnyScale(const vector<F, 3>& a, const vector<F, 3>& b)
{
    const vector<F, 3> c = cross(a, b);
    const MaskOf<F> usable = isNormalFinite(dot(c, c));
    if (all(usable)) [[likely]]
        return c;
    return perLaneFallback(usable, c, crossRescaled, a, b, c);
}

/// Shirley-Chiu concentric map onto the unit disc (area-preserving, low distortion). Per lane
/// when F is a lane type.
template<typename F>
FALCOR_VECTOR_INLINE vector<F, 2> sampleDiskConcentric(const vector<F, 2>& u01)
{
    const vector<F, 2> u = u01 * F(2.f) - vector<F, 2>(F(1.f));
    const auto xMajor = abs(u.x()) > abs(u.y());
    const F r = select(xMajor, u.x(), u.y());
    const F ratio = select(xMajor, u.y(), u.x()) / r; // NaN at the centre, which keeps u.
    const F phi = select(xMajor, (kPi / 4.f) * ratio, (kPi / 2.f) - (kPi / 4.f) * ratio);
    const vector<F, 2> d(mapLanes(phi, [](float a) { return std::cos(a); }) * r, mapLanes(phi, [](float a) { return std::sin(a); }) * r);
    return select(u.x() == 0.f && u.y() == 0.f, u, d);
}

/// Cosine-weighted direction about +z by lifting the concentric disc; pdf = z / π.
template<typename F>
FALCOR_VECTOR_INLINE vector<F, 3> sampleCosineHemisphereConcentric(const vector<F, 2>& u, F& pdf)
{
    const vector<F, 2> d = sampleDiskConcentric(u);
    const F z = sqrt(max(F(0.f), 1.f - dot(d, d)));
    pdf = z * kInvPi;
    return vector<F, 3>(d.x(), d.y(), z);
}

/// Uniform direction on the unit sphere; pdf = 1 / 4π.
inline float3 sampleSphere(float2 u)
{
    const float z = 1.f - 2.f * u.x();
    const float r = std::sqrt(std::max(0.f, 1.f - z * z));
    const float phi = 2.f * kPi * u.y();
    return float3(r * std::cos(phi), r * std::sin(phi), z);
}

/// Uniform direction in the cone about +z with cos(half angle) = cosTheta; pdf = 1 / (2π(1 - cosTheta)).
inline float3 sampleCone(float2 u, float cosTheta)
{
    const float z = u.x() * (1.f - cosTheta) + cosTheta;
    const float r = std::sqrt(std::max(0.f, 1.f - z * z));
    const float phi = 2.f * kPi * u.y();
    return float3(r * std::cos(phi), r * std::sin(phi), z);
}

/// Uniform barycentrics over a triangle: weights of vertices (0, 1, 2).
inline float3 sampleTriangle(float2 u)
{
    const float su = std::sqrt(u.x());
    const float2 b(1.f - su, u.y() * su);
    return float3(1.f - b.x() - b.y(), b.x(), b.y());
}

/// Octahedral map of a unit direction onto [-1,1]² (not equal-area; Falcor's ndir_to_oct_snorm):
/// project onto |x|+|y|+|z| = 1, then fold the lower half over the diagonals.
inline float2 ndirToOctSnorm(const float3& n)
{
    const float invL1 = 1.f / (std::abs(n.x()) + std::abs(n.y()) + std::abs(n.z()));
    float2 p(n.x() * invL1, n.y() * invL1);
    if (n.z() < 0.f)
        p = float2((1.f - std::abs(p.y())) * (p.x() >= 0.f ? 1.f : -1.f), (1.f - std::abs(p.x())) * (p.y() >= 0.f ? 1.f : -1.f));
    return p;
}

/// The octahedral map onto [0,1]² (Falcor's ndir_to_oct_unorm).
inline float2 ndirToOctUnorm(const float3& n)
{
    return ndirToOctSnorm(n) * 0.5f + float2(0.5f);
}
} // namespace falcor
