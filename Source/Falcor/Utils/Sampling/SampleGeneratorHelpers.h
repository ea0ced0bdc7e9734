#pragma once
#include "Utils/Math/Vector.h"
#include <cstdint>

// What Falcor's sample generators share: the pixel key they are seeded with and the mapping of
// 32 random bits to floats. A generator is any type with `uint32_t next()`.
namespace falcor
{
/// Bits of x at even positions, bits of y at odd positions (low 16 bits of each).
inline uint32_t interleave16(uint2 v)
{
    auto spread = [](uint32_t a) {
        a &= 0xffffu;
        a = (a | (a << 8)) & 0x00ff00ffu;
        a = (a | (a << 4)) & 0x0f0f0f0fu;
        a = (a | (a << 2)) & 0x33333333u;
        return (a | (a << 1)) & 0x55555555u;
    };
    return spread(v.x()) | (spread(v.y()) << 1);
}

/// Uniform in [0, 1) from the upper 24 bits of the next number.
template<typename SampleGenerator>
float sampleNext1D(SampleGenerator& sg)
{
    return float(sg.next() >> 8) * (1.f / 16777216.f);
}

template<typename SampleGenerator>
float2 sampleNext2D(SampleGenerator& sg)
{
    const float x = sampleNext1D(sg);
    return float2(x, sampleNext1D(sg));
}
} // namespace falcor
