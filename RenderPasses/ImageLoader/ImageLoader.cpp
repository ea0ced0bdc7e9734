/// ImageLoader: loads an image file into a texture and blits it to `dst`.
///
/// | Property     | Type           | Default   | Meaning                                                       |
/// |--------------|----------------|-----------|---------------------------------------------------------------|
/// | filename     | path           | ''        | Image file; relative paths are looked up in the asset paths.  |
/// | outputFormat | ResourceFormat | 'Unknown' | Format of `dst`; Unknown = graph default or merged format.    |
/// | outputSize   | IOSize         | 'Default' | Size rule of `dst`; 'Fixed' = the image's native size.        |
/// | mips         | bool           | False     | Generate a full mip chain.                                    |
/// | srgb         | bool           | True      | 8-bit color is sRGB-encoded (linearized when read).           |
/// | arrayIndex   | uint           | 0         | Array slice to output (clamped at execute).                   |
/// | mipLevel     | uint           | 0         | Mip level to output (clamped at execute).                     |
#include "ImageLoader.h"
#include "Core/AssetResolver.h"
#include "Core/PluginRegistry.h"
#include "Core/ThreadPool.h"
#include "Utils/Image/ImageIO.h"
#include <cstring>

namespace falcor
{
namespace
{
const std::string kDst = "dst";

const std::string kOutputSize = "outputSize";
const std::string kOutputFormat = "outputFormat";
const std::string kFilename = "filename";
const std::string kMips = "mips";
const std::string kSrgb = "srgb";
const std::string kArrayIndex = "arrayIndex";
const std::string kMipLevel = "mipLevel";

/// The texture format Falcor gives decoded pixels: 8-bit color becomes its sRGB twin (same bytes,
/// read as sRGB) when requested; 96-bit RGB float is widened to RGBA.
ResourceFormat textureFormatFor(ResourceFormat imageFormat, bool srgb)
{
    using F = ResourceFormat;
    switch (imageFormat)
    {
    case F::RGBA8Unorm: return srgb ? F::RGBA8UnormSrgb : imageFormat;
    case F::BGRA8Unorm: return srgb ? F::BGRA8UnormSrgb : imageFormat;
    case F::BGRX8Unorm: return srgb ? F::BGRX8UnormSrgb : imageFormat;
    case F::RGB32Float: return F::RGBA32Float;
    default: return imageFormat;
    }
}

} // namespace

ImageLoader::ImageLoader(const Properties& props)
{
    for (const auto& [key, value] : props)
    {
        if (key == kOutputSize)
            mOutputSizeSelection = value.as<IOSize>(key);
        else if (key == kOutputFormat)
            mOutputFormat = value.as<ResourceFormat>(key);
        else if (key == kFilename)
            mImagePath = value.as<std::filesystem::path>(key);
        else if (key == kSrgb)
            mLoadSRGB = value.as<bool>(key);
        else if (key == kMips)
            mGenerateMips = value.as<bool>(key);
        else if (key == kArrayIndex)
            mArraySlice = value.as<uint32_t>(key);
        else if (key == kMipLevel)
            mMipLevel = value.as<uint32_t>(key);
        else
            warnUnknownProperty(key);
    }
    // Loaded after all options are read: srgb and mips shape the texture.
    if (!mImagePath.empty())
        loadImage();
}

void ImageLoader::loadImage()
{
    const AssetResolver& resolver = AssetResolver::getDefaultResolver();
    const std::filesystem::path resolved = resolver.resolvePath(mImagePath);
    FALCOR_CHECK(!resolved.empty(), "ImageLoader: Failed to load image from '", mImagePath.string(), "': file not found (searched ",
                 resolver.describeSearch(mImagePath), ").");
    Image image;
    try
    {
        image = readImage(resolved);
    }
    catch (const RuntimeError& e)
    {
        throwError("ImageLoader: Failed to load image from '", mImagePath.string(), "': ", e.what());
    }
    mpTex = createTextureFromImage(image, textureFormatFor(image.format, mLoadSRGB), mGenerateMips ? Texture::kMaxPossible : 1);
}

Properties ImageLoader::getProperties() const
{
    Properties props;
    props.set(kOutputSize, mOutputSizeSelection);
    if (mOutputFormat != ResourceFormat::Unknown)
        props.set(kOutputFormat, mOutputFormat);
    props.set(kFilename, mImagePath);
    props.set(kMips, mGenerateMips);
    props.set(kSrgb, mLoadSRGB);
    props.set(kArrayIndex, mArraySlice);
    props.set(kMipLevel, mMipLevel);
    return props;
}

RenderPassReflection ImageLoader::reflect(const CompileData& compileData)
{
    RenderPassReflection r;
    const uint2 nativeSize = mpTex ? mpTex->getDims() : uint2(0, 0);
    const uint2 size = calculateIOSize(mOutputSizeSelection, nativeSize, compileData.defaultTexDims);
    r.addOutput(kDst, "Destination texture").format(mOutputFormat).texture2D(size);
    return r;
}

void ImageLoader::compile(RenderContext* pRenderContext, const CompileData& compileData)
{
    FALCOR_CHECK(mpTex, "ImageLoader: No image loaded (set the '", kFilename, "' property).");
}

void ImageLoader::execute(RenderContext* pRenderContext, const RenderData& renderData)
{
    Texture& dst = *renderData[kDst];
    // As in Falcor, the format the graph chose is remembered: later compiles request it and
    // getProperties reports it.
    mOutputFormat = dst.getFormat();
    mMipLevel = std::min(mMipLevel, mpTex->getMipCount() - 1);
    mArraySlice = std::min(mArraySlice, mpTex->getArraySize() - 1);
    pRenderContext->blit(*mpTex, dst, TextureFilteringMode::Linear, mMipLevel, mArraySlice);
}
} // namespace falcor

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(falcor::PluginRegistry& registry)
{
    registry.registerRenderPass<falcor::ImageLoader>();
}
