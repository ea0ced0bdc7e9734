#pragma once
#include "Core/Enum.h"
#include "Core/Macros.h"
#include "Rendering/Lights/EmissiveLightCollection.h"
#include <vector>

namespace falcor
{
/// How LightBVH splits a node (Falcor's LightBVHBuilder::SplitHeuristic).
enum class LightBVHSplitHeuristic : uint32_t
{
    Equal = 0,      ///< Halve the triangles along the box's longest axis.
    BinnedSAH = 1,  ///< Surface area times triangle count, binned.
    BinnedSAOH = 2, ///< Surface area times orientation (normal cone) times power, binned (Conty Estevez and Kulla 2018).
};
FALCOR_ENUM_INFO(LightBVHSplitHeuristic, {{LightBVHSplitHeuristic::Equal, "Equal"},
                                          {LightBVHSplitHeuristic::BinnedSAH, "BinnedSAH"},
                                          {LightBVHSplitHeuristic::BinnedSAOH, "BinnedSAOH"}});

/// Falcor's LightBVHBuilder::Options (the `lightBVHOptions.buildOptions` dict).
struct LightBVHBuildOptions
{
    LightBVHSplitHeuristic splitHeuristicSelection = LightBVHSplitHeuristic::BinnedSAOH;
    uint32_t maxTriangleCountPerLeaf = 10;
    uint32_t binCount = 16;
    float volumeEpsilon = 1e-3f;      ///< Stands in for zero box dimensions when useVolumeOverSA.
    bool splitAlongLargest = false;   ///< Try splits along the box's longest axis only.
    bool useVolumeOverSA = false;     ///< Split costs from box volumes instead of surface areas.
    bool useLeafCreationCost = true;  ///< Make a leaf when it costs less than the best split.
    bool createLeavesASAP = true;     ///< Stop splitting at maxTriangleCountPerLeaf (else split down to cost or one triangle).
    bool allowRefitting = true;       ///< Falcor refits the tree when lights change; this one is rebuilt (accepted, no effect).
    bool usePreintegration = true;    ///< Leave out triangles without power; weigh SAOH costs by power.
    bool useLightingCones = true;     ///< Weigh SAOH costs by the normal cone's orientation measure.
};

/// A bounding volume hierarchy over the emissive triangles for sampling many lights (Falcor's
/// LightBVH, after Conty Estevez and Kulla 2018): each node bounds its triangles' positions
/// (box), emitted power and normals (a cone), so a shading point can estimate how much light a
/// node sends its way and descend towards the brighter child. Nodes are in depth-first order: the
/// left child of node i is i + 1.
class FALCOR_API LightBVH
{
public:
    using BuildOptions = LightBVHBuildOptions;

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
    explicit LightBVH(const EmissiveLightCollection& lights, const BuildOptions& options = {});

    bool isEmpty() const { return mNodes.empty(); }
    const Node& getNode(uint32_t index) const { return mNodes[index]; }
    uint32_t getNodeCount() const { return uint32_t(mNodes.size()); }
    /// Light-triangle indices, grouped by leaf.
    uint32_t getLeafTriangle(uint32_t slot) const { return mLeafTriangles[slot]; }
    /// The leaf holding a light triangle, kInvalidIndex for triangles left out (no power).
    uint32_t getLeafOf(uint32_t triangleIndex) const { return mTriangleLeaf[triangleIndex]; }
    const EmissiveLightCollection& getLights() const { return *mpLights; }

private:
    struct BuildItem;
    struct Split;
    /// From this depth on, splits are halves (Falcor's trees stop at 64 levels).
    static constexpr uint32_t kMaxHeuristicDepth = 48;
    uint32_t build(std::vector<BuildItem>& items, uint32_t begin, uint32_t end, uint32_t parent, uint32_t depth);
    /// `nodeExtent` and `leafCost`: the node's box size and its cost as a leaf (build() has them).
    Split findSplit(const std::vector<BuildItem>& items, uint32_t begin, uint32_t end, uint32_t depth, const float3& nodeExtent,
                    float leafCost) const;
    Split findBinnedSplit(const std::vector<BuildItem>& items, uint32_t begin, uint32_t end) const;

    const EmissiveLightCollection* mpLights = nullptr;
    BuildOptions mOptions;
    std::vector<Node> mNodes;
    std::vector<uint32_t> mLeafTriangles;
    std::vector<uint32_t> mTriangleLeaf;
};
} // namespace falcor
