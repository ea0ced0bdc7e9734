#include "ComparisonPass.h"
#include "Core/Logger.h"
#include "Core/ThreadPool.h"
#include "TexelRows.h"
#include <cmath>

using namespace falcor;

namespace
{
const std::string kSplitLocation = "splitLocation";
const std::string kShowTextLabels = "showTextLabels";
const std::string kLeftLabel = "leftLabel";
const std::string kRightLabel = "rightLabel";

const std::string kLeftInput = "leftInput";
const std::string kRightInput = "rightInput";
const std::string kOutput = "output";
} // namespace

bool ComparisonPass::parseComparisonProperty(const std::string& key, const PropertyValue& value)
{
    if (key == kSplitLocation)
        mSplitLocation = value.as<float>(key);
    else if (key == kShowTextLabels)
        mShowTextLabels = value.as<bool>(key);
    else if (key == kLeftLabel)
        mLeftLabel = value.as<std::string>(key);
    else if (key == kRightLabel)
        mRightLabel = value.as<std::string>(key);
    else
        return false;
    return true;
}

Properties ComparisonPass::getProperties() const
{
    Properties props;
    props.set(kSplitLocation, mSplitLocation);
    props.set(kShowTextLabels, mShowTextLabels);
    props.set(kLeftLabel, mLeftLabel);
    props.set(kRightLabel, mRightLabel);
    return props;
}

RenderPassReflection ComparisonPass::reflect(const CompileData&)
{
    RenderPassReflection r;
    r.addInput(kLeftInput, "Left side image");
    r.addInput(kRightInput, "Right side image");
    r.addOutput(kOutput, "Output image");
    return r;
}

int32_t ComparisonPass::resolveSplitColumn(uint32_t frameWidth)
{
    if (mSplitLocation < 0.f)
        mSplitLocation = 0.5f;
    // Falcor truncates splitLocation * width. Columns past width + kDividerSize look the same as the
    // last one, so limiting there keeps large values out of int32 overflow without changing the image.
    return int32_t(std::fmin(mSplitLocation * float(frameWidth), float(frameWidth + kDividerSize)));
}

void ComparisonPass::execute(RenderContext*, const RenderData& renderData)
{
    const Texture& left = *renderData[kLeftInput];
    const Texture& right = *renderData[kRightInput];
    Texture& output = *renderData[kOutput];
    if (mShowTextLabels)
        logWarningOnce(getType(), ": text labels ('", mLeftLabel, "', '", mRightLabel,
                       "') are not drawn; there is no text renderer in the CPU implementation.");

    // The split is a fraction of the frame (default texture) width, not of the output's width.
    const int32_t split = resolveSplitColumn(renderData.getDefaultTextureDims().x());
    const SourceOffsets offsets = getSourceOffsets(split);
    const float4 dividerColor = getDividerColor();

    parallelForRows(output.getHeight(), [&](uint32_t y) {
        const std::vector<float4> leftRow = loadRowIfInside(left, y), rightRow = loadRowIfInside(right, y);
        std::vector<float4> out(output.getWidth());
        for (int64_t x = 0; x < int64_t(out.size()); ++x)
        {
            const float4 color = x < split ? texelOrZero(leftRow, x + offsets.left) : texelOrZero(rightRow, x + offsets.right);
            // Negative values show as 0; fmax also turns NaN into 0, as a GPU max does.
            out[x] = std::abs(x - split) < kDividerSize ? dividerColor : map(color, [](float c) { return std::fmax(c, 0.f); });
        }
        output.storeRow(y, out.data());
    });
}
