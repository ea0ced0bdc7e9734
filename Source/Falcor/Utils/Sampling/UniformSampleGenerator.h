#pragma once
#include "Utils/Sampling/SampleGeneratorHelpers.h"
#include <cstdint>

namespace falcor
{
/// Falcor's default per-pixel pseudorandom generator (SAMPLE_GENERATOR_UNIFORM): xoshiro128**
/// seeded with two SplitMix64 outputs of (Morton-interleaved pixel, sample number). Giving it the
/// same pixel and sample number as Falcor's shaders gives the same numbers.
class UniformSampleGenerator
{
public:
    UniformSampleGenerator(uint2 pixel, uint32_t sampleNumber)
    {
        uint64_t splitMix = (uint64_t(sampleNumber) << 32) | interleave16(pixel);
        const uint64_t s0 = nextSplitMix64(splitMix), s1 = nextSplitMix64(splitMix);
        mState[0] = uint32_t(s0), mState[1] = uint32_t(s0 >> 32);
        mState[2] = uint32_t(s1), mState[3] = uint32_t(s1 >> 32);
    }

    /// The generators of pixels (x0 + i, y), i < count, for one sample number (the interface the
    /// tiny generator batches).
    static void createRow(uint32_t x0, uint32_t y, uint32_t count, uint32_t sampleNumber, UniformSampleGenerator* out)
    {
        for (uint32_t i = 0; i < count; ++i)
            out[i] = UniformSampleGenerator(uint2(x0 + i, y), sampleNumber);
    }

    /// Next 32 random bits.
    uint32_t next()
    {
        const uint32_t result = rotl(mState[0] * 5u, 7) * 9u;
        const uint32_t t = mState[1] << 9;
        mState[2] ^= mState[0];
        mState[3] ^= mState[1];
        mState[1] ^= mState[2];
        mState[0] ^= mState[3];
        mState[2] ^= t;
        mState[3] = rotl(mState[3], 11);
        return result;
    }

    float next1D() { return sampleNext1D(*this); }
    float2 next2D() { return sampleNext2D(*this); }

private:
    static uint32_t rotl(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }

    static uint64_t nextSplitMix64(uint64_t& state)
    {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }

    uint32_t mState[4];
};
} // namespace falcor
