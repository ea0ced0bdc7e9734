#include "RenderGraph/RenderPass.h"
#include "Core/Logger.h"

namespace falcor
{
uint2 calculateIOSize(IOSize selection, uint2 fixedSize, uint2 windowSize)
{
    switch (selection)
    {
    case IOSize::Default: return {0, 0};
    case IOSize::Fixed: return fixedSize;
    case IOSize::Full: return windowSize;
    case IOSize::Half: return {windowSize.x() / 2, windowSize.y() / 2};
    case IOSize::Quarter: return {windowSize.x() / 4, windowSize.y() / 4};
    case IOSize::Double: return {windowSize.x() * 2, windowSize.y() * 2};
    }
    return {0, 0};
}

void RenderPass::warnUnknownProperty(const std::string& key) const
{
    logWarningOnce("Unknown property '", key, "' in ", getType(), " properties.");
}
} // namespace falcor
