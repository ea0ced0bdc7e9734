#pragma once
#include "Core/Macros.h"
#include "Rendering/Lights/LightLanes.h"
#include "Scene/Scene.h"
#include <span>
#include <vector>

namespace falcor
{
/// a · b.x + b · b.y + c · b.z: the point at barycentrics `bary` (per lane when F is a lane type).
template<typename F, int N>
FALCOR_VECTOR_INLINE vector<F, N> interpolateBarycentric(const vector<F, N>& a, const vector<F, N>& b, const vector<F, N>& c,
                                                         const vector<F, 3>& bary)
{
    return a * bary.x() + b * bary.y() + c * bary.z();
}

/// Every triangle of the scene that emits (emissive material, nonzero area and power), in world
/// space (Falcor's LightCollection with its active-triangle list): what emissive light samplers
/// draw from and what MIS looks up when a path hits a light.
class FALCOR_API EmissiveLightCollection
{
public:
    struct Triangle
    {
        float3 posW[3];
        float2 texC[3];
        float3 normalW;          ///< Geometric normal of the front (emitting) side.
        float area = 0.f;
        uint32_t materialID = 0;
        float flux = 0.f;        ///< Estimated emitted power, π · area · average luminance.
        /// The material's emitted radiance where it has no emissive texture (then the same all over).
        float3 uniformEmission{0.f, 0.f, 0.f};
        bool texturedEmission = false;

        float3 getPosition(const float3& b) const { return interpolateBarycentric(posW[0], posW[1], posW[2], b); }
        float2 getTexCoord(const float3& b) const { return interpolateBarycentric(texC[0], texC[1], texC[2], b); }
        /// Emitted radiance at barycentrics `b`; `materials` are the scene's.
        float3 getEmission(const float3& b, const std::vector<MaterialData>& materials) const
        {
            return texturedEmission ? materials[materialID].getEmission(getTexCoord(b)) : uniformEmission;
        }
    };

    /// What sampling needs of a triangle, per lane when F is a lane type.
    template<typename F>
    struct Geometry
    {
        vector<F, 3> posW[3];
        vector<F, 3> normalW;
        F area;
    };

    EmissiveLightCollection() = default;
    explicit EmissiveLightCollection(const Scene& scene);

    std::span<const Triangle> getTriangles() const { return mTriangles; }
    const Triangle& getTriangle(uint32_t index) const { return mTriangles[index]; }
    uint32_t getTriangleCount() const { return uint32_t(mTriangles.size()); }
    /// The geometry of triangle index[i] in lane i (every index must be valid).
    template<typename F>
    Geometry<F> gatherGeometry(const UintOf<F>& index) const
    {
        Geometry<F> g;
        for (int i = 0; i < kLaneWidth<F>; ++i)
        {
            const Triangle& t = mTriangles[laneValue(index, i)];
            for (int k = 0; k < 3; ++k)
                setLaneValue(g.posW[k], i, t.posW[k]);
            setLaneValue(g.normalW, i, t.normalW);
            setLaneValue(g.area, i, t.area);
        }
        return g;
    }
    /// Index of the light triangle at a ray hit, or kInvalidIndex if that triangle does not emit.
    uint32_t getTriangleIndex(uint32_t instanceID, uint32_t primitiveIndex) const
    {
        const uint32_t offset = instanceID < mInstanceOffsets.size() ? mInstanceOffsets[instanceID] : kInvalidIndex;
        return offset == kInvalidIndex ? kInvalidIndex : mLightOfPrimitive[offset + primitiveIndex];
    }

private:
    std::vector<Triangle> mTriangles;
    std::vector<uint32_t> mInstanceOffsets;  ///< Each emissive instance's first entry in mLightOfPrimitive, else kInvalidIndex.
    std::vector<uint32_t> mLightOfPrimitive; ///< Light index of each primitive of emissive instances (kInvalidIndex: inactive).
};
} // namespace falcor
