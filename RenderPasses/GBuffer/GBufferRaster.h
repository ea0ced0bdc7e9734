#pragma once
#include "RasterGBufferBase.h"

namespace falcor
{
/// GBufferRaster: rasterizes the scene (Rasterizer.h) and writes Falcor's G-buffer channels for
/// each pixel's closest surface: `depth` (D32Float, required) and, all optional, posW, normW,
/// tangentW, faceNormalW, texC, texGrads, mvec, mtlData, vbuffer, guideNormalW, diffuseOpacity,
/// specRough, emissive, viewW, pnFwidth, linearZ and mask (formats as GBufferRT's; pnFwidth and
/// linearZ RG32Float). Pixels nothing covers are 0, depth 1. Options: GBufferBase's, without
/// useTraceRayInline and useDOF.
///
/// Screen-space derivatives (texGrads, pnFwidth, linearZ.y, and the mip selection of material
/// lookups) are a GPU's fine derivatives: differences across the pixel's 2x2 quad, the triangle's
/// attributes extrapolated to the quad neighbours as a GPU's helper pixels do. Analytic plane
/// derivatives would not match what Falcor's shaders compute for nonlinear values (guide normals),
/// and differences need no per-attribute derivation. Pixels are shaded one at a time: pnFwidth's
/// neighbour guide normals cost two more material evaluations (shading whole quads and reusing
/// the neighbours' surfaces was measured 20 % slower for the G-buffers without pnFwidth).
class GBufferRaster : public RasterGBufferBase
{
    FALCOR_PLUGIN_CLASS(GBufferRaster, "GBufferRaster", "Rasterized G-buffer generation pass.");

public:
    explicit GBufferRaster(const Properties& props) : RasterGBufferBase(props) {}

    RenderPassReflection reflect(const CompileData& compileData) override;
    void execute(RenderContext* pRenderContext, const RenderData& renderData) override;

private:
    void writeHit(uint2 pixel, const Ray& ray, const TriangleHit& hit, OutputRow& out) const;
    /// The hit's triangle at the center of another pixel (a quad neighbour).
    TriangleHit extrapolate(const TriangleHit& hit, uint2 pixel) const;
};
} // namespace falcor
