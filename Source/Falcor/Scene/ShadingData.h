#pragma once
#include "Scene/Material.h"
#include "Scene/Scene.h"
#include "Utils/Geometry/GeometryHelpers.h"
#include "Utils/Math/ShadingFrame.h"

namespace falcor
{
/// The surface a material sees at a hit (Falcor's ShadingData without the material): at one hit,
/// or at one hit per lane when F is a lane type (Utils/Simd/Lane.h), whose lanes may have
/// different materials (`materialID`).
template<typename F>
struct ShadingDataT
{
    using Float = F;

    vector<F, 3> posW;
    vector<F, 3> V;                 ///< Towards the viewer (normalized).
    vector<F, 2> uv;
    ShadingFrameT<F> frame;         ///< From the interpolated normal and tangent, before any material change.
    vector<F, 4> tangentW;          ///< The tangent the frame was built from (invented when invalid, w = 1).
    vector<F, 3> faceN;
    MaskOf<F> frontFacing = true;   ///< V lies on the front side of the face.
    F IoR = 1.f;                    ///< Index of refraction of the medium on the viewer's side.
    UintOf<F> materialID = 0u;

    vector<F, 3> getOrientedFaceNormal() const { return select(frontFacing, faceN, -faceN); }

    /// Origin for a ray leaving the surface on the viewer's side, or the other side.
    vector<F, 3> computeRayOrigin(const MaskOf<F>& viewSide = true) const
    {
        const MaskOf<F> front = select(viewSide, frontFacing, !frontFacing);
        return falcor::computeRayOrigin(posW, select(front, faceN, -faceN));
    }
};

/// What the material sees at a hit (Falcor's ShadingData): the surface and its material.
struct ShadingData : ShadingDataT<float>
{
    const MaterialData* mtl = nullptr;
};

/// The surface at a hit's interpolated vertex data, seen along `viewDir` (Falcor's
/// prepareShadingData); per lane when F is a lane type.
template<typename F>
ShadingDataT<F> prepareShadingData(const Scene::VertexDataT<F>& v, const UintOf<F>& materialID, const vector<F, 3>& viewDir)
{
    ShadingDataT<F> sd;
    sd.posW = v.posW;
    sd.uv = v.texC;
    sd.V = viewDir;
    MaskOf<F> valid;
    sd.frame = ShadingFrameT<F>::createSafe(v.normalW, v.tangentW, valid);
    sd.tangentW = select(valid, v.tangentW, vector<F, 4>(sd.frame.T.x(), sd.frame.T.y(), sd.frame.T.z(), F(1.f)));
    sd.faceN = v.faceNormalW;
    sd.frontFacing = dot(sd.V, sd.faceN) >= 0.f;
    sd.materialID = materialID;
    return sd;
}

/// Shading data at a hit's interpolated vertex data, seen along `viewDir` (Falcor's prepareShadingData).
inline ShadingData prepareShadingData(const Scene::VertexData& v, uint32_t materialID, const MaterialData& mtl, const float3& viewDir)
{
    return {prepareShadingData(v, materialID, viewDir), &mtl};
}

/// The surface at a triangle hit of `scene` (a TriangleHit: F = float), or at one hit per lane
/// (TriangleHitLanes<F>), for rays travelling along `rayDir` (normalized). Lanes outside `active`
/// may hold any IDs: they compute a copy of an active lane (Scene::getVertexData).
template<typename Hit, typename F = HitFloat<Hit>>
ShadingDataT<F> loadShadingData(const Scene& scene, const Hit& hit, const vector<F, 3>& rayDir, const MaskOf<F>& active = true)
{
    if (!any(active))
        return {};
    UintOf<F> materialID;
    if constexpr (kLaneWidth<F> == 1)
        materialID = scene.getInstance(hit.instanceID).materialID;
    else
        forEachHitLane(hit, active, [&](int i, uint32_t instanceID, uint32_t) { materialID.set(i, scene.getInstance(instanceID).materialID); });
    return prepareShadingData(scene.getVertexData(hit, active), materialID, -rayDir);
}

/// Shading data at a triangle hit of `scene`, for a ray travelling along `rayDir` (normalized).
inline ShadingData loadShadingData(const Scene& scene, const TriangleHit& hit, const float3& rayDir)
{
    ShadingData sd{loadShadingData<TriangleHit>(scene, hit, rayDir)};
    sd.mtl = &scene.getMaterial(sd.materialID);
    return sd;
}
} // namespace falcor
