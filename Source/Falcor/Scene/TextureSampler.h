#pragma once
#include "Core/Macros.h"
#include "Utils/Image/Texture.h"
#include "Utils/Math/Vector.h"

namespace falcor
{
enum class TextureAddressMode
{
    Wrap,
    Clamp,
};

/// Trilinear filtering as a GPU sampler does it: bilinear within the two mip levels around
/// `lod`, texel centers at (i + 0.5) / size, address mode per axis. `lod` is clamped to the
/// texture's mip range.
FALCOR_API float4 sampleTrilinear(const Texture& texture, float2 uv, float lod, TextureAddressMode addressU = TextureAddressMode::Wrap,
                                  TextureAddressMode addressV = TextureAddressMode::Wrap);
} // namespace falcor
