#pragma once
#include "Core/ThreadPool.h"
#include "Utils/Image/Texture.h"
#include "Utils/Math/Float16.h"
#include <cmath>
#include <vector>

namespace postfx
{
using falcor::float2;
using falcor::float4;

/// A float4 image sampled like a GPU texture through SimplePostFX's sampler: bilinear filtering
/// with border addressing, the border color being transparent black.
struct FloatImage
{
    uint32_t width = 0, height = 0;
    std::vector<float4> texels;

    FloatImage(uint32_t w, uint32_t h) : width(w), height(h), texels(size_t(w) * h) {}

    static FloatImage fromTexture(const falcor::Texture& tex)
    {
        FloatImage img(tex.getWidth(), tex.getHeight());
        falcor::parallelForRows(img.height, [&](uint32_t y) { tex.loadRow(y, img.row(y)); });
        return img;
    }

    float4* row(uint32_t y) { return texels.data() + size_t(y) * width; }
    const float4& at(uint32_t x, uint32_t y) const { return texels[size_t(y) * width + x]; }

    float2 invResolution() const { return float2(1.f / width, 1.f / height); }

    float4 sample(float2 uv) const
    {
        float x = uv.x() * width - 0.5f, y = uv.y() * height - 0.5f;
        float x0 = std::floor(x), y0 = std::floor(y);
        // Entirely in the border (this also rejects NaN and keeps the int conversion in range).
        if (!(x0 >= -1.f && x0 < float(width) && y0 >= -1.f && y0 < float(height)))
            return float4(0.f);
        const int i = int(x0), j = int(y0);
        float4 topLeft, topRight, bottomLeft, bottomRight;
        if (i >= 0 && j >= 0 && i + 1 < int(width) && j + 1 < int(height)) // Common case: no border texel.
        {
            const float4* top = &at(uint32_t(i), uint32_t(j));
            topLeft = top[0], topRight = top[1], bottomLeft = top[width], bottomRight = top[width + 1];
        }
        else
        {
            topLeft = texelOrBorder(i, j), topRight = texelOrBorder(i + 1, j);
            bottomLeft = texelOrBorder(i, j + 1), bottomRight = texelOrBorder(i + 1, j + 1);
        }
        const float tx = x - x0, ty = y - y0;
        return lerp(lerp(topLeft, topRight, tx), lerp(bottomLeft, bottomRight, tx), ty);
    }

private:
    float4 texelOrBorder(int x, int y) const
    {
        bool inside = x >= 0 && y >= 0 && x < int(width) && y < int(height);
        return inside ? at(uint32_t(x), uint32_t(y)) : float4(0.f);
    }
};

/// Texture coordinates of the center of pixel (x, y), computed in float like a shader does.
inline float2 pixelCenterUV(uint32_t x, uint32_t y, float2 invRes)
{
    return float2(float(x) + 0.5f, float(y) + 0.5f) * invRes;
}

/// Sets every texel of `img` to shade(x, y), rows in parallel.
template<typename Shade>
void fillImage(FloatImage& img, Shade&& shade)
{
    falcor::parallelForRows(img.height, [&](uint32_t y) {
        float4* row = img.row(y);
        for (uint32_t x = 0; x < img.width; ++x)
            row[x] = shade(x, y);
    });
}

/// The value after a store to an RGBA16Float texture (Falcor keeps the bloom pyramid in half floats).
inline float4 roundToHalf(const float4& v)
{
    float4 r;
    for (int i = 0; i < 4; ++i)
        r[i] = falcor::f16tof32(falcor::f32tof16(v[i]));
    return r;
}
} // namespace postfx
