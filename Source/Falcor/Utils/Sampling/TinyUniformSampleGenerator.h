#pragma once
#include "Utils/Sampling/SampleGeneratorHelpers.h"
#include <cstdint>

namespace falcor
{
/// Falcor's SAMPLE_GENERATOR_TINY_UNIFORM (the PathTracer's default): a 32-bit LCG whose seed is
/// the TEA block cipher of (Morton-interleaved pixel, sample number). One word of state, so it
/// costs nothing to carry along a path; the same pixel and sample number give Falcor's numbers.
class TinyUniformSampleGenerator
{
public:
    TinyUniformSampleGenerator(uint2 pixel, uint32_t sampleNumber) : mState(interleave16(pixel))
    {
        blockCipherTEA(mState, sampleNumber);
    }

    /// The generators of pixels (x0 + i, y), i < count, for one sample number, as the constructor
    /// makes them. Seeding is most of a short path's random-number cost; here the cipher runs on
    /// eight pixels at once (GCC/Clang vector extensions: SIMD on any target).
    static void createRow(uint32_t x0, uint32_t y, uint32_t count, uint32_t sampleNumber, TinyUniformSampleGenerator* out)
    {
        for (uint32_t start = 0; start < count; start += kLanes)
        {
            Lanes keys;
            for (uint32_t i = 0; i < kLanes; ++i)
                keys[i] = interleave16(uint2(x0 + start + i, y));
            Lanes sampleNumbers = Lanes{} + sampleNumber;
            blockCipherTEA(keys, sampleNumbers);
            for (uint32_t i = 0; i < kLanes && start + i < count; ++i)
                out[start + i].mState = keys[i];
        }
    }

    uint32_t next()
    {
        mState = 1664525u * mState + 1013904223u;
        return mState;
    }

private:
    static constexpr uint32_t kLanes = 8;
    typedef uint32_t Lanes __attribute__((vector_size(kLanes * sizeof(uint32_t))));

    /// 16 rounds of TEA (Zafar et al., "GPU random numbers via the tiny encryption algorithm") on
    /// one block or on Lanes of them, in place; the seed is the first word. (Vectors are passed by
    /// reference: by value their ABI would depend on the instruction set.)
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

    uint32_t mState;
};
} // namespace falcor
