#pragma once
#include "Utils/Sampling/SampleGeneratorHelpers.h"
#include <cstdint>
#include <type_traits>

namespace falcor
{
template<typename U>
class TinyUniformSampleGeneratorT;

/// Falcor's SAMPLE_GENERATOR_TINY_UNIFORM (the PathTracer's default): a 32-bit LCG whose seed is
/// the TEA block cipher of (Morton-interleaved pixel, sample number). One word of state, so it
/// costs nothing to carry along a path; the same pixel and sample number give Falcor's numbers.
using TinyUniformSampleGenerator = TinyUniformSampleGeneratorT<uint32_t>;

/// The generator over `U` = uint32_t (one stream: TinyUniformSampleGenerator) or UintLanes<W>
/// (W independent streams, one per lane, each giving the numbers of the scalar generator it was
/// gathered from).
template<typename U>
class TinyUniformSampleGeneratorT : public SampleGeneratorLanes<TinyUniformSampleGeneratorT<U>, TinyUniformSampleGenerator>
{
public:
    using Scalar = TinyUniformSampleGenerator;
    using Mask = decltype(U{} < U{});

    TinyUniformSampleGeneratorT(uint2 pixel, uint32_t sampleNumber)
        requires std::is_same_v<U, uint32_t>
        : mState{interleave16(pixel)}
    {
        blockCipherTEA(mState[0], sampleNumber);
    }

    /// The generators of pixels (x0 + i, y), i < count, for one sample number, as the constructor
    /// makes them. Seeding is most of a short path's random-number cost; here the cipher runs on
    /// eight pixels at once.
    static void createRow(uint32_t x0, uint32_t y, uint32_t count, uint32_t sampleNumber, TinyUniformSampleGenerator* out)
        requires std::is_same_v<U, uint32_t>
    {
        for (uint32_t start = 0; start < count; start += kSeedLanes)
        {
            SeedLanes keys;
            for (uint32_t i = 0; i < kSeedLanes; ++i)
                keys.set(i, interleave16(uint2(x0 + start + i, y)));
            SeedLanes sampleNumbers(sampleNumber);
            blockCipherTEA(keys, sampleNumbers);
            for (uint32_t i = 0; i < kSeedLanes && start + i < count; ++i)
                out[start + i].mState[0] = keys[i];
        }
    }

    U next()
    {
        mState[0] = step(mState[0]);
        return mState[0];
    }

    /// Advances only the lanes of `active`; the others keep their state (and return it).
    U next(const Mask& active)
    {
        mState[0] = select(active, step(mState[0]), mState[0]);
        return mState[0];
    }

private:
    template<typename>
    friend class TinyUniformSampleGeneratorT;
    template<typename, typename>
    friend struct SampleGeneratorLanes;

    static constexpr int kWords = 1;
    static constexpr uint32_t kSeedLanes = 8;
    using SeedLanes = UintLanes<kSeedLanes>;

    TinyUniformSampleGeneratorT() = default;

    static U step(const U& state) { return 1664525u * state + 1013904223u; }

    /// 16 rounds of TEA (Zafar et al., "GPU random numbers via the tiny encryption algorithm") on
    /// one block or on lanes of them, in place; the seed is the first word.
    template<typename Word>
    static void blockCipherTEA(Word& v0, Word& v1)
    {
        constexpr uint32_t kDelta = 0x9e3779b9u;
        constexpr uint32_t k[4] = {0xa341316cu, 0xc8013ea4u, 0xad90777du, 0x7e95761eu};
        uint32_t sum = 0;
        for (int i = 0; i < 16; ++i)
        {
            sum += kDelta;
            v0 += ((v1 << 4) + k[0]) ^ (v1 + sum) ^ ((v1 >> 5) + k[1]);
            v1 += ((v0 << 4) + k[2]) ^ (v0 + sum) ^ ((v0 >> 5) + k[3]);
        }
    }

    U mState[kWords]{};
};
} // namespace falcor
