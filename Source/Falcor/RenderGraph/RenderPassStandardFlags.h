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

/// Key under which a G-buffer pass tells its consumers the first free dimension of the per-pixel
/// random sequence (Falcor's _prngDimension): 2 when it used two for depth of field, else 0.
/// Value type: uint32_t.
inline const std::string kRenderPassPRNGDimension = "_prngDimension";

/// Key under which a G-buffer pass tells its consumers whether to adjust shading normals at
/// primary hits (a V-buffer cannot carry the adjusted normals). Value type: bool.
inline const std::string kRenderPassGBufferAdjustShadingNormals = "_gbufferAdjustShadingNormals";

enum class RenderPassRefreshFlags : uint32_t
{
    None = 0x0,
    LightingChanged = 0x1,      ///< Lighting has changed.
    RenderOptionsChanged = 0x2, ///< Options that affect the rendering have changed.
};
} // namespace falcor
