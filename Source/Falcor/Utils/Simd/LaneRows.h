#pragma once
// Rows of a numpy-style array into lanes: how the `_lanes_*` test hooks feed a lane kernel W rows
// at a time.
#include "Utils/Math/Vector.h"
#include "Utils/Simd/Lane.h"
#include <cstddef>

namespace falcor
{
/// Rows [first, first + W) of a row-major (count, N) float array, one per lane. Lanes past
/// `count` read row `first` (callers mask them off or do not store them).
template<typename F, int N>
vector<F, N> loadLaneRows(const float* rows, size_t first, size_t count)
{
    vector<F, N> r;
    for (int i = 0; i < kLaneWidth<F>; ++i)
    {
        const size_t row = first + i < count ? first + i : first;
        for (int c = 0; c < N; ++c)
            r[c].set(i, rows[row * N + c]);
    }
    return r;
}
} // namespace falcor
