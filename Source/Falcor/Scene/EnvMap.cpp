#include "Scene/EnvMap.h"
#include "Scene/TextureSampler.h"
#include <algorithm>
#include <cmath>
#include <numbers>

namespace falcor
{
float2 EnvMap::worldToUv(const float3& dir) const
{
    const float3 p = normalize(mul(invTransform, dir));
    constexpr float pi = std::numbers::pi_v<float>;
    return float2(std::atan2(p.x(), -p.z()) / (2.f * pi) + 0.5f, std::acos(std::clamp(p.y(), -1.f, 1.f)) / pi);
}

float3 EnvMap::uvToWorld(float2 uv) const
{
    constexpr float pi = std::numbers::pi_v<float>;
    const float phi = pi * (2.f * saturate(uv.x()) - 1.f), theta = pi * saturate(uv.y());
    const float3 local(std::sin(theta) * std::sin(phi), std::cos(theta), -std::sin(theta) * std::cos(phi));
    return mul(transform, local);
}

float3 EnvMap::evalUv(float2 uv, float lod) const
{
    if (!texture)
        return float3(0.f);
    // The map wraps around horizontally but not over the poles.
    const float4 t = sampleTrilinear(*texture, uv, lod, TextureAddressMode::Wrap, TextureAddressMode::Clamp);
    return t.xyz() * tint * intensity;
}

float3 EnvMap::eval(const float3& dir, float lod) const
{
    return evalUv(worldToUv(dir), lod);
}
} // namespace falcor
