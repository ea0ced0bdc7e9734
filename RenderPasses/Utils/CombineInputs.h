#pragma once
#include "Core/ThreadPool.h"
#include "RenderGraph/RenderData.h"
#include <algorithm>
#include <vector>

/// Writes `out[p] = combine(A[p], B[p])` for every pixel p of the frame `frameDim`, the way
/// Falcor's Composite/CrossFade compute shaders do: an unbound input, or a pixel outside an
/// input, reads as 0 (like an out-of-bounds GPU load); pixels outside `out` are dropped and
/// pixels of `out` outside the frame keep their contents. Only mip 0 / array slice 0 is used.
template<typename Combine>
void combineInputs(const falcor::Texture* pA, const falcor::Texture* pB, falcor::Texture& out, falcor::uint2 frameDim, Combine combine)
{
    using falcor::float4;
    const uint32_t width = std::min(frameDim.x(), out.getWidth());
    const uint32_t height = std::min(frameDim.y(), out.getHeight());

    // Row y of an optional input, zero-extended to at least `width` texels.
    auto loadRow = [width](const falcor::Texture* pTex, uint32_t y, std::vector<float4>& row)
    {
        row.assign(std::max(width, pTex ? pTex->getWidth() : 0u), float4(0.f));
        if (pTex && y < pTex->getHeight())
            pTex->loadRow(y, row.data());
    };

    falcor::parallelFor(height, 4, [&](size_t y0, size_t y1) {
        std::vector<float4> rowA, rowB, result(width);
        for (uint32_t y = uint32_t(y0); y < y1; ++y)
        {
            loadRow(pA, y, rowA);
            loadRow(pB, y, rowB);
            for (uint32_t x = 0; x < width; ++x)
                result[x] = combine(rowA[x], rowB[x]);
            out.encode(result.data(), out.row(y), width);
        }
    });
}
