// The GBuffer plugin library: Falcor's ray-traced G-buffer passes. (Falcor's library also holds
// the rasterized GBufferRaster and VBufferRaster, which need a rasterizer we don't have.)
#include "Core/PluginRegistry.h"
#include "GBufferRT.h"
#include "VBufferRT.h"

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(falcor::PluginRegistry& registry)
{
    registry.registerRenderPass<falcor::GBufferRT>();
    registry.registerRenderPass<falcor::VBufferRT>();
}
