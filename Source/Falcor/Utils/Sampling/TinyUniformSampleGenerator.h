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
    TinyUniformSampleGenerator(uint2 pixel, uint32_t sampleNumber) : mState(blockCipherTEA(interleave16(pixel), sampleNumber)) {}

    uint32_t next()
    {
        mState = 1664525u * mState + 1013904223u;
        return mState;
    }

private:
    /// First word of 16 rounds of TEA (Zafar et al., "GPU random numbers via the tiny encryption algorithm").
    static uint32_t blockCipherTEA(uint32_t v0, uint32_t v1)
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
        return v0;
    }

    uint32_t mState;
};
} // namespace falcor
