#pragma once
#include "CPUSampleGenerator.h"
#include "Core/Macros.h"

namespace falcor
{
/// Direct3D's standard 8-sample MSAA pattern; other sample counts are replaced by 8 (with a warning).
class FALCOR_API DxSamplePattern final : public CPUSampleGenerator
{
public:
    explicit DxSamplePattern(uint32_t sampleCount);
    uint32_t getSampleCount() const override { return kSampleCount; }
    float2 next() override;

private:
    static constexpr uint32_t kSampleCount = 8;
    uint32_t mCurSample = 0;
};
} // namespace falcor
