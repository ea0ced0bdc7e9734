#pragma once
#include "RTXDIOptions.h"
#include "Reservoir.h"
#include "RenderGraph/RenderPass.h"
#include "Rendering/Lights/EmissiveLightCollection.h"
#include "Rendering/Lights/EmissiveLightSampler.h"
#include "Rendering/Lights/EnvMapSampler.h"
#include "Rendering/Materials/MaterialInstance.h"
#include "Scene/HitInfo.h"
#include "Scene/ShadingData.h"
#include "Utils/Sampling/UniformSampleGenerator.h"
#include <memory>
#include <span>
#include <vector>

namespace falcor
{
/// RTXDIPass: direct illumination by ReSTIR (Bitterli et al. 2020), a CPU replacement of Falcor's
/// pass over NVIDIA's RTXDI SDK with the same channels and `options` dictionary (RTXDIOptions).
///
/// Per pixel and frame: RIS over initial candidates from the local lights (emissive triangles by
/// power and point lights), the infinite lights (directional, distant), the env map and BSDF rays,
/// weighted by the balance heuristic over those strategies; one visibility ray for the chosen one
/// (`testCandidateVisibility`); then, by `mode`, temporal reuse of the previous frame's reservoir
/// reprojected along `mvec` (confidence capped at maxHistoryLength · M) and spatial reuse of
/// `spatialSampleCount` neighbours within `samplingRadius` pixels (`spatialIterations` passes in
/// SpatialResampling mode, one in SpatiotemporalResampling), each pass reading only the previous
/// pass's reservoirs. Neighbours whose depth or normal differ beyond the thresholds are skipped.
/// The reuse weights follow `biasCorrection`; NoResampling and RayTraced are unbiased.
/// Final shading traces one visibility ray (a reservoir whose sample is occluded keeps its M but
/// drops the sample, so temporal reuse does not carry it on) and splits the BSDF into its diffuse and specular
/// reflection lobes, as Falcor's FinalShading does. Analytic area lights are ignored, as in Falcor.
///
/// Inputs: `vbuffer` (required), `texGrads` and `mvec` (optional). Outputs (optional, RGBA32Float):
/// `color`, `emission`, `diffuseIllumination`, `diffuseReflectance`, `specularIllumination`,
/// `specularReflectance` (illuminations demodulated by the reflectances; alpha = light distance).
class RTXDIPass : public RenderPass
{
    FALCOR_PLUGIN_CLASS(RTXDIPass, "RTXDIPass", "Standalone pass for direct lighting using ReSTIR (CPU replacement of the RTXDI SDK)");

public:
    explicit RTXDIPass(const Properties& props);

    Properties getProperties() const override;
    RenderPassReflection reflect(const CompileData& compileData) override;
    void setScene(RenderContext* pRenderContext, const std::shared_ptr<Scene>& pScene) override;
    void execute(RenderContext* pRenderContext, const RenderData& renderData) override;

    /// A surface seen by a pixel (invalid where the V-buffer missed).
    struct Surface
    {
        ShadingData sd;
        float viewDepth = 0.f;
        bool valid = false;
    };

private:
    struct Frame;
    struct Neighbour
    {
        const Reservoir* reservoir;
        const Surface* surface;
    };

    void rebuildLights();
    Frame makeFrame(uint2 dim, uint32_t seed, const Texture* mvec) const;
    void resizeState(uint2 dim); ///< Per-pixel state for frames of `dim` (history restarts when it changes).
    void resample(const Frame& frame); ///< Initial candidates, then the mode's temporal and spatial reuse.
    void loadSurfaces(const Frame& frame, const Texture& vbuffer);
    Reservoir sampleInitial(const Frame& frame, const Surface& s, UniformSampleGenerator& sg) const;
    bool sampleLocal(const Frame& frame, const Surface& s, UniformSampleGenerator& sg, LightSample& y) const;
    bool sampleInfinite(const Frame& frame, const Surface& s, UniformSampleGenerator& sg, LightSample& y) const;
    bool sampleEnv(const Frame& frame, UniformSampleGenerator& sg, LightSample& y) const;
    bool sampleBrdf(const Frame& frame, const Surface& s, const MaterialInstance& mi, UniformSampleGenerator& sg, LightSample& y) const;
    /// Σ_t M_t p_t(y): the densities of every candidate strategy at y (seen from s as `inc`), times their counts.
    float candidatePdfSum(const Frame& frame, const Surface& s, const MaterialInstance& mi, const LightSample& y, const Incident& inc) const;
    float targetPdf(const Frame& frame, const Surface& s, const MaterialInstance& mi, const LightSample& y) const;
    float targetPdf(const Frame& frame, const Surface& s, const LightSample& y) const;
    bool isVisible(const Frame& frame, const Surface& s, const LightSample& y) const;
    Reservoir resampleTemporal(const Frame& frame, uint2 pixel, const Reservoir& current, UniformSampleGenerator& sg) const;
    void resampleSpatial(const Frame& frame, std::span<const Reservoir> in, std::span<Reservoir> out);
    Reservoir combine(const Frame& frame, const Surface& s, const Reservoir& canonical, std::span<const Neighbour> neighbours,
                      UniformSampleGenerator& sg) const;
    Reservoir combinePairwise(const Frame& frame, const Surface& s, const Reservoir& canonical, std::span<const Neighbour> neighbours,
                              UniformSampleGenerator& sg) const;
    bool isSimilar(const Surface& a, const Surface& b) const;
    /// Writes the outputs; reservoirs whose sample turns out occluded lose it (RTXDI's visibility reuse).
    void shade(const Frame& frame, const RenderData& renderData);

    RTXDIOptions mOptions;

    std::shared_ptr<Scene> mpScene;
    HitInfoLayout mHitInfo;
    uint32_t mFrameCount = 0;

    // Lights, rebuilt when the scene's update count moves.
    uint64_t mLightsUpdateCount = ~0ull;
    std::unique_ptr<EmissiveLightCollection> mpEmissiveLights;
    EmissiveLightSampler mEmissiveSampler;
    std::unique_ptr<EnvMapSampler> mpEnvMapSampler;
    std::vector<uint32_t> mPointLights;    ///< Active analytic lights sampled as local lights.
    std::vector<uint32_t> mInfiniteLights; ///< Active directional and distant lights.

    // Per-pixel state, row-major. Previous-frame copies feed temporal reuse.
    uint2 mFrameDim{0, 0};
    std::vector<Surface> mSurfaces, mPrevSurfaces;
    std::vector<Reservoir> mReservoirs, mScratch, mPrevReservoirs;
    std::vector<UniformSampleGenerator> mGenerators;
    bool mHasHistory = false;
};
} // namespace falcor
