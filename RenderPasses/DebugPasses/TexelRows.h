#pragma once
#include "Utils/Image/Texture.h"
#include <vector>

/// Row access with GPU out-of-bounds semantics: the debug passes read their inputs at output pixel
/// coordinates (plus offsets), and a shader Load outside a texture returns 0 in every channel.

/// Row `y` of `tex` decoded to float4; empty when `y` is below the texture.
inline std::vector<falcor::float4> loadRowIfInside(const falcor::Texture& tex, uint32_t y)
{
    if (y >= tex.getHeight())
        return {};
    std::vector<falcor::float4> row(tex.getWidth());
    tex.loadRow(y, row.data());
    return row;
}

/// Texel `x` of a decoded row; 0 outside it.
inline falcor::float4 texelOrZero(const std::vector<falcor::float4>& row, int64_t x)
{
    return x >= 0 && x < int64_t(row.size()) ? row[size_t(x)] : falcor::float4(0.f);
}
