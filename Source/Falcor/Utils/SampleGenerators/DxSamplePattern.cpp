#include "DxSamplePattern.h"
#include "Core/Logger.h"

namespace falcor
{
namespace
{
/// The D3D 8x pattern, in sixteenths of a pixel.
constexpr float2 kDxPattern[8] = {
    {1.f / 16.f, -3.f / 16.f}, {-1.f / 16.f, 3.f / 16.f}, {5.f / 16.f, 1.f / 16.f},  {-3.f / 16.f, -5.f / 16.f},
    {-5.f / 16.f, 5.f / 16.f}, {-7.f / 16.f, -1.f / 16.f}, {3.f / 16.f, 7.f / 16.f}, {7.f / 16.f, -7.f / 16.f},
};
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
} // namespace falcor
