#pragma once
#include "Core/Enum.h"
#include "Rendering/Materials/RayCone.h"
#include "Rendering/Materials/RayDiff.h"
#include "Rendering/Materials/TextureLod.h"
#include "Scene/Camera.h"
#include "Scene/Scene.h"
#include "Scene/SceneMath.h"
#include <algorithm>
#include <cmath>

// Texture level of detail from ray footprints (Falcor's TexLODHelpers): the scene's side of
// ray cones (RayCone.h) and ray differentials (RayDiff.h), and uv gradients of primary hits.
namespace falcor
{
/// How material lookups choose a texture level of detail (Falcor's TexLODMode).
enum class TexLODMode : uint32_t
{
    Mip0,       ///< Finest mip.
    RayCones,   ///< Anisotropic ray-cone footprint.
    RayDiffs,   ///< Ray differentials.
    Stochastic, ///< Declared by Falcor 8, whose passes all sample it as Mip0 (its stochastic sampler is unused); so do ours.
};
FALCOR_ENUM_INFO(TexLODMode, {{TexLODMode::Mip0, "Mip0"},
                              {TexLODMode::RayCones, "RayCones"},
                              {TexLODMode::RayDiffs, "RayDiffs"},
                              {TexLODMode::Stochastic, "Stochastic"}});

/// The hit triangle's world-space corners and texture coordinates.
struct TriangleCorners
{
    float3 posW[3];
    float2 texC[3];
};

inline TriangleCorners getTriangleCorners(const Scene& scene, const TriangleHit& hit)
{
    const Scene::Instance& instance = scene.getInstance(hit.instanceID);
    const Scene::Mesh& mesh = scene.getMesh(instance.meshID);
    const uint3& tri = mesh.triangles[hit.primitiveIndex];
    TriangleCorners c;
    for (int i = 0; i < 3; ++i)
    {
        c.posW[i] = transformPoint(instance.worldMatrix, mesh.positions[tri[i]]);
        c.texC[i] = tri[i] < mesh.texCrds.size() ? mesh.texCrds[tri[i]] : float2(0.f);
    }
    return c;
}

/// The hit triangle for ray differentials: world-space edges and vertex normals (the normal
/// matrix applied, not normalized), their interpolation at the hit, all turned against the ray.
inline RayDiffTriangle getRayDiffTriangle(const Scene& scene, const TriangleHit& hit, const float3& rayDir)
{
    const Scene::Instance& instance = scene.getInstance(hit.instanceID);
    const Scene::Mesh& mesh = scene.getMesh(instance.meshID);
    const uint3& tri = mesh.triangles[hit.primitiveIndex];
    const float3x3 linear{{instance.worldMatrix[0].xyz(), instance.worldMatrix[1].xyz(), instance.worldMatrix[2].xyz()}};
    RayDiffTriangle t;
    t.edge01 = mul(linear, mesh.positions[tri[1]] - mesh.positions[tri[0]]);
    t.edge02 = mul(linear, mesh.positions[tri[2]] - mesh.positions[tri[0]]);
    const float weights[3] = {1.f - hit.barycentrics.x() - hit.barycentrics.y(), hit.barycentrics.x(), hit.barycentrics.y()};
    t.unnormalizedN = float3(0.f);
    for (int i = 0; i < 3; ++i)
    {
        t.normals[i] = tri[i] < mesh.normals.size() ? mul(instance.normalMatrix, mesh.normals[tri[i]]) : float3(0.f);
        t.unnormalizedN += t.normals[i] * weights[i];
        t.texC[i] = tri[i] < mesh.texCrds.size() ? mesh.texCrds[tri[i]] : float2(0.f);
    }
    if (dot(t.unnormalizedN, rayDir) > 0.f)
    {
        t.unnormalizedN = -t.unnormalizedN;
        for (float3& n : t.normals)
            n = -n;
    }
    return t;
}

/// Edge curvatures of the hit triangle, from its object-space positions and vertex normals.
inline TriangleEdgeCurvatures getTriangleCurvatures(const Scene& scene, const TriangleHit& hit)
{
    const Scene::Mesh& mesh = scene.getMesh(scene.getInstance(hit.instanceID).meshID);
    const uint3& tri = mesh.triangles[hit.primitiveIndex];
    float3 pos[3], normal[3];
    for (int i = 0; i < 3; ++i)
    {
        pos[i] = mesh.positions[tri[i]];
        normal[i] = tri[i] < mesh.normals.size() ? mesh.normals[tri[i]] : float3(0.f);
    }
    return TriangleEdgeCurvatures(pos, normal);
}

/// uv change across the ray cone's footprint ellipse on the triangle plane (Falcor's
/// computeAnisotropicEllipseAxes): the footprint axes, turned into barycentric and then uv offsets.
inline void rayConeGradients(const TriangleCorners& c, const Scene::VertexData& v, const float3& dir, float coneRadius, float2& ddx,
                      float2& ddy)
{
    const float3 n = v.faceNormalW;
    auto scaledAxis = [&](float3 axis) {
        const float3 projected = axis - dir * dot(dir, axis);
        return axis * (coneRadius / std::max(0.0001f, length(projected)));
    };
    const float3 axis0 = scaledAxis(dir - n * dot(n, dir));
    const float3 axis1 = scaledAxis(cross(n, axis0));

    const float3 d = v.posW - c.posW[0];
    const float3 e1 = c.posW[1] - c.posW[0], e2 = c.posW[2] - c.posW[0];
    const float invArea = 1.f / dot(n, cross(e1, e2));
    auto uvOffset = [&](const float3& axis) {
        const float3 p = d + axis;
        const float u = dot(n, cross(p, e2)) * invArea;
        const float w = dot(n, cross(e1, p)) * invArea;
        return c.texC[0] * (1.f - u - w) + c.texC[1] * u + c.texC[2] * w - v.texC;
    };
    ddx = uvOffset(axis0);
    ddy = uvOffset(axis1);
}

/// uv derivatives per pixel from ray differentials (Ray Tracing Gems ch. 20, as Falcor's
/// computeRayDifferentials; assumes a normalized ray direction).
inline void rayDifferentialGradients(const TriangleCorners& c, const CameraData& cd, const float3& dir, float hitT, float2 invFrameDim,
                              float2& ddx, float2& ddy)
{
    const float3 e1 = c.posW[1] - c.posW[0], e2 = c.posW[2] - c.posW[0];
    float k = dot(cross(e1, e2), dir);
    k = std::fabs(k) > 1e-20f ? 1.f / k : 0.f;
    const float3 cu = cross(e2, dir), cv = cross(dir, e1);
    // Direction change per pixel at the image plane, carried to the hit.
    const float3 q = cd.cameraU * (2.f * invFrameDim.x() / cd.focalDistance) * hitT;
    const float3 r = cd.cameraV * (2.f * invFrameDim.y() / cd.focalDistance) * hitT;
    const float dudx = k * dot(cu, q), dudy = k * dot(cu, r);
    const float dvdx = k * dot(cv, q), dvdy = k * dot(cv, r);
    const float2 g1 = c.texC[1] - c.texC[0], g2 = c.texC[2] - c.texC[0];
    ddx = g1 * dudx + g2 * dvdx;
    ddy = g1 * dudy + g2 * dvdy;
}

/// Angle one pixel subtends at the image center (Falcor's Camera::computeScreenSpacePixelSpreadAngle,
/// which uses the default 24 mm film height whatever the camera's).
inline float pixelSpreadAngle(const CameraData& cd, uint32_t frameHeight)
{
    constexpr float kDefaultFrameHeight = 24.f;
    const float fovY = 2.f * std::atan(0.5f * kDefaultFrameHeight / cd.focalLength);
    return std::atan(2.f * std::tan(fovY * 0.5f) / float(frameHeight));
}
/// The texture LOD of a primary hit from ray differentials of a pinhole camera's pixel
/// (normalized `dir`, the hit `t` along it).
inline TextureLod primaryHitRayDiffsLod(const Scene& scene, const TriangleHit& hit, const float3& dir, float t, uint2 frameDim)
{
    TextureLod lod = TextureLod::gradients(float2(0.f), float2(0.f));
    rayDifferentialGradients(getTriangleCorners(scene, hit), scene.getCamera().getData(), dir, t, float2(1.f) / float2(frameDim), lod.ddx,
                             lod.ddy);
    return lod;
}
/// The texture LOD of a primary hit from a ray cone of one pixel's spread (isotropic footprint
/// on the triangle plane, as GBufferRT's RayCones).
inline TextureLod primaryHitRayConesLod(const Scene& scene, const TriangleHit& hit, const Scene::VertexData& v, const float3& dir, float t,
                                        uint32_t frameHeight)
{
    TextureLod lod = TextureLod::gradients(float2(0.f), float2(0.f));
    const float coneWidth = t * std::tan(pixelSpreadAngle(scene.getCamera().getData(), frameHeight));
    rayConeGradients(getTriangleCorners(scene, hit), v, dir, coneWidth, lod.ddx, lod.ddy);
    return lod;
}
} // namespace falcor
