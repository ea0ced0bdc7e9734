// Python face of the render-side scene (`falcor.NativeScene`). The Python `falcor.Scene` owns one
// and feeds it: geometry once, then per-frame changes as plain dicts and numpy arrays.
#include "Core/PythonHelpers.h"
#include "Rendering/Materials/MERLBRDF.h"
#include "Rendering/Materials/RGLBRDF.h"
#include "Scene/MeshProcessing.h"
#include "Scene/Scene.h"
#include "Scene/SceneMath.h"
#include "Scene/SurfaceLanesCheck.h"
#include <pybind11/numpy.h>
#include <cmath>
#include <cstring>
#include <fstream>
#include <type_traits>

namespace falcor::python
{
namespace
{
using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;
using UintArray = py::array_t<uint32_t, py::array::c_style | py::array::forcecast>;

/// Fills `count` plain-data vector/matrix values from packed numbers.
template<typename T, typename Src>
HugePageVector<T> unpack(const Src* src, size_t count)
{
    static_assert(std::is_trivially_copyable_v<T>);
    HugePageVector<T> v(count);
    std::memcpy(static_cast<void*>(v.data()), src, count * sizeof(T));
    return v;
}

/// An (N, C) float32 array (converted only if it is not one already).
FloatArray rowArray(const py::handle& obj, py::ssize_t columns, const char* what)
{
    FloatArray a = FloatArray::ensure(obj);
    FALCOR_CHECK(a && a.ndim() == 2 && a.shape(1) == columns, what, " must be an (N, ", columns, ") float array.");
    return a;
}

/// Rows of an (N, C) float array as C-component vectors.
template<typename V, int C>
HugePageVector<V> rows(const py::handle& obj, const char* what)
{
    const FloatArray a = rowArray(obj, C, concat("NativeScene: ", what).c_str());
    return unpack<V>(a.data(), size_t(a.shape(0)));
}

template<typename M, int R, int C>
M matrixFrom(const py::handle& obj)
{
    FloatArray a = FloatArray::ensure(obj);
    FALCOR_CHECK(a && a.ndim() == 2 && a.shape(0) == R && a.shape(1) == C, "NativeScene: expected a ", R, "x", C, " matrix.");
    M m;
    for (int r = 0; r < R; ++r)
        for (int c = 0; c < C; ++c)
            m[r][c] = a.at(r, c);
    return m;
}

template<int R, int C>
py::array_t<float> toArray(const matrix<float, R, C>& m)
{
    py::array_t<float> a({R, C});
    for (int r = 0; r < R; ++r)
        for (int c = 0; c < C; ++c)
            a.mutable_at(r, c) = m[r][c];
    return a;
}

template<int N>
py::tuple toTuple(const vector<float, N>& v)
{
    py::tuple t(N);
    for (int i = 0; i < N; ++i)
        t[i] = v[i];
    return t;
}

template<typename T>
T get(const py::dict& d, const char* key)
{
    FALCOR_CHECK(d.contains(key), "NativeScene: missing field '", key, "'.");
    return d[key].cast<T>();
}

template<int N>
vector<float, N> getVector(const py::dict& d, const char* key)
{
    return toVector<float, N>(get<py::object>(d, key));
}

/// A float field that must be finite: one NaN or infinite material or env-map value makes NaN
/// pixels in every pass. The Python scene refuses them where they are set; this guards callers
/// of the native scene.
float requireFinite(const char* key, float value)
{
    FALCOR_CHECK(std::isfinite(value), "NativeScene: field '", key, "' must be finite, not ", value, ".");
    return value;
}

float getFinite(const py::dict& d, const char* key)
{
    return requireFinite(key, get<float>(d, key));
}

template<int N>
vector<float, N> getFinite(const py::dict& d, const char* key)
{
    const vector<float, N> v = getVector<N>(d, key);
    for (int i = 0; i < N; ++i)
        requireFinite(key, v[i]);
    return v;
}

MaterialData toMaterial(const py::dict& d)
{
    MaterialData m;
    m.type = MaterialType(get<uint32_t>(d, "type"));
    m.isBasicMaterial = get<bool>(d, "isBasic");
    m.doubleSided = get<bool>(d, "doubleSided");
    m.thinSurface = get<bool>(d, "thinSurface");
    m.emissive = get<bool>(d, "emissive");
    m.alphaMode = AlphaMode(get<uint32_t>(d, "alphaMode"));
    m.alphaThreshold = getFinite(d, "alphaThreshold");
    m.nestedPriority = get<uint32_t>(d, "nestedPriority");
    m.IoR = getFinite(d, "ior");
    for (auto [slot, texture] : get<py::dict>(d, "textures"))
        m.textures.at(slot.cast<size_t>()) = texture.cast<TexturePtr>();
    if (d.contains("merlPath"))
        m.merl = MERLBRDF::load(get<std::string>(d, "merlPath"));
    if (d.contains("merlFit"))
        m.merlFit = toDiffuseSpecularData(get<py::dict>(d, "merlFit"));
    if (d.contains("merlPaths"))
        for (const auto& path : get<py::list>(d, "merlPaths"))
            m.merlMix.push_back(MERLBRDF::load(path.cast<std::string>()));
    if (d.contains("merlFits"))
        for (const auto& fit : get<py::list>(d, "merlFits"))
            m.merlMixFits.push_back(toDiffuseSpecularData(fit.cast<py::dict>()));
    m.merlMixFits.resize(m.merlMix.size());
    if (d.contains("rglPath"))
        m.rgl = RGLBRDF::load(get<std::string>(d, "rglPath"));
    if (!m.isBasicMaterial)
        return m;
    m.shadingModel = ShadingModel(get<uint32_t>(d, "shadingModel"));
    m.normalMapType = NormalMapType(get<uint32_t>(d, "normalMapType"));
    m.baseColor = getFinite<4>(d, "baseColor");
    m.specular = getFinite<4>(d, "specular");
    m.emissiveColor = getFinite<3>(d, "emissiveColor");
    m.emissiveFactor = getFinite(d, "emissiveFactor");
    m.transmission = getFinite<3>(d, "transmission");
    m.diffuseTransmission = getFinite(d, "diffuseTransmission");
    m.specularTransmission = getFinite(d, "specularTransmission");
    m.volumeAbsorption = getFinite<3>(d, "volumeAbsorption");
    m.volumeScattering = getFinite<3>(d, "volumeScattering");
    m.volumeAnisotropy = getFinite(d, "volumeAnisotropy");
    m.displacementScale = getFinite(d, "displacementScale");
    m.displacementOffset = getFinite(d, "displacementOffset");
    return m;
}

LightData toLight(const py::dict& d)
{
    LightData l;
    l.type = LightType(get<uint32_t>(d, "type"));
    l.posW = getVector<3>(d, "posW");
    l.dirW = getVector<3>(d, "dirW");
    l.intensity = getVector<3>(d, "intensity");
    l.openingAngle = get<float>(d, "openingAngle");
    l.cosOpeningAngle = get<float>(d, "cosOpeningAngle");
    l.penumbraAngle = get<float>(d, "penumbraAngle");
    l.cosSubtendedAngle = get<float>(d, "cosSubtendedAngle");
    l.surfaceArea = get<float>(d, "surfaceArea");
    l.tangent = getVector<3>(d, "tangent");
    l.bitangent = getVector<3>(d, "bitangent");
    l.transMat = matrixFrom<float4x4, 4, 4>(d["transMat"]);
    return l;
}

Camera::Params toCameraParams(const py::dict& d)
{
    Camera::Params p;
    p.position = getVector<3>(d, "position");
    p.target = getVector<3>(d, "target");
    p.up = getVector<3>(d, "up");
    p.focalLength = get<float>(d, "focalLength");
    p.frameHeight = get<float>(d, "frameHeight");
    p.frameWidth = get<float>(d, "frameWidth");
    p.aspectRatio = get<float>(d, "aspectRatio");
    p.focalDistance = get<float>(d, "focalDistance");
    p.apertureRadius = get<float>(d, "apertureRadius");
    p.shutterSpeed = get<float>(d, "shutterSpeed");
    p.ISOSpeed = get<float>(d, "ISOSpeed");
    p.nearZ = get<float>(d, "nearPlane");
    p.farZ = get<float>(d, "farPlane");
    return p;
}

std::shared_ptr<EnvMap> toEnvMap(const py::object& obj)
{
    if (obj.is_none())
        return nullptr;
    py::dict d = obj.cast<py::dict>();
    auto e = std::make_shared<EnvMap>();
    e->texture = get<TexturePtr>(d, "texture");
    e->transform = matrixFrom<float3x3, 3, 3>(d["transform"]);
    e->invTransform = transpose(e->transform); // a rotation
    e->intensity = getFinite(d, "intensity");
    e->tint = getFinite<3>(d, "tint");
    return e;
}

py::dict cameraDataDict(const CameraData& c)
{
    py::dict d;
    d["viewMat"] = toArray(c.viewMat);
    d["prevViewMat"] = toArray(c.prevViewMat);
    d["projMat"] = toArray(c.projMat);
    d["projMatNoJitter"] = toArray(c.projMatNoJitter);
    d["viewProjMat"] = toArray(c.viewProjMat);
    d["invViewProj"] = toArray(c.invViewProj);
    d["viewProjMatNoJitter"] = toArray(c.viewProjMatNoJitter);
    d["prevViewProjMatNoJitter"] = toArray(c.prevViewProjMatNoJitter);
    for (auto [name, v] : {std::pair{"posW", c.posW}, {"prevPosW", c.prevPosW}, {"up", c.up}, {"target", c.target},
                           {"cameraU", c.cameraU}, {"cameraV", c.cameraV}, {"cameraW", c.cameraW}})
        d[name] = toTuple(v);
    for (auto [name, v] : {std::pair{"focalLength", c.focalLength}, {"aspectRatio", c.aspectRatio}, {"nearZ", c.nearZ},
                           {"farZ", c.farZ}, {"jitterX", c.jitterX}, {"jitterY", c.jitterY}, {"frameHeight", c.frameHeight},
                           {"frameWidth", c.frameWidth}, {"focalDistance", c.focalDistance}, {"apertureRadius", c.apertureRadius},
                           {"shutterSpeed", c.shutterSpeed}, {"ISOSpeed", c.ISOSpeed}})
        d[name] = v;
    return d;
}

py::dict instanceDict(const Scene::Instance& i)
{
    py::dict d;
    d["mesh_id"] = i.meshID;
    d["material_id"] = i.materialID;
    d["node_id"] = i.nodeID;
    d["world"] = toArray(i.worldMatrix);
    d["prev_world"] = toArray(i.prevWorldMatrix);
    d["normal_matrix"] = toArray(i.normalMatrix);
    d["front_face_cw"] = i.frontFaceCW;
    return d;
}

/// Scene locks are waited for without the GIL: a thread holding one may need the GIL (a graph
/// execution running a Python pass), so waiting with it could deadlock.
std::unique_lock<std::shared_mutex> writeLock(Scene& scene)
{
    py::gil_scoped_release release;
    return scene.lockForWriting();
}

Scene::ReadLock readLock(const Scene& scene)
{
    py::gil_scoped_release release;
    return scene.lockForReading();
}

/// The rays of a batch: origins and directions (K, 3), t ranges scalar or (K,).
std::vector<Ray> toRays(const py::object& origins, const py::object& dirs, const py::object& tMin, const py::object& tMax)
{
    auto o = rows<float3, 3>(origins, "origins");
    auto d = rows<float3, 3>(dirs, "directions");
    FALCOR_CHECK(o.size() == d.size(), "cast_rays: ", o.size(), " origins but ", d.size(), " directions.");
    FloatArray lo = FloatArray::ensure(tMin), hi = FloatArray::ensure(tMax);
    for (const FloatArray* a : {&lo, &hi})
        FALCOR_CHECK(*a && (a->size() == 1 || size_t(a->size()) == o.size()), "cast_rays: t_min and t_max must be scalars or have shape (K,).");
    std::vector<Ray> rays(o.size());
    for (size_t i = 0; i < rays.size(); ++i)
    {
        rays[i] = Ray{o[i], lo.data()[lo.size() == 1 ? 0 : i], d[i], hi.data()[hi.size() == 1 ? 0 : i]};
        if (const char* why = whyUntraceable(rays[i]))
            throwError("cast_rays: ray ", i, " can't be traced: ", why, ".");
    }
    return rays;
}

py::dict castRays(const Scene& scene, const py::object& origins, const py::object& dirs, const py::object& tMin,
                  const py::object& tMax, bool anyHit)
{
    std::vector<Ray> rays = toRays(origins, dirs, tMin, tMax);
    auto lock = readLock(scene);
    const py::ssize_t k = py::ssize_t(rays.size());
    py::dict result;
    if (anyHit)
    {
        py::array_t<bool> hit(k);
        std::vector<uint8_t> h(rays.size());
        {
            py::gil_scoped_release release;
            scene.castShadowRays(rays, h);
        }
        std::copy(h.begin(), h.end(), hit.mutable_data());
        result["hit"] = hit;
        return result;
    }
    std::vector<TriangleHit> hits(rays.size());
    {
        py::gil_scoped_release release;
        scene.castRays(rays, hits);
    }
    py::array_t<float> t(k), bary({k, py::ssize_t(2)});
    py::array_t<uint32_t> inst(k), prim(k);
    py::array_t<bool> hit(k);
    for (py::ssize_t i = 0; i < k; ++i)
    {
        const TriangleHit& h = hits[size_t(i)];
        t.mutable_at(i) = h.t;
        inst.mutable_at(i) = h.instanceID;
        prim.mutable_at(i) = h.primitiveIndex;
        bary.mutable_at(i, 0) = h.barycentrics.x();
        bary.mutable_at(i, 1) = h.barycentrics.y();
        hit.mutable_at(i) = h.isValid();
    }
    result["hit"] = hit;
    result["t"] = t;
    result["instance_id"] = inst;
    result["primitive_index"] = prim;
    result["barycentrics"] = bary;
    return result;
}
/// Vertex indices of an (M, 3) integer array, checked against the vertex count.
std::vector<uint32_t> triangleIndices(const py::handle& obj, size_t vertexCount, const char* what)
{
    using IndexArray = py::array_t<int64_t, py::array::c_style | py::array::forcecast>;
    IndexArray a = IndexArray::ensure(obj);
    FALCOR_CHECK(a && a.ndim() == 2 && a.shape(1) == 3, what, ": triangles must be an (M, 3) integer array.");
    std::vector<uint32_t> indices(size_t(a.size()));
    const int64_t* src = a.data();
    for (size_t i = 0; i < indices.size(); ++i)
    {
        FALCOR_CHECK(src[i] >= 0 && uint64_t(src[i]) < vertexCount, what, ": triangle ", i / 3, " refers to vertex ", src[i], " of ",
                     vertexCount, ".");
        indices[i] = uint32_t(src[i]);
    }
    return indices;
}

/// The rows of a C-contiguous float32 array as vectors, without a copy (vectors are arrays of floats).
template<typename V>
std::span<const V> view(const FloatArray& a)
{
    static_assert(alignof(V) == alignof(float) && sizeof(V) % sizeof(float) == 0);
    return {reinterpret_cast<const V*>(a.data()), size_t(a.shape(0))};
}
template<typename V>
std::span<V> mutableView(py::array_t<float>& a)
{
    return {reinterpret_cast<V*>(a.mutable_data()), size_t(a.shape(0))};
}

constexpr char kGeometryCacheTag[9] = "FSCNGEOM";
constexpr uint32_t kGeometryCacheVersion = 1;

} // namespace

DiffuseSpecularData toDiffuseSpecularData(const py::dict& d)
{
    DiffuseSpecularData fit;
    if (d.empty())
        return fit;
    fit.baseColor = getVector<3>(d, "baseColor");
    fit.roughness = get<float>(d, "roughness");
    fit.specular = get<float>(d, "specular");
    fit.metallic = get<float>(d, "metallic");
    return fit;
}

void registerSceneBindings(py::module_& m)
{
    m.def(
        "generate_tangents",
        [](const py::object& positions, const py::object& normals, const py::object& texcoords, const py::object& triangles) {
            const FloatArray p = rowArray(positions, 3, "positions"), n = rowArray(normals, 3, "normals"), t = rowArray(texcoords, 2, "texcoords");
            FALCOR_CHECK(p.shape(0) == n.shape(0) && p.shape(0) == t.shape(0), "generate_tangents: ", p.shape(0), " positions, ", n.shape(0),
                         " normals and ", t.shape(0), " texture coordinates; they must match.");
            const std::vector<uint32_t> indices = triangleIndices(triangles, size_t(p.shape(0)), "generate_tangents");
            py::array_t<float> tangents({p.shape(0), py::ssize_t(4)});
            {
                py::gil_scoped_release release;
                generateTangents(view<float3>(p), view<float3>(n), view<float2>(t), indices, mutableView<float4>(tangents));
            }
            return tangents;
        },
        "positions"_a, "normals"_a, "texcoords"_a, "triangles"_a,
        "(N, 4) float32 tangent frames from texture coordinates (angle-weighted, w = handedness), on the engine's threads.");
    m.def(
        "expand_flat",
        [](const py::object& positions, const py::object& texcoords, const py::object& triangles) {
            const FloatArray p = rowArray(positions, 3, "positions"), t = rowArray(texcoords, 2, "texcoords");
            FALCOR_CHECK(p.shape(0) == t.shape(0), "expand_flat: ", p.shape(0), " positions but ", t.shape(0), " texture coordinates.");
            const std::vector<uint32_t> indices = triangleIndices(triangles, size_t(p.shape(0)), "expand_flat");
            const py::ssize_t corners = py::ssize_t(indices.size());
            py::array_t<float> outPositions({corners, py::ssize_t(3)}), outNormals({corners, py::ssize_t(3)}), outTexcoords({corners, py::ssize_t(2)});
            {
                py::gil_scoped_release release;
                expandFlat(view<float3>(p), view<float2>(t), indices,
                           {mutableView<float3>(outPositions), mutableView<float3>(outNormals), mutableView<float2>(outTexcoords)});
            }
            return py::make_tuple(outPositions, outNormals, outTexcoords);
        },
        "positions"_a, "texcoords"_a, "triangles"_a,
        "Flat shading: (positions, normals, texcoords) with three vertices of its own per triangle carrying its unit face normal.");

    // The values only: falcor.SceneUpdateFlags (Python) is an IntFlag built from these.
    py::enum_<Scene::UpdateFlags> flags(m, "_SceneUpdateFlags");
    for (auto [name, value] : std::initializer_list<std::pair<const char*, Scene::UpdateFlags>>{
             {"None_", Scene::UpdateFlags::None},
             {"GeometryMoved", Scene::UpdateFlags::GeometryMoved},
             {"CameraMoved", Scene::UpdateFlags::CameraMoved},
             {"CameraPropertiesChanged", Scene::UpdateFlags::CameraPropertiesChanged},
             {"CameraSwitched", Scene::UpdateFlags::CameraSwitched},
             {"LightsMoved", Scene::UpdateFlags::LightsMoved},
             {"LightIntensityChanged", Scene::UpdateFlags::LightIntensityChanged},
             {"LightPropertiesChanged", Scene::UpdateFlags::LightPropertiesChanged},
             {"SceneGraphChanged", Scene::UpdateFlags::SceneGraphChanged},
             {"LightCollectionChanged", Scene::UpdateFlags::LightCollectionChanged},
             {"MaterialsChanged", Scene::UpdateFlags::MaterialsChanged},
             {"EnvMapChanged", Scene::UpdateFlags::EnvMapChanged},
             {"EnvMapPropertiesChanged", Scene::UpdateFlags::EnvMapPropertiesChanged},
             {"LightCountChanged", Scene::UpdateFlags::LightCountChanged},
             {"RenderSettingsChanged", Scene::UpdateFlags::RenderSettingsChanged},
             {"GeometryChanged", Scene::UpdateFlags::GeometryChanged},
             {"MeshesChanged", Scene::UpdateFlags::MeshesChanged},
             {"EmissiveMaterialsChanged", Scene::UpdateFlags::EmissiveMaterialsChanged},
             {"All", Scene::UpdateFlags::All}})
        flags.value(name, value);

    py::classh<Scene> scene(m, "NativeScene",
                            "The render-side scene that render passes read (see Scene/Scene.h). Built and updated by "
                            "falcor.Scene; use `falcor.Scene.native` to reach it.");
    scene.def(py::init<>());

    // ---- building ----
    scene.def("add_mesh", [](Scene& s, const std::string& name, const py::object& positions, const py::object& normals,
                             const py::object& tangents, const py::object& texcoords, const py::object& triangles,
                             uint32_t materialID, bool frontFaceCW, bool isAnimated) {
        auto lock = writeLock(s);
        Scene::Mesh mesh;
        mesh.name = name;
        mesh.positions = rows<float3, 3>(positions, "positions");
        mesh.normals = rows<float3, 3>(normals, "normals");
        mesh.tangents = rows<float4, 4>(tangents, "tangents");
        mesh.texCrds = rows<float2, 2>(texcoords, "texcoords");
        UintArray tri = UintArray::ensure(triangles);
        FALCOR_CHECK(tri && tri.ndim() == 2 && tri.shape(1) == 3, "NativeScene: triangles must be an (M, 3) uint array.");
        mesh.triangles = unpack<uint3>(tri.data(), size_t(tri.shape(0)));
        mesh.materialID = materialID;
        mesh.frontFaceCW = frontFaceCW;
        mesh.isAnimated = isAnimated;
        return s.addMesh(std::move(mesh));
    }, "name"_a, "positions"_a, "normals"_a, "tangents"_a, "texcoords"_a, "triangles"_a, "material_id"_a, "front_face_cw"_a,
       "is_animated"_a);
    scene.def("add_instance", [](Scene& s, uint32_t meshID, uint32_t nodeID, const py::object& world) {
        auto lock = writeLock(s);
        return s.addInstance(meshID, nodeID, matrixFrom<float4x4, 4, 4>(world));
    }, "mesh_id"_a, "node_id"_a, "world"_a);
    scene.def("set_material", [](Scene& s, uint32_t id, const py::dict& d) { auto lock = writeLock(s); s.setMaterial(id, toMaterial(d)); }, "id"_a, "data"_a);
    scene.def("finalize", [](Scene& s) {
        auto lock = writeLock(s);
        py::gil_scoped_release release;
        s.finalize();
    });

    // ---- scene cache (falcor.scene.cache) ----
    m.def("content_checksum", [](const py::buffer& data) {
        const py::buffer_info info = data.request();
        return contentChecksum({static_cast<const uint8_t*>(info.ptr), size_t(info.size * info.itemsize)});
    }, "data"_a, "The 64-bit checksum the scene cache seals its native geometry with (not cryptographic).");
    scene.def("append_geometry_cache", [](const Scene& s, const std::string& path) {
        py::gil_scoped_release release;
        ByteWriter writer;
        s.writeGeometryCache(writer);
        const std::vector<uint8_t> header = sealHeader(writer.bytes(), kGeometryCacheTag, kGeometryCacheVersion);
        std::ofstream file(path, std::ios::binary | std::ios::app);
        file.write(reinterpret_cast<const char*>(header.data()), std::streamsize(header.size()));
        file.write(reinterpret_cast<const char*>(writer.bytes().data()), std::streamsize(writer.bytes().size()));
        FALCOR_CHECK(file.good(), "Can't write the scene cache file '", path, "'.");
    }, "path"_a, "Appends the meshes and their bottom-level trees, sealed with a checksum, to the file at `path`.");
    scene.def("read_geometry_cache", [](Scene& s, const std::string& path, uint64_t offset) {
        auto lock = writeLock(s);
        py::gil_scoped_release release;
        try
        {
            const MappedFile file(path, offset);
            ByteReader reader(unseal(file.bytes(), kGeometryCacheTag, kGeometryCacheVersion));
            s.readGeometryCache(reader);
            FALCOR_CHECK(reader.remaining() == 0, reader.remaining(), " bytes left over.");
        }
        catch (const std::exception& e)
        {
            throwError("Scene cache file '", path, "': ", e.what());
        }
    }, "path"_a, "offset"_a, "Restores meshes and trees written by append_geometry_cache at byte `offset` of `path` (then add instances, "
       "set materials and finalize). A damaged file raises.");

    // ---- per-frame updates ----
    scene.def("set_instance_transforms", [](Scene& s, const py::object& matrices) {
        auto lock = writeLock(s);
        FloatArray a = FloatArray::ensure(matrices);
        FALCOR_CHECK(a && a.ndim() == 3 && a.shape(1) == 4 && a.shape(2) == 4, "NativeScene: transforms must be a (K, 4, 4) array.");
        s.setInstanceTransforms(unpack<float4x4>(a.data(), size_t(a.shape(0))));
    }, "matrices"_a);
    scene.def("set_camera", [](Scene& s, const py::dict& d, bool switched) { auto lock = writeLock(s); s.setCamera(toCameraParams(d), switched); },
              "params"_a, "switched"_a = false);
    scene.def("set_lights", [](Scene& s, const py::list& lights, bool activeSetChanged) {
        auto lock = writeLock(s);
        std::vector<LightData> data;
        for (auto l : lights)
            data.push_back(toLight(l.cast<py::dict>()));
        s.setLights(std::move(data), activeSetChanged);
    }, "active_lights"_a, "active_set_changed"_a);
    scene.def("set_env_map", [](Scene& s, const py::object& d) { auto lock = writeLock(s); s.setEnvMap(toEnvMap(d)); }, "data"_a);
    scene.def("set_render_settings", [](Scene& s, const py::dict& d) {
        auto lock = writeLock(s);
        s.setRenderSettings({get<bool>(d, "useEnvLight"), get<bool>(d, "useAnalyticLights"), get<bool>(d, "useEmissiveLights"),
                             get<bool>(d, "useGridVolumes"), get<float>(d, "diffuseAlbedoMultiplier")});
    }, "settings"_a);
    scene.def("set_mesh_vertices", [](Scene& s, uint32_t meshID, const py::object& positions, const py::object& normals,
                                      const py::object& tangents, const py::object& texcoords) {
        auto lock = writeLock(s);
        s.setMeshVertices(meshID, rows<float3, 3>(positions, "positions"), rows<float3, 3>(normals, "normals"),
                          rows<float4, 4>(tangents, "tangents"), rows<float2, 2>(texcoords, "texcoords"));
    }, "mesh_id"_a, "positions"_a, "normals"_a, "tangents"_a, "texcoords"_a);
    scene.def("set_mesh_skin", [](Scene& s, uint32_t meshID, const py::object& positions, const py::object& normals,
                                  const py::object& tangents, const py::object& jointIndices, const py::object& weights, uint32_t jointCount) {
        MeshSkin skin;
        skin.bindPositions = rows<float3, 3>(positions, "bind positions");
        skin.bindNormals = rows<float3, 3>(normals, "bind normals");
        skin.bindTangents = rows<float4, 4>(tangents, "bind tangents");
        UintArray indices = UintArray::ensure(jointIndices);
        FALCOR_CHECK(indices && indices.ndim() == 2, "NativeScene: joint indices must be an (N, K) uint array.");
        const FloatArray w = rowArray(weights, indices.shape(1), "NativeScene: joint weights (as wide as the joint indices)");
        FALCOR_CHECK(w.shape(0) == indices.shape(0), "NativeScene: ", indices.shape(0), " rows of joint indices, ", w.shape(0), " of weights.");
        skin.influences = uint32_t(indices.shape(1));
        skin.jointIndices = unpack<uint32_t>(indices.data(), size_t(indices.size()));
        skin.weights = unpack<float>(w.data(), size_t(w.size()));
        skin.jointCount = jointCount;
        auto lock = writeLock(s);
        s.setMeshSkin(meshID, std::move(skin));
    }, "mesh_id"_a, "bind_positions"_a, "bind_normals"_a, "bind_tangents"_a, "joint_indices"_a, "weights"_a, "joint_count"_a,
       "Makes a mesh skinned: its bind pose (N, 3/3/4) and (N, K) joint indices and weights (rows summing to 1).");
    scene.def("set_skinning_matrices", [](Scene& s, uint32_t meshID, const py::object& matrices) {
        const FloatArray a = FloatArray::ensure(matrices);
        FALCOR_CHECK(a && a.ndim() == 3 && a.shape(1) == 4 && a.shape(2) == 4, "NativeScene: skinning matrices must be a (J, 4, 4) float array.");
        const HugePageVector<float4x4> m = unpack<float4x4>(a.data(), size_t(a.shape(0)));
        auto lock = writeLock(s);
        py::gil_scoped_release release;
        s.setSkinningMatrices(meshID, m);
    }, "mesh_id"_a, "matrices"_a, "Poses a skinned mesh: one (joint world @ inverse bind) matrix per joint, (J, 4, 4).");
    scene.def("update", [](Scene& s, uint32_t extra) {
        auto lock = writeLock(s);
        py::gil_scoped_release release;
        return uint32_t(s.update(Scene::UpdateFlags(extra)));
    }, "extra_flags"_a = 0u, "Ends the frame's update; returns the SceneUpdateFlags bits of what changed.");
    scene.def("reset_frame_history", [](Scene& s) { auto lock = writeLock(s); s.resetFrameHistory(); },
              "The next update starts a new frame history (previous-frame data = current), as the first one does.");
    py::classh<Scene::FrameState>(scene, "FrameState", "What `save_frame_state` saved (opaque).");
    scene.def("save_frame_state", [](const Scene& s) { auto lock = readLock(s); return s.saveFrameState(); },
              "What updates change, geometry aside (instances, lights, camera with its jitter pattern, frame history): "
              "falcor.render saves it before rendering a scene it borrows.");
    scene.def("restore_frame_state", [](Scene& s, Scene::FrameState state) { auto lock = writeLock(s); s.restoreFrameState(std::move(state)); },
              "state"_a, "Puts back what save_frame_state saved (the update count keeps counting).");
    scene.def("set_jitter", [](Scene& s, float x, float y) { auto lock = writeLock(s); s.getCamera().setJitter(x, y); }, "jitter_x"_a, "jitter_y"_a);

    // ---- queries ----
    scene.def_property_readonly("mesh_count", [](const Scene& s) { return s.getMeshes().size(); });
    scene.def_property_readonly("instance_count", [](const Scene& s) { return s.getInstances().size(); });
    scene.def_property_readonly("material_count", [](const Scene& s) { return s.getMaterials().size(); });
    scene.def_property_readonly("active_light_count", [](const Scene& s) { return s.getActiveLights().size(); });
    scene.def_property_readonly("has_env_map", [](const Scene& s) { return s.getEnvMap() != nullptr; });
    scene.def_property_readonly("updates", [](const Scene& s) { return uint32_t(s.getUpdates()); });
    scene.def_property_readonly("update_count", &Scene::getUpdateCount);
    scene.def_property_readonly("bounds", [](const Scene& s) {
        return py::make_tuple(toTuple(s.getSceneBounds().minPoint), toTuple(s.getSceneBounds().maxPoint));
    });
    scene.def_property_readonly("camera_data", [](const Scene& s) { return cameraDataDict(s.getCamera().getData()); });
    scene.def("compute_camera_ray", [](const Scene& s, const py::object& pixel, const py::object& frameDim, const py::object& lensSample,
                                       bool applyJitter) {
        auto lock = readLock(s);
        const Camera& c = s.getCamera();
        const uint2 p = toVector<uint32_t, 2>(pixel), dim = toVector<uint32_t, 2>(frameDim);
        const Ray r = lensSample.is_none() ? c.computeRayPinhole(p, dim, applyJitter) : c.computeRayThinlens(p, dim, toVector<float, 2>(lensSample));
        return py::dict("origin"_a = toTuple(r.origin), "dir"_a = toTuple(r.dir), "t_min"_a = r.tMin, "t_max"_a = r.tMax);
    }, "pixel"_a, "frame_dim"_a, "lens_sample"_a = py::none(), "apply_jitter"_a = true,
       "The camera's primary ray through a pixel: pinhole, or thin lens when a lens sample in [0,1)² is given.");
    scene.def_property_readonly("camera_changes", [](const Scene& s) { return uint32_t(s.getCamera().getChanges()); });
    scene.def("get_instance", [](const Scene& s, uint32_t i) { auto lock = readLock(s); return instanceDict(s.getInstance(i)); }, "instance_id"_a);
    scene.def("get_mesh_arrays", [](const Scene& s, uint32_t meshID) {
        auto lock = readLock(s);
        const Scene::Mesh& mesh = s.getMesh(meshID);
        auto array = [](const auto& v, py::ssize_t columns) {
            return py::array_t<float>({py::ssize_t(v.size()), columns}, reinterpret_cast<const float*>(v.data()));
        };
        py::array_t<uint32_t> tri({py::ssize_t(mesh.triangles.size()), py::ssize_t(3)},
                                  reinterpret_cast<const uint32_t*>(mesh.triangles.data()));
        return py::dict("positions"_a = array(mesh.positions, 3), "normals"_a = array(mesh.normals, 3),
                        "tangents"_a = array(mesh.tangents, 4), "texcoords"_a = array(mesh.texCrds, 2), "triangles"_a = tri);
    }, "mesh_id"_a, "Copies of a mesh's object-space arrays.");
    scene.def("get_material_emission", [](const Scene& s, uint32_t id, const py::object& uv, float lod) {
        auto lock = readLock(s);
        return toTuple(s.getMaterial(id).getEmission(toVector<float, 2>(uv), lod));
    }, "material_id"_a, "uv"_a, "lod"_a = 0.f);
    scene.def("get_material_base_color", [](const Scene& s, uint32_t id, const py::object& uv, float lod) {
        auto lock = readLock(s);
        return toTuple(s.getMaterial(id).getBaseColor(toVector<float, 2>(uv), lod));
    }, "material_id"_a, "uv"_a, "lod"_a = 0.f);
    scene.def("get_vertex_data", [](const Scene& s, uint32_t instanceID, uint32_t primitiveIndex, const py::object& bary) {
        auto lock = readLock(s);
        TriangleHit hit;
        hit.instanceID = instanceID;
        hit.primitiveIndex = primitiveIndex;
        hit.barycentrics = toVector<float, 2>(bary);
        Scene::VertexData v = s.getVertexData(hit);
        return py::dict("posW"_a = toTuple(v.posW), "normalW"_a = toTuple(v.normalW), "tangentW"_a = toTuple(v.tangentW),
                        "texC"_a = toTuple(v.texC), "faceNormalW"_a = toTuple(v.faceNormalW), "prevPosW"_a = toTuple(s.getPrevPosW(hit)));
    }, "instance_id"_a, "primitive_index"_a, "barycentrics"_a);
    scene.def("get_light", [](const Scene& s, uint32_t i) {
        auto lock = readLock(s);
        const LightData& l = s.getActiveLights().at(i);
        return py::dict("type"_a = uint32_t(l.type), "posW"_a = toTuple(l.posW), "dirW"_a = toTuple(l.dirW),
                        "intensity"_a = toTuple(l.intensity), "surfaceArea"_a = l.surfaceArea, "transMat"_a = toArray(l.transMat));
    }, "index"_a);
    scene.def("eval_env_map", [](const Scene& s, const py::object& dir) {
        auto lock = readLock(s);
        FALCOR_CHECK(s.getEnvMap(), "eval_env_map: the scene has no environment map.");
        return toTuple(s.getEnvMap()->eval(toVector<float, 3>(dir)));
    }, "direction"_a);
    scene.def("cast_rays", &castRays, "origins"_a, "directions"_a, "t_min"_a = 0.f, "t_max"_a = INFINITY, "any_hit"_a = false,
              "Batch ray query: closest hits (t, instance_id, primitive_index, barycentrics, hit) or, with any_hit, only hit.");

    // ---- Test hooks: the surface code over lanes against its one-path form (Scene/SurfaceLanesCheck.h) ----
    // Each returns {field: (N, words) uint32 array of its bits}; `scalar` runs the one-path functions,
    // else the lane kernels of the active ISA.
    const auto fieldArrays = [](size_t count, const auto& visitOnce, const auto& fill) {
        std::vector<std::pair<std::string, size_t>> fields;
        visitOnce([&](const char* name, const auto& value) {
            uint32_t scratch[16];
            LaneWordWriter w{0, scratch};
            w(name, value);
            fields.emplace_back(name, size_t(w.out - scratch));
        });
        size_t wordsPerRow = 0;
        for (const auto& field : fields)
            wordsPerRow += field.second;
        std::vector<uint32_t> words(count * wordsPerRow, 0u);
        fill(wordsPerRow, words.data());
        py::dict result;
        for (size_t column = 0; const auto& [name, width] : fields)
        {
            py::array_t<uint32_t> a({py::ssize_t(count), py::ssize_t(width)});
            for (size_t i = 0; i < count; ++i)
                std::copy_n(&words[i * wordsPerRow + column], width, a.mutable_data(py::ssize_t(i), 0));
            result[py::str(name)] = a;
            column += width;
        }
        return result;
    };
    scene.def("_lanes_surface", [fieldArrays](const Scene& s, const py::object& instanceIDs, const py::object& primitiveIndices,
                                              const py::object& barycentrics, const py::object& rayDirs, const py::object& active, bool scalar) {
        auto lock = readLock(s);
        const UintArray inst = UintArray::ensure(instanceIDs), prim = UintArray::ensure(primitiveIndices);
        const auto on = py::array_t<uint8_t, py::array::c_style | py::array::forcecast>::ensure(active);
        FALCOR_CHECK(inst && inst.ndim() == 1 && prim && prim.ndim() == 1 && on && on.ndim() == 1, "_lanes_surface: instance_ids, primitive_indices and active must be 1-D arrays.");
        const size_t n = size_t(inst.shape(0));
        const FloatArray bary = rowArray(barycentrics, 2, "_lanes_surface: barycentrics"), dirs = rowArray(rayDirs, 3, "_lanes_surface: ray_dirs");
        FALCOR_CHECK(size_t(prim.shape(0)) == n && size_t(on.shape(0)) == n && size_t(bary.shape(0)) == n && size_t(dirs.shape(0)) == n,
                     "_lanes_surface: every input needs the same number of rows (", n, ").");
        const std::span<const float2> b = view<float2>(bary);
        const std::span<const float3> d = view<float3>(dirs);
        return fieldArrays(n, [](auto&& put) { visitSurfaceFields(Scene::VertexData{}, ShadingData{}, put); }, [&](size_t wordsPerRow, uint32_t* out) {
            if (!scalar)
                return surfaceLanesCheck(s, n, wordsPerRow, inst.data(), prim.data(), bary.data(), dirs.data(), on.data(), out);
            for (size_t i = 0; i < n; ++i)
            {
                if (!on.data()[i])
                    continue;
                TriangleHit hit;
                hit.instanceID = inst.data()[i], hit.primitiveIndex = prim.data()[i], hit.barycentrics = b[i];
                visitSurfaceFields(s.getVertexData(hit), loadShadingData(s, hit, d[i]), LaneWordWriter{0, out + i * wordsPerRow});
            }
        });
    }, "instance_ids"_a, "primitive_indices"_a, "barycentrics"_a, "ray_dirs"_a, "active"_a, "scalar"_a = false,
       "Test hook: vertex and shading data at hits (rows with active=False are masked-off lanes, their IDs may be invalid).");
    m.def("_lanes_shading_frame", [fieldArrays](const py::object& normals, const py::object& tangents, const py::object& vectors, bool scalar) {
        const FloatArray nrm = rowArray(normals, 3, "_lanes_shading_frame: normals"), tan = rowArray(tangents, 4, "_lanes_shading_frame: tangents"),
                         vec = rowArray(vectors, 3, "_lanes_shading_frame: vectors");
        const size_t n = size_t(nrm.shape(0));
        FALCOR_CHECK(size_t(tan.shape(0)) == n && size_t(vec.shape(0)) == n, "_lanes_shading_frame: every input needs the same number of rows (", n, ").");
        return fieldArrays(n, [](auto&& put) { visitShadingFrameFields(float3(), float4(), float3(), put); }, [&](size_t wordsPerRow, uint32_t* out) {
            if (!scalar)
                return shadingFrameLanesCheck(n, wordsPerRow, nrm.data(), tan.data(), vec.data(), out);
            for (size_t i = 0; i < n; ++i)
                visitShadingFrameFields(view<float3>(nrm)[i], view<float4>(tan)[i], view<float3>(vec)[i], LaneWordWriter{0, out + i * wordsPerRow});
        });
    }, "normals"_a, "tangents"_a, "vectors"_a, "scalar"_a = false,
       "Test hook: shading frames (createSafe, fromNormalTangent, toLocal/fromLocal of vectors, perpStark of normals).");
}

} // namespace falcor::python
