// BVH traversal kernels, compiled once per instruction set: include after Kernels.h with
// FALCOR_ACCEL_ISA (namespace name) and FALCOR_ACCEL_AVX2 (0 or 1) defined. No include guard:
// each translation unit includes it once.
#include "Scene/Acceleration/Simd.h"
#include "Scene/Acceleration/TriangleIntersect.h"

namespace falcor::accel::FALCOR_ACCEL_ISA
{
/// Per-ray constants of the wide box test. Zero direction components are replaced by tiny ones
/// so that slabs parallel to the ray give +-infinity rather than NaN. The rows of the near and far
/// planes per axis follow the direction's sign, so no per-box min/max is needed and empty slots
/// (lower > upper) always miss.
struct BoxRay
{
    vnode origin[3], invDir[3];
    int nearRow[3], farRow[3];
};

inline BoxRay makeBoxRay(const float3& o, const float3& d)
{
    BoxRay r;
    for (int a = 0; a < 3; ++a)
    {
        float da = std::fabs(d[a]) < 1e-30f ? std::copysign(1e-30f, d[a]) : d[a];
        r.origin[a] = splatNode(o[a]);
        r.invDir[a] = splatNode(1.f / da);
        r.nearRow[a] = 2 * a + (da < 0.f);
        r.farRow[a] = 2 * a + (da >= 0.f);
    }
    return r;
}

/// Relative slack of box distances: rounding in the slab test (a few ulps) and in the triangle
/// test's t must never cull a box whose triangles could hit, nor skip an equal-t hit that the tie
/// rule prefers. Culling a little less costs next to nothing.
constexpr float kBoxSlack = 1.000001f;

/// Lanes of `node` whose box the ray overlaps within [tMin, tMax] (widened by kBoxSlack and by
/// the absolute `tSlack`); `tNear` gets the entry distances.
template<bool kAbsoluteSlack>
inline int intersectNode(const WideNode& node, const BoxRay& r, vnode tMin, vnode tMax, vnode tSlack, float* tNear)
{
    int hits = 0;
    for (int lane = 0; lane < kNodeWidth; lane += kNodeLanes)
    {
        auto slab = [&](int row, int axis) { return (loadNode(node.bounds[row] + lane) - r.origin[axis]) * r.invDir[axis]; };
        vnode nearT = max(max(slab(r.nearRow[0], 0), slab(r.nearRow[1], 1)), max(slab(r.nearRow[2], 2), tMin));
        vnode farT = min(min(slab(r.farRow[0], 0), slab(r.farRow[1], 1)), min(slab(r.farRow[2], 2), tMax));
        store(nearT, tNear + lane);
        vnode limit = farT * splatNode(kBoxSlack);
        if constexpr (kAbsoluteSlack)
            limit = limit + tSlack;
        hits |= lessEqualMask(nearT, limit) << lane;
    }
    return hits;
}

struct StackEntry
{
    uint32_t ref;
    float tNear;
};

/// Deep enough for any tree the builder makes: SAH splits stop at depth 48, median splits then
/// add at most 32 levels, and each wide level pushes at most kNodeWidth - 1 entries.
constexpr int kTraversalStackSize = 80 * (kNodeWidth - 1) + 1;

/// Asks the memory system for `bytes` at `p` (which are about to be read).
inline void prefetch(const void* p, size_t bytes)
{
    for (size_t offset = 0; offset < bytes; offset += 64)
        _mm_prefetch(static_cast<const char*>(p) + offset, _MM_HINT_T0);
}

/// Prefetches what visiting `ref` reads first: an inner node, or the leaf's payload.
template<typename Leaves>
inline void prefetchRef(const WideBVH& bvh, const Leaves& leaves, uint32_t ref)
{
    if (isLeafRef(ref))
        leaves.prefetch(leafPayload(ref));
    else
        prefetch(&bvh.nodes[ref], sizeof(WideNode));
}

/// Pushes the hit children of a node nearest-last and returns the nearest (popped) one. Their
/// memory is prefetched so that the loads of siblings overlap instead of waiting one by one.
template<typename Leaves>
uint32_t pushOrdered(const WideBVH& bvh, const WideNode& node, int mask, const float* tNear, const Leaves& leaves, StackEntry* stack, int& sp)
{
    int base = sp;
    for (; mask; mask &= mask - 1)
    {
        int i = firstLane(mask);
        uint32_t child = node.child[i];
        prefetchRef(bvh, leaves, child);
        // Insertion keeps the pushed entries sorted by decreasing distance.
        int k = sp++;
        for (; k > base && stack[k - 1].tNear < tNear[i]; --k)
            stack[k] = stack[k - 1];
        stack[k] = {child, tNear[i]};
    }
    return stack[--sp].ref;
}

/// Visits the inner node `ref`: when the ray overlaps children within [tMin, tMax], pushes all
/// but the nearest and moves `ref` to the nearest; returns false when it overlaps none.
template<bool kAbsoluteSlack, typename Leaves>
inline bool descend(const WideBVH& bvh, const BoxRay& ray, vnode tMin, float tMax, vnode tSlack, const Leaves& leaves,
                    StackEntry* stack, int& sp, uint32_t& ref)
{
    const WideNode& node = bvh.nodes[ref];
    alignas(32) float tNear[kNodeWidth];
    const int mask = intersectNode<kAbsoluteSlack>(node, ray, tMin, splatNode(tMax), tSlack, tNear);
    if (mask == 0)
        return false;
    ref = (mask & (mask - 1)) == 0 ? node.child[firstLane(mask)] : pushOrdered(bvh, node, mask, tNear, leaves, stack, sp);
    return true;
}

/// Box distances beyond this cannot hold a hit that precedes one at tMax (ties included).
template<bool kAbsoluteSlack>
inline float cullDistance(float tMax, float tSlack)
{
    return tMax * kBoxSlack + (kAbsoluteSlack ? tSlack : 0.f);
}

/// Pops the stack (entries above `base`) to the next entry nearer than `limit` and moves `ref`
/// to it; returns false when none is left.
inline bool popNext(const StackEntry* stack, int base, int& sp, float limit, uint32_t& ref)
{
    do
    {
        if (sp == base)
            return false;
        --sp;
    } while (stack[sp].tNear > limit);
    ref = stack[sp].ref;
    return true;
}

/// Front-to-back traversal of a wide BVH. `leaves.intersect(payload)` handles a leaf and
/// returns true to stop (any-hit); `leaves.prefetch(payload)` announces one. `tMax` is read
/// before every node and stack pop, so a closest-hit search that shortens it prunes what lies
/// behind. Returns true when a leaf stopped the traversal. `tSlack` widens box culling by an
/// absolute distance: the top level needs it because `tMax` there comes from triangle tests in
/// other instances' object spaces, whose rounding scales with coordinates rather than with t.
template<bool kAbsoluteSlack = false, typename Leaves>
bool traverse(const WideBVH& bvh, const BoxRay& ray, float tMin, const float& tMax, const Leaves& leaves, float tSlack = 0.f)
{
    if (bvh.root == kEmptyRef)
        return false;
    StackEntry stack[kTraversalStackSize];
    int sp = 0;
    const vnode vtMin = splatNode(tMin), vtSlack = splatNode(tSlack);
    uint32_t ref = bvh.root;
    while (true)
    {
        if (isLeafRef(ref))
        {
            if (leaves.intersect(leafPayload(ref)))
                return true;
        }
        else if (descend<kAbsoluteSlack>(bvh, ray, vtMin, tMax, vtSlack, leaves, stack, sp, ref))
            continue;
        if (!popNext(stack, 0, sp, cullDistance<kAbsoluteSlack>(tMax, tSlack), ref))
            return false;
    }
}

/// Closest-hit order: smaller t first, ties to the lower instance, then the lower primitive.
inline bool precedes(float t, uint32_t instance, uint32_t prim, const TriangleHit& best)
{
    if (t != best.t)
        return t < best.t;
    return instance != best.instanceID ? instance < best.instanceID : prim < best.primitiveIndex;
}

/// One instance's part of a query: its mesh and where the ray starts.
struct BlasQuery
{
    const WideBVH* bvh;
    const Triangle4* triangles;
    float tMin;
    CullSign cull;
    const AlphaTest* alphaTest; ///< Null for opaque meshes.
    uint32_t instanceID;
    bool anyHit;
    /// Single-precision products may overflow or underflow: the triangle test then redoes such
    /// lanes in double.
    bool extremeCoordinates;
};

/// Bottom-level leaves: Triangle4 blocks tested against the query's ray; hits that precede
/// `best` (and pass the alpha test) replace it.
struct TriangleLeaves
{
    const BlasQuery& query;
    const ShearedRay& ray;
    vfloat4 tMin;
    TriangleHit& best;

    void prefetch(uint32_t block) const;
    bool intersect(uint32_t block) const;
};

inline void TriangleLeaves::prefetch(uint32_t block) const
{
    FALCOR_ACCEL_ISA::prefetch(&query.triangles[block], sizeof(Triangle4));
}

inline bool TriangleLeaves::intersect(uint32_t block) const
{
    const Triangle4& tri = query.triangles[block];
    Hit4 hit;
    FALCOR_ACCEL_ISA::intersect(ray, tri, tMin, splat4(best.t), query.cull, query.extremeCoordinates, hit);
    for (int lanes = hit.mask; lanes; lanes &= lanes - 1)
    {
        int lane = firstLane(lanes);
        // An infinite t (1 / d overflowed for a denormal direction) is never a hit: redo it exactly.
        if (!(hit.t[lane] <= std::numeric_limits<float>::max()) &&
            !intersectLaneInDouble(ray, tri, lane, query.tMin, best.t, query.cull, hit))
            continue;
        uint32_t prim = tri.prim[lane];
        if (!precedes(hit.t[lane], query.instanceID, prim, best))
            continue;
        float2 bary{hit.e1[lane] / hit.det[lane], hit.e2[lane] / hit.det[lane]};
        if (query.alphaTest && !query.alphaTest->accept(query.instanceID, prim, bary))
            continue;
        best = {query.instanceID, prim, bary, hit.t[lane]};
        if (query.anyHit)
            return true;
    }
    return false;
}

inline bool traceBlas(const BlasQuery& query, const BoxRay& box, const ShearedRay& sheared, TriangleHit& best)
{
    TriangleLeaves leaves{query, sheared, splat4(query.tMin), best};
    return traverse(*query.bvh, box, query.tMin, best.t, leaves);
}

/// Which determinant sign the cull mode rejects in the instance's object space. Positive
/// determinants are counter-clockwise in object space; a mirroring transform flips that in
/// world space, and frontFaceCW flips which winding is the front.
inline CullSign cullSign(const PlacedInstance& inst, RayCullMode cull)
{
    if (cull == RayCullMode::None)
        return CullSign::None;
    const bool frontIsPositive = inst.frontFaceCW == inst.mirrored;
    const bool rejectPositive = (cull == RayCullMode::Front) == frontIsPositive;
    return rejectPositive ? CullSign::Positive : CullSign::Negative;
}

/// A bottom-level trace set up for one instance: the query, and the ray in the instance's object
/// space (`box` and `sheared` point to the world ray's setup or to `objectBox`/`objectSheared`).
struct BlasTrace
{
    BlasQuery query;
    const BoxRay* box;
    const ShearedRay* sheared;
    BoxRay objectBox;
    ShearedRay objectSheared;
};

/// Top-level leaves: instances. Identity instances trace the world ray itself, whose setup
/// (`worldBox`, and the sheared ray made at the first such instance) every one of them shares;
/// others transform the ray into their object space first.
struct InstanceLeaves
{
    const SceneView& scene;
    const SceneQuery& query;
    float rayMagnitude;
    const BoxRay& worldBox;
    ShearedRay& worldSheared; ///< Made by the first identity instance reached (uninitialized before).
    bool& hasWorldSheared;
    TriangleHit& best;

    void prefetch(uint32_t) const {}
    /// Sets up `trace` for the instance; false when the ray cannot meet it (out of float range
    /// in its object space).
    bool setup(uint32_t instanceID, BlasTrace& trace) const;
    bool intersect(uint32_t instanceID) const;
};

inline bool InstanceLeaves::setup(uint32_t instanceID, BlasTrace& trace) const
{
    const PlacedInstance& inst = scene.instances[instanceID];
    const BottomLevel& mesh = scene.meshes[inst.meshID];
    const Ray& ray = query.ray;
    const bool ordinary = rayMagnitude <= inst.ordinaryRayMagnitude;
    trace.query = {&mesh.bvh,  mesh.triangles.data(), ray.tMin, cullSign(inst, query.cull), mesh.opaque ? nullptr : query.alphaTest,
                   instanceID, query.anyHit,          mesh.extremeCoordinates || !ordinary};
    if (inst.identity)
    {
        if (!hasWorldSheared)
            worldSheared = makeShearedRay(ray.origin, ray.dir), hasWorldSheared = true;
        trace.box = &worldBox;
        trace.sheared = &worldSheared;
        return true;
    }
    const float3 o = mul(inst.worldToObject, float4{ray.origin.x(), ray.origin.y(), ray.origin.z(), 1.f});
    const float3 d = mul(inst.worldToObject, float4{ray.dir.x(), ray.dir.y(), ray.dir.z(), 0.f});
    if (d == float3(0.f) || (!ordinary && !(isFinite(o) && isFinite(d))))
        return false;
    trace.objectBox = makeBoxRay(o, d);
    trace.objectSheared = makeShearedRay(o, d);
    trace.box = &trace.objectBox;
    trace.sheared = &trace.objectSheared;
    return true;
}

inline bool InstanceLeaves::intersect(uint32_t instanceID) const
{
    BlasTrace trace;
    return setup(instanceID, trace) && traceBlas(trace.query, *trace.box, *trace.sheared, best);
}

/// Absolute t slack of top-level culling: hits in different instances are found in their own
/// object spaces, with rounding of a few ulps of the coordinates involved (ray origin, scene
/// extent), so two candidates' t can differ by that much more than a relative slack allows.
inline float topLevelSlack(const SceneView& scene, const Ray& ray)
{
    const float magnitude = maxAbs(ray.origin) + scene.sceneMagnitude;
    return 1e-6f * magnitude / std::max(length(ray.dir), std::numeric_limits<float>::min());
}

/// What every query computes before traversal: the world ray's box setup and the top-level leaves.
struct SceneTrace
{
    BoxRay worldBox;
    ShearedRay worldSheared;
    bool hasWorldSheared = false;
    TriangleHit best;
    float rayMagnitude;
    bool singleInstance; ///< The top level is one instance: no top-level box to test.

    SceneTrace(const SceneView& scene, const Ray& ray)
        : worldBox(makeBoxRay(ray.origin, ray.dir)), rayMagnitude(std::max(maxAbs(ray.origin), maxAbs(ray.dir))),
          singleInstance(isLeafRef(scene.tlas.root) && scene.tlas.root != kEmptyRef)
    {
        best.t = ray.tMax;
    }
    InstanceLeaves leaves(const SceneView& scene, const SceneQuery& query)
    {
        return {scene, query, rayMagnitude, worldBox, worldSheared, hasWorldSheared, best};
    }
};

inline TriangleHit traceScene(const SceneView& scene, const SceneQuery& query)
{
    const Ray& ray = query.ray;
    if (ray.dir == float3(0.f))
    {
        TriangleHit none;
        none.t = ray.tMax;
        return none; // Nothing is hit along no direction.
    }
    SceneTrace trace(scene, ray);
    const InstanceLeaves leaves = trace.leaves(scene, query);
    if (trace.singleInstance)
        leaves.intersect(leafPayload(scene.tlas.root));
    else
        traverse<true>(scene.tlas, trace.worldBox, ray.tMin, trace.best.t, leaves, topLevelSlack(scene, ray));
    return trace.best;
}

/// One query of a stream in flight: both levels' traversal as a state that advances one node or
/// leaf per step, so that several queries interleave and each one's next load has time to arrive.
/// The steps are those of traceScene, in the same order, so the results are the same bits.
struct StreamRay
{
    SceneQuery query;
    std::optional<SceneTrace> trace;
    BlasTrace blas;
    float tlasSlack;
    uint32_t index; ///< Position in the stream.
    uint32_t ref;   ///< What the next step visits.
    int sp;         ///< Stack top; the bottom level's entries lie above `tlasSp`.
    int tlasSp;
    bool inBlas;
    StackEntry stack[2 * kTraversalStackSize];
};

/// Enters the bottom level of `instanceID` (false when the ray cannot meet it or it is empty).
inline bool enterInstance(const SceneView& scene, StreamRay& r, uint32_t instanceID)
{
    if (!r.trace->leaves(scene, r.query).setup(instanceID, r.blas) || r.blas.query.bvh->root == kEmptyRef)
        return false;
    r.inBlas = true;
    r.tlasSp = r.sp;
    r.ref = r.blas.query.bvh->root;
    return true;
}

/// Starts `r` on `query`; false when it is finished at once (nothing to traverse).
inline bool startStreamRay(const SceneView& scene, StreamRay& r, const SceneQuery& query, uint32_t index)
{
    r.query = query;
    r.index = index;
    r.trace.emplace(scene, query.ray);
    r.sp = r.tlasSp = 0;
    r.inBlas = false;
    if (query.ray.dir == float3(0.f) || scene.tlas.root == kEmptyRef)
        return false;
    if (r.trace->singleInstance)
        return enterInstance(scene, r, leafPayload(scene.tlas.root));
    r.tlasSlack = topLevelSlack(scene, query.ray);
    r.ref = scene.tlas.root;
    return true;
}

/// Visits `r.ref` in the bottom level; false when the ray is finished (an any-hit found).
inline bool stepBottomLevel(StreamRay& r, bool& levelDone)
{
    const BlasQuery& query = r.blas.query;
    const TriangleLeaves leaves{query, *r.blas.sheared, splat4(query.tMin), r.trace->best};
    levelDone = false;
    if (isLeafRef(r.ref))
    {
        if (leaves.intersect(leafPayload(r.ref)))
            return false;
    }
    else if (descend<false>(*query.bvh, *r.blas.box, splatNode(query.tMin), r.trace->best.t, splatNode(0.f), leaves, r.stack, r.sp, r.ref))
    {
        prefetchRef(*query.bvh, leaves, r.ref);
        return true;
    }
    if (popNext(r.stack, r.tlasSp, r.sp, cullDistance<false>(r.trace->best.t, 0.f), r.ref))
        prefetchRef(*query.bvh, leaves, r.ref);
    else
        levelDone = true;
    return true;
}

/// Advances `r` by one node or leaf and prefetches what it visits next; false once it is finished.
inline bool stepStreamRay(const SceneView& scene, StreamRay& r)
{
    const InstanceLeaves leaves = r.trace->leaves(scene, r.query);
    if (r.inBlas)
    {
        bool levelDone;
        if (!stepBottomLevel(r, levelDone))
            return false;
        if (!levelDone)
            return true;
        r.inBlas = false;
    }
    else if (isLeafRef(r.ref))
    {
        if (enterInstance(scene, r, leafPayload(r.ref)))
            return true;
    }
    else if (descend<true>(scene.tlas, r.trace->worldBox, splatNode(r.query.ray.tMin), r.trace->best.t, splatNode(r.tlasSlack), leaves,
                           r.stack, r.sp, r.ref))
    {
        prefetchRef(scene.tlas, leaves, r.ref);
        return true;
    }
    if (r.trace->singleInstance)
        return false;
    if (!popNext(r.stack, 0, r.sp, cullDistance<true>(r.trace->best.t, r.tlasSlack), r.ref))
        return false;
    prefetchRef(scene.tlas, leaves, r.ref);
    return true;
}

/// Traces stream.rays[i] into stream.hits[i] (or stream.occluded[i]) with kRaysInFlight queries
/// interleaved, each stepped round-robin.
inline void traceStream(const SceneView& scene, const SceneStream& stream)
{
    StreamRay slots[kRaysInFlight];
    StreamRay* live[kRaysInFlight];
    int liveCount = 0;
    size_t next = 0;
    // Starts the next queries of the stream in `r` until one needs traversal; false at the end.
    auto refill = [&](StreamRay& r) {
        while (next < stream.rays.size())
        {
            const uint32_t index = uint32_t(next++);
            const Ray& ray = stream.rays[index];
            if (isQueryable(ray))
            {
                if (startStreamRay(scene, r, SceneQuery{ray, stream.cull, stream.alphaTest, stream.anyHit}, index))
                    return true;
                stream.write(index, r.trace->best);
            }
            else
                stream.write(index, TriangleHit{});
        }
        return false;
    };
    for (StreamRay& r : slots)
        if (refill(r))
            live[liveCount++] = &r;
    while (liveCount > 0)
    {
        for (int i = 0; i < liveCount;)
        {
            StreamRay& r = *live[i];
            if (stepStreamRay(scene, r))
                ++i;
            else
            {
                stream.write(r.index, r.trace->best);
                if (!refill(r))
                    live[i] = live[--liveCount];
            }
        }
    }
}
} // namespace falcor::accel::FALCOR_ACCEL_ISA
