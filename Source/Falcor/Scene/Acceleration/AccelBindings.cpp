#include "Core/PythonHelpers.h"
#include "Core/ThreadPool.h"
#include "Scene/Acceleration/RayTracing.h"
#include <pybind11/numpy.h>
#include <array>
#include <atomic>
#include <mutex>
#include <shared_mutex>

namespace falcor::python
{
namespace
{
using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;
using UintArray = py::array_t<uint32_t, py::array::c_style | py::array::forcecast>;
using BoolArray = py::array_t<bool, py::array::c_style | py::array::forcecast>;

/// Rays per thread-pool task in batch queries (fixed, so the work split never depends on threads).
constexpr size_t kRayChunk = 256;

/// numpy conversion of an argument (copies only when the dtype or layout differ).
template<typename Array>
Array toArray(const py::handle& obj, const char* what)
{
    Array a = Array::ensure(obj);
    if (!a)
        throw py::type_error(std::string("TriangleAccel: ") + what + " must be convertible to a numeric array");
    return a;
}

float4x4 toMatrix(const py::handle& obj)
{
    FloatArray a = toArray<FloatArray>(obj, "transform");
    FALCOR_CHECK(a.ndim() == 2 && a.shape(0) == 4 && a.shape(1) == 4, "TriangleAccel: a transform must be a 4x4 array.");
    float4x4 m;
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c)
            m[r][c] = a.at(r, c);
    return m;
}

RayCullMode toCullMode(const std::string& s)
{
    if (s == "None")
        return RayCullMode::None;
    if (s == "Front")
        return RayCullMode::Front;
    if (s == "Back")
        return RayCullMode::Back;
    throwError("TriangleAccel: cull must be 'None', 'Front' or 'Back', got '", s, "'.");
}

/// Per-(instance, primitive) table of accepted hits, the Python face of `AlphaTest`.
class MaskAlphaTest : public AlphaTest
{
public:
    std::vector<BoolArray> masks; ///< One per instance; empty arrays accept everything.
    bool accept(uint32_t instanceID, uint32_t primitiveIndex, float2) const override
    {
        const BoolArray& m = masks[instanceID];
        return m.size() == 0 || m.data()[primitiveIndex];
    }
};

/// The Python binding's view of a built structure: the structure plus what validating
/// arguments needs. Queries share it; (re)builds take it exclusively, so Python threads may
/// query while another rebuilds. Locks are taken without the GIL (a query holding the lock
/// needs the GIL again to return).
struct TriangleAccel
{
    SceneAccel accel;
    std::vector<uint32_t> instanceTriangleCounts;
    mutable std::shared_mutex mutex;

    std::shared_lock<std::shared_mutex> shareForQuery() const
    {
        py::gil_scoped_release release;
        return std::shared_lock(mutex);
    }

    void build(const py::list& meshes, const py::list& instances)
    {
        std::vector<FloatArray> positions;
        std::vector<UintArray> triangles;
        std::vector<MeshGeometry> geometry;
        for (size_t i = 0; i < meshes.size(); ++i)
        {
            auto t = meshes[i].cast<py::tuple>();
            FALCOR_CHECK(t.size() == 3, "TriangleAccel.build: mesh ", i, " must be (positions, triangles, opaque).");
            positions.push_back(toArray<FloatArray>(t[0], "positions"));
            triangles.push_back(toArray<UintArray>(t[1], "triangles"));
            const FloatArray& p = positions.back();
            const UintArray& tri = triangles.back();
            FALCOR_CHECK(p.ndim() == 2 && p.shape(1) == 3, "TriangleAccel.build: positions of mesh ", i, " must have shape (N, 3).");
            FALCOR_CHECK(tri.ndim() == 2 && tri.shape(1) == 3, "TriangleAccel.build: triangles of mesh ", i, " must have shape (M, 3).");
            geometry.push_back({{reinterpret_cast<const float3*>(p.data()), size_t(p.shape(0))},
                                {reinterpret_cast<const uint3*>(tri.data()), size_t(tri.shape(0))},
                                t[2].cast<bool>()});
        }
        std::vector<InstanceDesc> descs;
        std::vector<uint32_t> triangleCounts;
        for (size_t i = 0; i < instances.size(); ++i)
        {
            auto t = instances[i].cast<py::tuple>();
            FALCOR_CHECK(t.size() == 3, "TriangleAccel.build: instance ", i, " must be (mesh_id, transform, front_face_cw).");
            InstanceDesc d{t[0].cast<uint32_t>(), toMatrix(t[1]), t[2].cast<bool>()};
            FALCOR_CHECK(d.meshID < geometry.size(), "TriangleAccel.build: instance ", i, " refers to mesh ", d.meshID, " of ",
                         geometry.size(), ".");
            triangleCounts.push_back(uint32_t(geometry[d.meshID].triangles.size()));
            descs.push_back(d);
        }
        py::gil_scoped_release release;
        std::unique_lock lock(mutex);
        accel.build(geometry, descs);
        instanceTriangleCounts = std::move(triangleCounts);
    }

    void updateTransforms(const py::list& transforms)
    {
        std::vector<float4x4> m;
        for (const auto& t : transforms)
            m.push_back(toMatrix(t));
        py::gil_scoped_release release;
        std::unique_lock lock(mutex);
        accel.updateInstanceTransforms(m);
    }

    /// Validated ray batch: origins, directions and per-ray (or broadcast) t ranges.
    struct RayBatch
    {
        FloatArray origins, dirs, tMin, tMax;
        size_t count = 0;
        Ray ray(size_t i) const
        {
            const float* o = origins.data() + 3 * i;
            const float* d = dirs.data() + 3 * i;
            Ray r;
            r.origin = {o[0], o[1], o[2]};
            r.dir = {d[0], d[1], d[2]};
            r.tMin = tMin.data()[tMin.size() == 1 ? 0 : i];
            r.tMax = tMax.data()[tMax.size() == 1 ? 0 : i];
            return r;
        }
    };

    RayBatch makeBatch(const py::object& origins, const py::object& dirs, const py::object& tMin, const py::object& tMax) const
    {
        RayBatch b{toArray<FloatArray>(origins, "origins"), toArray<FloatArray>(dirs, "directions"), toArray<FloatArray>(tMin, "t_min"),
                    toArray<FloatArray>(tMax, "t_max")};
        FALCOR_CHECK(b.origins.ndim() == 2 && b.origins.shape(1) == 3, "TriangleAccel: origins must have shape (K, 3).");
        FALCOR_CHECK(b.dirs.ndim() == 2 && b.dirs.shape(1) == 3 && b.dirs.shape(0) == b.origins.shape(0),
                     "TriangleAccel: directions must have the shape of origins.");
        b.count = size_t(b.origins.shape(0));
        for (const FloatArray* a : {&b.tMin, &b.tMax})
            FALCOR_CHECK(a->size() == 1 || size_t(a->size()) == b.count, "TriangleAccel: t_min and t_max must be scalars or have shape (K,).");
        return b;
    }

    /// Traces every ray of the batch on the pool, in chunks: `traceChunk(first, rays)` stores the
    /// results of rays first, first + 1, ... Rays that can't be traced are found in the same pass
    /// (they miss there) and reported after it, naming the first, so checking costs no extra
    /// sweep over the rays.
    template<typename TraceChunk>
    static void traceBatch(const RayBatch& batch, TraceChunk&& traceChunk)
    {
        std::atomic<size_t> firstBad{batch.count};
        {
            py::gil_scoped_release release;
            parallelFor(batch.count, kRayChunk, [&](size_t b, size_t e) {
                std::array<Ray, kRayChunk> rays;
                for (size_t i = b; i < e; ++i)
                {
                    rays[i - b] = batch.ray(i);
                    if (!isTraceable(rays[i - b]))
                        for (size_t seen = firstBad.load(); i < seen && !firstBad.compare_exchange_weak(seen, i);)
                            ;
                }
                traceChunk(b, std::span<const Ray>(rays.data(), e - b));
            });
        }
        if (size_t i = firstBad.load(); i < batch.count)
            throwError("TriangleAccel: ray ", i, " can't be traced: ", whyUntraceable(batch.ray(i)), ".");
    }

    std::unique_ptr<MaskAlphaTest> makeAlphaTest(const py::object& alphaMask) const
    {
        if (alphaMask.is_none())
            return nullptr;
        auto list = alphaMask.cast<py::list>();
        FALCOR_CHECK(list.size() == instanceTriangleCounts.size(), "TriangleAccel: alpha_mask needs one entry per instance (",
                     instanceTriangleCounts.size(), "), got ", list.size(), ".");
        auto test = std::make_unique<MaskAlphaTest>();
        for (size_t i = 0; i < list.size(); ++i)
        {
            test->masks.push_back(list[i].is_none() ? BoolArray(0) : toArray<BoolArray>(list[i], "alpha_mask entries"));
            size_t n = test->masks.back().size();
            FALCOR_CHECK(list[i].is_none() || n == instanceTriangleCounts[i], "TriangleAccel: alpha_mask[", i, "] must have ",
                         instanceTriangleCounts[i], " entries, got ", n, ".");
        }
        return test;
    }

    py::dict closestHit(const py::object& origins, const py::object& dirs, const py::object& tMin, const py::object& tMax,
                        const std::string& cull, const py::object& alphaMask, bool stream) const
    {
        auto lock = shareForQuery();
        RayBatch batch = makeBatch(origins, dirs, tMin, tMax);
        RayCullMode mode = toCullMode(cull);
        auto alpha = makeAlphaTest(alphaMask);
        py::ssize_t k = py::ssize_t(batch.count);
        py::array_t<float> t(k), bary({k, py::ssize_t(2)});
        py::array_t<uint32_t> inst(k), prim(k);
        float* tp = t.mutable_data();
        float* bp = bary.mutable_data();
        uint32_t* ip = inst.mutable_data();
        uint32_t* pp = prim.mutable_data();
        traceBatch(batch, [&](size_t first, std::span<const Ray> rays) {
            std::array<TriangleHit, kRayChunk> chunkHits;
            const std::span<TriangleHit> hits(chunkHits.data(), rays.size());
            if (stream)
                accel.closestHitStream(rays, mode, alpha.get(), hits);
            else
                for (size_t j = 0; j < rays.size(); ++j)
                    hits[j] = accel.closestHit(rays[j], mode, alpha.get());
            for (size_t j = 0; j < rays.size(); ++j)
            {
                const size_t i = first + j;
                tp[i] = hits[j].t;
                ip[i] = hits[j].instanceID;
                pp[i] = hits[j].primitiveIndex;
                bp[2 * i] = hits[j].barycentrics.x();
                bp[2 * i + 1] = hits[j].barycentrics.y();
            }
        });
        return py::dict("t"_a = t, "instance_id"_a = inst, "primitive_index"_a = prim, "barycentrics"_a = bary);
    }

    py::array_t<bool> anyHit(const py::object& origins, const py::object& dirs, const py::object& tMin, const py::object& tMax,
                             const std::string& cull, const py::object& alphaMask, bool stream) const
    {
        auto lock = shareForQuery();
        RayBatch batch = makeBatch(origins, dirs, tMin, tMax);
        RayCullMode mode = toCullMode(cull);
        auto alpha = makeAlphaTest(alphaMask);
        py::array_t<bool> hit(py::ssize_t(batch.count));
        bool* hp = hit.mutable_data();
        traceBatch(batch, [&](size_t first, std::span<const Ray> rays) {
            std::array<uint8_t, kRayChunk> occluded;
            if (stream)
                accel.anyHitStream(rays, mode, alpha.get(), std::span(occluded.data(), rays.size()));
            else
                for (size_t j = 0; j < rays.size(); ++j)
                    occluded[j] = accel.anyHit(rays[j], mode, alpha.get());
            for (size_t j = 0; j < rays.size(); ++j)
                hp[first + j] = occluded[j] != 0;
        });
        return hit;
    }
};

py::tuple toTuple(const float3& v) { return py::make_tuple(v.x(), v.y(), v.z()); }
} // namespace

void registerAccelBindings(py::module_& m)
{
    py::class_<TriangleAccel> accel(m, "TriangleAccel", R"doc(
Two-level ray-tracing acceleration structure over triangle meshes (extension: Falcor builds
its acceleration structures on the GPU and has no such class). This is the structure behind
scene ray casts, exposed for tests, benchmarks and users.

    accel = falcor.TriangleAccel()
    accel.build([(positions, triangles, opaque), ...], [(mesh_id, transform, front_face_cw), ...])
    hits = accel.closest_hit(origins, directions)

positions are (N, 3) float32, triangles (M, 3) uint32 vertex indices, transforms 4x4 object-to-world
matrices (column vectors, p' = M p). A triangle is front facing when its vertices appear
counter-clockwise seen from the ray origin (clockwise for instances with front_face_cw).
Queries take (K, 3) origins and directions (t is measured in units of |direction|), t_min/t_max
as scalars or (K,) arrays, cull='None'|'Front'|'Back', and run on the engine's thread pool without
the GIL. Ties in t go to the lowest instance, then the lowest primitive index.

alpha_mask: optional list with one entry per instance, None or a (M,) bool array; on meshes built
with opaque=False a hit on primitive p of instance i counts only if alpha_mask[i][p] is True
(a per-triangle stand-in for alpha testing; opaque meshes ignore it).
)doc");
    accel.def(py::init<>());
    accel.def("build", &TriangleAccel::build, "meshes"_a, "instances"_a,
              "Builds both levels. meshes: list of (positions (N,3) float32, triangles (M,3) uint32, opaque: bool); "
              "instances: list of (mesh_id, transform 4x4, front_face_cw: bool).");
    accel.def("update_instance_transforms", &TriangleAccel::updateTransforms, "transforms"_a,
              "New object-to-world transforms, one per instance in build order; rebuilds only the top level.");
    accel.def("closest_hit", &TriangleAccel::closestHit, "origins"_a, "directions"_a, "t_min"_a = 0.f,
              "t_max"_a = std::numeric_limits<float>::infinity(), "cull"_a = "None", "alpha_mask"_a = py::none(), "stream"_a = false,
              "Closest hit per ray: dict(t (K,) float32, inf on a miss; instance_id (K,) uint32, 0xFFFFFFFF on a miss; "
              "primitive_index (K,) uint32; barycentrics (K,2) float32 weighting vertices 1 and 2). "
              "stream=True traces the rays as interleaved streams (SceneAccel::closestHitStream): the same bits.");
    accel.def("any_hit", &TriangleAccel::anyHit, "origins"_a, "directions"_a, "t_min"_a = 0.f,
              "t_max"_a = std::numeric_limits<float>::infinity(), "cull"_a = "None", "alpha_mask"_a = py::none(), "stream"_a = false,
              "Whether each ray hits anything in [t_min, t_max] (shadow rays): (K,) bool. "
              "stream=True traces the rays as interleaved streams (SceneAccel::anyHitStream): the same bits.");
    accel.def_property_readonly("bounds", [](const TriangleAccel& a) {
        auto lock = a.shareForQuery();
        AABB b = a.accel.getBounds();
        return py::make_tuple(toTuple(b.minPoint), toTuple(b.maxPoint));
    }, "World-space bounds as ((min x, y, z), (max x, y, z)).");
    accel.def_property_readonly_static("kernel_isa", [](py::object) { return std::string(SceneAccel::getKernelIsa()); },
                                       "Instruction set of the traversal kernels: 'avx2' when falcor.active_isa() allows it (avx512 too), else 'sse2'.");
    accel.def_property_readonly("instance_count", [](const TriangleAccel& a) {
        auto lock = a.shareForQuery();
        return a.accel.getInstanceCount();
    });
    accel.def_property_readonly("stats", [](const TriangleAccel& a) {
        auto lock = a.shareForQuery();
        const AccelStats& s = a.accel.getStats();
        const AccelBuildPhases& p = s.blasPhases;
        py::dict phases("bounds_ms"_a = p.boundsMs, "prim_refs_ms"_a = p.primRefsMs, "top_levels_ms"_a = p.topLevelsMs,
                        "subtrees_ms"_a = p.subtreesMs, "assemble_ms"_a = p.assembleMs, "collapse_ms"_a = p.collapseMs, "pack_ms"_a = p.packMs);
        return py::dict("blas_build_ms"_a = s.blasBuildMs, "tlas_build_ms"_a = s.tlasBuildMs, "triangle_count"_a = s.triangleCount,
                        "blas_node_count"_a = s.blasNodeCount, "tlas_node_count"_a = s.tlasNodeCount, "memory_bytes"_a = s.memoryBytes,
                        "blas_phases"_a = phases);
    }, "Build statistics: times in ms, node counts, memory in bytes; blas_phases breaks the bottom-level build of large meshes down.");
}
} // namespace falcor::python
