#pragma once
#include "RenderGraph/RenderPass.h"
#include "Rendering/Materials/MaterialInstance.h"
#include "Scene/HitInfo.h"
#include "Scene/Scene.h"
#include "Utils/Sampling/UniformSampleGenerator.h"

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
/// (pixel, frame), frames counted from the scene's assignment.
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
    struct Context; ///< What one frame's paths share (lights, settings).

    float3 tracePath(const Context& ctx, uint2 pixel, const float3& primaryDir, const TriangleHit& hit) const;
    float3 evalDirectAnalytic(const Context& ctx, const ShadingData& sd, const MaterialInstance& mi, UniformSampleGenerator& sg) const;

    uint32_t mMaxBounces = 3;
    bool mComputeDirect = true;
    bool mUseImportanceSampling = true;

    std::shared_ptr<Scene> mpScene;
    HitInfoLayout mHitInfo;
    uint32_t mFrameCount = 0;
};
} // namespace falcor
