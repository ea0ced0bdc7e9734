#pragma once
#include "RasterGBufferBase.h"
#include <optional>

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
/// lookups) are a GPU's fine derivatives: differences across the pixel's 2x2 quad. Pairs of rows
/// are shaded together as quads; a neighbour showing another triangle (or none) is a helper pixel:
/// the pixel's triangle extrapolated to it. Analytic plane derivatives would not match what
/// Falcor's shaders compute for nonlinear values (guide normals), and differences need no
/// per-attribute derivation.
class GBufferRaster : public RasterGBufferBase
{
    FALCOR_PLUGIN_CLASS(GBufferRaster, "GBufferRaster", "Rasterized G-buffer generation pass.");

public:
    explicit GBufferRaster(const Properties& props) : RasterGBufferBase(props) {}

    RenderPassReflection reflect(const CompileData& compileData) override;
    void execute(RenderContext* pRenderContext, const RenderData& renderData) override;

private:
    /// One pixel of a quad row: its hit, camera ray, uv derivatives and shaded surface.
    struct QuadPixel
    {
        TriangleHit hit;
        Ray ray;
        float2 ddxUV, ddyUV;
        float3 ddxPos, ddyPos;
        std::optional<Surface> surface;
    };
    /// Shades pixel rows 2·quadY and 2·quadY + 1 as a GPU shades 2x2 quads: every pixel's surface
    /// first, then each pixel's outputs, derivatives taken against its quad neighbours.
    void shadeQuadRow(std::span<Texture* const> outputs, uint32_t quadY, std::vector<QuadPixel>& pixels) const;
    /// Hit, ray, derivatives and surface of one pixel (no surface where nothing was drawn).
    void preparePixel(uint2 pixel, const Ray& ray, QuadPixel& out) const;
    void writeHit(uint2 pixel, const QuadPixel& p, const QuadPixel& neighbourX, const QuadPixel& neighbourY, OutputRow& out) const;
    /// The guide normal of a quad neighbour: its own when it shows the same triangle, else the
    /// triangle extrapolated to it (a GPU's helper pixel).
    float3 neighbourGuideNormal(const QuadPixel& p, const QuadPixel& neighbour, uint2 neighbourPixel) const;
    /// The hit's triangle at the center of another pixel (a quad neighbour).
    TriangleHit extrapolate(const TriangleHit& hit, uint2 pixel) const;
};
} // namespace falcor
