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
/// (Rendering/Wavefront/Wavefront.h) over tiles of rows: MinimalPathIntegrator.h.
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

    /// Traces the paths of rows [y0, y1) as a wavefront and stores their radiance.
    void renderRows(const Frame& frame, uint32_t y0, uint32_t y1) const;

    uint32_t mMaxBounces = 3;
    bool mComputeDirect = true;
    bool mUseImportanceSampling = true;

    std::shared_ptr<Scene> mpScene;
    HitInfoLayout mHitInfo;
    uint32_t mFrameCount = 0;
};
} // namespace falcor
