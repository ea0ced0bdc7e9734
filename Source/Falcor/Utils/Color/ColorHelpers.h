#pragma once
#include "Utils/Math/Vector.h"

namespace falcor
{
/// Relative luminance of linear Rec.709 RGB.
template<typename F>
F luminance(const vector<F, 3>& rgb)
{
    return dot(rgb, vector<F, 3>(F(0.2126f), F(0.7152f), F(0.0722f)));
}
} // namespace falcor
