#pragma once
#include "Scene/Acceleration/RayTracing.h"
#include "Utils/Simd/Lane.h"
#include <bit>
#include <type_traits>
#include <utility>

namespace falcor
{
/// Triangle hits, one per lane (F = FloatLanes<W>): the part of a TriangleHit that locates the
/// hit point, as Scene::getVertexData reads it.
template<typename F>
struct TriangleHitLanes
{
    UintOf<F> instanceID = kInvalidIndex;
    UintOf<F> primitiveIndex = kInvalidIndex;
    vector<F, 2> barycentrics; ///< Weights of vertices 1 and 2.

    /// Puts `hit` into lane i.
    void setLane(int i, const TriangleHit& hit)
        requires(kLaneWidth<F> > 1)
    {
        instanceID.set(i, hit.instanceID);
        primitiveIndex.set(i, hit.primitiveIndex);
        barycentrics.x().set(i, hit.barycentrics.x());
        barycentrics.y().set(i, hit.barycentrics.y());
    }

    /// Lane i as a TriangleHit (t is not kept: infinity).
    TriangleHit lane(int i) const
        requires(kLaneWidth<F> > 1)
    {
        TriangleHit hit;
        hit.instanceID = instanceID[i];
        hit.primitiveIndex = primitiveIndex[i];
        hit.barycentrics = float2(barycentrics.x()[i], barycentrics.y()[i]);
        return hit;
    }
};

/// The float type of a hit: float for a TriangleHit, F for TriangleHitLanes<F>.
template<typename Hit>
using HitFloat = std::remove_cvref_t<decltype(std::declval<const Hit&>().barycentrics.x())>;

/// Calls fn(i, instanceID, primitiveIndex) for every lane i with the IDs that lane reads: its own
/// when active, else the first active lane's, so inactive lanes (which may hold any IDs, even
/// invalid ones) compute a copy of an active lane and never read out of bounds. Needs an active lane.
template<int W, typename Fn>
void forEachHitLane(const TriangleHitLanes<FloatLanes<W>>& hits, const LaneMask<W>& active, Fn&& fn)
{
    const int first = std::countr_zero(laneBits(active));
    for (int i = 0; i < W; ++i)
    {
        const int source = active[i] ? i : first;
        fn(i, hits.instanceID[source], hits.primitiveIndex[source]);
    }
}
} // namespace falcor
