#pragma once
#include "Utils/Math/MathHelpers.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"
#include <cmath>
#include <limits>

namespace falcor
{
/// The anisotropic GGX distribution of the PBRT materials (alpha per tangent axis, pbrt-v4's
/// TrowbridgeReitzDistribution as Falcor's AnisotropicGGX): D, Smith masking, and sampling of
/// the normals visible from a direction. Directions are local; functions treat w and -w alike
/// where the math allows (masking), so they serve both sides of a two-sided interface. Written
/// once over F: float (AnisotropicGGX) or FloatLanes<W> (one distribution per lane).
template<typename F>
struct AnisotropicGGXT
{
    using F2 = vector<F, 2>;
    using F3 = vector<F, 3>;

    F2 alpha{0.f, 0.f};

    /// So smooth it is better treated as a perfect mirror or window.
    MaskOf<F> isSingular() const { return alpha.x() < 1e-3f && alpha.y() < 1e-3f; }
    F getIsotropicRoughness() const { return max(alpha.x(), alpha.y()); }

    /// Smith Λ(w), symmetric in w.
    F smithLambda(const F3& w) const
    {
        const F cos2 = w.z() * w.z(), sin2 = max(1.f - cos2, F(0.f));
        const F tan2 = sin2 / cos2;
        const MaskOf<F> grazing = isInf(tan2);
        if (all(grazing))
            return F(0.f);
        const F alpha2 = select(sin2 == 0.f, alpha.x() * alpha.x(),
                                (w.x() * w.x() * alpha.x() * alpha.x() + w.y() * w.y() * alpha.y() * alpha.y()) / sin2);
        return select(grazing, F(0.f), 0.5f * (sqrt(1.f + alpha2 * tan2) - 1.f));
    }
    F G1(const F3& w) const { return 1.f / (1.f + smithLambda(w)); }
    /// Height-correlated masking-shadowing (for reflection; the PBRT materials use it for refraction too).
    F G2(const F3& wo, const F3& wi) const { return 1.f / (1.f + smithLambda(wo) + smithLambda(wi)); }

    F evalNDF(const F3& h) const
    {
        const F cos2 = h.z() * h.z(), sin2 = max(1.f - cos2, F(0.f));
        const F tan2 = sin2 / cos2;
        const MaskOf<F> zero = isInf(tan2) || cos2 * cos2 < 1e-16f;
        if (all(zero))
            return F(0.f);
        const F e = select(sin2 == 0.f, F(0.f),
                           tan2 * (h.x() * h.x() / (alpha.x() * alpha.x()) + h.y() * h.y() / (alpha.y() * alpha.y())) / sin2);
        return select(zero, F(0.f), 1.f / (kPi * alpha.x() * alpha.y() * cos2 * cos2 * (1.f + e) * (1.f + e)));
    }

    /// D_w(h) = G1(w) · |w·h| · D(h) / |w.z|.
    F evalVNDF(const F3& w, const F3& h) const
    {
        return select(w.z() == 0.f, F(0.f), G1(w) * abs(dot(w, h)) * evalNDF(h) / abs(w.z()));
    }

    /// A normal visible from w (Heitz 2018, by projecting a disc sample onto the stretched
    /// hemisphere), in the upper hemisphere; density evalVNDF(w, h). Draws two numbers, in the
    /// lanes of `active` only (the others get an unspecified normal).
    template<typename SampleGenerator>
    F3 sample(const F3& w, SampleGenerator& sg, const MaskOf<F>& active = true) const
    {
        // The rare sides (w below the surface, along the normal) only where some lane takes them.
        F3 wh = normalize(F3(alpha.x() * w.x(), alpha.y() * w.y(), w.z()));
        const MaskOf<F> below = wh.z() < 0.f;
        if (any(below))
            wh = select(below, -wh, wh);
        const MaskOf<F> tilted = wh.x() * wh.x() + wh.y() * wh.y() > 0.f;
        F3 t1 = normalize(F3(-wh.y(), wh.x(), F(0.f)));
        if (!all(tilted))
            t1 = select(tilted, t1, F3(F(1.f), F(0.f), F(0.f)));
        const F3 t2 = cross(wh, t1);
        const F r = sqrt(sampleNext1D(sg, active));
        const F phi = 2.f * kPi * sampleNext1D(sg, active);
        const F p1 = r * mapLanes(phi, [](float a) { return std::cos(a); });
        const F s = 0.5f * (1.f + wh.z());
        const F p2 = (1.f - s) * sqrt(1.f - p1 * p1) + s * r * mapLanes(phi, [](float a) { return std::sin(a); });
        const F3 nh = t1 * p1 + t2 * p2 + wh * sqrt(max(F(0.f), 1.f - p1 * p1 - p2 * p2));
        return normalize(F3(alpha.x() * nh.x(), alpha.y() * nh.y(), max(F(0.f), nh.z())));
    }

private:
    static MaskOf<F> isInf(const F& x) { return abs(x) == std::numeric_limits<float>::infinity(); }
};
using AnisotropicGGX = AnisotropicGGXT<float>;
} // namespace falcor
