#pragma once
#include "Utils/Math/Matrix.h"
#include "Utils/Math/Vector.h"
#include <cstdint>
#include <numbers>

namespace falcor
{
/// Falcor's LightType values.
enum class LightType : uint32_t
{
    Point,       ///< Point light; a spot light when openingAngle < π.
    Directional, ///< Infinitely far, one direction.
    Distant,     ///< Infinitely far, a cone of directions (cosSubtendedAngle).
    Rect,        ///< [-1,1]² in local XY facing +Z, placed by transMat.
    Disc,        ///< Unit disc in local XY facing +Z, placed by transMat.
    Sphere,      ///< Unit sphere, placed by transMat.
};

/// An analytic light as renderers read it (Falcor's LightData fields).
struct LightData
{
    LightType type = LightType::Point;
    float3 posW{0.f, 0.f, 0.f};
    float3 dirW{0.f, -1.f, 0.f};       ///< Direction the light travels (normalized).
    float3 intensity{1.f, 1.f, 1.f};   ///< Emitted radiance.
    float openingAngle = std::numbers::pi_v<float>; ///< Spot half angle (radians).
    float cosOpeningAngle = -1.f;
    float penumbraAngle = 0.f;         ///< Spot penumbra half angle (radians).
    float cosSubtendedAngle = 0.9999893f; ///< Distant light: cosine of the cone half angle.
    float surfaceArea = 0.f;           ///< Area lights, in world space.
    float3 tangent{0.f, 0.f, 0.f}, bitangent{0.f, 0.f, 0.f}; ///< Area lights: local shape axes.
    float4x4 transMat = float4x4::identity();   ///< Local to world (area and distant lights).
    float4x4 transMatIT = float4x4::identity(); ///< Its inverse transpose.
};
} // namespace falcor
