#pragma once
#include "ComparisonPass.h"

/// SplitScreenPass: `output` shows `leftInput` left of the split and `rightInput` right of it, both at
/// their own pixel positions, with a black divider. Falcor lets the mouse drag the divider (and
/// turns it white while hovered); there is no mouse here, so the divider stays black.
/// Properties: the ComparisonPass keys (splitLocation, showTextLabels, leftLabel, rightLabel).
class SplitScreenPass : public ComparisonPass
{
    FALCOR_PLUGIN_CLASS(SplitScreenPass, "SplitScreenPass", "Allows the user to split the screen between two inputs.");

public:
    explicit SplitScreenPass(const falcor::Properties& props);

private:
    SourceOffsets getSourceOffsets(int32_t) const override { return {0, 0}; }
    falcor::float4 getDividerColor() const override { return falcor::float4(0.f, 0.f, 0.f, 1.f); }
};
