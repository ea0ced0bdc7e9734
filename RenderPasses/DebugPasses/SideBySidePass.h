#pragma once
#include "ComparisonPass.h"

/// SideBySidePass: the left half of `output` shows `leftInput` from column `imageLeftBound` on, the
/// right half shows `rightInput` from the same column, so both images are cut at the same place.
///
/// | Property       | Type | Default | Meaning                                                          |
/// |----------------|------|---------|------------------------------------------------------------------|
/// | imageLeftBound | uint | 0       | Input column shown at each half's left edge (not reported by getProperties, as in Falcor). |
/// | (ComparisonPass keys: splitLocation, showTextLabels, leftLabel, rightLabel)                           |
class SideBySidePass : public ComparisonPass
{
    FALCOR_PLUGIN_CLASS(SideBySidePass, "SideBySidePass", "Allows the user to compare two inputs side-by-side.");

public:
    explicit SideBySidePass(const falcor::Properties& props);

private:
    SourceOffsets getSourceOffsets(int32_t splitColumn) const override;
    falcor::float4 getDividerColor() const override;

    uint32_t mImageLeftBound = 0;
};
