#include "ColorMapPass.h"
#include "Core/ThreadPool.h"
#include "TexelRows.h"
#include <cfloat>
#include <utility>

using namespace falcor;

namespace
{
const std::string kInput = "input";
const std::string kOutput = "output";

const std::string kColorMap = "colorMap";
const std::string kChannel = "channel";
const std::string kAutoRange = "autoRange";
const std::string kMinValue = "minValue";
const std::string kMaxValue = "maxValue";

/// Fraction of the way the auto range moves towards a smaller input range each frame.
const double kShrinkRate = 0.01;
/// Rows per reduction task: fixed, so partial results never depend on the thread count.
const size_t kReductionRows = 16;

/// Falcor's scalar lerp, in this exact form so the tracked range rounds the same way.
double lerp(double x, double y, double s)
{
    return (1.0 - s) * x + s * y;
}
} // namespace

ColorMapPass::ColorMapPass(const Properties& props)
{
    for (const auto& [key, value] : props)
    {
        if (key == kColorMap)
            mColorMap = value.as<ColorMap>(key);
        else if (key == kChannel)
            mChannel = value.as<uint32_t>(key);
        else if (key == kAutoRange)
            mAutoRange = value.as<bool>(key);
        else if (key == kMinValue)
            mMinValue = value.as<float>(key);
        else if (key == kMaxValue)
            mMaxValue = value.as<float>(key);
        else
            warnUnknownProperty(key);
    }
    FALCOR_CHECK(mChannel < 4, "Property 'channel' must be 0..3 (R, G, B, A), got ", mChannel, ".");
}

Properties ColorMapPass::getProperties() const
{
    Properties props;
    props.set(kColorMap, mColorMap);
    props.set(kChannel, mChannel);
    props.set(kAutoRange, mAutoRange);
    props.set(kMinValue, mMinValue);
    props.set(kMaxValue, mMaxValue);
    return props;
}

RenderPassReflection ColorMapPass::reflect(const CompileData&)
{
    RenderPassReflection r;
    r.addInput(kInput, "Input image");
    r.addOutput(kOutput, "Output image");
    return r;
}

void ColorMapPass::execute(RenderContext*, const RenderData& renderData)
{
    const Texture& input = *renderData[kInput];
    Texture& output = *renderData[kOutput];
    if (mAutoRange)
        updateAutoRange(input);

    parallelForRows(output.getHeight(), [&](uint32_t y) {
        const std::vector<float4> in = loadRowIfInside(input, y);
        std::vector<float4> out(output.getWidth());
        for (uint32_t x = 0; x < out.size(); ++x)
        {
            float3 color = applyColorMap(mColorMap, normalize(texelOrZero(in, x)[mChannel]));
            out[x] = float4(color.x(), color.y(), color.z(), 1.f);
        }
        output.storeRow(y, out.data());
    });
}

float ColorMapPass::normalize(float value) const
{
    return mMinValue == mMaxValue ? 0.f : gpuSaturate((value - mMinValue) / (mMaxValue - mMinValue));
}

void ColorMapPass::updateAutoRange(const Texture& input)
{
    const std::optional<Range> previous = std::exchange(mPreviousInputRange, reduceChannel(input));
    if (!previous)
    {
        mTrackedRange = {mMinValue, mMaxValue};
        return;
    }
    // Grow at once to cover the input, then drift towards the input's range so it shrinks slowly.
    mTrackedRange.min = lerp(std::min(mTrackedRange.min, previous->min), previous->min, kShrinkRate);
    mTrackedRange.max = lerp(std::max(mTrackedRange.max, previous->max), previous->max, kShrinkRate);
    mMinValue = float(mTrackedRange.min);
    mMaxValue = float(mTrackedRange.max);
}

ColorMapPass::Range ColorMapPass::reduceChannel(const Texture& input) const
{
    // Channels the format lacks reduce to 0: missing R/G/B read as 0, and Falcor's reduction also
    // zeroes the alpha of formats without one (the pixel shader still reads that alpha as 1).
    if (mChannel >= input.getChannelCount())
        return {0.0, 0.0};

    // GPU min/max ignore NaN, like fmin/fmax; the start values are those of Falcor's reduction.
    const Range empty{FLT_MAX, -FLT_MAX};
    const uint32_t height = input.getHeight();
    std::vector<Range> partials((height + kReductionRows - 1) / kReductionRows, empty);
    parallelFor(height, kReductionRows, [&](size_t y0, size_t y1) {
        Range& partial = partials[y0 / kReductionRows];
        std::vector<float4> row(input.getWidth());
        for (size_t y = y0; y < y1; ++y)
        {
            input.loadRow(uint32_t(y), row.data());
            for (const float4& texel : row)
            {
                partial.min = std::fmin(partial.min, texel[mChannel]);
                partial.max = std::fmax(partial.max, texel[mChannel]);
            }
        }
    });
    Range total = empty;
    for (const Range& partial : partials)
        total = {std::fmin(total.min, partial.min), std::fmax(total.max, partial.max)};
    return total;
}
