#pragma once
#include "Utils/Math/Vector.h"
#include <limits>

namespace falcor
{
/// Axis-aligned bounding box; empty (invalid) when min > max.
struct AABB
{
    float3 minPoint{std::numeric_limits<float>::infinity()};
    float3 maxPoint{-std::numeric_limits<float>::infinity()};

    AABB() = default;
    AABB(const float3& p) : minPoint(p), maxPoint(p) {}
    AABB(const float3& a, const float3& b) : minPoint(min(a, b)), maxPoint(max(a, b)) {}

    bool valid() const { return minPoint.x() <= maxPoint.x() && minPoint.y() <= maxPoint.y() && minPoint.z() <= maxPoint.z(); }
    AABB& include(const float3& p)
    {
        minPoint = min(minPoint, p);
        maxPoint = max(maxPoint, p);
        return *this;
    }
    AABB& include(const AABB& b)
    {
        minPoint = min(minPoint, b.minPoint);
        maxPoint = max(maxPoint, b.maxPoint);
        return *this;
    }
    float3 center() const { return (minPoint + maxPoint) * 0.5f; }
    float3 extent() const { return maxPoint - minPoint; }
    float area() const
    {
        if (!valid())
            return 0.f;
        float3 e = extent();
        return 2.f * (e.x() * e.y() + e.y() * e.z() + e.z() * e.x());
    }
    float radius() const { return 0.5f * length(extent()); }
};
} // namespace falcor
