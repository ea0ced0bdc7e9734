#pragma once
#include "CPUSampleGenerator.h"
#include "Core/Macros.h"

namespace falcor
{
/// Halton points (bases 2 and 3) shifted so that the first one is the pixel center; the index
/// wraps after `sampleCount` samples (0 = never).
class FALCOR_API HaltonSamplePattern final : public CPUSampleGenerator
{
public:
    explicit HaltonSamplePattern(uint32_t sampleCount) : mSampleCount(sampleCount) {}
    uint32_t getSampleCount() const override { return mSampleCount; }
    float2 next() override;

private:
    uint32_t mSampleCount;
    uint32_t mCurSample = 0;
};
} // namespace falcor
