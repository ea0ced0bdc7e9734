#pragma once
#include "Utils/Image/Texture.h"

namespace falcor
{
enum class TextureFilteringMode
{
    Point,
    Linear,
};
FALCOR_ENUM_INFO(TextureFilteringMode, {{TextureFilteringMode::Point, "Point"}, {TextureFilteringMode::Linear, "Linear"}});

/// Commands passes issue besides their own loops: copies, clears and blits. On the CPU these
/// run immediately on the engine's thread pool.
class FALCOR_API RenderContext
{
public:
    /// Stretches `src` (one mip level and array slice) over all of `dst` mip 0 / slice 0 with
    /// point or bilinear (clamp-to-edge) filtering, converting formats (sRGB encode included).
    void blit(const Texture& src, Texture& dst, TextureFilteringMode filter = TextureFilteringMode::Linear, uint32_t srcMip = 0,
              uint32_t srcArraySlice = 0);
    /// Copies all subresources; sizes and formats must match.
    void copyResource(Texture& dst, const Texture& src);
    void clearTexture(Texture& tex, const float4& value = float4(0.f)) { tex.clear(value); }
};

/// Bilinear, clamp-to-edge sample of one subresource at normalized coordinates (u, v), texel
/// centers at (i + 0.5) / size as on a GPU.
FALCOR_API float4 sampleBilinear(const Texture& tex, float u, float v, uint32_t mip = 0, uint32_t arraySlice = 0);
} // namespace falcor
