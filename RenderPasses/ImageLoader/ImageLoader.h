#pragma once
#include "RenderGraph/RenderPass.h"
#include <filesystem>

namespace falcor
{
/// Loads an image file (found through the asset search paths) and blits it to `dst`, rescaled
/// bilinearly when the output size differs from the image's.
class ImageLoader : public RenderPass
{
    FALCOR_PLUGIN_CLASS(ImageLoader, "ImageLoader", "Load an image into a texture.");

public:
    explicit ImageLoader(const Properties& props);

    Properties getProperties() const override;
    RenderPassReflection reflect(const CompileData& compileData) override;
    void compile(RenderContext* pRenderContext, const CompileData& compileData) override;
    void execute(RenderContext* pRenderContext, const RenderData& renderData) override;

private:
    /// Reads `mImagePath` into `mpTex`; throws naming the file and the places searched.
    void loadImage();

    IOSize mOutputSizeSelection = IOSize::Default;
    ResourceFormat mOutputFormat = ResourceFormat::Unknown;
    std::filesystem::path mImagePath; ///< As given (unresolved), which is what getProperties reports.
    bool mGenerateMips = false;
    bool mLoadSRGB = true;
    uint32_t mArraySlice = 0;
    uint32_t mMipLevel = 0;

    TexturePtr mpTex;
};
} // namespace falcor
