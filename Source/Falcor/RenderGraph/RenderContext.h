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

/// Row `y` of a `dstDims`-sized image that samples `src` at each pixel's center (a full-screen
/// draw over the target): a plain decode when the sizes match, point or bilinear filtering otherwise.
FALCOR_API void loadResampledRow(const Texture& src, uint32_t y, uint2 dstDims, TextureFilteringMode filter, float4* row,
                                 uint32_t srcMip = 0, uint32_t srcArraySlice = 0);

/// Bilinear, clamp-to-edge sample of one subresource at normalized coordinates (u, v), texel
/// centers at (i + 0.5) / size as on a GPU.
FALCOR_API float4 sampleBilinear(const Texture& tex, float u, float v, uint32_t mip = 0, uint32_t arraySlice = 0);
} // namespace falcor
