#pragma once
#include "RenderGraph/RenderPass.h"

/// Base of the passes that compare `leftInput` and `rightInput` on one `output`: pixels left of the
/// split column come from the left image, the others from the right one, both clamped to >= 0, and
/// a divider covers the columns within kDividerSize - 1 of the split (3 px wide).
///
/// | Property       | Type   | Default      | Meaning                                                  |
/// |----------------|--------|--------------|----------------------------------------------------------|
/// | splitLocation  | float  | -1           | Split as a fraction of the frame width; < 0 becomes 0.5 at the first execution. |
/// | showTextLabels | bool   | False        | Draw the labels below (not drawn on the CPU: no text renderer). |
/// | leftLabel      | string | 'Left side'  | Label of the left image.                                  |
/// | rightLabel     | string | 'Right side' | Label of the right image.                                 |
class ComparisonPass : public falcor::RenderPass
{
public:
    falcor::Properties getProperties() const override;
    falcor::RenderPassReflection reflect(const CompileData& compileData) override;
    void execute(falcor::RenderContext* pRenderContext, const falcor::RenderData& renderData) override;

protected:
    /// Where an output pixel's left and right colors are read: input column = output column + offset.
    struct SourceOffsets
    {
        int64_t left, right;
    };

    ComparisonPass() = default;

    /// Applies one of the comparison keys; false if `key` is not one of them.
    bool parseComparisonProperty(const std::string& key, const falcor::PropertyValue& value);

    virtual SourceOffsets getSourceOffsets(int32_t splitColumn) const = 0;
    virtual falcor::float4 getDividerColor() const = 0;

private:
    /// Divider half-width as in Falcor: columns with |x - split| < kDividerSize are covered.
    static constexpr int32_t kDividerSize = 2;

    /// The split column for this frame; replaces a negative splitLocation by 0.5 first.
    int32_t resolveSplitColumn(uint32_t frameWidth);

    float mSplitLocation = -1.f;
    bool mShowTextLabels = false;
    std::string mLeftLabel = "Left side";
    std::string mRightLabel = "Right side";
};
