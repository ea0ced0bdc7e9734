/// AccumulatePass: temporal accumulation (progressive averaging) of `input` into `output`.
///
/// | Property           | Type            | Default       | Meaning                                          |
/// |--------------------|-----------------|---------------|--------------------------------------------------|
/// | enabled            | bool            | True          | False: output = input (bilinear blit).           |
/// | outputFormat       | ResourceFormat  | 'Unknown'     | Format of `output`; Unknown = RGBA32Float.       |
/// | outputSize         | IOSize          | 'Default'     | Size rule of `output`.                           |
/// | fixedOutputSize    | uint2           | [512, 512]    | Size when outputSize is 'Fixed'.                 |
/// | autoReset          | bool            | True          | Restart when refresh flags are set.              |
/// | precisionMode      | 'Double'/'Single'/'SingleCompensated' | 'Single' | How the running sum is kept. |
/// | maxFrameCount      | uint            | 0             | Frame limit (0 = none); moving average below it. |
/// | overflowMode       | 'Stop'/'Reset'/'EMA' | 'Stop'   | What happens at the frame limit.                 |
/// | enableAccumulation | bool            | (deprecated)  | Read as `enabled` when `enabled` is absent.      |
///
/// The per-pixel arithmetic follows Falcor's Accumulate.cs.slang operation for operation, so
/// float results match its definitions bit for bit (IEEE arithmetic, no fused multiply-add).
#include "AccumulatePass.h"
#include "Core/Logger.h"
#include "Core/PluginRegistry.h"
#include "Core/ThreadPool.h"
#include "RenderGraph/RenderPassStandardFlags.h"

namespace falcor
{
namespace
{
using double4 = vector<double, 4>;

const std::string kInput = "input";
const std::string kOutput = "output";

const std::string kEnabled = "enabled";
const std::string kOutputFormat = "outputFormat";
const std::string kOutputSize = "outputSize";
const std::string kFixedOutputSize = "fixedOutputSize";
const std::string kAutoReset = "autoReset";
const std::string kPrecisionMode = "precisionMode";
const std::string kMaxFrameCount = "maxFrameCount";
const std::string kOverflowMode = "overflowMode";
const std::string kDeprecatedEnableAccumulation = "enableAccumulation";

/// Graph dictionary entry (uint32_t) where passes publish "something changed" flags.

/// Weight of the newest frame after `accumCount` earlier ones. Falcor's shader divides the
/// (float) literal 1.0 by the count, so the weight is a float even in Double mode.
float newFrameWeight(uint32_t accumCount)
{
    return 1.f / float(accumCount + 1);
}

float4 accumulateSingle(float4& sum, const float4& cur, uint32_t accumCount, bool movingAverage)
{
    const float w = newFrameWeight(accumCount);
    if (movingAverage)
        return sum = lerp(sum, cur, w); // `sum` holds the running average itself.
    sum += cur;
    return sum * w;
}

/// Kahan summation: `c` carries the low-order bits the float sum dropped on the previous add.
float4 accumulateCompensated(float4& sum, float4& c, const float4& cur, uint32_t accumCount)
{
    const float4 y = cur - c;
    const float4 next = sum + y;
    c = (next - sum) - y;
    sum = next;
    return next / float(accumCount + 1);
}

float4 accumulateDouble(double4& sum, const float4& cur, uint32_t accumCount, bool movingAverage)
{
    const double w = newFrameWeight(accumCount);
    const double4 x(cur);
    if (movingAverage)
    {
        sum = sum * (1.0 - w) + x * w;
        return float4(sum);
    }
    sum += x;
    return float4(sum * w);
}
} // namespace

AccumulatePass::AccumulatePass(const Properties& props)
{
    parseProperties(props);
    scriptProperty<bool>(kEnabled, [this] { return mEnabled; }, [this](bool enabled) { setEnabled(enabled); });
    scriptMethod("reset", [this](const PropertyValue::Array& args) {
        FALCOR_CHECK(args.empty(), "AccumulatePass.reset() takes no arguments.");
        reset();
        return PropertyValue();
    });
}

void AccumulatePass::parseProperties(const Properties& props)
{
    for (const auto& [key, value] : props)
    {
        if (key == kEnabled)
            mEnabled = value.as<bool>(key);
        else if (key == kOutputFormat)
            mOutputFormat = value.as<ResourceFormat>(key);
        else if (key == kOutputSize)
            mOutputSizeSelection = value.as<IOSize>(key);
        else if (key == kFixedOutputSize)
            mFixedOutputSize = value.as<uint2>(key);
        else if (key == kAutoReset)
            mAutoReset = value.as<bool>(key);
        else if (key == kPrecisionMode)
            mPrecisionMode = value.as<AccumulatePrecision>(key);
        else if (key == kMaxFrameCount)
            mMaxFrameCount = value.as<uint32_t>(key);
        else if (key == kOverflowMode)
            mOverflowMode = value.as<AccumulateOverflowMode>(key);
        else if (key != kDeprecatedEnableAccumulation) // Handled below; Falcor also calls it unknown, we don't.
            warnUnknownProperty(key);
    }
    if (props.has(kDeprecatedEnableAccumulation))
    {
        logWarning("'", kDeprecatedEnableAccumulation, "' is deprecated. Use '", kEnabled, "' instead.");
        if (!props.has(kEnabled))
            mEnabled = props.get<bool>(kDeprecatedEnableAccumulation);
    }
}

Properties AccumulatePass::getProperties() const
{
    Properties props;
    props.set(kEnabled, mEnabled);
    if (mOutputFormat != ResourceFormat::Unknown)
        props.set(kOutputFormat, mOutputFormat);
    props.set(kOutputSize, mOutputSizeSelection);
    if (mOutputSizeSelection == IOSize::Fixed)
        props.set(kFixedOutputSize, mFixedOutputSize);
    props.set(kAutoReset, mAutoReset);
    props.set(kPrecisionMode, mPrecisionMode);
    props.set(kMaxFrameCount, mMaxFrameCount);
    props.set(kOverflowMode, mOverflowMode);
    return props;
}

RenderPassReflection AccumulatePass::reflect(const CompileData& compileData)
{
    RenderPassReflection r;
    const uint2 size = calculateIOSize(mOutputSizeSelection, mFixedOutputSize, compileData.defaultTexDims);
    const ResourceFormat format = mOutputFormat != ResourceFormat::Unknown ? mOutputFormat : ResourceFormat::RGBA32Float;
    r.addInput(kInput, "Input data to be temporally accumulated");
    // Persistent: at the frame limit in 'Stop' mode the pass keeps its last image without writing.
    r.addOutput(kOutput, "Output data that is temporally accumulated")
        .format(format)
        .texture2D(size)
        .flags(RenderPassReflection::Field::Flags::Persistent);
    return r;
}

void AccumulatePass::setEnabled(bool enabled)
{
    if (enabled != mEnabled)
    {
        mEnabled = enabled;
        reset();
    }
}

bool AccumulatePass::sceneChanged() const
{
    // As Falcor: any scene change restarts the accumulation, except camera changes that only
    // jitter the camera or move its previous-frame matrices.
    if (!mpScene)
        return false;
    const SceneUpdateFlags updates = mpScene->getUpdates();
    if ((updates & ~SceneUpdateFlags::CameraPropertiesChanged) != SceneUpdateFlags::None)
        return true;
    const uint32_t ignored = uint32_t(Camera::Changes::Jitter | Camera::Changes::History);
    return isSet(updates, SceneUpdateFlags::CameraPropertiesChanged) && (uint32_t(mpScene->getCamera().getChanges()) & ~ignored) != 0;
}

bool AccumulatePass::beginFrame(const RenderData& renderData)
{
    if (mAutoReset && (renderData.getDictionary().get<uint32_t>(kRenderPassRefreshFlags, 0) != 0 || sceneChanged()))
        reset();

    if (mMaxFrameCount == 0 || mFrameCount != mMaxFrameCount)
        return true;
    switch (mOverflowMode)
    {
    case AccumulateOverflowMode::Stop:
        return false;
    case AccumulateOverflowMode::Reset:
        reset();
        return true;
    case AccumulateOverflowMode::EMA:
        return true;
    }
    return true;
}

void AccumulatePass::execute(RenderContext* pRenderContext, const RenderData& renderData)
{
    if (!beginFrame(renderData))
        return;

    const Texture& src = *renderData[kInput];
    Texture& dst = *renderData[kOutput];
    const uint2 frameDim = src.getDims();
    if (frameDim != mFrameDim)
    {
        mFrameDim = frameDim;
        reset();
    }
    FALCOR_CHECK(!isIntegerFormat(dst.getFormat()), "AccumulatePass: output format '", to_string(dst.getFormat()),
                 "' is an integer format, which accumulation does not support; set 'outputFormat' to a float or normalized format.");

    const bool sizesMatch = dst.getDims() == frameDim;
    if (mEnabled && !sizesMatch)
    {
        logError("AccumulatePass I/O sizes don't match. The pass will be disabled.");
        mEnabled = false; // As Falcor: disabling this way does not reset.
    }

    // Accumulation reads integer inputs but needs matching sizes; the blit rescales but can't
    // filter integers. Anything else gets a cleared output.
    if (!mEnabled && !isIntegerFormat(src.getFormat()))
        pRenderContext->blit(src, dst, TextureFilteringMode::Linear);
    else if (sizesMatch)
        accumulate(src, dst);
    else
    {
        logWarning("AccumulatePass unsupported I/O configuration. The output will be cleared.");
        pRenderContext->clearTexture(dst);
    }
}

void AccumulatePass::prepareAccumulation(uint2 frameDim)
{
    // Sums only need (re)sizing after a reset: a new frame size always resets (see execute).
    if (mFrameCount != 0)
        return;
    const size_t pixelCount = size_t(frameDim.x()) * frameDim.y();
    auto zero = [pixelCount](auto& buffer, bool used) { buffer.assign(used ? pixelCount : 0, {}); };
    zero(mSum, mPrecisionMode != AccumulatePrecision::Double);
    zero(mCompensation, mPrecisionMode == AccumulatePrecision::SingleCompensated);
    zero(mSumDouble, mPrecisionMode == AccumulatePrecision::Double);
}

void AccumulatePass::accumulate(const Texture& src, Texture& dst)
{
    prepareAccumulation(mFrameDim);
    const uint32_t accumCount = mFrameCount; // Frames before this one.
    const bool movingAverage = mMaxFrameCount > 0;
    const uint32_t width = mFrameDim.x();

    parallelForRows(mFrameDim.y(), [&](uint32_t y) {
        std::vector<float4> row(width);
        src.loadRow(y, row.data()); // Integer inputs convert to float here.
        for (uint32_t x = 0; mEnabled && x < width; ++x)
        {
            const size_t i = size_t(y) * width + x;
            switch (mPrecisionMode)
            {
            case AccumulatePrecision::Single:
                row[x] = accumulateSingle(mSum[i], row[x], accumCount, movingAverage);
                break;
            case AccumulatePrecision::SingleCompensated:
                row[x] = accumulateCompensated(mSum[i], mCompensation[i], row[x], accumCount);
                break;
            case AccumulatePrecision::Double:
                row[x] = accumulateDouble(mSumDouble[i], row[x], accumCount, movingAverage);
                break;
            }
        }
        dst.storeRow(y, row.data());
    });

    // The count stops at the limit (the moving average keeps weight 1/(limit+1) from there on);
    // compensated summation has no moving-average form and always counts on.
    if (mMaxFrameCount == 0 || mPrecisionMode == AccumulatePrecision::SingleCompensated || mFrameCount < mMaxFrameCount)
        ++mFrameCount;
}
} // namespace falcor

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(falcor::PluginRegistry& registry)
{
    registry.registerRenderPass<falcor::AccumulatePass>();
}
