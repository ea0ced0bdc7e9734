#include "Rendering/Lights/LightBVH.h"
#include "Utils/Math/AABB.h"
#include "Utils/Math/MathHelpers.h"
#include <algorithm>
#include <cmath>

namespace falcor
{
namespace
{
/// A cone of directions: axis and half angle (θ = π spans everything).
struct Cone
{
    float3 axis{0.f, 0.f, 1.f};
    float theta = -1.f; ///< Negative: empty.

    bool isEmpty() const { return theta < 0.f; }
};

/// The smallest cone containing both (Conty Estevez and Kulla, "Importance Sampling of Many Lights
/// with Adaptive Tree Splitting", Algorithm 1).
Cone merge(const Cone& a, const Cone& b)
{
    if (a.isEmpty())
        return b;
    if (b.isEmpty())
        return a;
    if (b.theta > a.theta)
        return merge(b, a);
    const float thetaD = std::acos(std::clamp(dot(a.axis, b.axis), -1.f, 1.f));
    if (std::min(thetaD + b.theta, kPi) <= a.theta)
        return a;
    const float thetaO = 0.5f * (a.theta + thetaD + b.theta);
    if (thetaO >= kPi)
        return {a.axis, kPi};
    const float thetaR = thetaO - a.theta;
    const float3 rotationAxis = cross(a.axis, b.axis);
    if (dot(rotationAxis, rotationAxis) < 1e-12f)
        return {a.axis, kPi}; // Opposite axes.
    // Rotate a.axis towards b.axis by thetaR (Rodrigues, about an axis orthogonal to a.axis).
    const float3 k = normalize(rotationAxis);
    const float3 axis = a.axis * std::cos(thetaR) + cross(k, a.axis) * std::sin(thetaR);
    return {normalize(axis), thetaO};
}

/// Orientation measure M_Ω of a cone of normals whose emitters are diffuse (θe = π/2): the
/// cosine-weighted solid angle they light, the SAOH's counterpart of a box's area.
float orientationMeasure(const Cone& c)
{
    if (c.isEmpty())
        return 0.f;
    const float thetaO = c.theta, thetaW = std::min(thetaO + 0.5f * kPi, kPi);
    const float sinO = std::sin(thetaO), cosO = std::cos(thetaO);
    return 2.f * kPi * (1.f - cosO) + 0.5f * kPi * (2.f * thetaW * sinO - std::cos(thetaO - 2.f * thetaW) - 2.f * thetaO * sinO + cosO);
}

/// The box measure split costs use: surface area, or (useVolumeOverSA) volume with zero
/// dimensions replaced by `epsilon`.
float boxMeasure(const AABB& box, const LightBVH::BuildOptions& options)
{
    if (!box.valid())
        return 0.f;
    const float3 e = box.extent();
    if (options.useVolumeOverSA)
        return std::max(e.x(), options.volumeEpsilon) * std::max(e.y(), options.volumeEpsilon) * std::max(e.z(), options.volumeEpsilon);
    return 2.f * (e.x() * e.y() + e.y() * e.z() + e.z() * e.x());
}

/// What a set of triangles contributes to a node.
struct Bounds
{
    AABB box;
    Cone cone;
    float flux = 0.f;
    uint32_t count = 0;

    void include(const Bounds& o)
    {
        box.include(o.box);
        cone = merge(cone, o.cone);
        flux += o.flux;
        count += o.count;
    }
    /// The split cost of a node holding these triangles under the builder's heuristic.
    float cost(const LightBVH::BuildOptions& options) const
    {
        if (count == 0)
            return 0.f;
        const float measure = boxMeasure(box, options);
        if (options.splitHeuristicSelection == LightBVHSplitHeuristic::BinnedSAH)
            return measure * float(count);
        const float power = options.usePreintegration ? flux : 1.f;
        const float orientation = options.useLightingCones ? orientationMeasure(cone) : 1.f;
        return power * measure * orientation;
    }
};

int longestAxis(const float3& extent)
{
    return extent.z() >= extent.x() && extent.z() >= extent.y() ? 2 : extent.y() >= extent.x() ? 1 : 0;
}
} // namespace

struct LightBVH::BuildItem
{
    uint32_t triangle;
    float3 centroid;
    Bounds bounds;
};

/// Where to split a node: along `axis`, the first `mid` - begin triangles (in centroid order)
/// to the left. Invalid (a leaf) when `axis` < 0.
struct LightBVH::Split
{
    int axis = -1;
    uint32_t mid = 0;
    float cost = INFINITY;
    bool isValid() const { return axis >= 0; }
};

LightBVH::LightBVH(const EmissiveLightCollection& lights, const BuildOptions& options) : mpLights(&lights), mOptions(options)
{
    mOptions.maxTriangleCountPerLeaf = std::max(1u, mOptions.maxTriangleCountPerLeaf);
    mOptions.binCount = std::max(2u, mOptions.binCount);
    const uint32_t count = lights.getTriangleCount();
    mTriangleLeaf.assign(count, kInvalidIndex);
    std::vector<BuildItem> items;
    items.reserve(count);
    for (uint32_t i = 0; i < count; ++i)
    {
        const auto& tri = lights.getTriangle(i);
        if (mOptions.usePreintegration && !(tri.flux > 0.f))
            continue; // Falcor culls triangles that emit nothing.
        BuildItem item;
        item.triangle = i;
        for (const float3& p : tri.posW)
            item.bounds.box.include(p);
        item.centroid = item.bounds.box.center();
        item.bounds.cone = {tri.normalW, 0.f};
        item.bounds.flux = tri.flux;
        item.bounds.count = 1;
        items.push_back(item);
    }
    if (items.empty())
        return;
    mNodes.reserve(2 * items.size() / mOptions.maxTriangleCountPerLeaf + 1);
    build(items, 0, uint32_t(items.size()), kInvalidIndex, 0);
}

uint32_t LightBVH::build(std::vector<BuildItem>& items, uint32_t begin, uint32_t end, uint32_t parent, uint32_t depth)
{
    const uint32_t index = uint32_t(mNodes.size());
    mNodes.emplace_back();
    Bounds bounds;
    for (uint32_t i = begin; i < end; ++i)
        bounds.include(items[i].bounds);
    {
        Node& node = mNodes[index];
        node.origin = bounds.box.center();
        node.extent = bounds.box.extent() * 0.5f;
        node.flux = bounds.flux;
        node.coneDirection = bounds.cone.axis;
        node.cosConeAngle = bounds.cone.theta >= kPi ? kInvalidCosConeAngle : std::cos(bounds.cone.theta);
        node.parent = parent;
    }
    const bool trySplitting = end - begin > (mOptions.createLeavesASAP ? mOptions.maxTriangleCountPerLeaf : 1u);
    const Split split = trySplitting ? findSplit(items, begin, end, depth, bounds.box.extent(), bounds.cost(mOptions)) : Split{};
    if (!split.isValid())
    {
        Node& node = mNodes[index];
        node.firstTriangle = uint32_t(mLeafTriangles.size());
        node.triangleCount = end - begin;
        for (uint32_t i = begin; i < end; ++i)
        {
            mLeafTriangles.push_back(items[i].triangle);
            mTriangleLeaf[items[i].triangle] = index;
        }
        return index;
    }
    // The `mid` - begin triangles with the smallest centroids along the axis go left.
    std::nth_element(items.begin() + begin, items.begin() + split.mid, items.begin() + end,
                     [axis = split.axis](const BuildItem& a, const BuildItem& b) { return a.centroid[axis] < b.centroid[axis]; });
    build(items, begin, split.mid, index, depth + 1);
    const uint32_t right = build(items, split.mid, end, index, depth + 1);
    mNodes[index].rightChild = right;
    return index;
}

LightBVH::Split LightBVH::findSplit(const std::vector<BuildItem>& items, uint32_t begin, uint32_t end, uint32_t depth,
                                    const float3& nodeExtent, float leafCost) const
{
    const uint32_t count = end - begin;
    const Split equal{longestAxis(nodeExtent), begin + count / 2, INFINITY};
    // Deep in a lopsided tree, halves bound the remaining depth (and the build's recursion).
    if (mOptions.splitHeuristicSelection == LightBVHSplitHeuristic::Equal || depth >= kMaxHeuristicDepth)
        return equal;
    const Split best = findBinnedSplit(items, begin, end);
    // No split separates the triangles: a leaf if one may hold them, else halves (as Falcor).
    if (!best.isValid())
        return count <= mOptions.maxTriangleCountPerLeaf ? Split{} : equal;
    if (mOptions.useLeafCreationCost && count <= mOptions.maxTriangleCountPerLeaf && leafCost <= best.cost)
        return Split{};
    return best;
}

LightBVH::Split LightBVH::findBinnedSplit(const std::vector<BuildItem>& items, uint32_t begin, uint32_t end) const
{
    AABB centroids;
    for (uint32_t i = begin; i < end; ++i)
        centroids.include(items[i].centroid);
    const float3 extent = centroids.extent();
    const float maxExtent = std::max(extent.x(), std::max(extent.y(), extent.z()));
    const uint32_t binCount = mOptions.binCount;
    Split best;
    std::vector<Bounds> bins(binCount), suffix(binCount);
    for (int axis = 0; axis < 3; ++axis)
    {
        if (!(extent[axis] > 0.f) || (mOptions.splitAlongLargest && axis != longestAxis(extent)))
            continue;
        std::fill(bins.begin(), bins.end(), Bounds{});
        const float scale = float(binCount) / extent[axis];
        for (uint32_t i = begin; i < end; ++i)
            bins[std::min(uint32_t((items[i].centroid[axis] - centroids.minPoint[axis]) * scale), binCount - 1)].include(items[i].bounds);
        suffix[binCount - 1] = bins[binCount - 1];
        for (int b = int(binCount) - 2; b >= 0; --b)
            (suffix[b] = suffix[b + 1]).include(bins[b]);
        // The SAOH favours splits along the long axis of thin boxes (its regularization K_r).
        const float kr = mOptions.splitHeuristicSelection == LightBVHSplitHeuristic::BinnedSAOH ? maxExtent / extent[axis] : 1.f;
        Bounds left;
        for (uint32_t b = 0; b + 1 < binCount; ++b)
        {
            left.include(bins[b]);
            const float cost = kr * (left.cost(mOptions) + suffix[b + 1].cost(mOptions));
            if (cost < best.cost && left.count > 0 && suffix[b + 1].count > 0)
                best = {axis, begin + left.count, cost};
        }
    }
    return best;
}
} // namespace falcor
