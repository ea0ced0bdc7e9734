/// BlitPass: copies `src` to `dst`, rescaling (point or bilinear) and converting the format.
///
/// | Property       | Type           | Default   | Meaning                                       |
/// |----------------|----------------|-----------|-----------------------------------------------|
/// | filter         | 'Point'/'Linear' | 'Linear' | Filter used when sizes differ.               |
/// | outputFormat   | ResourceFormat | 'Unknown' | Format of `dst`; Unknown = graph default.     |
#include "Core/PluginRegistry.h"
#include "RenderGraph/RenderPass.h"

using namespace falcor;

namespace
{
const std::string kSrc = "src";
const std::string kDst = "dst";
const std::string kFilter = "filter";
const std::string kOutputFormat = "outputFormat";
} // namespace

class BlitPass : public RenderPass
{
    FALCOR_PLUGIN_CLASS(BlitPass, "BlitPass", "Blit a texture into a different texture.");

public:
    explicit BlitPass(const Properties& props)
    {
        for (const auto& [key, value] : props)
        {
            if (key == kFilter)
            {
                mFilter = value.as<TextureFilteringMode>(key);
                // Falcor's BlitPass also reports this (valid) key as unknown; we don't repeat that bug.
            }
            else if (key == kOutputFormat)
                mOutputFormat = value.as<ResourceFormat>(key);
            else
                warnUnknownProperty(key);
        }
        scriptProperty<TextureFilteringMode>(kFilter, [this] { return mFilter; }, [this](TextureFilteringMode f) { mFilter = f; });
    }

    Properties getProperties() const override
    {
        Properties props;
        props.set(kFilter, mFilter);
        if (mOutputFormat != ResourceFormat::Unknown)
            props.set(kOutputFormat, mOutputFormat);
        return props;
    }

    RenderPassReflection reflect(const CompileData&) override
    {
        RenderPassReflection r;
        r.addInput(kSrc, "The source texture");
        r.addOutput(kDst, "The destination texture").format(mOutputFormat);
        return r;
    }

    void execute(RenderContext* pRenderContext, const RenderData& renderData) override
    {
        pRenderContext->blit(*renderData[kSrc], *renderData[kDst], mFilter);
    }

private:
    TextureFilteringMode mFilter = TextureFilteringMode::Linear;
    ResourceFormat mOutputFormat = ResourceFormat::Unknown;
};

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(PluginRegistry& registry)
{
    registry.registerRenderPass<BlitPass>();
}
