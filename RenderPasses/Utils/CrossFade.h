#pragma once
#include "RenderGraph/RenderPass.h"

/// CrossFade: out = (1 - mix)·A + mix·B, with mix ramping over frames or fixed.
///
/// | Property       | Type           | Default       | Meaning                                          |
/// |----------------|----------------|---------------|--------------------------------------------------|
/// | outputFormat   | ResourceFormat | 'RGBA32Float' | Format of `out` (integer formats are rejected).  |
/// | enableAutoFade | bool           | True          | Ramp mix from 0 to 1 over frames.                |
/// | waitFrameCount | uint           | 10            | Frames before the ramp starts.                   |
/// | fadeFrameCount | uint           | 100           | Frames the ramp lasts.                           |
/// | fadeFactor     | float          | 0.5           | Fixed mix when auto fade is off (clamped to 0..1)|
///
/// With auto fade, mix = clamp((frame - waitFrameCount) / fadeFrameCount, 0, 1), where `frame`
/// counts executions since the last reset: the first execution after a reset uses frame 1,
/// and an execution that itself sees non-zero refresh flags (kRenderPassRefreshFlags) in the graph dictionary
/// uses frame 0. A recompile with a new frame size restarts the count.
class CrossFade : public falcor::RenderPass
{
    FALCOR_PLUGIN_CLASS(CrossFade, "CrossFade", "CrossFade pass.");

public:
    explicit CrossFade(const falcor::Properties& props);

    falcor::Properties getProperties() const override;
    falcor::RenderPassReflection reflect(const CompileData& compileData) override;
    void compile(falcor::RenderContext* pRenderContext, const CompileData& compileData) override;
    void execute(falcor::RenderContext* pRenderContext, const falcor::RenderData& renderData) override;

private:
    /// Advances (or resets) the frame counter and returns this frame's weight of B.
    float nextMix(const falcor::RenderData& renderData);

    falcor::uint2 mFrameDim = {0, 0};
    uint32_t mMixFrame = 0;

    falcor::ResourceFormat mOutputFormat = falcor::ResourceFormat::RGBA32Float;
    bool mEnableAutoFade = true;
    uint32_t mWaitFrameCount = 10;
    uint32_t mFadeFrameCount = 100;
    float mFadeFactor = 0.5f;
};
