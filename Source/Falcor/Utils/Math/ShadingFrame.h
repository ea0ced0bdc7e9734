#pragma once
#include "Utils/Math/Vector.h"
#include "Utils/Simd/Lane.h"

// Written once over a float type F: `float` (one path) or `FloatLanes<W>` (W paths, one per lane,
// each with the bits the scalar code gives; see Utils/Simd/Lane.h).
namespace falcor
{
/// A unit vector orthogonal to `u` (Falcor's perp_stark).
template<typename F>
vector<F, 3> perpStark(const vector<F, 3>& u)
{
    const vector<F, 3> a = abs(u);
    const MaskOf<F> uyx = (a.x() - a.y()) < 0.f;
    const MaskOf<F> uzx = (a.x() - a.z()) < 0.f;
    const MaskOf<F> uzy = (a.y() - a.z()) < 0.f;
    const MaskOf<F> xm = uyx && uzx;
    const MaskOf<F> ym = !xm && uzy;
    const MaskOf<F> zm = !(xm || ym);
    const F one(1.f), zero(0.f);
    return normalize(cross(u, vector<F, 3>(select(xm, one, zero), select(ym, one, zero), select(zm, one, zero))));
}

/// Orthonormal tangent frame in world space (Falcor's ShadingFrame).
template<typename F>
struct ShadingFrameT
{
    using F3 = vector<F, 3>;
    using F4 = vector<F, 4>;

    F3 T{1.f, 0.f, 0.f}, B{0.f, 1.f, 0.f}, N{0.f, 0.f, 1.f};

    /// Frame around `normal` whose tangent lies in the plane of the normal and `tangentW.xyz`;
    /// `tangentW.w` (±1) gives the bitangent's side. Assumes the tangent is usable.
    static ShadingFrameT fromNormalTangent(const F3& normal, const F4& tangentW)
    {
        ShadingFrameT f;
        f.N = normalize(normal);
        f.T = normalize(tangentW.xyz() - f.N * dot(tangentW.xyz(), f.N));
        f.B = cross(f.N, f.T) * tangentW.w();
        return f;
    }

    /// As above, but invents a tangent (and reports `valid` = false) when the given one has no
    /// sign, zero length, NaNs or lies (almost) along the normal.
    static ShadingFrameT createSafe(const F3& normal, const F4& tangentW, MaskOf<F>& valid)
    {
        ShadingFrameT f;
        f.N = normalize(normal);
        const F3 t = tangentW.xyz();
        const F NdotT = dot(t, f.N);
        valid = abs(tangentW.w()) == 1.f && dot(t, t) > 0.f && abs(NdotT) < 0.9999f;
        // Each side only where some lane takes it: one path computes one side, as before lanes.
        if (any(valid))
        {
            f.T = normalize(t - f.N * NdotT);
            f.B = cross(f.N, f.T) * tangentW.w();
        }
        if (!all(valid))
        {
            const F3 invented = perpStark(f.N);
            f.T = select(valid, f.T, invented);
            f.B = select(valid, f.B, cross(f.N, invented));
        }
        return f;
    }

    // Inlined: every BSDF call goes through them.
    FALCOR_VECTOR_INLINE F3 fromLocal(const F3& v) const { return T * v.x() + B * v.y() + N * v.z(); }
    FALCOR_VECTOR_INLINE F3 toLocal(const F3& v) const { return F3(dot(v, T), dot(v, B), dot(v, N)); }
};

using ShadingFrame = ShadingFrameT<float>;
} // namespace falcor
