#pragma once
#include "Utils/Math/Vector.h"
#include <bit>
#include <cmath>
#include <cstdint>

namespace falcor
{
/// A ray origin just off the surface at `pos` on the side of `n` (the geometric normal), far
/// enough that the new ray does not hit the surface it leaves. Near the world origin it offsets
/// in floating point; elsewhere it moves each coordinate a fixed number of ULPs, which scales
/// with the coordinate (Wächter and Binder, Ray Tracing Gems ch. 6; Falcor's computeRayOrigin).
inline float3 computeRayOrigin(const float3& pos, const float3& n)
{
    constexpr float kOrigin = 1.f / 16.f;
    constexpr float kFloatScale = 3.f / 65536.f;
    constexpr float kIntScale = 3.f * 256.f;
    float3 result;
    for (int i = 0; i < 3; ++i)
    {
        const int32_t offset = int32_t(kIntScale * n[i]);
        const int32_t bits = std::bit_cast<int32_t>(pos[i]);
        const float moved = std::bit_cast<float>(bits + (pos[i] < 0.f ? -offset : offset));
        result[i] = std::abs(pos[i]) < kOrigin ? pos[i] + kFloatScale * n[i] : moved;
    }
    return result;
}
} // namespace falcor
