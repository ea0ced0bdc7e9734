#include "SamplePatterns.h"
#include "Core/Logger.h"
#include <algorithm>
#include <cmath>

namespace falcor
{
namespace
{
/// The D3D 8x pattern, in sixteenths of a pixel.
constexpr float2 kDxPattern[8] = {
    {1.f / 16.f, -3.f / 16.f}, {-1.f / 16.f, 3.f / 16.f}, {5.f / 16.f, 1.f / 16.f},  {-3.f / 16.f, -5.f / 16.f},
    {-5.f / 16.f, 5.f / 16.f}, {-7.f / 16.f, -1.f / 16.f}, {3.f / 16.f, 7.f / 16.f}, {7.f / 16.f, -7.f / 16.f},
};

/// Radical inverse of `index` in `base`, accumulated in single precision (digit by digit, as Falcor).
float radicalInverse(uint32_t index, uint32_t base)
{
    float result = 0.f, digitWeight = 1.f;
    for (; index > 0; index /= base)
    {
        digitWeight /= float(base);
        result += digitWeight * float(index % base);
    }
    return result;
}

/// Maps [0, 1) to [-0.5, 0.5) so that 0 lands on the pixel center: frac(v + 0.5) - 0.5.
float centered(float v)
{
    const float shifted = v + 0.5f;
    return shifted - std::floor(shifted) - 0.5f;
}
} // namespace

DxSamplePattern::DxSamplePattern(uint32_t sampleCount)
{
    if (sampleCount != kSampleCount)
        logWarning("DxSamplePattern() currently requires sampleCount = 8. Using that number.");
}

float2 DxSamplePattern::next()
{
    return kDxPattern[(mCurSample++) % kSampleCount];
}

float2 HaltonSamplePattern::next()
{
    const float2 value(radicalInverse(mCurSample, 2), radicalInverse(mCurSample, 3));
    ++mCurSample;
    if (mSampleCount != 0)
        mCurSample %= mSampleCount;
    return float2(centered(value.x()), centered(value.y()));
}

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

std::shared_ptr<JitterPattern> createJitterPattern(SamplePattern pattern, uint32_t sampleCount)
{
    switch (pattern)
    {
    case SamplePattern::DirectX:
        return std::make_shared<DxSamplePattern>(sampleCount);
    case SamplePattern::Halton:
        return std::make_shared<HaltonSamplePattern>(sampleCount);
    case SamplePattern::Stratified:
        return std::make_shared<StratifiedSamplePattern>(sampleCount);
    default:
        return nullptr;
    }
}
} // namespace falcor
