#include "StratifiedSamplePattern.h"
#include "Core/Logger.h"
#include <algorithm>
#include <cmath>

namespace falcor
{
StratifiedSamplePattern::StratifiedSamplePattern(uint32_t sampleCount)
{
    if (sampleCount < 1)
        logWarning("StratifiedSamplePattern() requires sampleCount > 0. Using one sample.");
    else if (sampleCount > 1024)
        logWarning("StratifiedSamplePattern() requires sampleCount <= 1024. Using 1024 samples.");
    sampleCount = std::clamp(sampleCount, 1u, 1024u);

    // The grid: the smallest factor >= sqrt(count) (a prime count gives count x 1).
    mBinsX = uint32_t(std::sqrt(double(sampleCount)));
    mBinsY = sampleCount / mBinsX;
    while (mBinsX * mBinsY != sampleCount)
    {
        ++mBinsX;
        mBinsY = sampleCount / mBinsX;
    }
    mPermutation.resize(sampleCount);
    for (uint32_t i = 0; i < sampleCount; ++i)
        mPermutation[i] = i;
}

float2 StratifiedSamplePattern::next()
{
    std::uniform_real_distribution<float> uniform;
    if (mCurSample == 0)
        std::shuffle(mPermutation.begin(), mPermutation.end(), mRng);
    const uint32_t cell = mPermutation[mCurSample];
    mCurSample = (mCurSample + 1) % getSampleCount();
    // Two draws, x first (separate statements keep the order fixed).
    const float x = (float(cell % mBinsX) + uniform(mRng)) / float(mBinsX);
    const float y = (float(cell / mBinsX) + uniform(mRng)) / float(mBinsY);
    return float2(x - 0.5f, y - 0.5f);
}
} // namespace falcor
