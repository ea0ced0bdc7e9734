#include "Scene/TextureSampler.h"
#include <algorithm>
#include <cmath>

namespace falcor
{
namespace
{
/// Brings a coordinate into a range where texel indices can't overflow (same texels as before).
float reduce(float u, TextureAddressMode mode)
{
    return mode == TextureAddressMode::Wrap ? u - std::floor(u) : std::clamp(u, -1.f, 2.f);
}

int address(int i, int size, TextureAddressMode mode)
{
    if (unsigned(i) < unsigned(size))
        return i; // Inside the texture (nearly always): either mode keeps it, without a division.
    if (mode == TextureAddressMode::Clamp)
        return i < 0 ? 0 : size - 1;
    int m = i % size;
    return m < 0 ? m + size : m;
}

float4 sampleBilinearLevel(const Texture& t, float2 uv, uint32_t mip, TextureAddressMode au, TextureAddressMode av)
{
    const int w = int(t.getWidth(mip)), h = int(t.getHeight(mip));
    const float x = reduce(uv.x(), au) * w - 0.5f, y = reduce(uv.y(), av) * h - 0.5f;
    const float fx = std::floor(x), fy = std::floor(y);
    const float tx = x - fx, ty = y - fy;
    const int x0 = address(int(fx), w, au), x1 = address(int(fx) + 1, w, au);
    const int y0 = address(int(fy), h, av), y1 = address(int(fy) + 1, h, av);
    // Neighbouring texels (all but the wrapped or clamped edge) decode as one pair per row.
    float4 top[2], bottom[2];
    if (x1 == x0 + 1)
    {
        t.decode(t.row(uint32_t(y0), mip) + size_t(x0) * t.getBytesPerTexel(), top, 2);
        t.decode(t.row(uint32_t(y1), mip) + size_t(x0) * t.getBytesPerTexel(), bottom, 2);
    }
    else
    {
        top[0] = t.loadTexel(x0, y0, mip), top[1] = t.loadTexel(x1, y0, mip);
        bottom[0] = t.loadTexel(x0, y1, mip), bottom[1] = t.loadTexel(x1, y1, mip);
    }
    return lerp(lerp(top[0], top[1], tx), lerp(bottom[0], bottom[1], tx), ty);
}
} // namespace

float4 sampleTrilinear(const Texture& texture, float2 uv, float lod, TextureAddressMode addressU, TextureAddressMode addressV)
{
    if (!std::isfinite(uv.x()) || !std::isfinite(uv.y()))
        uv = float2(0.f);
    const float maxLod = float(texture.getMipCount() - 1);
    lod = std::clamp(std::isnan(lod) ? 0.f : lod, 0.f, maxLod);
    const uint32_t lo = uint32_t(lod);
    const float f = lod - float(lo);
    const float4 a = sampleBilinearLevel(texture, uv, lo, addressU, addressV);
    if (f == 0.f)
        return a;
    return lerp(a, sampleBilinearLevel(texture, uv, lo + 1, addressU, addressV), f);
}

float4 sampleAnisotropic(const Texture& texture, float2 uv, float2 ddx, float2 ddy, uint32_t maxAnisotropy, TextureAddressMode addressU,
                         TextureAddressMode addressV)
{
    const float2 size(float(texture.getWidth()), float(texture.getHeight()));
    const float lengthX = length(ddx * size), lengthY = length(ddy * size);
    const float major = std::max(lengthX, lengthY), minor = std::min(lengthX, lengthY);
    if (!(major > 0.f) || !std::isfinite(major))
        return sampleTrilinear(texture, uv, 0.f, addressU, addressV);
    // The ratio is clamped as a float first, so a zero minor axis (ratio inf) takes the maximum.
    const float ratio = std::clamp(std::ceil(major / minor), 1.f, float(std::max(maxAnisotropy, 1u)));
    const uint32_t taps = uint32_t(ratio);
    const float lod = std::log2(major / ratio);
    if (taps == 1)
        return sampleTrilinear(texture, uv, lod, addressU, addressV);
    const float2 majorAxis = lengthX >= lengthY ? ddx : ddy;
    float4 sum(0.f);
    for (uint32_t i = 0; i < taps; ++i)
        sum += sampleTrilinear(texture, uv + majorAxis * ((float(i) + 0.5f) / ratio - 0.5f), lod, addressU, addressV);
    return sum / ratio;
}
} // namespace falcor
