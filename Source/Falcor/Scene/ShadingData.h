#pragma once
#include "Scene/Material.h"
#include "Scene/Scene.h"
#include "Utils/Geometry/GeometryHelpers.h"
#include "Utils/Math/ShadingFrame.h"

namespace falcor
{
/// What the material sees at a hit (Falcor's ShadingData).
struct ShadingData
{
    float3 posW;
    float3 V;            ///< Towards the viewer (normalized).
    float2 uv;
    ShadingFrame frame;  ///< From the interpolated normal and tangent, before any material change.
    float4 tangentW;     ///< The tangent the frame was built from (invented when invalid, w = 1).
    float3 faceN;
    bool frontFacing = true; ///< V lies on the front side of the face.
    float IoR = 1.f;     ///< Index of refraction of the medium on the viewer's side.
    uint32_t materialID = 0;
    const MaterialData* mtl = nullptr;

    float3 getOrientedFaceNormal() const { return frontFacing ? faceN : -faceN; }

    /// Origin for a ray leaving the surface on the viewer's side, or the other side.
    float3 computeRayOrigin(bool viewSide = true) const { return falcor::computeRayOrigin(posW, frontFacing == viewSide ? faceN : -faceN); }
};

/// Shading data at a hit's interpolated vertex data, seen along `viewDir` (Falcor's prepareShadingData).
inline ShadingData prepareShadingData(const Scene::VertexData& v, uint32_t materialID, const MaterialData& mtl, const float3& viewDir)
{
    ShadingData sd;
    sd.posW = v.posW;
    sd.uv = v.texC;
    sd.V = viewDir;
    bool valid;
    sd.frame = ShadingFrame::createSafe(v.normalW, v.tangentW, valid);
    sd.tangentW = valid ? v.tangentW : float4(sd.frame.T.x(), sd.frame.T.y(), sd.frame.T.z(), 1.f);
    sd.faceN = v.faceNormalW;
    sd.frontFacing = dot(sd.V, sd.faceN) >= 0.f;
    sd.materialID = materialID;
    sd.mtl = &mtl;
    return sd;
}

/// Shading data at a triangle hit of `scene`, for a ray travelling along `rayDir` (normalized).
inline ShadingData loadShadingData(const Scene& scene, const TriangleHit& hit, const float3& rayDir)
{
    const uint32_t materialID = scene.getInstance(hit.instanceID).materialID;
    return prepareShadingData(scene.getVertexData(hit), materialID, scene.getMaterial(materialID), -rayDir);
}
} // namespace falcor
