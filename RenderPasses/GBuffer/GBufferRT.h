#pragma once
#include "GBufferBase.h"
#include "Rendering/Materials/TexLODHelpers.h"

namespace falcor
{
/// GBufferRT: traces one primary ray per pixel and writes the G-buffer channels Falcor defines
/// (all optional; formats in GBufferRT.cpp). Options: GBufferBase's, plus
///
/// | Property | Type       | Default | Meaning                                                   |
/// |----------|------------|---------|-----------------------------------------------------------|
/// | texLOD   | TexLODMode | 'Mip0'  | Mip level of material lookups; texGrads holds the uv gradients of RayCones/RayDiffs (zeros otherwise). |
///
/// `time` (Falcor: per-pixel GPU timer ticks) is written as 0: CPU timing per pixel would make the
/// output nondeterministic.
class GBufferRT : public GBufferBase
{
    FALCOR_PLUGIN_CLASS(GBufferRT, "GBufferRT", "Ray traced G-buffer generation pass.");

public:
    explicit GBufferRT(const Properties& props);

    RenderPassReflection reflect(const CompileData& compileData) override;
    void execute(RenderContext* pRenderContext, const RenderData& renderData) override;

private:
    void addPassProperties(Properties& props) const override;
    void writeHit(uint2 pixel, const Ray& ray, const TriangleHit& hit, OutputRow& out) const;
    void writeMiss(uint2 pixel, const Ray& ray, OutputRow& out) const;
    /// Largest change of linear Z over one pixel step on the hit's plane (linearZ.y).
    float linearZSlope(const float3& posW, const float3& faceN, float linearZ) const;
    /// Mip selection of the hit's material lookups; fills `texGrads` for gradient modes.
    TextureLod computeTextureLod(const TriangleHit& hit, const Scene::VertexData& v, const float3& rayDir, float4& texGrads) const;

    TexLODMode mLODMode = TexLODMode::Mip0;
};
} // namespace falcor
