#pragma once
#include <cstdint>

namespace falcor
{
/// Falcor's MaterialInstanceHints bits: how a material instance is set up at a hit.
enum MaterialInstanceHints : uint32_t
{
    kHintNone = 0x0,
    kHintDisableNormalMapping = 0x1,
    kHintAdjustShadingNormal = 0x2,
};
} // namespace falcor
