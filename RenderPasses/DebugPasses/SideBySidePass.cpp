#include "SideBySidePass.h"

using namespace falcor;

namespace
{
const std::string kImageLeftBound = "imageLeftBound";
} // namespace

SideBySidePass::SideBySidePass(const Properties& props)
{
    for (const auto& [key, value] : props)
    {
        if (key == kImageLeftBound)
            mImageLeftBound = value.as<uint32_t>(key);
        else if (!parseComparisonProperty(key, value))
            warnUnknownProperty(key);
    }
}

ComparisonPass::SourceOffsets SideBySidePass::getSourceOffsets(int32_t splitColumn) const
{
    // The right half starts over at the bound: output column `split` shows right-image column `bound`.
    return {int64_t(mImageLeftBound), int64_t(mImageLeftBound) - splitColumn};
}

float4 SideBySidePass::getDividerColor() const
{
    // Falcor never sets this pass's divider color, so its shader draws the zero-initialized value.
    return float4(0.f);
}
