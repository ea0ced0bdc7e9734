#pragma once
#include "CPUSampleGenerator.h"
#include "Core/Macros.h"
#include <random>
#include <vector>

namespace falcor
{
/// Stratified random points: `sampleCount` (clamped to [1, 1024]) cells of a binsX × binsY grid
/// as close to square as the count's factors allow, each period visiting every cell once in a
/// freshly shuffled order. The randomness is the C++ standard library's (default-seeded
/// mt19937, std::shuffle, uniform_real_distribution<float>), as in Falcor, so the sequence is
/// the one Falcor produces with the same standard library.
class FALCOR_API StratifiedSamplePattern final : public CPUSampleGenerator
{
public:
    explicit StratifiedSamplePattern(uint32_t sampleCount);
    uint32_t getSampleCount() const override { return mBinsX * mBinsY; }
    float2 next() override;

private:
    uint32_t mBinsX = 0, mBinsY = 0;
    uint32_t mCurSample = 0;
    std::mt19937 mRng;
    std::vector<uint32_t> mPermutation;
};
} // namespace falcor
