#pragma once
#include "FloatImage.h"

namespace postfx
{
struct BloomSettings
{
    float amount;     ///< Weight of the blurred coarser level blended into each finer one.
    float starAmount; ///< Weight of the star streaks on the two finest coarse levels (<= 0: none).
    float starAngle;  ///< Rotation of the six-pointed star, radians.
};

/// Falcor SimplePostFX's bloom: the source is filtered down an 8-level image pyramid (each level
/// half the size of the previous, 10x10 binomial kernel), then rebuilt coarse to fine, each level
/// becoming lerp(level, blur3x3(coarser result), amount), optionally blended toward star streaks.
/// The result has the source's size and, like Falcor's RGBA16Float pyramid, half-float precision.
FloatImage computeBloom(const FloatImage& src, const BloomSettings& settings);
} // namespace postfx
