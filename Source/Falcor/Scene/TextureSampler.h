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

/// Anisotropic filtering as GPU samplers approximate it (EXT_texture_filter_anisotropic): the
/// pixel footprint's uv gradients `ddx`, `ddy` span an ellipse; N = min(ceil(major / minor),
/// `maxAnisotropy`) trilinear taps, evenly spaced along the major axis over the footprint, are
/// averaged at the level log2(major / N) (lengths in texels of level 0). Equal gradients give one
/// tap, the trilinear lookup at the isotropic level. Non-finite gradients read level 0.
FALCOR_API float4 sampleAnisotropic(const Texture& texture, float2 uv, float2 ddx, float2 ddy, uint32_t maxAnisotropy,
                                    TextureAddressMode addressU = TextureAddressMode::Wrap, TextureAddressMode addressV = TextureAddressMode::Wrap);
} // namespace falcor
