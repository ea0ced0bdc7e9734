#include "Rendering/Lights/EmissiveLightCollection.h"
#include "Scene/SceneMath.h"
#include "Utils/Color/ColorHelpers.h"
#include "Utils/Math/MathHelpers.h"
#include <algorithm>
#include <cmath>

namespace falcor
{
namespace
{
/// Average emitted luminance over a triangle: the constant, or for a texture the mean of a fixed
/// 8x8 grid of barycentric points (only the power sampler's selection weights depend on it).
float averageLuminance(const MaterialData& material, const EmissiveLightCollection::Triangle& tri)
{
    if (!material.hasTexture(MaterialTextureSlot::Emissive))
        return luminance(material.getEmission(tri.texC[0]));
    constexpr int kGrid = 8;
    float sum = 0.f;
    for (int i = 0; i < kGrid; ++i)
        for (int j = 0; j < kGrid; ++j)
        {
            const float3 b = sampleTriangle(float2((i + 0.5f) / kGrid, (j + 0.5f) / kGrid));
            sum += luminance(material.getEmission(tri.getTexCoord(b)));
        }
    return sum / float(kGrid * kGrid);
}
} // namespace

EmissiveLightCollection::EmissiveLightCollection(const Scene& scene)
{
    const auto& instances = scene.getInstances();
    mInstanceOffsets.assign(instances.size(), kInvalidIndex);
    for (uint32_t instanceID = 0; instanceID < instances.size(); ++instanceID)
    {
        const Scene::Instance& instance = instances[instanceID];
        const MaterialData& material = scene.getMaterial(instance.materialID);
        if (!material.emissive)
            continue;
        const Scene::Mesh& mesh = scene.getMesh(instance.meshID);
        mInstanceOffsets[instanceID] = uint32_t(mLightOfPrimitive.size());
        for (uint32_t primitive = 0; primitive < mesh.triangles.size(); ++primitive)
        {
            Triangle tri;
            for (int i = 0; i < 3; ++i)
            {
                const uint32_t vertex = mesh.triangles[primitive][i];
                tri.posW[i] = transformPoint(instance.worldMatrix, mesh.positions[vertex]);
                tri.texC[i] = vertex < mesh.texCrds.size() ? mesh.texCrds[vertex] : float2(0.f);
            }
            tri.area = 0.5f * length(cross(tri.posW[1] - tri.posW[0], tri.posW[2] - tri.posW[0]));
            // The scene decides which side is the front (winding, frontFaceCW): ask it at the centroid.
            TriangleHit centroid;
            centroid.instanceID = instanceID, centroid.primitiveIndex = primitive;
            centroid.barycentrics = float2(1.f / 3.f);
            tri.normalW = scene.getVertexData(centroid).faceNormalW;
            tri.materialID = instance.materialID;
            tri.texturedEmission = material.hasTexture(MaterialTextureSlot::Emissive);
            tri.uniformEmission = material.getEmission(float2(0.f));
            tri.flux = tri.area > 0.f ? kPi * tri.area * averageLuminance(material, tri) : 0.f;
            // Black triangles and slivers (area negligible against the longest edge squared, as
            // at the poles of a UV sphere) send no light: sampling them would only waste samples.
            const float longestEdgeSqr = std::max({dot(tri.posW[1] - tri.posW[0], tri.posW[1] - tri.posW[0]),
                                                   dot(tri.posW[2] - tri.posW[1], tri.posW[2] - tri.posW[1]),
                                                   dot(tri.posW[0] - tri.posW[2], tri.posW[0] - tri.posW[2])});
            const bool degenerate = tri.area <= 1e-6f * longestEdgeSqr;
            const bool active = !degenerate && tri.flux > 0.f && std::isfinite(tri.flux);
            mLightOfPrimitive.push_back(active ? uint32_t(mTriangles.size()) : kInvalidIndex);
            if (active)
                mTriangles.push_back(tri);
        }
    }
}
} // namespace falcor
