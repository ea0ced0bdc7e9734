#pragma once
#include "Core/Enum.h"
#include "Rendering/Lights/LightBVH.h"
#include <algorithm>
#include <cmath>

namespace falcor
{
/// How the cone of directions to a node's box is bounded (Falcor's SolidAngleBoundMethod).
enum class SolidAngleBoundMethod : uint32_t
{
    BoxToCenter = 1,  ///< Around the direction to the box center, through the farthest corner.
    BoxToAverage = 2, ///< Around the mean direction to the corners.
    Sphere = 3,       ///< The box's bounding sphere.
};
FALCOR_ENUM_INFO(SolidAngleBoundMethod, {{SolidAngleBoundMethod::BoxToCenter, "BoxToCenter"},
                                         {SolidAngleBoundMethod::BoxToAverage, "BoxToAverage"},
                                         {SolidAngleBoundMethod::Sphere, "Sphere"}});

/// How a shading point weighs LightBVH nodes (Falcor's LightBVHSampler options).
struct LightBVHSamplerOptions
{
    bool useBoundingCone = true;  ///< Bound the receiver's cosine (upper-hemisphere sampling only).
    bool useLightingCone = true;  ///< Bound the emitters' cosine with the node's normal cone.
    bool disableNodeFlux = false; ///< Ignore power (geometry terms only).
    bool useUniformTriangleSampling = true; ///< In a leaf, pick triangles uniformly (else by importance).
    SolidAngleBoundMethod solidAngleBoundMethod = SolidAngleBoundMethod::Sphere;
};

/// Stochastic descent of a LightBVH: at each node, the child chosen in proportion to a
/// conservative estimate of the light it sends to (posW, normalW); the random number is rescaled
/// and reused, so one number picks the leaf and the triangle in it.
class LightBVHSampler
{
public:
    LightBVHSampler() = default;
    LightBVHSampler(const LightBVH* bvh, const LightBVHSamplerOptions& options) : mpBVH(bvh), mOptions(options) {}

    /// Picks a light triangle; its selection probability in `pdf`.
    bool selectTriangle(const float3& posW, const float3& normalW, bool upperHemisphere, float u, uint32_t& triangle, float& pdf) const
    {
        if (!mpBVH || mpBVH->isEmpty())
            return false;
        uint32_t node = 0;
        pdf = 1.f;
        while (!mpBVH->getNode(node).isLeaf())
        {
            const uint32_t left = node + 1, right = mpBVH->getNode(node).rightChild;
            const float pLeft = childProbability(posW, normalW, upperHemisphere, left, right);
            if (!(pLeft >= 0.f))
                return false; // Neither child can light the point.
            const bool goLeft = u < pLeft;
            u = goLeft ? u / pLeft : (u - pLeft) / (1.f - pLeft);
            u = std::min(u, 0.99999994f);
            pdf *= goLeft ? pLeft : 1.f - pLeft;
            node = goLeft ? left : right;
        }
        float trianglePdf;
        if (!pickTriangle(posW, normalW, upperHemisphere, mpBVH->getNode(node), u, triangle, trianglePdf))
            return false;
        pdf *= trianglePdf;
        return pdf > 0.f;
    }

    /// The probability selectTriangle picks `triangle` from (posW, normalW).
    float evalSelectionPdf(const float3& posW, const float3& normalW, bool upperHemisphere, uint32_t triangle) const
    {
        uint32_t node = mpBVH->getLeafOf(triangle);
        if (node == kInvalidIndex)
            return 0.f; // Left out of the tree (no power): never picked.
        float pdf = triangleSelectionPdf(posW, normalW, upperHemisphere, mpBVH->getNode(node), triangle);
        for (uint32_t parent = mpBVH->getNode(node).parent; parent != kInvalidIndex; node = parent, parent = mpBVH->getNode(node).parent)
        {
            const uint32_t left = parent + 1, right = mpBVH->getNode(parent).rightChild;
            const float pLeft = childProbability(posW, normalW, upperHemisphere, left, right);
            if (!(pLeft >= 0.f))
                return 0.f;
            pdf *= node == left ? pLeft : 1.f - pLeft;
        }
        return pdf;
    }

private:
    /// Picks a triangle of a leaf with the rest of the random number: uniformly, or in proportion
    /// to each triangle's importance (Falcor's non-uniform leaf sampling).
    bool pickTriangle(const float3& posW, const float3& normalW, bool upper, const LightBVH::Node& leaf, float u, uint32_t& triangle,
                      float& pdf) const
    {
        if (mOptions.useUniformTriangleSampling)
        {
            const uint32_t slot = std::min(uint32_t(u * float(leaf.triangleCount)), leaf.triangleCount - 1);
            triangle = mpBVH->getLeafTriangle(leaf.firstTriangle + slot);
            pdf = 1.f / float(leaf.triangleCount);
            return true;
        }
        float total = 0.f;
        for (uint32_t i = 0; i < leaf.triangleCount; ++i)
            total += triangleImportance(posW, normalW, upper, mpBVH->getLeafTriangle(leaf.firstTriangle + i));
        if (!(total > 0.f))
            return false;
        const float target = u * total;
        float cdf = 0.f, importance = 0.f;
        uint32_t slot = 0;
        for (; slot < leaf.triangleCount; ++slot)
        {
            importance = triangleImportance(posW, normalW, upper, mpBVH->getLeafTriangle(leaf.firstTriangle + slot));
            cdf += importance;
            if (target < cdf)
                break;
        }
        if (slot == leaf.triangleCount) // Rounding left the target at the very end: the last triangle that matters.
            for (slot = leaf.triangleCount; slot-- > 0;)
                if ((importance = triangleImportance(posW, normalW, upper, mpBVH->getLeafTriangle(leaf.firstTriangle + slot))) > 0.f)
                    break;
        triangle = mpBVH->getLeafTriangle(leaf.firstTriangle + slot);
        pdf = importance / total;
        return pdf > 0.f;
    }

    float triangleSelectionPdf(const float3& posW, const float3& normalW, bool upper, const LightBVH::Node& leaf, uint32_t triangle) const
    {
        if (mOptions.useUniformTriangleSampling)
            return 1.f / float(leaf.triangleCount);
        float total = 0.f;
        for (uint32_t i = 0; i < leaf.triangleCount; ++i)
            total += triangleImportance(posW, normalW, upper, mpBVH->getLeafTriangle(leaf.firstTriangle + i));
        return total > 0.f ? triangleImportance(posW, normalW, upper, triangle) / total : 0.f;
    }

    /// A triangle's importance from posW (Falcor's computeTriangleImportance): zero from behind,
    /// else 1 / (squared distance to the triangle), times the largest cosine towards a vertex when
    /// only the upper hemisphere counts.
    float triangleImportance(const float3& posW, const float3& normalW, bool upper, uint32_t triangle) const
    {
        const EmissiveLightCollection::Triangle& tri = mpBVH->getLights().getTriangle(triangle);
        if (dot(posW - tri.posW[0], tri.normalW) <= 0.f)
            return 0.f;
        const float distSqr = std::max(1e-5f, squaredDistanceToTriangle(posW, tri.posW));
        if (!upper)
            return 1.f / distSqr;
        float cosine = 0.f;
        for (const float3& vertex : tri.posW)
            cosine = std::max(cosine, dot(normalW, normalize(vertex - posW)));
        return saturate(cosine) / distSqr;
    }

    /// Squared distance from p to the closest point of triangle v (Ericson, Real-Time Collision Detection 5.1.5).
    static float squaredDistanceToTriangle(const float3& p, const float3 v[3])
    {
        const float3 ab = v[1] - v[0], ac = v[2] - v[0], ap = p - v[0];
        const float d1 = dot(ab, ap), d2 = dot(ac, ap);
        auto sqr = [](const float3& d) { return dot(d, d); };
        if (d1 <= 0.f && d2 <= 0.f)
            return sqr(ap);
        const float3 bp = p - v[1];
        const float d3 = dot(ab, bp), d4 = dot(ac, bp);
        if (d3 >= 0.f && d4 <= d3)
            return sqr(bp);
        const float vc = d1 * d4 - d3 * d2;
        if (vc <= 0.f && d1 >= 0.f && d3 <= 0.f)
            return sqr(p - (v[0] + ab * (d1 / (d1 - d3))));
        const float3 cp = p - v[2];
        const float d5 = dot(ab, cp), d6 = dot(ac, cp);
        if (d6 >= 0.f && d5 <= d6)
            return sqr(cp);
        const float vb = d5 * d2 - d1 * d6;
        if (vb <= 0.f && d2 >= 0.f && d6 <= 0.f)
            return sqr(p - (v[0] + ac * (d2 / (d2 - d6))));
        const float va = d3 * d6 - d5 * d4;
        if (va <= 0.f && d4 - d3 >= 0.f && d5 - d6 >= 0.f)
            return sqr(p - (v[1] + (v[2] - v[1]) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)))));
        const float denom = 1.f / (va + vb + vc);
        return sqr(p - (v[0] + ab * (vb * denom) + ac * (vc * denom)));
    }

    /// Sine and cosine of the half angle of a cone from posW containing the node's box (per solidAngleBoundMethod);
    /// (0, -1), the whole sphere, when posW is inside the bound.
    void boundCone(const float3& posW, const LightBVH::Node& node, float& sinBound, float& cosBound) const
    {
        sinBound = 0.f, cosBound = -1.f;
        const float3 toCenter = node.origin - posW;
        const float distSqr = dot(toCenter, toCenter);
        switch (mOptions.solidAngleBoundMethod)
        {
        case SolidAngleBoundMethod::Sphere:
        {
            const float radiusSqr = dot(node.extent, node.extent);
            if (distSqr >= radiusSqr)
            {
                const float sin2 = radiusSqr / distSqr;
                sinBound = std::sqrt(sin2), cosBound = std::sqrt(1.f - sin2);
            }
            return;
        }
        case SolidAngleBoundMethod::BoxToCenter:
        {
            // By symmetry, four of the eight corners bound the angle to the center direction
            // (lengths below are scaled by |toCenter|).
            const float3& e = node.extent;
            const float extSqr = dot(e, e);
            const float3 corners[4] = {e, float3(e.x(), e.y(), -e.z()), float3(e.x(), -e.y(), e.z()), float3(e.x(), -e.y(), -e.z())};
            cosBound = 1.f;
            for (const float3& corner : corners)
            {
                const float d = std::abs(dot(toCenter, corner));
                const float x = distSqr - d;
                if (x < 1e-5f)
                {
                    sinBound = 0.f, cosBound = -1.f;
                    return;
                }
                const float y = std::sqrt(std::max(0.f, distSqr * extSqr - d * d));
                const float z = std::sqrt(x * x + y * y);
                cosBound = std::min(cosBound, x / z);
                sinBound = std::max(sinBound, y / z);
            }
            return;
        }
        case SolidAngleBoundMethod::BoxToAverage:
        {
            const float3 lo = node.origin - node.extent, hi = node.origin + node.extent;
            if (posW.x() >= lo.x() && posW.y() >= lo.y() && posW.z() >= lo.z() && posW.x() <= hi.x() && posW.y() <= hi.y() && posW.z() <= hi.z())
                return;
            auto corner = [&](int i) {
                return float3((i & 1) ? lo.x() : hi.x(), (i & 2) ? lo.y() : hi.y(), (i & 4) ? lo.z() : hi.z());
            };
            float3 sum(0.f);
            for (int i = 0; i < 8; ++i)
                sum += normalize(corner(i) - posW);
            const float3 axis = normalize(sum);
            cosBound = 1.f;
            for (int i = 0; i < 8; ++i)
                cosBound = std::min(cosBound, dot(normalize(corner(i) - posW), axis));
            sinBound = std::sqrt(std::max(0.f, 1.f - cosBound * cosBound));
            return;
        }
        }
    }

    /// Probability of descending into `left`; -1 when neither child matters.
    float childProbability(const float3& posW, const float3& normalW, bool upper, uint32_t left, uint32_t right) const
    {
        const float l = importance(posW, normalW, upper, mpBVH->getNode(left));
        const float r = importance(posW, normalW, upper, mpBVH->getNode(right));
        return l + r > 0.f ? l / (l + r) : -1.f;
    }

    /// cos(max(0, a - b)) from the sines and cosines of a and b.
    static float cosSubClamped(float sinA, float cosA, float sinB, float cosB)
    {
        return cosA > cosB ? 1.f : cosA * cosB + sinA * sinB; // a < b: the difference clamps to 0.
    }
    static float sinSubClamped(float sinA, float cosA, float sinB, float cosB)
    {
        return cosA > cosB ? 0.f : sinA * cosB - cosA * sinB;
    }

    /// Flux · (bound on the receiver cosine) · (bound on the emitter cosine) / distance².
    float importance(const float3& posW, const float3& normalW, bool upper, const LightBVH::Node& node) const
    {
        const float3 toNode = node.origin - posW;
        float distance = length(toNode);
        const float3 dir = distance > 0.f ? toNode / distance : float3(0.f, 0.f, 1.f);
        // The cone the node's box subtends as seen from posW.
        float sinBound, cosBound;
        boundCone(posW, node, sinBound, cosBound);
        float receiverCos = 1.f;
        if (mOptions.useBoundingCone && upper)
        {
            const float cosL = std::clamp(dot(normalW, dir), -1.f, 1.f);
            receiverCos = saturate(cosSubClamped(std::sqrt(1.f - cosL * cosL), cosL, sinBound, cosBound));
        }
        float emitterCos = 1.f;
        if (mOptions.useLightingCone && node.cosConeAngle != LightBVH::kInvalidCosConeAngle && node.cosConeAngle > 0.f)
        {
            // θ' = max(0, θ - θo - θbound), θ between the cone axis and the direction to posW;
            // diffuse emitters light up to π/2 beyond their normals.
            const float sinCone = std::sqrt(std::max(0.f, 1.f - node.cosConeAngle * node.cosConeAngle));
            const float cosTheta = dot(node.coneDirection, -dir);
            const float sinTheta = std::sqrt(std::max(0.f, 1.f - cosTheta * cosTheta));
            const float cos0 = cosSubClamped(sinTheta, cosTheta, sinCone, node.cosConeAngle);
            const float sin0 = sinSubClamped(sinTheta, cosTheta, sinCone, node.cosConeAngle);
            emitterCos = std::max(0.f, cosSubClamped(sin0, cos0, sinBound, cosBound));
        }
        // Close to a node its center says little about where its emitters are.
        const float halfSize = std::max(node.extent.x(), std::max(node.extent.y(), node.extent.z()));
        distance = std::max(distance, halfSize);
        const float flux = mOptions.disableNodeFlux ? 1.f : node.flux;
        return flux * receiverCos * emitterCos / (distance * distance);
    }

    const LightBVH* mpBVH = nullptr;
    LightBVHSamplerOptions mOptions;
};
} // namespace falcor
