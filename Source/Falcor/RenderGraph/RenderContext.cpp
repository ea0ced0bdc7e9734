#include "RenderGraph/RenderContext.h"
#include "Core/ThreadPool.h"
#include <cmath>
#include <cstring>
#include <vector>

namespace falcor
{
float4 sampleBilinear(const Texture& tex, float u, float v, uint32_t mip, uint32_t arraySlice)
{
    int w = int(tex.getWidth(mip)), h = int(tex.getHeight(mip));
    float x = u * w - 0.5f, y = v * h - 0.5f;
    float fx = std::floor(x), fy = std::floor(y);
    float tx = x - fx, ty = y - fy;
    int x0 = std::clamp(int(fx), 0, w - 1), x1 = std::clamp(int(fx) + 1, 0, w - 1);
    int y0 = std::clamp(int(fy), 0, h - 1), y1 = std::clamp(int(fy) + 1, 0, h - 1);
    float4 a = tex.loadTexel(x0, y0, mip, arraySlice), b = tex.loadTexel(x1, y0, mip, arraySlice);
    float4 c = tex.loadTexel(x0, y1, mip, arraySlice), d = tex.loadTexel(x1, y1, mip, arraySlice);
    return lerp(lerp(a, b, tx), lerp(c, d, tx), ty);
}

void loadResampledRow(const Texture& src, uint32_t y, uint2 dstDims, TextureFilteringMode filter, float4* row, uint32_t srcMip,
                      uint32_t srcArraySlice)
{
    const uint32_t sw = src.getWidth(srcMip), sh = src.getHeight(srcMip);
    if (sw == dstDims.x() && sh == dstDims.y())
        return src.loadRow(y, row, srcMip, srcArraySlice);
    const float v = (y + 0.5f) / dstDims.y();
    for (uint32_t x = 0; x < dstDims.x(); ++x)
    {
        const float u = (x + 0.5f) / dstDims.x();
        row[x] = filter == TextureFilteringMode::Linear
                     ? sampleBilinear(src, u, v, srcMip, srcArraySlice)
                     : src.loadTexel(std::min(uint32_t(u * sw), sw - 1), std::min(uint32_t(v * sh), sh - 1), srcMip, srcArraySlice);
    }
}

void RenderContext::blit(const Texture& src, Texture& dst, TextureFilteringMode filter, uint32_t srcMip, uint32_t srcArraySlice)
{
    srcMip = std::min(srcMip, src.getMipCount() - 1);
    srcArraySlice = std::min(srcArraySlice, src.getArraySize() - 1);
    if (src.getDims(srcMip) == dst.getDims() && src.getFormat() == dst.getFormat())
    {
        // One 2D slice: of a 3D source (or destination) only the first depth slice takes part.
        std::memcpy(dst.data(), src.data(srcMip, srcArraySlice), src.getRowPitch(srcMip) * src.getHeight(srcMip));
        return;
    }
    parallelForRows(dst.getHeight(), [&](uint32_t y) {
        std::vector<float4> row(dst.getWidth());
        loadResampledRow(src, y, dst.getDims(), filter, row.data(), srcMip, srcArraySlice);
        dst.storeRow(y, row.data());
    });
}

void RenderContext::copyResource(Texture& dst, const Texture& src)
{
    FALCOR_CHECK(dst.getFormat() == src.getFormat() && dst.getSizeInBytes() == src.getSizeInBytes() && dst.getWidth() == src.getWidth() &&
                     dst.getHeight() == src.getHeight(),
                 "copyResource: source and destination must have the same size and format.");
    std::memcpy(dst.data(), src.data(), src.getSizeInBytes());
}
} // namespace falcor
