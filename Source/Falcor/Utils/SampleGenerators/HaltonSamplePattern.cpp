#include "HaltonSamplePattern.h"
#include <cmath>

namespace falcor
{
namespace
{
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

float2 HaltonSamplePattern::next()
{
    const float2 value(radicalInverse(mCurSample, 2), radicalInverse(mCurSample, 3));
    ++mCurSample;
    if (mSampleCount != 0)
        mCurSample %= mSampleCount;
    return float2(centered(value.x()), centered(value.y()));
}
} // namespace falcor
