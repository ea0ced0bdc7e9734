#pragma once
#include "RasterGBufferBase.h"

namespace falcor
{
/// VBufferRaster: rasterizes the scene (Rasterizer.h) and writes `depth` (D32Float, required), the
/// packed hit `vbuffer` (required; layout in HitInfo.h), and optionally `mvec` and `mask`. Pixels
/// nothing covers are 0, depth 1. Options: GBufferBase's, without useTraceRayInline and useDOF.
class VBufferRaster : public RasterGBufferBase
{
    FALCOR_PLUGIN_CLASS(VBufferRaster, "VBufferRaster", "Rasterized V-buffer generation pass.");

public:
    explicit VBufferRaster(const Properties& props) : RasterGBufferBase(props) {}

    RenderPassReflection reflect(const CompileData& compileData) override;
    void execute(RenderContext* pRenderContext, const RenderData& renderData) override;

private:
    void writeHit(uint2 pixel, const TriangleHit& hit, OutputRow& out) const;
};
} // namespace falcor
