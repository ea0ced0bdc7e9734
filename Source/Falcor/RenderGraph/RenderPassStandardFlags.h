#pragma once
#include <cstdint>
#include <string>

namespace falcor
{
/// Key in the graph's InternalDictionary under which passes announce, for the current frame, that
/// their output changed for reasons other than the scene (an option was edited, ...). Temporal
/// passes (accumulation, cross-fade) restart when it is non-zero. The graph clears it before each
/// execution. Value type: uint32_t (RenderPassRefreshFlags bits).
inline const std::string kRenderPassRefreshFlags = "_refreshFlags";

enum class RenderPassRefreshFlags : uint32_t
{
    None = 0x0,
    LightingChanged = 0x1,      ///< Lighting has changed.
    RenderOptionsChanged = 0x2, ///< Options that affect the rendering have changed.
};
} // namespace falcor
