#pragma once
#include "GBufferBase.h"
#include "Rasterizer.h"

namespace falcor
{
/// Base of the rasterized G-buffer passes (GBufferRaster, VBufferRaster): the required `depth`
/// output (D32Float, written from the rasterizer's depth buffer) and one rasterization per frame
/// with Falcor's raster cull rule (Back unless `forceCullMode`). They take GBufferBase's options
/// without the ray-traced passes' `useTraceRayInline` and `useDOF` (no depth of field: pinhole).
class RasterGBufferBase : public GBufferBase
{
protected:
    using GBufferBase::GBufferBase;

    bool hasRayTracingOptions() const override { return false; }
    static void addDepthOutput(RenderPassReflection& reflector, uint2 size);
    /// Start of a frame: sizes checked against `depth`, then with a scene the frame is rasterized
    /// and `depth` written; without one every output is cleared (depth to 1). False when there is
    /// nothing more to do (no scene, or no output).
    bool rasterizeFrame(const RenderData& renderData, std::span<Texture* const> outputs, Texture* depth);
    /// The closest visible surface of a pixel (invalid where nothing was drawn).
    TriangleHit rasterHit(uint2 pixel) const { return mRasterizer.hitAt(pixel); }

    Rasterizer mRasterizer;
};
} // namespace falcor
