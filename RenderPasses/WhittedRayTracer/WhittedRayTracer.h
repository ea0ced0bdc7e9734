#pragma once
#include "RenderGraph/RenderPass.h"
#include "Rendering/Materials/MaterialInstance.h"
#include "Rendering/Materials/TexLODHelpers.h"
#include "Scene/Scene.h"
#include "Utils/Sampling/UniformSampleGenerator.h"

namespace falcor
{
/// Falcor's ray-cone variants.
enum class RayConeMode : uint32_t
{
    Combo = 0,
    Unified = 1,
};
FALCOR_ENUM_INFO(RayConeMode, {{RayConeMode::Combo, "Combo"}, {RayConeMode::Unified, "Unified"}});

/// How ray footprints filter textures (Falcor's RayFootprintFilterMode).
enum class RayFootprintFilterMode : uint32_t
{
    Isotropic = 0,
    Anisotropic = 1,
    AnisotropicWhenRefraction = 2,
};
FALCOR_ENUM_INFO(RayFootprintFilterMode, {{RayFootprintFilterMode::Isotropic, "Isotropic"},
                                          {RayFootprintFilterMode::Anisotropic, "Anisotropic"},
                                          {RayFootprintFilterMode::AnisotropicWhenRefraction, "AnisotropicWhenRefraction"}});

/// WhittedRayTracer: Falcor's Whitted-style ray tracer, the test bed of its texture-LOD methods.
/// From the G-buffer's primary hit: emission plus the direct light of every analytic light
/// (shadow rays), then one deterministic chain: a mirror reflection weighted by the specular
/// color's mean, or, where the relative IoR differs from 1, a refraction weighted by
/// 1 - roughness (total internal reflection reflects), for up to maxBounces hits; misses see
/// the environment map (the background without one is Falcor's grey 0.25).
///
/// | Property               | Type                   | Default     | Meaning                                  |
/// |------------------------|------------------------|-------------|------------------------------------------|
/// | maxBounces             | uint                   | 3           | Hits after the primary one.              |
/// | texLODMode             | TexLODMode             | 'Mip0'      | Texture LOD along the chain (see below). |
/// | rayConeMode            | RayConeMode            | 'Combo'     | Primary-hit spread: normal differentials (Combo) or curvature (Unified). |
/// | rayConeFilterMode      | RayFootprintFilterMode | 'Isotropic' | Ray-cone texture filter.                 |
/// | rayDiffFilterMode      | RayFootprintFilterMode | 'Isotropic' | Ray-differential texture filter.         |
/// | useRoughnessToVariance | bool                   | False       | Widen ray cones by roughness.            |
///
/// Inputs posW, normalW, tangentW, faceNormalW, texC, mtlData, vbuffer (required) and texGrads
/// (optional: the primary hit's texture gradients; without it the primary hit uses mip 0, as in
/// Falcor); output `color` (RGBA32Float). Texture LOD along the chain, as Falcor: RayCones starts
/// a cone of one pixel's spread at the primary hit, widens it at each hit by the surface's spread
/// (twice for mirrors, refracted through dielectrics) and filters with the cone's width
/// (isotropic level, or the footprint ellipse's gradients when anisotropic); RayDiffs carries ray
/// differentials (Igehy) through reflections and refractions; misses look the environment map up
/// at the footprint's level. 'Stochastic' samples mip 0, as in Falcor. Gradients are filtered
/// anisotropically (Scene/TextureSampler.h; see docs/compatibility.md).
class WhittedRayTracer : public RenderPass
{
    FALCOR_PLUGIN_CLASS(WhittedRayTracer, "WhittedRayTracer", "Simple Whitted ray tracer");

public:
    explicit WhittedRayTracer(const Properties& props);

    Properties getProperties() const override;
    RenderPassReflection reflect(const CompileData& compileData) override;
    void setScene(RenderContext* pRenderContext, const std::shared_ptr<Scene>& pScene) override;
    void execute(RenderContext* pRenderContext, const RenderData& renderData) override;

private:
    struct GBufferTexel;   ///< What the G-buffer holds for one pixel.
    struct ScatterRay;     ///< The ray in flight along the chain.
    struct PrimaryScatter; ///< Refraction (or total internal reflection) at the primary hit.
    struct HitFootprint;   ///< Shading data and texture level at a hit along the chain.
    float3 shadePixel(const GBufferTexel& g, uint2 pixel, uint2 frameDim, UniformSampleGenerator& sg) const;
    /// The environment map (at the pixel footprint's level) or Falcor's grey.
    float3 background(const float3& cameraDir, const float3& rayDir, uint2 frameDim) const;
    /// The footprint leaving the primary hit (per texLODMode), and the refracted direction.
    PrimaryScatter startFootprint(const GBufferTexel& g, const ShadingData& sd, const BSDFProperties& props, const float3& cameraDir,
                                  const float3& rayDir, uint2 pixel, uint2 frameDim, ScatterRay& ray) const;
    /// One segment of the chain: the hit's emission and direct light, and the next ray.
    void traceScatterRay(ScatterRay& ray, float3& L, UniformSampleGenerator& sg) const;
    /// Carries the ray's footprint to the hit and derives the texture level there.
    HitFootprint footprintAtHit(const TriangleHit& hit, ScatterRay& ray) const;
    float3 evalDirectAnalytic(const ShadingData& sd, const MaterialInstance& mi, const float3& origin, UniformSampleGenerator& sg) const;

    uint32_t mMaxBounces = 3;
    TexLODMode mTexLODMode = TexLODMode::Mip0;
    RayConeMode mRayConeMode = RayConeMode::Combo;
    RayFootprintFilterMode mRayConeFilterMode = RayFootprintFilterMode::Isotropic;
    RayFootprintFilterMode mRayDiffFilterMode = RayFootprintFilterMode::Isotropic;
    bool mUseRoughnessToVariance = false;

    std::shared_ptr<Scene> mpScene;
    uint32_t mFrameCount = 0;
};
} // namespace falcor
