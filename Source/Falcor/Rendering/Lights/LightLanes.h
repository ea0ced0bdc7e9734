#pragma once
// What the light samplers' lane-generic code shares: running a scalar function lane by lane
// (texture lookups, the LightBVH sampler) for F = FloatLanes<W>, and the lane streams it needs.
// For F = float every helper is the plain scalar statement. (Draws made only by the paths that
// would draw, sampleNext1DWhere, are the sample generators': Utils/Sampling/SampleGeneratorHelpers.h.)
#include "Utils/Math/Vector.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"
#include "Utils/Simd/Lane.h"
#include <bit>
#include <type_traits>

namespace falcor::detail
{
/// Calls visit(i) for every lane i of `mask`, lowest first.
template<typename Mask, typename Visit>
FALCOR_LANE_INLINE void forEachLane(const Mask& mask, Visit&& visit)
{
    for (uint32_t bits = laneBits(mask); bits != 0; bits &= bits - 1)
        visit(std::countr_zero(bits));
}

/// Calls visit(i, stream) for every lane i of `mask` with lane i's stream of the lane generator
/// `sg` as a one-path generator, and makes lane i continue where visit left the stream. One path
/// (a bool mask): visit(0, sg) if mask.
template<typename SampleGenerator, typename Mask, typename Visit>
void forEachLaneStream(SampleGenerator& sg, const Mask& mask, Visit&& visit)
{
    if constexpr (std::is_same_v<Mask, bool>)
    {
        if (mask)
            visit(0, sg);
    }
    else
        forEachLane(mask, [&](int i) {
            auto stream = sg.lane(i);
            visit(i, stream);
            sg.setLane(i, stream);
        });
}

/// `fn` of one lane's arguments, lane by lane over `active` (the other lanes: zero). For a
/// one-lane F, active ? fn(args...) : zero. `fn` returns a float vector.
template<typename F, typename Fn, typename... Args>
FALCOR_LANE_INLINE auto perLane(const MaskOf<F>& active, Fn&& fn, const Args&... args)
{
    using Scalar = std::invoke_result_t<Fn, decltype(laneValue(args, 0))...>;
    constexpr int N = int(sizeof(Scalar) / sizeof(float));
    static_assert(std::is_same_v<Scalar, vector<float, N>>);
    vector<F, N> r(F(0.f));
    forEachLane(active, [&](int i) { setLaneValue(r, i, fn(laneValue(args, i)...)); });
    return r;
}
} // namespace falcor::detail
