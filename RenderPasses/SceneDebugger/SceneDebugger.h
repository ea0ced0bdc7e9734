#pragma once
#include "RenderGraph/RenderPass.h"
#include "Scene/HitInfo.h"
#include "Scene/Scene.h"
#include <vector>

namespace falcor
{
/// What the scene debugger shows (Falcor's SceneDebuggerMode).
enum class SceneDebuggerMode : uint32_t
{
    FlatShaded,
    TriangleDensity,
    HitType,
    InstanceID,
    MaterialID,
    GeometryID,
    BlasID,
    PrimitiveID,
    InstancedGeometry,
    MaterialType,
    FaceNormal,
    ShadingNormal,
    ShadingTangent,
    ShadingBitangent,
    FrontFacingFlag,
    BackfacingShadingNormal,
    TexCoords,
    BSDFProperties,
};
FALCOR_ENUM_INFO(SceneDebuggerMode, {{SceneDebuggerMode::FlatShaded, "FlatShaded"},
                                     {SceneDebuggerMode::TriangleDensity, "TriangleDensity"},
                                     {SceneDebuggerMode::HitType, "HitType"},
                                     {SceneDebuggerMode::InstanceID, "InstanceID"},
                                     {SceneDebuggerMode::MaterialID, "MaterialID"},
                                     {SceneDebuggerMode::GeometryID, "GeometryID"},
                                     {SceneDebuggerMode::BlasID, "BlasID"},
                                     {SceneDebuggerMode::PrimitiveID, "PrimitiveID"},
                                     {SceneDebuggerMode::InstancedGeometry, "InstancedGeometry"},
                                     {SceneDebuggerMode::MaterialType, "MaterialType"},
                                     {SceneDebuggerMode::FaceNormal, "FaceNormal"},
                                     {SceneDebuggerMode::ShadingNormal, "ShadingNormal"},
                                     {SceneDebuggerMode::ShadingTangent, "ShadingTangent"},
                                     {SceneDebuggerMode::ShadingBitangent, "ShadingBitangent"},
                                     {SceneDebuggerMode::FrontFacingFlag, "FrontFacingFlag"},
                                     {SceneDebuggerMode::BackfacingShadingNormal, "BackfacingShadingNormal"},
                                     {SceneDebuggerMode::TexCoords, "TexCoords"},
                                     {SceneDebuggerMode::BSDFProperties, "BSDFProperties"}});

/// SceneDebugger: false-color views of scene data at primary hits, for finding asset problems.
///
/// | Property    | Type              | Default      | Meaning                                               |
/// |-------------|-------------------|--------------|-------------------------------------------------------|
/// | mode        | SceneDebuggerMode | 'FaceNormal' | What to show (see SceneDebugger.cpp for each color).  |
/// | showVolumes | bool              | True         | Attenuate by grid volumes (our scenes have none).     |
/// | useVBuffer  | bool              | False        | Take hits from the `vbuffer` input instead of tracing. |
///
/// Python: rw attribute `mode` (string). Output `output` (RGBA32Float), alpha 1. Rays are the
/// camera's pinhole rays (with its current jitter), alpha tested, not culled.
class SceneDebugger : public RenderPass
{
    FALCOR_PLUGIN_CLASS(SceneDebugger, "SceneDebugger", "Scene debugger for identifying asset issues.");

public:
    explicit SceneDebugger(const Properties& props);

    Properties getProperties() const override;
    RenderPassReflection reflect(const CompileData& compileData) override;
    void compile(RenderContext* pRenderContext, const CompileData& compileData) override;
    void setScene(RenderContext* pRenderContext, const std::shared_ptr<Scene>& pScene) override;
    void execute(RenderContext* pRenderContext, const RenderData& renderData) override;

private:
    float3 shadeHit(uint2 pixel, const Ray& ray, const TriangleHit& hit) const;
    /// Groups meshes into ray-tracing BLASes as Falcor's scene builder does (for BlasID).
    void assignBlasIDs();

    SceneDebuggerMode mMode = SceneDebuggerMode::FaceNormal;
    bool mShowVolumes = true;
    bool mUseVBuffer = false;

    std::shared_ptr<Scene> mpScene;
    HitInfoLayout mHitInfo;
    uint2 mFrameDim{0, 0};
    uint32_t mFrameCount = 0; ///< Animates the zebra stripes of BackfacingShadingNormal.
    std::vector<uint32_t> mMeshToBlasID;
    std::vector<uint32_t> mMeshInstanceCount;
};
} // namespace falcor
