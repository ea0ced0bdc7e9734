#pragma once
#include "RenderGraph/RenderData.h"
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

/// Key under which the graph holds its seed (an extension: `RenderGraph.seed`). Value type:
/// uint32_t; 0 or absent means Falcor's seeding.
inline const std::string kRenderGraphSeed = "_graphSeed";

/// The seed of a frame's per-pixel random streams. Falcor seeds them with the pass's frame count;
/// with a graph seed, the count is offset by a hash of it, so renders with different seeds (batch
/// tasks) draw independent numbers while each stays reproducible. Every pass that draws per-frame
/// random numbers uses this, so passes sharing a pixel's sequence (G-buffer lens samples, path
/// tracer) stay in step.
inline uint32_t frameSeed(const InternalDictionary& dictionary, uint32_t frameCount)
{
    uint32_t h = dictionary.get<uint32_t>(kRenderGraphSeed, 0u);
    if (h == 0)
        return frameCount;
    // MurmurHash3's finalizer: nearby seeds land far apart in the 2^32 frame sequence.
    h ^= h >> 16, h *= 0x85ebca6bu, h ^= h >> 13, h *= 0xc2b2ae35u, h ^= h >> 16;
    return frameCount + h;
}

enum class RenderPassRefreshFlags : uint32_t
{
    None = 0x0,
    LightingChanged = 0x1,      ///< Lighting has changed.
    RenderOptionsChanged = 0x2, ///< Options that affect the rendering have changed.
};
} // namespace falcor
