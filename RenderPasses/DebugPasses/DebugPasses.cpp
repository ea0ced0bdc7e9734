/// DebugPasses: passes for inspecting images (color-mapping a channel, finding NaN/Inf pixels,
/// comparing two images side by side or split-screen).
#include "ColorMapPass.h"
#include "Core/PluginRegistry.h"
#include "InvalidPixelDetectionPass.h"
#include "SideBySidePass.h"
#include "SplitScreenPass.h"

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(falcor::PluginRegistry& registry)
{
    registry.registerRenderPass<SplitScreenPass>();
    registry.registerRenderPass<InvalidPixelDetectionPass>();
    registry.registerRenderPass<SideBySidePass>();
    registry.registerRenderPass<ColorMapPass>();
}
