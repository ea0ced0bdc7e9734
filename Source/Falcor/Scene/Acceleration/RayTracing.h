#pragma once
#include "Core/Macros.h"
#include "Utils/Math/AABB.h"
#include "Utils/Math/Matrix.h"
#include "Utils/Math/Vector.h"
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <vector>

namespace falcor
{
class ByteReader;
class ByteWriter;

constexpr uint32_t kInvalidIndex = 0xffffffffu;

struct Ray
{
    float3 origin;
    float tMin = 0.f;
    float3 dir; ///< Need not be normalized; t is measured in units of |dir|.
    float tMax = std::numeric_limits<float>::infinity();
};

/// Why a ray can't be traced (a non-finite origin or direction, a NaN t bound), or nullptr if
/// it can (a zero direction can: it misses). Such rays miss (a NaN would otherwise pass every box test);
/// APIs that take rays from users reject them with this reason.
FALCOR_API const char* whyUntraceable(const Ray& ray);

/// The fast test behind whyUntraceable: x - x is 0 for finite x, NaN for infinities and NaN.
inline bool isTraceable(const Ray& ray)
{
    const float3& o = ray.origin;
    const float3& d = ray.dir;
    const float zero = (o.x() - o.x()) + (o.y() - o.y()) + (o.z() - o.z()) + (d.x() - d.x()) + (d.y() - d.y()) + (d.z() - d.z());
    return zero == 0.f && ray.tMin == ray.tMin && ray.tMax == ray.tMax;
}

/// A hit on a triangle: which instance and triangle, where on it, and how far along the ray.
/// Barycentrics (u, v) weight vertices 1 and 2: p = (1-u-v)·p0 + u·p1 + v·p2 (DXR convention).
struct TriangleHit
{
    uint32_t instanceID = kInvalidIndex;
    uint32_t primitiveIndex = kInvalidIndex;
    float2 barycentrics{0.f, 0.f};
    float t = std::numeric_limits<float>::infinity();
    bool isValid() const { return instanceID != kInvalidIndex; }
};

/// Which triangle faces rays ignore. A triangle is front facing when its vertices appear
/// counter-clockwise seen from the ray origin, unless the instance says `frontFaceCW`.
enum class RayCullMode
{
    None,
    Front,
    Back,
};

/// Decides hits on non-opaque geometry (alpha testing). Called only for triangles of meshes that
/// are not marked opaque; return true to accept the hit.
class AlphaTest
{
public:
    virtual ~AlphaTest() = default;
    virtual bool accept(uint32_t instanceID, uint32_t primitiveIndex, float2 barycentrics) const = 0;
};

/// Bottom-level input: indexed triangles in object space. The spans must stay valid while the
/// structure is built (the structure keeps its own compact copy for traversal).
struct MeshGeometry
{
    std::span<const float3> positions;
    std::span<const uint3> triangles;
    bool opaque = true;
};

/// Top-level input: one placement of a mesh.
struct InstanceDesc
{
    uint32_t meshID = 0;
    float4x4 transform = float4x4::identity(); ///< Object to world (row-major, column vectors: p' = M·p).
    bool frontFaceCW = false;
};

/// Where bottom-level build time went (ms), summed over the meshes large enough to be built on
/// the whole pool (smaller ones are built side by side, one per task, and not broken down).
struct AccelBuildPhases
{
    double boundsMs = 0;    ///< Triangle bounds.
    double primRefsMs = 0;  ///< Primitive references and the root range.
    double topLevelsMs = 0; ///< Splits above the subtrees (binned SAH, partitioning).
    double subtreesMs = 0;  ///< Independent subtrees, side by side on the pool.
    double assembleMs = 0;  ///< Splicing subtrees in, the primitive order.
    double collapseMs = 0;  ///< Binary to 8-wide nodes.
    double packMs = 0;      ///< Leaf triangle blocks.
};

struct AccelStats
{
    double blasBuildMs = 0, tlasBuildMs = 0;
    AccelBuildPhases blasPhases;
    size_t triangleCount = 0, blasNodeCount = 0, tlasNodeCount = 0, memoryBytes = 0;
};

/// Two-level bounding volume hierarchy over triangle meshes: one bottom-level structure per mesh,
/// a top-level structure over instances. Built with a binned SAH on the engine's thread pool;
/// instance transforms can change (top level refit/rebuild) without touching the meshes.
/// Queries are thread safe; results do not depend on the thread count.
///
/// Hits: tMin <= t <= tMax, edges and vertices included (watertight: a ray through an edge shared
/// by two triangles hits at least one of them); zero-area triangles are never hit. Of equal-t hits the lowest
/// instance, then the lowest primitive index, wins. Rays are traced in each instance's object
/// space (t is preserved); instances whose transform has no inverse are not traced.
/// Implementation: 8-wide nodes over 4-triangle leaves, SSE2 kernels with an AVX2 build chosen
/// by activeIsa() (bit-identical results); see Scene/Acceleration/*.h.
class FALCOR_API SceneAccel
{
public:
    SceneAccel();
    ~SceneAccel();
    SceneAccel(SceneAccel&&) noexcept;
    SceneAccel& operator=(SceneAccel&&) noexcept;

    /// Builds both levels. Errors (a vertex index out of range, an unknown mesh) throw and leave
    /// the previous structure in place.
    void build(std::span<const MeshGeometry> meshes, std::span<const InstanceDesc> instances);
    /// New object-to-world transforms (one per instance, same order as build): rebuilds only the
    /// top level (a fresh SAH build over the instance boxes; meshes are untouched).
    void updateInstanceTransforms(std::span<const float4x4> transforms);

    /// Rebuilds the bottom levels of the meshes `meshIDs` from `meshes` (all meshes, as in build,
    /// with the same triangle counts; their vertices moved) and the top level over the current
    /// instance transforms. On error the structure is unchanged.
    void rebuildMeshes(std::span<const MeshGeometry> meshes, std::span<const uint32_t> meshIDs);
    /// As rebuildMeshes, but keeping each mesh's tree and recomputing its boxes (a refit: much
    /// faster, for meshes that deform, such as skinned ones; the tree stays the one built for
    /// the first shape, so heavy deformation costs traversal speed, never correctness).
    void refitMeshes(std::span<const MeshGeometry> meshes, std::span<const uint32_t> meshIDs);

    /// Keeps the bottom levels (one per mesh, which must be the meshes they were built from, with
    /// the same triangle counts) and places new instances over them; the opaque flags are taken
    /// from `meshes`. Used after `readBottomLevels`.
    void setInstances(std::span<const MeshGeometry> meshes, std::span<const InstanceDesc> instances);

    /// The built bottom levels (trees and triangle blocks), for the scene cache.
    void writeBottomLevels(ByteWriter& out) const;
    /// Replaces the bottom levels with ones written by `writeBottomLevels` for these meshes, and
    /// drops the instances. What is read is checked (sizes, and every reference inside the trees)
    /// and rejected with an error rather than trusted; the structure is unchanged on error.
    void readBottomLevels(ByteReader& in, std::span<const MeshGeometry> meshes);

    TriangleHit closestHit(const Ray& ray, RayCullMode cull = RayCullMode::None, const AlphaTest* alphaTest = nullptr) const;
    bool anyHit(const Ray& ray, RayCullMode cull = RayCullMode::None, const AlphaTest* alphaTest = nullptr) const;

    /// closestHit of every ray (hits[i] for rays[i]; same size), bit-identical to one call per ray
    /// but faster on large streams: several rays are traced interleaved, so that each one's next
    /// node is loaded while the others work. Runs on the caller's thread. `interleave` false traces
    /// them one at a time (trees that stay in a core's cache gain nothing from interleaving).
    void closestHitStream(std::span<const Ray> rays, RayCullMode cull, const AlphaTest* alphaTest, std::span<TriangleHit> hits,
                          bool interleave = true) const;
    /// anyHit of every ray (occluded[i] = 1 or 0 for rays[i]), as closestHitStream.
    void anyHitStream(std::span<const Ray> rays, RayCullMode cull, const AlphaTest* alphaTest, std::span<uint8_t> occluded,
                      bool interleave = true) const;

    /// Instruction set of the traversal kernels in use: "avx2" when activeIsa() (Core/Isa.h) allows
    /// it (AVX-512 included), else "sse2". Results are bit-identical for every one.
    static const char* getKernelIsa();

    /// Union of the instances' transformed mesh boxes (as Falcor's scene bounds).
    AABB getBounds() const;
    const AccelStats& getStats() const;
    uint32_t getInstanceCount() const;

private:
    struct Impl;
    std::unique_ptr<Impl> mpImpl;
};
} // namespace falcor
