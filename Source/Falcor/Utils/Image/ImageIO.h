#pragma once
#include "Utils/Image/Texture.h"
#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

namespace falcor
{
/// Decoded image pixels, rows top to bottom, tightly packed in `format`.
struct Image
{
    uint32_t width = 0, height = 0;
    ResourceFormat format = ResourceFormat::Unknown;
    std::vector<uint8_t> data;
};

/// Decoder for the formats libfalcor does not read itself. The Python package installs one built
/// on Pillow (PNG, JPEG, BMP, TGA, ...) and OpenEXR at import time.
using ImageReader = std::function<Image(const std::filesystem::path&)>;
FALCOR_API void setImageReader(ImageReader reader);

/// Reads an image file: Radiance .hdr natively, everything else through the installed reader.
/// Throws ImporterError naming the file.
FALCOR_API Image readImage(const std::filesystem::path& path);

/// A texture holding the image in mip 0. `format` defaults to the image's own; a format of the same
/// texel size reinterprets the bytes (e.g. RGBA8Unorm read as RGBA8UnormSrgb), any other converts
/// the values. With more than one mip level, the chain is filtered from mip 0.
FALCOR_API TexturePtr createTextureFromImage(const Image& image, ResourceFormat format = ResourceFormat::Unknown,
                                             uint32_t mipLevels = 1);

/// Radiance RGBE (.hdr / .pic) decoder, to RGB32Float.
FALCOR_API Image readRadianceHDR(const std::filesystem::path& path);
} // namespace falcor
