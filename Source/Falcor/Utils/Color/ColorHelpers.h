#pragma once
#include "Utils/Math/Vector.h"

namespace falcor
{
/// Relative luminance of linear Rec.709 RGB.
inline float luminance(const float3& rgb)
{
    return dot(rgb, float3(0.2126f, 0.7152f, 0.0722f));
}
} // namespace falcor
