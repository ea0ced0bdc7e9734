#pragma once
#include "RenderGraph/RenderPass.h"
#include "MinimalPathIntegrator.h"
#include "Scene/HitInfo.h"
#include "Scene/Scene.h"

namespace falcor
{
/// MinimalPathTracer: Falcor's teaching path tracer. One path per pixel and frame from the
/// V-buffer's primary hit; analytic lights are sampled at every vertex (one light picked
/// uniformly), emissive surfaces and the environment map count only where a path hits them.
///
/// | Property              | Type | Default | Meaning                                                  |
/// |-----------------------|------|---------|----------------------------------------------------------|
/// | maxBounces            | uint | 3       | Scatter events after the primary hit.                    |
/// | computeDirect         | bool | True    | Include emission seen directly and direct light at the primary hit. |
/// | useImportanceSampling | bool | True    | Sample the BSDF (False: cosine-weighted hemisphere).      |
///
/// Inputs `vbuffer` (required), `viewW` (optional: primary view directions, for depth of field).
/// Output `color` (RGBA32Float, alpha 1). Random numbers: Falcor's uniform generator seeded with
/// (pixel, frame), frames counted from the scene's assignment. Paths run as a wavefront
/// (Rendering/Wavefront/Wavefront.h) over tiles of rows: MinimalPathIntegrator.h; hits on materials
/// with a lane form are shaded W paths at a time in SIMD lanes (MinimalShadeLanes.lanes.cpp).
/// Python: `setSimdShading(bool)` turns that off and on (the image is the same bits; for
/// comparisons and measurements), `simdShadingStats()` the last frame's surface hits shaded in
/// lanes and one path at a time.
class MinimalPathTracer : public RenderPass
{
    FALCOR_PLUGIN_CLASS(MinimalPathTracer, "MinimalPathTracer", "Minimal path tracer");

public:
    explicit MinimalPathTracer(const Properties& props);

    Properties getProperties() const override;
    RenderPassReflection reflect(const CompileData& compileData) override;
    void setScene(RenderContext* pRenderContext, const std::shared_ptr<Scene>& pScene) override;
    void execute(RenderContext* pRenderContext, const RenderData& renderData) override;

private:
    /// Paths per tile of rows (the wavefront's width).
    static constexpr uint32_t kTilePaths = 4096;

    /// What the tiles of one frame share.
    struct Frame
    {
        const Scene& scene;
        const MinimalPathIntegrator& integrator;
        const Texture& vbuffer;
        const Texture* viewW;
        Texture& output;
        uint2 frameDim;
        uint32_t seed; ///< This frame's seed of the per-pixel random streams.
    };
    struct Tile;
    /// Surface hits shaded in SIMD lanes and one path at a time.
    struct ShadedHits
    {
        uint64_t laneShadedHits = 0, scalarShadedHits = 0;
    };

    /// Traces the paths of rows [y0, y1) as a wavefront and stores their radiance.
    ShadedHits renderRows(const Frame& frame, uint32_t y0, uint32_t y1) const;

    uint32_t mMaxBounces = 3;
    bool mComputeDirect = true;
    bool mUseImportanceSampling = true;
    bool mSimdShading = true; ///< Python `setSimdShading(bool)`: hits with a lane form shaded in SIMD (same bits).
    ShadedHits mStats;        ///< Of the last frame (`simdShadingStats()`).

    std::shared_ptr<Scene> mpScene;
    HitInfoLayout mHitInfo;
    uint32_t mFrameCount = 0;
};
} // namespace falcor
