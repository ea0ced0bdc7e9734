#pragma once
/// The color spaces FLIP works in: linear sRGB (Rec.709 primaries, D65), CIE XYZ, CIE L*a*b*
/// and YCxCz (the linearized L*a*b* of Zhang & Wandell's S-CIELAB, in which FLIP filters).
#include "Utils/Math/Vector.h"
#include <cmath>

namespace flip
{
using falcor::float3;

/// D65 reference white in XYZ and its reciprocal (Y normalized to 1).
inline constexpr float3 kD65White{0.950428545f, 1.f, 1.088900371f};
inline constexpr float3 kInvD65White{1.052156925f, 1.f, 0.918357670f};

inline float3 linearRGBToXYZ(const float3& c)
{
    // sRGB-to-XYZ matrix (D65) as exact fractions.
    return {(10135552.f / 24577794.f) * c.x() + (8788810.f / 24577794.f) * c.y() + (4435075.f / 24577794.f) * c.z(),
            (2613072.f / 12288897.f) * c.x() + (8788810.f / 12288897.f) * c.y() + (887015.f / 12288897.f) * c.z(),
            (1425312.f / 73733382.f) * c.x() + (8788810.f / 73733382.f) * c.y() + (70074185.f / 73733382.f) * c.z()};
}

inline float3 XYZToLinearRGB(const float3& c)
{
    return {3.241003275f * c.x() - 1.537398934f * c.y() - 0.498615861f * c.z(),
            -0.969224334f * c.x() + 1.875930071f * c.y() + 0.041554224f * c.z(),
            0.055639423f * c.x() - 0.204011202f * c.y() + 1.057148933f * c.z()};
}

/// YCxCz: the L*a*b* formulas applied to white-normalized XYZ without the cube-root compression.
inline float3 XYZToYCxCz(const float3& xyz)
{
    const float3 n = xyz * kInvD65White;
    return {116.f * n.y() - 16.f, 500.f * (n.x() - n.y()), 200.f * (n.y() - n.z())};
}

inline float3 YCxCzToXYZ(const float3& ycxcz)
{
    const float y = (ycxcz.x() + 16.f) / 116.f;
    return float3(ycxcz.y() / 500.f + y, y, y - ycxcz.z() / 200.f) * kD65White;
}

inline float3 XYZToCIELab(const float3& xyz)
{
    constexpr float delta = 6.f / 29.f;
    // Cube root above delta^3, the linear segment that joins it continuously below.
    const auto f = [](float t) { return t > delta * delta * delta ? std::cbrt(t) : t / (3.f * delta * delta) + 4.f / 29.f; };
    const float3 n = map(xyz * kInvD65White, f);
    return {116.f * n.y() - 16.f, 500.f * (n.x() - n.y()), 200.f * (n.y() - n.z())};
}

inline float3 linearRGBToYCxCz(const float3& c) { return XYZToYCxCz(linearRGBToXYZ(c)); }
inline float3 YCxCzToLinearRGB(const float3& c) { return XYZToLinearRGB(YCxCzToXYZ(c)); }
inline float3 linearRGBToCIELab(const float3& c) { return XYZToCIELab(linearRGBToXYZ(c)); }

/// Rec.709 relative luminance.
inline float luminance(const float3& c) { return 0.2126f * c.x() + 0.7152f * c.y() + 0.0722f * c.z(); }
} // namespace flip
