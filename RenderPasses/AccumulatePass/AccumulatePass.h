#pragma once
#include "RenderGraph/RenderPass.h"
#include "Scene/Scene.h"
#include <vector>

namespace falcor
{
/// How the running sum is kept (Falcor's AccumulatePass::Precision).
enum class AccumulatePrecision : uint32_t
{
    Double,            ///< Plain summation in double precision.
    Single,            ///< Plain summation in single precision.
    SingleCompensated, ///< Kahan summation in single precision.
};
FALCOR_ENUM_INFO(AccumulatePrecision, {{AccumulatePrecision::Double, "Double"},
                                       {AccumulatePrecision::Single, "Single"},
                                       {AccumulatePrecision::SingleCompensated, "SingleCompensated"}});

/// What happens once `maxFrameCount` frames are accumulated (Falcor's AccumulatePass::OverflowMode).
enum class AccumulateOverflowMode : uint32_t
{
    Stop,  ///< Keep the accumulated image; the pass stops writing its output.
    Reset, ///< Start a new accumulation.
    EMA,   ///< Keep blending new frames with a constant weight (exponential moving average).
};
FALCOR_ENUM_INFO(AccumulateOverflowMode, {{AccumulateOverflowMode::Stop, "Stop"},
                                          {AccumulateOverflowMode::Reset, "Reset"},
                                          {AccumulateOverflowMode::EMA, "EMA"}});

/// Temporal accumulation: the output is the average of the input over the frames since the last
/// reset. The running sums live in the pass (not in graph textures), one entry per pixel.
class AccumulatePass : public RenderPass
{
    FALCOR_PLUGIN_CLASS(AccumulatePass, "AccumulatePass", "Temporal accumulation.");

public:
    explicit AccumulatePass(const Properties& props);

    Properties getProperties() const override;
    RenderPassReflection reflect(const CompileData& compileData) override;
    void execute(RenderContext* pRenderContext, const RenderData& renderData) override;
    /// A new scene restarts the accumulation; so do its updates (see `sceneChanged`).
    void setScene(RenderContext* pRenderContext, const std::shared_ptr<Scene>& pScene) override
    {
        mpScene = pScene;
        reset();
    }

    bool isEnabled() const { return mEnabled; }
    /// Toggling restarts the accumulation.
    void setEnabled(bool enabled);
    void reset() { mFrameCount = 0; }

private:
    void parseProperties(const Properties& props);
    /// Applies the reset rules that run before each frame; false if the frame must be skipped (Stop).
    bool beginFrame(const RenderData& renderData);
    /// Whether the scene's last update changed anything accumulation depends on.
    bool sceneChanged() const;
    /// Sizes the running sums of the current mode for the frame and zeroes them after a reset.
    void prepareAccumulation(uint2 frameDim);
    void accumulate(const Texture& src, Texture& dst);

    // Options.
    bool mEnabled = true;
    ResourceFormat mOutputFormat = ResourceFormat::Unknown;
    IOSize mOutputSizeSelection = IOSize::Default;
    uint2 mFixedOutputSize = {512, 512};
    bool mAutoReset = true;
    AccumulatePrecision mPrecisionMode = AccumulatePrecision::Single;
    uint32_t mMaxFrameCount = 0; ///< 0 = no limit.
    AccumulateOverflowMode mOverflowMode = AccumulateOverflowMode::Stop;

    std::shared_ptr<Scene> mpScene;

    // Accumulation state.
    uint32_t mFrameCount = 0; ///< Frames accumulated since the last reset.
    uint2 mFrameDim = {0, 0};
    std::vector<float4> mSum;                     ///< Single, SingleCompensated.
    std::vector<float4> mCompensation;            ///< SingleCompensated: Kahan's running error term.
    std::vector<vector<double, 4>> mSumDouble;    ///< Double.
};
} // namespace falcor
