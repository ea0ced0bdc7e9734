#pragma once
#include "Rendering/Lights/LightBVH.h"
#include <algorithm>
#include <cmath>

namespace falcor
{
/// How a shading point weighs LightBVH nodes (Falcor's LightBVHSampler options).
struct LightBVHSamplerOptions
{
    bool useBoundingCone = true;  ///< Bound the receiver's cosine (upper-hemisphere sampling only).
    bool useLightingCone = true;  ///< Bound the emitters' cosine with the node's normal cone.
    bool disableNodeFlux = false; ///< Ignore power (geometry terms only).
    bool useUniformTriangleSampling = true; ///< In a leaf, pick triangles uniformly (else by importance).
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
        const LightBVH::Node& leaf = mpBVH->getNode(node);
        const uint32_t slot = std::min(uint32_t(u * float(leaf.triangleCount)), leaf.triangleCount - 1);
        triangle = mpBVH->getLeafTriangle(leaf.firstTriangle + slot);
        pdf /= float(leaf.triangleCount);
        return pdf > 0.f;
    }

    /// The probability selectTriangle picks `triangle` from (posW, normalW).
    float evalSelectionPdf(const float3& posW, const float3& normalW, bool upperHemisphere, uint32_t triangle) const
    {
        uint32_t node = mpBVH->getLeafOf(triangle);
        float pdf = 1.f / float(mpBVH->getNode(node).triangleCount);
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
        // The cone the node's bounding sphere subtends as seen from posW.
        const float radiusSqr = dot(node.extent, node.extent);
        float sinBound = 0.f, cosBound = -1.f;
        if (distance * distance >= radiusSqr)
        {
            const float sin2 = radiusSqr / (distance * distance);
            sinBound = std::sqrt(sin2), cosBound = std::sqrt(1.f - sin2);
        }
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
