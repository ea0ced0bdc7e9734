#pragma once
#include "RenderGraph/RenderPass.h"
#include "Rendering/Materials/MaterialInstance.h"
#include "Scene/Scene.h"
#include "Utils/Sampling/UniformSampleGenerator.h"

namespace falcor
{
/// What the BSDF viewer shows (Falcor's BSDFViewerMode).
enum class BSDFViewerMode : uint32_t
{
    Material, ///< A sphere of the material under omnidirectional light (the env map or white).
    Slice,    ///< The BSDF as a slice in half-angle (x) and difference-angle (y) coordinates.
};
FALCOR_ENUM_INFO(BSDFViewerMode, {{BSDFViewerMode::Material, "Material"}, {BSDFViewerMode::Slice, "Slice"}});

/// BSDFViewer: one scene material, shown on a unit sphere seen from a camera at distance 1.5 with
/// a 90-degree field of view, or as a BSDF slice, in a centered square viewport of min(w, h).
/// Each frame draws one BSDF sample per pixel (Falcor's uniform generator seeded with pixel and
/// frame): accumulated, a sphere pixel converges to light x the directional albedo.
///
/// | Property     | Type           | Default    | Meaning                                                   |
/// |--------------|----------------|------------|-----------------------------------------------------------|
/// | materialID   | uint           | 0          | The material (clamped to the last, with a warning).       |
/// | viewerMode   | BSDFViewerMode | 'Material' | Sphere or slice.                                          |
/// | useEnvMap    | bool           | True       | Light by the scene's env map if it has one, else white.   |
/// | texCoords    | float2         | (unset)    | Evaluate textures at these coordinates everywhere.        |
/// | outputAlbedo | uint           | 0          | Bits: 1 show albedo instead, 2 diffuse reflection, 4 diffuse transmission, 8 specular reflection, 16 specular transmission. |
///
/// Output `output` (RGBA32Float). Transmission lobes are off, as in Falcor's viewer.
class BSDFViewer : public RenderPass
{
    FALCOR_PLUGIN_CLASS(BSDFViewer, "BSDFViewer", "BSDF inspection utility");

public:
    explicit BSDFViewer(const Properties& props);

    Properties getProperties() const override;
    RenderPassReflection reflect(const CompileData& compileData) override;
    void setScene(RenderContext* pRenderContext, const std::shared_ptr<Scene>& pScene) override;
    void execute(RenderContext* pRenderContext, const RenderData& renderData) override;

private:
    float3 evalPixel(float2 uv, UniformSampleGenerator& sg) const;
    float3 evalSphere(float2 uv, UniformSampleGenerator& sg) const;
    float3 evalSlice(float2 uv, UniformSampleGenerator& sg) const;
    /// Light arriving from `dir`: the env map or white.
    float3 evalLighting(const float3& dir) const;
    MaterialInstance createInstance(const ShadingData& sd) const;
    float3 selectedAlbedo(const BSDFProperties& p) const;

    uint32_t mMaterialID = 0;
    BSDFViewerMode mViewerMode = BSDFViewerMode::Material;
    bool mUseEnvMap = true;
    bool mUseFixedTexCoords = false;
    float2 mTexCoords{0.f, 0.f};
    uint32_t mOutputAlbedo = 0;

    std::shared_ptr<Scene> mpScene;
    uint32_t mFrameCount = 0;
};
} // namespace falcor
