#include "Scene/Acceleration/RayTracing.h"
#include "Core/Error.h"
#include "Core/Isa.h"
#include "Core/ThreadPool.h"
#include "Scene/Acceleration/BVHBuilder.h"
#include "Scene/Acceleration/Kernels.h"
#include "Scene/Acceleration/WideBVH.h"
#include "Utils/Serialization/ByteStream.h"
#include <atomic>
#include <chrono>
// The baseline (SSE2) build of the traversal kernels.
#define FALCOR_ACCEL_ISA sse2
#define FALCOR_ACCEL_AVX2 0
#include "Scene/Acceleration/Traversal.h"

namespace falcor
{
using namespace accel;

namespace
{
constexpr size_t kLargeMeshTriangles = 32 * 1024;
/// Streams shorter than this are traced one ray at a time.
constexpr size_t kMinStreamRays = 4;

/// Whether neighbours in a stream are near-identical rays (a camera's, from adjacent pixels).
/// Each such ray finds the nodes it reads in the cache, where its predecessor left them, so
/// interleaving has no latency to hide and only costs its bookkeeping (~10-25% on camera rays);
/// such streams are traced one ray at a time. Decided on a few evenly spaced neighbour pairs.
bool isCoherentStream(std::span<const Ray> rays, float sceneExtent)
{
    constexpr size_t kSamples = 16;
    const size_t pairs = rays.size() - 1, step = std::max<size_t>(1, pairs / kSamples);
    size_t sampled = 0, coherent = 0;
    for (size_t i = 0; i < pairs; i += step, ++sampled)
    {
        const Ray& a = rays[i];
        const Ray& b = rays[i + 1];
        const float3 offset = b.origin - a.origin;
        const float lengths = length(a.dir) * length(b.dir);
        const bool close = maxAbs(offset) <= 1e-3f * sceneExtent;
        coherent += close && dot(a.dir, b.dir) >= 0.999f * lengths ? 1 : 0;
    }
    return 2 * coherent >= sampled;
}

/// The baseline (SSE2) build of the kernels.
constexpr TraversalKernels kSse2Kernels{&sse2::traceScene, &sse2::traceStream};

/// The kernels of activeIsa(), read per query so that setIsaLimit takes effect at once. AVX-512
/// runs the AVX2 build: an AVX-512 build of the same code (nodes are 8 wide) measured no faster
/// on any ray set of benchmarks/bvh_embree.py (benchmarks/README.md).
const TraversalKernels& activeKernels() { return activeIsa() >= Isa::AVX2 ? avx2Kernels() : kSse2Kernels; }

double msSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

/// Inverse of an affine object-to-world transform (computed in double, rounded once); false when
/// the transform has no inverse (zero scale, non-finite entries).
bool invertAffine(const float4x4& m, float3x4& out)
{
    double a[3][3], inv[3][3];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            a[r][c] = m[r][c];
    double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                 a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    if (det == 0.0 || !std::isfinite(det) || !std::isfinite(m[0][3] + m[1][3] + m[2][3]))
        return false;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
        {
            int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
            inv[r][c] = (a[r1][c1] * a[r2][c2] - a[r1][c2] * a[r2][c1]) / det;
        }
    for (int r = 0; r < 3; ++r)
    {
        double tr = 0;
        for (int c = 0; c < 3; ++c)
        {
            out[r][c] = float(inv[r][c]);
            tr -= inv[r][c] * double(m[c][3]);
        }
        out[r][3] = float(tr);
    }
    return true;
}

bool isMirroring(const float4x4& m)
{
    float3 x{m[0][0], m[1][0], m[2][0]}, y{m[0][1], m[1][1], m[2][1]}, z{m[0][2], m[1][2], m[2][2]};
    return dot(cross(x, y), z) < 0.f;
}

float3 transformPoint(const float4x4& m, const float3& p)
{
    return mul(m, float4{p.x(), p.y(), p.z(), 1.f}).xyz();
}

AABB transformBounds(const float4x4& m, const AABB& b)
{
    AABB out;
    if (!b.valid())
        return out;
    for (int i = 0; i < 8; ++i)
        out.include(transformPoint(m, float3{(i & 1) ? b.maxPoint.x() : b.minPoint.x(), (i & 2) ? b.maxPoint.y() : b.minPoint.y(),
                                             (i & 4) ? b.maxPoint.z() : b.minPoint.z()}));
    return out;
}

/// Beyond this |coordinate| (of vertices or ray origins), products in the single-precision
/// triangle test can overflow: from 3e12 on they did.
constexpr float kLargeCoordinate = 1e11f;
/// Below this triangle area (twice the area, |cross product|), the test's determinant can
/// underflow: at 1e-14 scale it did.
constexpr double kTinyDoubleArea = 1e-24;

/// Whether single-precision intersection may overflow or underflow on this mesh (then the
/// kernels check each result and redo doubtful ones in double; ordinary meshes skip that).
bool hasExtremeCoordinates(const MeshGeometry& g, const AABB& bounds)
{
    if (bounds.valid() && std::max(maxAbs(bounds.minPoint), maxAbs(bounds.maxPoint)) > kLargeCoordinate)
        return true;
    for (const uint3& tri : g.triangles)
    {
        const float3 &a = g.positions[tri[0]], &b = g.positions[tri[1]], &c = g.positions[tri[2]];
        const double e1[3] = {double(b.x()) - a.x(), double(b.y()) - a.y(), double(b.z()) - a.z()};
        const double e2[3] = {double(c.x()) - a.x(), double(c.y()) - a.y(), double(c.z()) - a.z()};
        const double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        const double area2 = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (area2 > 0 && area2 < kTinyDoubleArea)
            return true;
    }
    return false;
}

/// Packs the triangles of a binary leaf (at most 4) into a Triangle4, repeating the last one.
Triangle4 packTriangles(const MeshGeometry& g, std::span<const uint32_t> prims)
{
    Triangle4 block;
    for (int lane = 0; lane < 4; ++lane)
    {
        uint32_t p = prims[std::min<size_t>(lane, prims.size() - 1)];
        block.prim[lane] = p;
        for (int k = 0; k < 3; ++k)
            for (int a = 0; a < 3; ++a)
                block.v[k][a][lane] = g.positions[g.triangles[p][k]][a];
    }
    return block;
}
/// The meshes `meshIDs` exist and have the triangle counts of their bottom levels.
void checkRebuildable(std::span<const MeshGeometry> meshes, std::span<const uint32_t> meshIDs, std::span<const BottomLevel> built)
{
    FALCOR_CHECK(meshes.size() == built.size(), "SceneAccel: ", meshes.size(), " meshes given, ", built.size(), " built.");
    for (uint32_t id : meshIDs)
        FALCOR_CHECK(id < meshes.size() && meshes[id].triangles.size() == built[id].triangleCount, "SceneAccel: mesh ", id,
                     " can't be updated (unknown, or its triangle count changed).");
}

void checkInstances(size_t meshCount, std::span<const InstanceDesc> instances)
{
    for (size_t i = 0; i < instances.size(); ++i)
        FALCOR_CHECK(instances[i].meshID < meshCount, "SceneAccel: instance ", i, " refers to mesh ", instances[i].meshID, " but there are ",
                     meshCount, " meshes.");
}

/// Why a bottom level read from a cache can't be traversed safely, or nullptr: every inner child
/// must come after its parent (so traversal ends), every leaf must name a triangle block, and
/// every block must name triangles of the mesh.
const char* whyMalformed(const WideBVH& bvh, std::span<const Triangle4> blocks, size_t triangleCount)
{
    auto valid = [&](uint32_t ref, size_t parent) {
        if (ref == kEmptyRef)
            return true;
        return isLeafRef(ref) ? leafPayload(ref) < blocks.size() : ref > parent && ref < bvh.nodes.size();
    };
    const bool rootValid = isLeafRef(bvh.root) ? valid(bvh.root, 0) : bvh.root == 0 && !bvh.nodes.empty();
    if (!rootValid)
        return "the root refers outside the tree";
    for (size_t n = 0; n < bvh.nodes.size(); ++n)
        for (uint32_t child : bvh.nodes[n].child)
            if (!valid(child, n))
                return "a node refers outside the tree";
    for (const Triangle4& block : blocks)
        for (uint32_t prim : block.prim)
            if (prim >= triangleCount)
                return "a leaf refers to a triangle the mesh does not have";
    return nullptr;
}
} // namespace

struct SceneAccel::Impl
{
    using Mesh = BottomLevel;
    using Instance = PlacedInstance;

    std::vector<Mesh> meshes;
    std::vector<Instance> instances;
    WideBVH tlas;
    AccelStats stats;
    size_t blasMemoryBytes = 0;
    AABB bounds;
    float sceneMagnitude = 0.f; ///< Largest |coordinate| of the world bounds (see SceneView).

    /// Builds one mesh's bottom level; `phases` (optional) receives the time of each step.
    static Mesh buildMesh(const MeshGeometry& g, bool parallel, AccelBuildPhases* phases = nullptr)
    {
        Mesh mesh;
        mesh.opaque = g.opaque;
        mesh.triangleCount = g.triangles.size();
        PhaseClock clock(phases);
        HugePageVector<AABB> boxes = triangleBounds(g, parallel);
        for (const AABB& b : boxes)
            mesh.bounds.include(b);
        mesh.extremeCoordinates = hasExtremeCoordinates(g, mesh.bounds);
        clock.lap(&AccelBuildPhases::boundsMs);
        BinaryBVH binary = buildBinaryBVH(boxes, {4, parallel, phases});
        clock = PhaseClock(phases);
        WideCollapse wide = collapseToWide(binary, parallel);
        mesh.bvh = std::move(wide.bvh);
        clock.lap(&AccelBuildPhases::collapseMs);
        // Leaf n of the wide tree is triangle block n.
        mesh.triangles.resize(wide.leafNodes.size());
        forEachIndex(wide.leafNodes.size(), 16 * 1024, parallel, [&](size_t i) {
            const BinaryNode& leaf = binary.nodes[wide.leafNodes[i]];
            mesh.triangles[i] = packTriangles(g, std::span(binary.primOrder).subspan(leaf.first, leaf.count));
        });
        clock.lap(&AccelBuildPhases::packMs);
        return mesh;
    }

    /// Moves a bottom level to new positions of the same triangles, keeping its tree: the leaf
    /// blocks are repacked and every box recomputed bottom-up (children come after their
    /// parents), as the build would compute them for this tree. Traversal stays exact; only the
    /// tree's quality follows the pose it was built for.
    static void refitMesh(Mesh& mesh, const MeshGeometry& g, bool parallel)
    {
        HugePageVector<AABB> blockBoxes(mesh.triangles.size());
        forEachIndex(mesh.triangles.size(), 4 * 1024, parallel, [&](size_t i) {
            Triangle4& block = mesh.triangles[i];
            uint32_t prims[4];
            std::copy(std::begin(block.prim), std::end(block.prim), prims);
            block = packTriangles(g, prims);
            for (uint32_t p : prims)
                blockBoxes[i].include(triangleBox(g, p));
        });
        auto slotBox = [&](uint32_t ref) {
            if (isLeafRef(ref))
                return blockBoxes[leafPayload(ref)];
            AABB box; // the union of the child's slots (empty ones hold +inf..-inf, which adds nothing)
            const WideNode& child = mesh.bvh.nodes[ref];
            for (int c = 0; c < kNodeWidth; ++c)
                for (int a = 0; a < 3; ++a)
                {
                    box.minPoint[a] = std::min(box.minPoint[a], child.bounds[2 * a][c]);
                    box.maxPoint[a] = std::max(box.maxPoint[a], child.bounds[2 * a + 1][c]);
                }
            return box;
        };
        for (size_t n = mesh.bvh.nodes.size(); n-- > 0;)
        {
            WideNode& node = mesh.bvh.nodes[n];
            for (int c = 0; c < kNodeWidth; ++c)
            {
                const AABB box = node.child[c] == kEmptyRef ? AABB() : slotBox(node.child[c]);
                for (int a = 0; a < 3; ++a)
                {
                    node.bounds[2 * a][c] = box.minPoint[a];
                    node.bounds[2 * a + 1][c] = box.maxPoint[a];
                }
            }
        }
        mesh.bounds = mesh.bvh.root == kEmptyRef ? AABB() : slotBox(mesh.bvh.root);
        mesh.extremeCoordinates = hasExtremeCoordinates(g, mesh.bounds);
    }

    /// A triangle's box; empty when a vertex is not finite (such a triangle can't be hit).
    static AABB triangleBox(const MeshGeometry& g, uint32_t prim)
    {
        const uint3& tri = g.triangles[prim];
        const float3 &a = g.positions[tri[0]], &b = g.positions[tri[1]], &c = g.positions[tri[2]];
        if (!(isFinite(a) && isFinite(b) && isFinite(c)))
            return AABB();
        return AABB(a).include(b).include(c);
    }

    static HugePageVector<AABB> triangleBounds(const MeshGeometry& g, bool parallel)
    {
        HugePageVector<AABB> boxes(g.triangles.size());
        forEachIndex(boxes.size(), 16 * 1024, parallel, [&](size_t i) {
            const uint3& tri = g.triangles[i];
            for (int k = 0; k < 3; ++k)
                FALCOR_CHECK(tri[k] < g.positions.size(), "SceneAccel: triangle ", i, " uses vertex ", tri[k], " of ", g.positions.size(), ".");
            boxes[i] = triangleBox(g, uint32_t(i)); // left out of the tree when empty
        });
        return boxes;
    }

    /// Builds the bottom levels of `meshIDs` (all when empty) into `into`: large meshes one after
    /// the other, each on the whole pool; small ones side by side, one per task.
    static void buildMeshes(std::span<const MeshGeometry> geometry, std::span<const uint32_t> meshIDs, std::vector<Mesh>& into,
                            AccelBuildPhases* phases)
    {
        const size_t count = meshIDs.empty() ? geometry.size() : meshIDs.size();
        auto id = [&](size_t i) { return meshIDs.empty() ? uint32_t(i) : meshIDs[i]; };
        auto isLarge = [&](size_t i) { return geometry[id(i)].triangles.size() >= kLargeMeshTriangles; };
        for (size_t i = 0; i < count; ++i)
            if (isLarge(i))
                into[id(i)] = buildMesh(geometry[id(i)], true, phases);
        parallelFor(count, 1, [&](size_t b, size_t e) {
            for (size_t i = b; i < e; ++i)
                if (!isLarge(i))
                    into[id(i)] = buildMesh(geometry[id(i)], false);
        });
    }

    void countBottomLevels()
    {
        stats.triangleCount = stats.blasNodeCount = blasMemoryBytes = 0;
        for (const auto& m : meshes)
        {
            stats.triangleCount += m.triangleCount;
            stats.blasNodeCount += m.bvh.nodes.size();
            blasMemoryBytes += m.bvh.nodes.size() * sizeof(WideNode) + m.triangles.size() * sizeof(Triangle4);
        }
    }

    /// Places the instances over the bottom levels: statistics, transforms and the top level.
    void placeInstances(std::span<const InstanceDesc> descs)
    {
        countBottomLevels();
        instances.assign(descs.size(), Instance{});
        for (size_t i = 0; i < descs.size(); ++i)
        {
            instances[i].meshID = descs[i].meshID;
            instances[i].frontFaceCW = descs[i].frontFaceCW;
            setTransform(instances[i], descs[i].transform);
        }
        buildTopLevel();
    }

    void buildTopLevel()
    {
        auto start = std::chrono::steady_clock::now();
        std::vector<AABB> boxes(instances.size());
        bounds = AABB();
        for (size_t i = 0; i < instances.size(); ++i)
        {
            Instance& inst = instances[i];
            inst.worldBounds = inst.invertible ? transformBounds(inst.objectToWorld, meshes[inst.meshID].bounds) : AABB();
            boxes[i] = inst.worldBounds;
            bounds.include(inst.worldBounds);
        }
        sceneMagnitude = 0.f;
        if (bounds.valid())
            for (int a = 0; a < 3; ++a)
                sceneMagnitude = std::max({sceneMagnitude, std::abs(bounds.minPoint[a]), std::abs(bounds.maxPoint[a])});
        // Instances without a valid box (empty meshes, singular transforms) stay out of the tree.
        BinaryBVH binary = buildBinaryBVH(boxes, {1, true});
        WideCollapse wide = collapseToWide(binary, false);
        tlas = std::move(wide.bvh);
        relabelLeaves(tlas, [&](uint32_t n) { return binary.primOrder[binary.nodes[wide.leafNodes[n]].first]; }); // leaves are instances
        stats.tlasBuildMs = msSince(start);
        stats.tlasNodeCount = tlas.nodes.size();
        stats.memoryBytes = blasMemoryBytes + tlas.nodes.size() * sizeof(WideNode) + instances.size() * sizeof(Instance);
    }

    static void setTransform(Instance& inst, const float4x4& m)
    {
        inst.objectToWorld = m;
        inst.identity = m == float4x4::identity();
        inst.invertible = invertAffine(m, inst.worldToObject);
        inst.mirrored = isMirroring(m);
        float linear = 0.f, translation = 0.f;
        for (int r = 0; r < 3; ++r)
        {
            for (int c = 0; c < 3; ++c)
                linear = std::max(linear, std::abs(inst.worldToObject[r][c]));
            translation = std::max(translation, std::abs(inst.worldToObject[r][3]));
        }
        inst.ordinaryRayMagnitude = std::max(0.f, (kLargeCoordinate - translation) / (3.f * linear + 1e-30f));
    }

    SceneView view() const { return {tlas, meshes, instances, sceneMagnitude}; }

    TriangleHit trace(const Ray& ray, RayCullMode cull, const AlphaTest* alphaTest, bool anyHit,
                      const TraversalKernels& kernels = activeKernels()) const
    {
        if (!isQueryable(ray))
            return TriangleHit{};
        return finishedHit(kernels.traceScene(view(), SceneQuery{ray, cull, alphaTest, anyHit}));
    }

    void traceStream(const SceneStream& stream, bool interleave) const
    {
        const TraversalKernels& kernels = activeKernels(); // Once per stream, not per ray.
        // Too few rays to interleave, or nothing to gain: one at a time skips the stream's bookkeeping.
        if (!interleave || stream.rays.size() < kMinStreamRays || isCoherentStream(stream.rays, maxAbs(bounds.extent())))
        {
            for (size_t i = 0; i < stream.rays.size(); ++i)
                stream.write(i, trace(stream.rays[i], stream.cull, stream.alphaTest, stream.anyHit, kernels));
            return;
        }
        kernels.traceStream(view(), stream);
    }
};

const char* whyUntraceable(const Ray& ray)
{
    if (isTraceable(ray))
        return nullptr;
    if (!isFinite(ray.origin))
        return "the origin is not finite";
    if (!isFinite(ray.dir))
        return "the direction is not finite";
    if (std::isnan(ray.tMin) || std::isnan(ray.tMax))
        return "t_min or t_max is NaN";
    return nullptr;
}

SceneAccel::SceneAccel() : mpImpl(std::make_unique<Impl>()) {}
SceneAccel::~SceneAccel() = default;
SceneAccel::SceneAccel(SceneAccel&&) noexcept = default;
SceneAccel& SceneAccel::operator=(SceneAccel&&) noexcept = default;

void SceneAccel::build(std::span<const MeshGeometry> meshes, std::span<const InstanceDesc> instances)
{
    checkInstances(meshes.size(), instances);
    // Built aside and moved in at the end, so a failed build leaves the structure as it was.
    Impl next;
    auto start = std::chrono::steady_clock::now();
    next.meshes.resize(meshes.size());
    Impl::buildMeshes(meshes, {}, next.meshes, &next.stats.blasPhases);
    next.stats.blasBuildMs = msSince(start);
    next.placeInstances(instances);
    *mpImpl = std::move(next);
}

void SceneAccel::rebuildMeshes(std::span<const MeshGeometry> meshes, std::span<const uint32_t> meshIDs)
{
    Impl& impl = *mpImpl;
    checkRebuildable(meshes, meshIDs, impl.meshes);
    // Built aside, then moved in: a failed build leaves the structure as it was.
    std::vector<Impl::Mesh> rebuilt(meshes.size());
    Impl::buildMeshes(meshes, meshIDs, rebuilt, nullptr);
    for (uint32_t id : meshIDs)
        impl.meshes[id] = std::move(rebuilt[id]);
    impl.countBottomLevels();
    impl.buildTopLevel();
}

void SceneAccel::refitMeshes(std::span<const MeshGeometry> meshes, std::span<const uint32_t> meshIDs)
{
    Impl& impl = *mpImpl;
    checkRebuildable(meshes, meshIDs, impl.meshes);
    for (uint32_t id : meshIDs)
        Impl::refitMesh(impl.meshes[id], meshes[id], meshes[id].triangles.size() >= kLargeMeshTriangles);
    impl.buildTopLevel();
}

void SceneAccel::setInstances(std::span<const MeshGeometry> meshes, std::span<const InstanceDesc> instances)
{
    checkInstances(meshes.size(), instances);
    Impl& impl = *mpImpl;
    FALCOR_CHECK(meshes.size() == impl.meshes.size(), "SceneAccel: ", meshes.size(), " meshes given, ", impl.meshes.size(), " built.");
    for (size_t i = 0; i < meshes.size(); ++i)
    {
        FALCOR_CHECK(meshes[i].triangles.size() == impl.meshes[i].triangleCount, "SceneAccel: mesh ", i, " has ", meshes[i].triangles.size(),
                     " triangles, its bottom level ", impl.meshes[i].triangleCount, ".");
        impl.meshes[i].opaque = meshes[i].opaque;
    }
    impl.placeInstances(instances);
}

void SceneAccel::writeBottomLevels(ByteWriter& out) const
{
    out.write<uint64_t>(mpImpl->meshes.size());
    for (const Impl::Mesh& m : mpImpl->meshes)
    {
        out.writeArray(std::span<const WideNode>(m.bvh.nodes));
        out.write(m.bvh.root);
        out.writeArray(std::span<const Triangle4>(m.triangles));
        out.write<uint64_t>(m.triangleCount);
        out.write(m.bounds);
        out.write<uint8_t>(m.extremeCoordinates);
    }
}

void SceneAccel::readBottomLevels(ByteReader& in, std::span<const MeshGeometry> meshes)
{
    const uint64_t count = in.read<uint64_t>("bottom-level count");
    FALCOR_CHECK(count == meshes.size(), "SceneAccel: ", count, " cached bottom levels for ", meshes.size(), " meshes.");
    Impl next;
    next.meshes.resize(meshes.size());
    in.deferCopies();
    for (Impl::Mesh& m : next.meshes)
    {
        in.readArray(m.bvh.nodes, "bottom-level nodes");
        m.bvh.root = in.read<uint32_t>("bottom-level root");
        in.readArray(m.triangles, "bottom-level triangles");
        m.triangleCount = size_t(in.read<uint64_t>("bottom-level triangle count"));
        m.bounds = in.read<AABB>("bottom-level bounds");
        m.extremeCoordinates = in.read<uint8_t>("bottom-level flags") != 0;
    }
    in.copyDeferred();
    for (size_t i = 0; i < meshes.size(); ++i)
    {
        Impl::Mesh& m = next.meshes[i];
        m.opaque = meshes[i].opaque;
        FALCOR_CHECK(m.triangleCount == meshes[i].triangles.size(), "SceneAccel: cached bottom level ", i, " holds ", m.triangleCount,
                     " triangles, the mesh ", meshes[i].triangles.size(), ".");
        const char* flaw = whyMalformed(m.bvh, m.triangles, m.triangleCount);
        FALCOR_CHECK(!flaw, "SceneAccel: cached bottom level ", i, " is malformed: ", flaw, ".");
    }
    *mpImpl = std::move(next);
}

void SceneAccel::updateInstanceTransforms(std::span<const float4x4> transforms)
{
    Impl& impl = *mpImpl;
    FALCOR_CHECK(transforms.size() == impl.instances.size(), "SceneAccel: got ", transforms.size(), " transforms for ", impl.instances.size(),
                 " instances.");
    for (size_t i = 0; i < transforms.size(); ++i)
        Impl::setTransform(impl.instances[i], transforms[i]);
    impl.buildTopLevel();
}

TriangleHit SceneAccel::closestHit(const Ray& ray, RayCullMode cull, const AlphaTest* alphaTest) const
{
    return mpImpl->trace(ray, cull, alphaTest, false);
}

bool SceneAccel::anyHit(const Ray& ray, RayCullMode cull, const AlphaTest* alphaTest) const
{
    return mpImpl->trace(ray, cull, alphaTest, true).isValid();
}

void SceneAccel::closestHitStream(std::span<const Ray> rays, RayCullMode cull, const AlphaTest* alphaTest, std::span<TriangleHit> hits,
                                  bool interleave) const
{
    FALCOR_CHECK(hits.size() == rays.size(), "SceneAccel::closestHitStream: ", hits.size(), " hits for ", rays.size(), " rays.");
    mpImpl->traceStream({rays, cull, alphaTest, false, hits, {}}, interleave);
}

void SceneAccel::anyHitStream(std::span<const Ray> rays, RayCullMode cull, const AlphaTest* alphaTest, std::span<uint8_t> occluded,
                              bool interleave) const
{
    FALCOR_CHECK(occluded.size() == rays.size(), "SceneAccel::anyHitStream: ", occluded.size(), " results for ", rays.size(), " rays.");
    mpImpl->traceStream({rays, cull, alphaTest, true, {}, occluded}, interleave);
}

const char* SceneAccel::getKernelIsa() { return &activeKernels() == &kSse2Kernels ? "sse2" : "avx2"; }

AABB SceneAccel::getBounds() const { return mpImpl->bounds; }
const AccelStats& SceneAccel::getStats() const { return mpImpl->stats; }
uint32_t SceneAccel::getInstanceCount() const { return uint32_t(mpImpl->instances.size()); }
} // namespace falcor
