#pragma once
#include "Utils/Math/Vector.h"
#include <cstdint>

namespace falcor
{
/// A CPU sequence of sub-pixel offsets (Falcor's CPUSampleGenerator), used as camera jitter.
/// `next()` returns an offset in [-0.5, 0.5)² pixels from the pixel center.
class CPUSampleGenerator
{
public:
    virtual ~CPUSampleGenerator() = default;
    /// Samples per period of the sequence.
    virtual uint32_t getSampleCount() const = 0;
    virtual float2 next() = 0;
};
} // namespace falcor
