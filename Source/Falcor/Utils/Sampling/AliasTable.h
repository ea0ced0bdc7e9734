#pragma once
#include "Core/Macros.h"
#include "Utils/Math/MathHelpers.h"
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

/// Draws an index from `bins` with one uniform number u in [0, 1), in constant time (a
/// binary search over a CDF takes a chain of dependent loads instead). The part of u the choice
/// leaves unused comes back in `u` as a fresh uniform number in [0, 1), with a few bits fewer.
inline uint32_t sampleAlias(std::span<const AliasBin> bins, float& u)
{
    const uint32_t n = uint32_t(bins.size());
    const float scaled = u * float(n);
    const uint32_t i = std::min(uint32_t(scaled), n - 1);
    const float f = std::min(scaled - float(i), kOneMinusUlp);
    const AliasBin& bin = bins[i];
    if (f < bin.keep)
    {
        u = f / bin.keep;
        return i;
    }
    u = std::min((f - bin.keep) / (1.f - bin.keep), kOneMinusUlp);
    return bin.alias;
}
} // namespace falcor
