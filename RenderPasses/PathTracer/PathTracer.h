#pragma once
#include "PathIntegrator.h"
#include "PathTracerOutputs.h"
#include "PathTracerParams.h"
#include "RenderGraph/RenderPass.h"
#include "Rendering/Lights/EmissiveLightCollection.h"
#include "Rendering/Lights/EmissiveLightSampler.h"
#include "Rendering/Lights/EnvMapSampler.h"
#include "Rendering/Lights/LightBVH.h"
#include "Scene/HitInfo.h"
#include "Scene/Scene.h"
#include <memory>

namespace falcor
{
/// PathTracer: Falcor's reference path tracer. Unidirectional path tracing from the V-buffer's
/// primary hits with next-event estimation (one light sample per vertex: the environment map,
/// emissive triangles or analytic lights, the type chosen uniformly) combined with BSDF sampling
/// by multiple importance sampling; Russian roulette; separate diffuse, specular and
/// transmission bounce limits; guide buffers for denoisers.
///
/// Properties: PathTracerParams (PathTracerParams.h lists each with Falcor's name and default;
/// what is not honoured yet is in docs/compatibility.md). Inputs `vbuffer` (required), `viewW`, `sampleCount` (R8Uint:
/// per-pixel sample count, at most 16, replacing samplesPerPixel), `mvec` (accepted, unused).
/// Outputs (all optional, PathTracerOutputs.h): `color`, `albedo`, `specularAlbedo`,
/// `indirectAlbedo`, `guideNormal`, `reflectionPosW`, `rayCount`, `pathLength`, and the NRD
/// denoiser data (`nrd*`: radiance split by path type and demodulated, primary-hit reflectances,
/// the delta reflection / transmission guide paths, traced only when one of their outputs is
/// connected). `color` is the average of the frame's samples; accumulate frames with AccumulatePass.
///
/// Sample numbers: sample s of a pixel in frame f draws from the generator seeded with
/// (pixel, seed · maxSpp + s), seed = f (or fixedSeed): the same bits on any thread count.
///
/// Ray counts (`rayCount`, `pixelStats`) are Falcor's PixelStats: per pixel, the closest-hit
/// rays after the primary hit (the V-buffer's) and the shadow rays of every sample and NRD guide
/// path; `pathLength` is sample 0's bounce count (Falcor's samples overwrite it, sample 0 last).
///
/// Python: `reset()` restarts the frame count, `setSimdShading(bool)` turns the SIMD shade stage
/// off and on (the image is the same bits; for comparisons and measurements), `simdShadingStats()`
/// the last frame's surface hits shaded in SIMD lanes and one path at a time, rw `useFixedSeed`, `fixedSeed`, `pixelStats` (rw
/// `enabled`, turned on for good by connecting `rayCount` or `pathLength`, as in Falcor; ro
/// `stats`: ray and vertex counts of the last frame); `set_properties`.
class PathTracer : public RenderPass
{
    FALCOR_PLUGIN_CLASS(PathTracer, "PathTracer", "Reference path tracer.");

public:
    explicit PathTracer(const Properties& props);

    Properties getProperties() const override { return mParams.toProperties(); }
    void setProperties(const Properties& props) override;
    RenderPassReflection reflect(const CompileData& compileData) override;
    void setScene(RenderContext* pRenderContext, const std::shared_ptr<Scene>& pScene) override;
    void execute(RenderContext* pRenderContext, const RenderData& renderData) override;

    void reset() { mFrameCount = 0; }

private:
    struct Frame; ///< What one frame's paths share.
    template<typename SampleGenerator>
    struct FrameJob; ///< What the tiles of one frame's render share.
    using RayStats = PathTracerRayStats;
    /// Paths per tile of the wavefront (whole rows, at least one).
    static constexpr uint32_t kTilePaths = 4096;
    template<typename SampleGenerator>
    RayStats renderFrame(const Frame& frame, const RenderData& renderData) const;
    template<typename SampleGenerator>
    struct Tile;
    /// Rows [y0, y1): their paths as one wavefront, then each pixel's texels.
    template<typename SampleGenerator>
    RayStats renderRows(const FrameJob<SampleGenerator>& job, uint32_t y0, uint32_t y1) const;
    /// The rows' camera rays, primary hits, generators and fresh paths.
    template<typename SampleGenerator>
    void startRows(const FrameJob<SampleGenerator>& job, uint32_t y0, uint32_t y1, Tile<SampleGenerator>& tile) const;
    /// Sets up a fresh (default) path from the camera.
    void startPath(PathState& path, const Frame& frame, const float3& dir, const TriangleHit& primaryHit, uint32_t sampleIndex) const;
    /// One pixel from its finished samples, with the NRD guide paths when asked for. Sample s
    /// started from the generator generators[s * stride].
    template<typename SampleGenerator>
    PathTracerPixel finishPixel(const FrameJob<SampleGenerator>& job, const float3& dir, const TriangleHit& primaryHit,
                                std::span<const PathState> samples, const SampleGenerator* generators, size_t stride) const;
    /// `pixelStats.stats`: the last frame's counts and per-pixel averages (zeros while disabled).
    PropertyValue getPixelStats() const;
    void warnUnsupportedOnce() const;
    void rebuildLights();

    PathTracerParams mParams;
    std::shared_ptr<Scene> mpScene;
    HitInfoLayout mHitInfo;
    std::unique_ptr<EmissiveLightCollection> mpEmissiveLights;
    std::unique_ptr<LightBVH> mpLightBVH;        ///< Built for the LightBVH sampler only.
    EmissiveLightSampler mEmissiveSampler;
    std::unique_ptr<EnvMapSampler> mpEnvMapSampler;
    uint64_t mLightsUpdateCount = ~0ull; ///< Scene update count the lights were built at.
    uint32_t mFrameCount = 0;
    bool mSimdShading = true; ///< Python `setSimdShading(bool)`: hits with a lane form shaded in SIMD (same bits).
    RayStats mStats;
    uint64_t mStatsPixelCount = 0;
};
} // namespace falcor
