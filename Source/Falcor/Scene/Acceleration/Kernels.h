#pragma once
// The interface of the traversal kernels, which are compiled once per instruction set: sse2 (the
// baseline, inside RayTracing.cpp) and avx2 (KernelsAVX2.cpp, also used for AVX-512), chosen by
// activeIsa() (Core/Isa.h). Kernel code lives in namespace falcor::accel::<isa>, so the builds
// never share a symbol; it uses
// only what is declared before the ISA switch (this header and what it includes), whose inline
// code is therefore always compiled for the baseline.
#include "Scene/Acceleration/RayTracing.h"
#include "Scene/Acceleration/WideBVH.h"
#include <immintrin.h>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>

namespace falcor::accel
{
/// Four triangles of one leaf with their vertices as SIMD rows: v[vertex][axis][lane]. Unused
/// lanes repeat the last triangle (a duplicate hit changes nothing).
struct alignas(16) Triangle4
{
    float v[3][3][4];
    uint32_t prim[4];
};

/// Which faces a test rejects, by the sign of the determinant (the sum of the edge functions):
/// positive determinants are triangles whose vertices run counter-clockwise seen from the origin.
enum class CullSign
{
    None,
    Positive,
    Negative,
};

inline float maxAbs(const float3& v)
{
    return std::max({std::abs(v.x()), std::abs(v.y()), std::abs(v.z())});
}

inline bool isFinite(const float3& v)
{
    return std::isfinite(v.x()) && std::isfinite(v.y()) && std::isfinite(v.z());
}

/// One mesh's bottom level: its tree over Triangle4 leaf blocks.
struct BottomLevel
{
    WideBVH bvh;
    HugePageVector<Triangle4> triangles; ///< Leaf blocks in traversal order.
    size_t triangleCount = 0;
    bool opaque = true;
    AABB bounds;
    /// Single-precision products may overflow or underflow (coordinates far from 1): the triangle
    /// test then redoes such lanes in double.
    bool extremeCoordinates = false;
};

/// One placement of a bottom level.
struct PlacedInstance
{
    uint32_t meshID = 0;
    float4x4 objectToWorld;
    float3x4 worldToObject;
    bool invertible = true; ///< A singular transform flattens the mesh: nothing to hit.
    /// The transform is exactly the identity: rays are traced as they are, with the ray setup
    /// computed once per query and shared by every such instance.
    bool identity = false;
    /// Rays whose largest |component| stays below this are ordinary in object space too:
    /// finite, with an origin below kLargeCoordinate. Larger ones are checked after the transform.
    float ordinaryRayMagnitude = 0.f;
    bool frontFaceCW = false;
    bool mirrored = false;
    AABB worldBounds;
};

/// What a whole-scene query reads: the top level over the instances and their bottom levels.
struct SceneView
{
    const WideBVH& tlas;
    std::span<const BottomLevel> meshes;
    std::span<const PlacedInstance> instances;
    float sceneMagnitude; ///< Largest |coordinate| of the world bounds (top-level culling slack).
};

/// Rays SceneAccel traces; others (a NaN or infinity in them, tMin > tMax) miss.
inline bool isQueryable(const Ray& ray) { return ray.tMin <= ray.tMax && isTraceable(ray); }

/// A traversal's best hit as SceneAccel reports it: a miss has t = infinity.
inline TriangleHit finishedHit(TriangleHit best)
{
    if (!best.isValid())
        best.t = std::numeric_limits<float>::infinity();
    return best;
}

/// A query of SceneAccel: tMin <= tMax and a traceable ray (isQueryable), checked by the caller.
struct SceneQuery
{
    Ray ray;
    RayCullMode cull;
    const AlphaTest* alphaTest;
    bool anyHit;
};

/// Queries traced as a stream (any rays: the kernel checks isQueryable) and where their results go.
struct SceneStream
{
    std::span<const Ray> rays;
    RayCullMode cull;
    const AlphaTest* alphaTest;
    bool anyHit;
    std::span<TriangleHit> hits;  ///< Closest hits, when !anyHit.
    std::span<uint8_t> occluded; ///< 1 for a hit, when anyHit.

    void write(size_t index, const TriangleHit& best) const
    {
        const TriangleHit hit = finishedHit(best);
        if (anyHit)
            occluded[index] = hit.isValid() ? 1 : 0;
        else
            hits[index] = hit;
    }
};

/// Queries a stream keeps in flight: enough for the others' steps to cover one's memory latency,
/// few enough that their states (~9.5 KiB each, mostly stack never touched) stay small. 4, 8 and
/// 16 measured within noise of each other (benchmarks/README.md, bvh_embree.py).
constexpr int kRaysInFlight = 8;

/// Traces a query through both levels; the hit's t is tMax when nothing was hit.
using TraceSceneFn = TriangleHit (*)(const SceneView& scene, const SceneQuery& query);
/// Traces a stream of queries, several interleaved, with the same results as TraceSceneFn each.
using TraceStreamFn = void (*)(const SceneView& scene, const SceneStream& stream);

/// The traversal kernels of one instruction set.
struct TraversalKernels
{
    TraceSceneFn traceScene;
    TraceStreamFn traceStream;
};

/// The AVX2 build (call only when activeIsa() allows it).
const TraversalKernels& avx2Kernels();
} // namespace falcor::accel
