#pragma once
#include "Core/Macros.h"
#include "Rendering/Lights/EmissiveLightCollection.h"
#include <vector>

namespace falcor
{
/// A bounding volume hierarchy over the emissive triangles for sampling many lights (Falcor's
/// LightBVH, after Conty Estevez and Kulla 2018): each node bounds its triangles' positions
/// (box), emitted power and normals (a cone), so a shading point can estimate how much light a
/// node sends its way and descend towards the brighter child. Built by binned SAOH (surface area
/// times orientation, weighted by power). Nodes are in depth-first order: the left child of node
/// i is i + 1.
class FALCOR_API LightBVH
{
public:
    /// Marks a cone that spans every direction (normals too spread to bound).
    static constexpr float kInvalidCosConeAngle = -1.f;

    struct Node
    {
        float3 origin{0.f, 0.f, 0.f}; ///< Box center.
        float3 extent{0.f, 0.f, 0.f}; ///< Box half size.
        float flux = 0.f;
        float3 coneDirection{0.f, 0.f, 1.f};
        float cosConeAngle = kInvalidCosConeAngle;
        uint32_t rightChild = 0;       ///< Internal nodes.
        uint32_t firstTriangle = 0;    ///< Leaves: range in getLeafTriangles().
        uint32_t triangleCount = 0;    ///< 0 for internal nodes.
        uint32_t parent = kInvalidIndex;

        bool isLeaf() const { return triangleCount != 0; }
    };

    LightBVH() = default;
    LightBVH(const EmissiveLightCollection& lights, uint32_t maxTrianglesPerLeaf = 10, uint32_t binCount = 16);

    bool isEmpty() const { return mNodes.empty(); }
    const Node& getNode(uint32_t index) const { return mNodes[index]; }
    uint32_t getNodeCount() const { return uint32_t(mNodes.size()); }
    /// Light-triangle indices, grouped by leaf.
    uint32_t getLeafTriangle(uint32_t slot) const { return mLeafTriangles[slot]; }
    /// The leaf holding a light triangle.
    uint32_t getLeafOf(uint32_t triangleIndex) const { return mTriangleLeaf[triangleIndex]; }

private:
    struct BuildItem;
    uint32_t build(std::vector<BuildItem>& items, uint32_t begin, uint32_t end, uint32_t parent);
    bool findSplit(std::vector<BuildItem>& items, uint32_t begin, uint32_t end, uint32_t& mid) const;

    std::vector<Node> mNodes;
    std::vector<uint32_t> mLeafTriangles;
    std::vector<uint32_t> mTriangleLeaf;
    uint32_t mMaxTrianglesPerLeaf = 10;
    uint32_t mBinCount = 16;
};
} // namespace falcor
