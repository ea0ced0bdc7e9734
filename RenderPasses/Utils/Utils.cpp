/// The `Utils` plugin library: small image utilities that Falcor groups together.
#include "Composite.h"
#include "CrossFade.h"
#include "GaussianBlur.h"
#include "Core/PluginRegistry.h"

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(falcor::PluginRegistry& registry)
{
    registry.registerRenderPass<CrossFade>();
    registry.registerRenderPass<Composite>();
    registry.registerRenderPass<GaussianBlur>();
}
