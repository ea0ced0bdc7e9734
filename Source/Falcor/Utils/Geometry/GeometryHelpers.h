#pragma once
#include "Utils/Math/Vector.h"
#include "Utils/Simd/Lane.h"
#include <bit>
#include <cmath>
#include <cstdint>

namespace falcor
{
/// A ray origin just off the surface at `pos` on the side of `n` (the geometric normal), far
/// enough that the new ray does not hit the surface it leaves. Near the world origin it offsets
/// in floating point; elsewhere it moves each coordinate a fixed number of ULPs, which scales
/// with the coordinate (Wächter and Binder, Ray Tracing Gems ch. 6; Falcor's computeRayOrigin).
/// Per lane when F is a lane type (Utils/Simd/Lane.h).
template<typename F>
vector<F, 3> computeRayOrigin(const vector<F, 3>& pos, const vector<F, 3>& n)
{
    constexpr float kOrigin = 1.f / 16.f;
    constexpr float kFloatScale = 3.f / 65536.f;
    constexpr float kIntScale = 3.f * 256.f;
    vector<F, 3> result;
    for (int i = 0; i < 3; ++i)
    {
        const IntOf<F> offset = mapLanes(kIntScale * n[i], [](float x) { return int32_t(x); });
        const IntOf<F> bits = mapLanes(pos[i], [](float x) { return std::bit_cast<int32_t>(x); });
        const F moved = mapLanes(bits + select(pos[i] < 0.f, -offset, offset), [](int32_t x) { return std::bit_cast<float>(x); });
        result[i] = select(abs(pos[i]) < kOrigin, pos[i] + kFloatScale * n[i], moved);
    }
    return result;
}
} // namespace falcor
