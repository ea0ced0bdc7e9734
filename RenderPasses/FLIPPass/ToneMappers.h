#pragma once
/// The tone mappers HDR-FLIP assumes between the HDR images and the display.
#include "Core/Enum.h"
#include "Utils/Math/Vector.h"

namespace flip
{
using falcor::float3;

enum class ToneMapperType
{
    ACES,
    Hable,
    Reinhard,
};
FALCOR_ENUM_INFO(ToneMapperType, {{ToneMapperType::ACES, "ACES"}, {ToneMapperType::Hable, "Hable"}, {ToneMapperType::Reinhard, "Reinhard"}});

/// A tone curve of the form (k0 x^2 + k1 x + k2) / (k3 x^2 + k4 x + k5). For Reinhard it is
/// x / (x + 1), applied to luminance.
struct RationalCurve
{
    float k[6];
    float numerator(float x) const { return (k[0] * x + k[1]) * x + k[2]; }
    float denominator(float x) const { return (k[3] * x + k[4]) * x + k[5]; }
};

RationalCurve toneCurve(ToneMapperType type);

/// Maps an exposed HDR linear color to display linear RGB in [0, 1].
float3 toneMap(const float3& color, ToneMapperType type);
} // namespace flip
