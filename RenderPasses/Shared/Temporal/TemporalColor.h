#pragma once
#include "Core/ThreadPool.h"
#include "Utils/Image/Texture.h"
#include "Utils/Math/Vector.h"
#include <algorithm>
#include <cmath>
#include <vector>

/// Image helpers shared by the temporal passes (TAA, DLSSPass): decoded float4 images, the YCgCo
/// color space their neighbourhood clamps work in, and filtered history reads.
namespace falcor::temporal
{
/// The 3x3 neighbourhood without its center, in Falcor's TAA order (it decides ties between
/// equally long motion vectors).
inline constexpr int kNeighbourOffsets[8][2] = {{-1, -1}, {-1, 1}, {1, -1}, {1, 1}, {1, 0}, {0, -1}, {0, 1}, {-1, 0}};

/// A decoded float4 image, rows top to bottom.
struct ImageView
{
    const float4* texels;
    uint32_t width, height;

    /// A GPU Load: texels outside the image read as 0.
    float4 load(int x, int y) const
    {
        const bool inside = x >= 0 && y >= 0 && x < int(width) && y < int(height);
        return inside ? texels[size_t(y) * width + x] : float4(0.f);
    }
    /// Clamp-to-edge addressing.
    float4 loadClamped(int x, int y) const
    {
        x = std::clamp(x, 0, int(width) - 1);
        y = std::clamp(y, 0, int(height) - 1);
        return texels[size_t(y) * width + x];
    }
};

/// A GPU's clamp, min(max(v, lo), hi), whose min and max ignore a NaN operand: a flat neighbourhood
/// gives TAA's anti-flicker ratio 0 / 0, which clamps to 0.
inline float gpuClamp(float v, float lo, float hi)
{
    return std::fmin(std::fmax(v, lo), hi);
}

inline float3 rgbToYCgCo(const float3& rgb)
{
    return {dot(rgb, float3(0.25f, 0.5f, 0.25f)), dot(rgb, float3(-0.25f, 0.5f, -0.25f)), dot(rgb, float3(0.5f, 0.f, -0.5f))};
}

inline float3 yCgCoToRgb(const float3& c)
{
    const float yMinusCg = c.x() - c.y();
    return {yMinusCg + c.z(), c.x() + c.y(), yMinusCg - c.z()};
}

/// Decodes `tex` into `texels` (reusing its memory), each texel passed through `convert`.
template<typename Convert>
void decodeImage(const Texture& tex, std::vector<float4>& texels, Convert&& convert)
{
    const uint32_t width = tex.getWidth();
    texels.resize(size_t(width) * tex.getHeight());
    parallelForRows(tex.getHeight(), [&](uint32_t y) {
        float4* row = texels.data() + size_t(y) * width;
        tex.loadRow(y, row);
        for (uint32_t x = 0; x < width; ++x)
            row[x] = convert(row[x]);
    });
}

/// The YCgCo box mean +- sigma * stddev of the 3x3 neighbourhood of (x, y) (color in YCgCo),
/// neighbours outside the image read as a GPU Load does (0) or clamped to the edge.
struct ColorBox
{
    float3 min, max;
    float3 clamp(const float3& c) const
    {
        float3 r;
        for (int i = 0; i < 3; ++i)
            r[i] = gpuClamp(c[i], min[i], max[i]);
        return r;
    }
};

template<bool kClampToEdge = false>
ColorBox neighbourhoodBox(const ImageView& colorYCgCo, int x, int y, float sigma)
{
    auto load = [&](int px, int py) { return kClampToEdge ? colorYCgCo.loadClamped(px, py) : colorYCgCo.load(px, py); };
    const float3 center = load(x, y).xyz();
    float3 mean = center, meanSquare = center * center;
    for (const auto& o : kNeighbourOffsets)
    {
        const float3 c = load(x + o[0], y + o[1]).xyz();
        mean += c;
        meanSquare += c * c;
    }
    mean *= 1.f / 9.f;
    meanSquare *= 1.f / 9.f;
    const float3 stddev = map(meanSquare - mean * mean, [](float v) { return std::sqrt(std::fmax(0.f, v)); });
    return {mean - sigma * stddev, mean + sigma * stddev};
}

/// Index of texel coordinate `i` (a whole number) under wrap addressing.
inline uint32_t wrapIndex(float i, uint32_t size)
{
    if (i >= 0.f && i < float(size))
        return uint32_t(i);
    double r = std::fmod(double(i), double(size));
    r = r < 0.0 ? r + size : r;
    return r < double(size) ? uint32_t(r) : 0u;
}

/// Bilinear sample at texture coordinates (u, v), wrap addressing (Falcor's default sampler).
inline float3 sampleBilinearWrap(const ImageView& img, float u, float v)
{
    const float x = u * float(img.width) - 0.5f, y = v * float(img.height) - 0.5f;
    const float x0 = std::floor(x), y0 = std::floor(y);
    if (!std::isfinite(x0) || !std::isfinite(y0))
        return float3(0.f);
    const uint32_t i0 = wrapIndex(x0, img.width), i1 = wrapIndex(x0 + 1.f, img.width);
    const uint32_t j0 = wrapIndex(y0, img.height), j1 = wrapIndex(y0 + 1.f, img.height);
    auto texel = [&](uint32_t i, uint32_t j) { return img.texels[size_t(j) * img.width + i].xyz(); };
    const float tx = x - x0, ty = y - y0;
    return lerp(lerp(texel(i0, j0), texel(i1, j0), tx), lerp(texel(i0, j1), texel(i1, j1), tx), ty);
}

/// Catmull-Rom weights of the four texels around a sample `f` (0..1) past the second one's center.
inline float4 catmullRomWeights(float f)
{
    const float f2 = f * f, f3 = f2 * f;
    const float w0 = f2 - 0.5f * (f3 + f);
    const float w1 = 1.5f * f3 - 2.5f * f2 + 1.f;
    const float w3 = 0.5f * (f3 - f2);
    return {w0, w1, 1.f - w0 - w1 - w3, w3};
}

/// One axis of Catmull-Rom filtering in three bilinear taps: their texture coordinates and weights.
struct CatmullRomTaps
{
    float coord[3];
    float weight[3];
};

/// The taps along one axis for a sample at `pos` (texels) in a texture `size` texels long.
inline CatmullRomTaps catmullRomTaps(float pos, float size)
{
    const float invSize = 1.f / size;
    const float tc = std::floor(pos - 0.5f) + 0.5f;
    const float4 w = catmullRomWeights(pos - tc);
    const float w12 = w[1] + w[2];
    // The middle two taps merge into one bilinear tap placed between them by their weights.
    return {{(tc - 1.f) * invSize, (tc + w[2] / w12) * invSize, (tc + 2.f) * invSize}, {w[0], w12, w[3]}};
}

/// Bicubic Catmull-Rom sample at `pos` (in texels) from the 4x4 texels around it, clamp-to-edge
/// addressing: on the CPU, sixteen loads cost less than the nine bilinear taps a GPU prefers.
inline float3 sampleCatmullRomClamped(const ImageView& img, float2 pos)
{
    const float x0 = std::floor(pos.x() - 0.5f), y0 = std::floor(pos.y() - 0.5f);
    if (!std::isfinite(x0) || !std::isfinite(y0))
        return float3(0.f);
    const float4 wx = catmullRomWeights(pos.x() - 0.5f - x0), wy = catmullRomWeights(pos.y() - 0.5f - y0);
    float3 sum(0.f);
    for (int j = 0; j < 4; ++j)
    {
        float3 row(0.f);
        for (int i = 0; i < 4; ++i)
            row += img.loadClamped(int(x0) - 1 + i, int(y0) - 1 + j).xyz() * wx[i];
        sum += row * wy[j];
    }
    return sum;
}

/// Bicubic Catmull-Rom sample at `pos` (in texels) from nine bilinear taps.
inline float3 sampleCatmullRom(const ImageView& img, float2 pos)
{
    const CatmullRomTaps tx = catmullRomTaps(pos.x(), float(img.width));
    const CatmullRomTaps ty = catmullRomTaps(pos.y(), float(img.height));
    float3 sum(0.f);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            sum += sampleBilinearWrap(img, tx.coord[i], ty.coord[j]) * (tx.weight[i] * ty.weight[j]);
    return sum;
}
} // namespace falcor::temporal
