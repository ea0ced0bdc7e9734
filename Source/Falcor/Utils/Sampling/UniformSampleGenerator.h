#pragma once
#include "Utils/Sampling/SampleGeneratorHelpers.h"
#include <cstdint>
#include <type_traits>

namespace falcor
{
template<typename U>
class UniformSampleGeneratorT;

/// Falcor's default per-pixel pseudorandom generator (SAMPLE_GENERATOR_UNIFORM): xoshiro128**
/// seeded with two SplitMix64 outputs of (Morton-interleaved pixel, sample number). Giving it the
/// same pixel and sample number as Falcor's shaders gives the same numbers.
using UniformSampleGenerator = UniformSampleGeneratorT<uint32_t>;

/// The generator over `U` = uint32_t (one stream: UniformSampleGenerator) or UintLanes<W> (W
/// independent streams, one per lane, each giving the numbers of the scalar generator it was
/// gathered from).
template<typename U>
class UniformSampleGeneratorT : public SampleGeneratorLanes<UniformSampleGeneratorT<U>, UniformSampleGenerator>
{
public:
    using Scalar = UniformSampleGenerator;
    using Mask = decltype(U{} < U{});

    UniformSampleGeneratorT(uint2 pixel, uint32_t sampleNumber)
        requires std::is_same_v<U, uint32_t>
    {
        uint64_t splitMix = (uint64_t(sampleNumber) << 32) | interleave16(pixel);
        const uint64_t s0 = nextSplitMix64(splitMix), s1 = nextSplitMix64(splitMix);
        mState[0] = uint32_t(s0), mState[1] = uint32_t(s0 >> 32);
        mState[2] = uint32_t(s1), mState[3] = uint32_t(s1 >> 32);
    }

    /// The generators of pixels (x0 + i, y), i < count, for one sample number (the interface the
    /// tiny generator batches).
    static void createRow(uint32_t x0, uint32_t y, uint32_t count, uint32_t sampleNumber, UniformSampleGenerator* out)
        requires std::is_same_v<U, uint32_t>
    {
        for (uint32_t i = 0; i < count; ++i)
            out[i] = UniformSampleGenerator(uint2(x0 + i, y), sampleNumber);
    }

    /// Next 32 random bits.
    U next()
    {
        const U result = output(mState);
        step(mState);
        return result;
    }

    /// Advances only the lanes of `active`; the others keep their state.
    U next(const Mask& active)
    {
        const U result = output(mState);
        U advanced[kWords] = {mState[0], mState[1], mState[2], mState[3]};
        step(advanced);
        for (int k = 0; k < kWords; ++k)
            mState[k] = select(active, advanced[k], mState[k]);
        return result;
    }

    float next1D()
        requires std::is_same_v<U, uint32_t>
    {
        return sampleNext1D(*this);
    }
    float2 next2D()
        requires std::is_same_v<U, uint32_t>
    {
        return sampleNext2D(*this);
    }

private:
    template<typename>
    friend class UniformSampleGeneratorT;
    template<typename, typename>
    friend struct SampleGeneratorLanes;

    static constexpr int kWords = 4;

    UniformSampleGeneratorT() = default;

    static U rotl(const U& x, int k) { return (x << k) | (x >> (32 - k)); }

    static U output(const U (&s)[kWords]) { return rotl(s[0] * 5u, 7) * 9u; }

    static void step(U (&s)[kWords])
    {
        const U t = s[1] << 9;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = rotl(s[3], 11);
    }

    static uint64_t nextSplitMix64(uint64_t& state)
    {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }

    U mState[kWords]{};
};
} // namespace falcor
