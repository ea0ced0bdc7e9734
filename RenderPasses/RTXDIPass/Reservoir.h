#pragma once
#include "Utils/Math/Vector.h"
#include <cstdint>

namespace falcor
{
/// Where a light sample lives. Each kind has its own measure, shared by every pixel, so a sample
/// drawn for one pixel can be resampled at another without a Jacobian:
/// Triangle: area on an emissive triangle; Point: the light itself (counting);
/// Infinite: the light's own direction distribution (Le holds radiance / direction pdf);
/// Env: solid angle.
enum class LightKind : uint8_t
{
    None,
    Triangle,
    Point,
    Infinite,
    Env,
};

struct LightSample
{
    LightKind kind = LightKind::None;
    uint32_t index = 0;           ///< Emissive triangle or active analytic light.
    float3 posOrDir{0.f, 0.f, 0.f}; ///< Point on a triangle; direction towards an infinite light or the env map.
    float3 normal{0.f, 0.f, 0.f};   ///< Triangle's emitting side.
    float3 Le{0.f, 0.f, 0.f};       ///< Emitted radiance at the point (triangles, env), radiance / pdf (infinite).
};

/// Light arriving at a shading point from a light sample, in the sample's measure (`geometry` is
/// the area-to-solid-angle factor cosθ/d² for triangle points, 1 otherwise).
struct Incident
{
    float3 dir{0.f, 0.f, 0.f};
    float distance = 0.f;
    float3 Li{0.f, 0.f, 0.f};
    float geometry = 1.f;
};

/// A weighted reservoir (Bitterli et al. 2020): the sample kept, the sum of resampling weights,
/// the confidence M (candidates or merged history it stands for), its unbiased contribution weight
/// W and the target density it was chosen with, at its owner's surface.
struct Reservoir
{
    LightSample y;
    float wSum = 0.f;
    float M = 0.f;
    float W = 0.f;
    float targetPdf = 0.f;

    bool hasSample() const { return y.kind != LightKind::None && W > 0.f; }

    /// Streams one candidate with resampling weight w and target density p; u uniform in [0, 1).
    void stream(const LightSample& x, float w, float p, float u)
    {
        if (!(w > 0.f))
            return;
        wSum += w;
        if (u * wSum < w)
            y = x, targetPdf = p;
    }

    /// W = wSum / (normalization · p̂(y)); no sample when nothing positive was streamed.
    void finalize(float normalization)
    {
        W = (targetPdf > 0.f && normalization > 0.f) ? wSum / (normalization * targetPdf) : 0.f;
        if (W == 0.f)
            y = LightSample{}, targetPdf = 0.f;
    }
};
} // namespace falcor
