#pragma once
#include "Core/Macros.h"
#include "Utils/Math/MathHelpers.h"
#include "Utils/Simd/Lane.h"
#include <algorithm>
#include <cstdint>
#include <span>

namespace falcor
{
/// One bin of Walker's alias method: a uniformly chosen bin yields its own index with
/// probability `keep`, else `alias`.
struct AliasBin
{
    float keep = 1.f;
    uint32_t alias = 0;
};

/// Fills `bins` (one per weight) so that sampleAlias draws index i with probability
/// weights[i] / Σ weights (Vose's construction, in double). Weights must be finite and
/// non-negative with a positive sum.
FALCOR_API void buildAliasBins(std::span<const double> weights, std::span<AliasBin> bins);

/// The bins of `index` (per lane when F is a lane type).
template<typename F>
FALCOR_LANE_INLINE void gatherAliasBins(const AliasBin* bins, const UintOf<F>& index, F& keep, UintOf<F>& alias)
{
    if constexpr (kLaneWidth<F> == 1)
        keep = bins[index].keep, alias = bins[index].alias;
    else
        for (int k = 0; k < kLaneWidth<F>; ++k)
            keep.set(k, bins[index[k]].keep), alias.set(k, bins[index[k]].alias);
}

/// Draws an index from the n bins starting at bins[first] with one uniform number u in [0, 1), in
/// constant time (a binary search over a CDF takes a chain of dependent loads instead). The part
/// of u the choice leaves unused comes back in `u` as a fresh uniform number in [0, 1), with a
/// few bits fewer. Per lane when F is a lane type: lanes may draw from different tables (`first`).
template<typename F>
UintOf<F> sampleAlias(const AliasBin* bins, const UintOf<F>& first, uint32_t n, F& u)
{
    using Uint = UintOf<F>;
    const F scaled = u * float(n);
    const Uint i = min(mapLanes(scaled, [](float x) { return uint32_t(x); }), Uint(n - 1));
    const F f = min(scaled - mapLanes(i, [](uint32_t x) { return float(x); }), F(kOneMinusUlp));
    F keep;
    Uint alias;
    gatherAliasBins<F>(bins, first + i, keep, alias);
    const auto kept = f < keep;
    // Both rescalings in every lane: the one a lane does not take may divide by zero, harmlessly.
    u = select(kept, f / keep, min((f - keep) / (1.f - keep), F(kOneMinusUlp)));
    return select(kept, i, alias);
}

inline uint32_t sampleAlias(std::span<const AliasBin> bins, float& u)
{
    return sampleAlias<float>(bins.data(), 0u, uint32_t(bins.size()), u);
}
} // namespace falcor
