// The GBuffer plugin library: Falcor's ray-traced and rasterized G-buffer passes.
#include "Core/PluginRegistry.h"
#include "GBufferRT.h"
#include "GBufferRaster.h"
#include "VBufferRT.h"
#include "VBufferRaster.h"

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(falcor::PluginRegistry& registry)
{
    registry.registerRenderPass<falcor::GBufferRaster>();
    registry.registerRenderPass<falcor::GBufferRT>();
    registry.registerRenderPass<falcor::VBufferRaster>();
    registry.registerRenderPass<falcor::VBufferRT>();
}
