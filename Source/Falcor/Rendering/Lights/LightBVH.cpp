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

float surfaceArea(const AABB& box)
{
    if (!box.valid())
        return 0.f;
    const float3 e = box.extent();
    return 2.f * (e.x() * e.y() + e.y() * e.z() + e.z() * e.x());
}

/// What a set of triangles contributes to a node.
struct Bounds
{
    AABB box;
    Cone cone;
    float flux = 0.f;

    void include(const Bounds& o)
    {
        box.include(o.box);
        cone = merge(cone, o.cone);
        flux += o.flux;
    }
    float cost() const { return flux * surfaceArea(box) * orientationMeasure(cone); }
};
} // namespace

struct LightBVH::BuildItem
{
    uint32_t triangle;
    float3 centroid;
    Bounds bounds;
};

LightBVH::LightBVH(const EmissiveLightCollection& lights, uint32_t maxTrianglesPerLeaf, uint32_t binCount)
    : mMaxTrianglesPerLeaf(std::max(1u, maxTrianglesPerLeaf)), mBinCount(std::max(2u, binCount))
{
    const uint32_t count = lights.getTriangleCount();
    if (count == 0)
        return;
    std::vector<BuildItem> items(count);
    for (uint32_t i = 0; i < count; ++i)
    {
        const auto& tri = lights.getTriangle(i);
        BuildItem& item = items[i];
        item.triangle = i;
        for (const float3& p : tri.posW)
            item.bounds.box.include(p);
        item.centroid = item.bounds.box.center();
        item.bounds.cone = {tri.normalW, 0.f};
        item.bounds.flux = tri.flux;
    }
    mTriangleLeaf.assign(count, kInvalidIndex);
    mNodes.reserve(2 * count / mMaxTrianglesPerLeaf + 1);
    build(items, 0, count, kInvalidIndex);
}

uint32_t LightBVH::build(std::vector<BuildItem>& items, uint32_t begin, uint32_t end, uint32_t parent)
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
    uint32_t mid;
    if (end - begin <= mMaxTrianglesPerLeaf || !findSplit(items, begin, end, mid))
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
    build(items, begin, mid, index);
    const uint32_t right = build(items, mid, end, index);
    mNodes[index].rightChild = right;
    return index;
}

bool LightBVH::findSplit(std::vector<BuildItem>& items, uint32_t begin, uint32_t end, uint32_t& mid) const
{
    AABB centroids;
    for (uint32_t i = begin; i < end; ++i)
        centroids.include(items[i].centroid);
    const float3 extent = centroids.extent();
    const float maxExtent = std::max(extent.x(), std::max(extent.y(), extent.z()));
    if (!(maxExtent > 0.f))
    {
        // Coincident centroids: split by count to keep leaves small.
        mid = begin + (end - begin) / 2;
        return true;
    }

    float bestCost = INFINITY;
    int bestAxis = -1;
    uint32_t bestBin = 0;
    std::vector<Bounds> bins(mBinCount), suffix(mBinCount);
    for (int axis = 0; axis < 3; ++axis)
    {
        if (!(extent[axis] > 0.f))
            continue;
        std::fill(bins.begin(), bins.end(), Bounds{});
        auto binOf = [&](const BuildItem& it) {
            const float t = (it.centroid[axis] - centroids.minPoint[axis]) / extent[axis];
            return std::min(uint32_t(t * float(mBinCount)), mBinCount - 1);
        };
        for (uint32_t i = begin; i < end; ++i)
            bins[binOf(items[i])].include(items[i].bounds);
        suffix[mBinCount - 1] = bins[mBinCount - 1];
        for (int b = int(mBinCount) - 2; b >= 0; --b)
            (suffix[b] = suffix[b + 1]).include(bins[b]);
        // Thin boxes favour splits along their long axis (the SAOH's regularization K_r).
        const float kr = maxExtent / extent[axis];
        Bounds left;
        for (uint32_t b = 0; b + 1 < mBinCount; ++b)
        {
            left.include(bins[b]);
            const float cost = kr * (left.cost() + suffix[b + 1].cost());
            if (cost < bestCost && left.box.valid() && suffix[b + 1].box.valid())
                bestCost = cost, bestAxis = axis, bestBin = b;
        }
    }
    if (bestAxis < 0)
        return false;
    const float t0 = centroids.minPoint[bestAxis], scale = float(mBinCount) / extent[bestAxis];
    auto it = std::partition(items.begin() + begin, items.begin() + end, [&](const BuildItem& item) {
        return std::min(uint32_t((item.centroid[bestAxis] - t0) * scale), mBinCount - 1) <= bestBin;
    });
    mid = uint32_t(it - items.begin());
    return mid > begin && mid < end;
}
} // namespace falcor
