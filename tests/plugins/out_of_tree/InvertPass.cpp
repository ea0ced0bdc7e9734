// An out-of-tree render pass: out = (1 - rgb, a) of `src`, as an RGBA32Float texture.
#include "Core/PluginRegistry.h"
#include "Core/ThreadPool.h"
#include "RenderGraph/RenderPass.h"
#include <vector>

using namespace falcor;

class InvertPass : public RenderPass
{
    FALCOR_PLUGIN_CLASS(InvertPass, "InvertPass", "Inverts the color of its input.");

public:
    explicit InvertPass(const Properties& props)
    {
        for (const auto& [key, value] : props)
            warnUnknownProperty(key);
    }

    RenderPassReflection reflect(const CompileData&) override
    {
        RenderPassReflection r;
        r.addInput("src", "Input color");
        r.addOutput("dst", "Inverted color").format(ResourceFormat::RGBA32Float);
        return r;
    }

    void execute(RenderContext*, const RenderData& renderData) override
    {
        const Texture& src = *renderData["src"];
        Texture& dst = *renderData["dst"];
        parallelForRows(dst.getHeight(), [&](uint32_t y) {
            std::vector<float4> row(dst.getWidth());
            src.loadRow(y, row.data());
            for (auto& v : row)
                v = float4(1.f - v.x(), 1.f - v.y(), 1.f - v.z(), v.w());
            dst.storeRow(y, row.data());
        });
    }
};

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(PluginRegistry& registry)
{
    registry.registerRenderPass<InvertPass>();
}
