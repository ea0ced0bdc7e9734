#pragma once
#include "Core/Macros.h"
#include "Utils/Image/Texture.h"
#include "Utils/Math/Matrix.h"
#include "Utils/Math/Vector.h"

namespace falcor
{
/// A lat-long environment map (Falcor's EnvMap): the map is centered on -Z, u wraps around the
/// vertical axis and v runs from +Y (top) to -Y. Radiance = texel · intensity · tint.
struct FALCOR_API EnvMap
{
    TexturePtr texture;
    float3x3 transform = float3x3::identity();    ///< Local to world rotation.
    float3x3 invTransform = float3x3::identity(); ///< World to local.
    float3 tint{1.f, 1.f, 1.f};
    float intensity = 1.f;

    /// Radiance arriving from world direction `dir` (need not be normalized), at mip `lod`.
    float3 eval(const float3& dir, float lod = 0.f) const;
    float3 evalUv(float2 uv, float lod = 0.f) const;
    float2 worldToUv(const float3& dir) const;
    float3 uvToWorld(float2 uv) const;
};
} // namespace falcor
