#pragma once
#include "Utils/Math/Matrix.h"

namespace tonemapping
{
/// Linear Rec.709 RGB matrix that white-balances an image lit by a blackbody of temperature
/// `kelvin` (valid range 1667..25000 K) to the D65-like 6500 K white: a von Kries diagonal
/// scaling in CAT02 LMS space, chosen (like Falcor) so that 6500 K gives the identity.
falcor::float3x3 whiteBalanceTransformRec709(float kelvin);
} // namespace tonemapping
