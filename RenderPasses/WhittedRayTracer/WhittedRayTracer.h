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
/// the environment map.
///
/// | Property               | Type                   | Default     | Meaning                                  |
/// |------------------------|------------------------|-------------|------------------------------------------|
/// | maxBounces             | uint                   | 3           | Hits after the primary one.              |
/// | texLODMode             | TexLODMode             | 'Mip0'      | Texture LOD (see below).                 |
/// | rayConeMode            | RayConeMode            | 'Combo'     | Ray-cone variant.                        |
/// | rayConeFilterMode      | RayFootprintFilterMode | 'Isotropic' | Ray-cone texture filter.                 |
/// | rayDiffFilterMode      | RayFootprintFilterMode | 'Isotropic' | Ray-differential texture filter.         |
/// | useRoughnessToVariance | bool                   | False       | Widen ray cones by roughness.            |
///
/// Inputs posW, normalW, tangentW, faceNormalW, texC, mtlData, vbuffer (required), texGrads
/// (accepted, unused); output `color` (RGBA32Float). Texture LOD: RayCones and RayDiffs filter
/// primary hits (a pixel's ray cone or differentials at the V-buffer hit, isotropic); hits further
/// along use mip 0 (warned once): footprints are not propagated along the chain yet, and the
/// cone variants and anisotropic filter modes are accepted without effect.
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
    struct GBufferTexel; ///< What the G-buffer holds for one pixel.
    struct ScatterRay;   ///< The ray in flight along the chain.
    float3 shadePixel(const GBufferTexel& g, const float3& rayDir, UniformSampleGenerator& sg) const;
    /// Emission, direct light and the next ray at a hit; false when the chain ends there.
    bool shadeHit(const ShadingData& sd, const MaterialInstance& mi, ScatterRay& ray, float3& radiance, UniformSampleGenerator& sg) const;
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
