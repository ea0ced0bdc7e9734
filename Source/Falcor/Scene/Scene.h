#pragma once
#include "Core/Macros.h"
#include "Scene/Acceleration/RayTracing.h"
#include "Scene/Camera.h"
#include "Scene/EnvMap.h"
#include "Scene/Light.h"
#include "Scene/Material.h"
#include "Scene/SceneMath.h"
#include "Scene/SceneUpdateFlags.h"
#include "Scene/Skinning.h"
#include "Scene/TriangleHitLanes.h"
#include "Utils/HugePageAllocator.h"
#include "Utils/Math/AABB.h"
#include "Utils/Serialization/ByteStream.h"
#include <array>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <utility>
#include <span>
#include <string>
#include <vector>

namespace falcor
{
/// The render-side snapshot of a scene: everything render passes read, in plain arrays.
///
/// The Python `falcor.Scene` is the source of truth (what users edit); it builds this object once
/// and then, every frame, pushes what changed and calls `update()`. Passes get it through
/// `RenderPass::setScene` and read it during `execute` (never concurrently with an update).
///
/// What a pass finds here:
/// - geometry: `getMeshes()` (object-space vertices, tangents with the bitangent sign in w, UVs,
///   triangles, material) and `getInstances()` (one per placed mesh: world and previous-frame
///   world matrices, normal matrices, front-face winding). Instance and primitive indices are
///   those of ray hits (`TriangleHit`), as in Falcor's `GeometryInstanceID`/`primitiveIndex`.
/// - `getVertexData(hit)`: interpolated world-space position, shading and face normals, tangent
///   and texture coordinate at a hit; `getPrevPosW(hit)` the same point a frame earlier.
/// - materials: `getMaterial(id)` (`MaterialData`: constants, textures and lookup helpers).
/// - lights: `getActiveLights()` (`LightData`), `getEnvMap()` (nullptr if none), render settings.
/// - camera: `getCamera()` (matrices, previous-frame matrices, ray generation, jitter pattern).
/// - rays: `closestHit`/`anyHit` (alpha-tested against the materials) and `castRays` batches.
/// - `getUpdates()`: what changed in the last update (Falcor's IScene::UpdateFlags), so temporal
///   passes can reset; `getUpdateCount()` counts updates.
class FALCOR_API Scene
{
public:
    using UpdateFlags = SceneUpdateFlags;

    /// Which light sources renderers use (Falcor's Scene::RenderSettings).
    struct RenderSettings
    {
        bool useEnvLight = true;
        bool useAnalyticLights = true;
        bool useEmissiveLights = true;
        bool useGridVolumes = true;
        float diffuseAlbedoMultiplier = 1.f;
        bool operator==(const RenderSettings&) const = default;
    };

    /// A triangle mesh in object space. All per-vertex arrays have the same length.
    struct Mesh
    {
        std::string name;
        HugePageVector<float3> positions;
        HugePageVector<float3> normals;
        HugePageVector<float4> tangents; ///< xyz tangent, w = bitangent sign: B = w · cross(N, T).
        HugePageVector<float2> texCrds;
        HugePageVector<uint3> triangles;
        uint32_t materialID = 0;
        bool frontFaceCW = false; ///< Counter-clockwise triangles face front unless set.
        bool isAnimated = false;
        AABB bounds;              ///< Object space (computed by addMesh).
        /// Positions of the previous frame when the vertices moved in the last update (skinning);
        /// empty when they equal `positions`.
        HugePageVector<float3> prevPositions;
        std::shared_ptr<const MeshSkin> skin; ///< Set for skinned meshes: their vertices follow joints.
    };

    /// One placement of a mesh.
    struct Instance
    {
        uint32_t meshID = 0;
        uint32_t materialID = 0;
        uint32_t nodeID = 0; ///< Scene-graph node placing it.
        float4x4 worldMatrix = float4x4::identity();
        float4x4 prevWorldMatrix = float4x4::identity(); ///< Previous frame's (for motion vectors).
        float3x3 normalMatrix = float3x3::identity();    ///< Inverse transpose of worldMatrix.
        float3x3 prevNormalMatrix = float3x3::identity();
        /// worldMatrix is exactly the identity (meshes pre-transformed to world space): hits need
        /// no transforms.
        bool identity = true;
        /// Winding of front faces in world space: the mesh's, flipped when the matrix mirrors.
        bool frontFaceCW = false;
    };

    /// Geometry at a hit, in world space (Falcor's VertexData); at one hit per lane when F is a
    /// lane type (Utils/Simd/Lane.h).
    template<typename F>
    struct VertexDataT
    {
        vector<F, 3> posW;
        vector<F, 3> normalW;     ///< Interpolated shading normal (normalized).
        vector<F, 4> tangentW;    ///< Interpolated tangent (normalized xyz; w = bitangent sign, 0 when invalid).
        vector<F, 2> texC;
        vector<F, 3> faceNormalW; ///< Geometric normal, oriented like the front face (normalized).
        MaskOf<F> frontFacing = true; ///< Set by `getVertexData(hit, rayDir)`: the ray hit the front face.
    };
    using VertexData = VertexDataT<float>;

    Scene() = default;
    Scene(const Scene&) = delete; ///< Holds references to itself (alpha test), so it stays put.
    Scene& operator=(const Scene&) = delete;

    // ---- Building (once, by the Python SceneBuilder) ---------------------------------------
    /// Adds a mesh (its bounds are computed here); returns its id.
    uint32_t addMesh(Mesh mesh);
    /// Places mesh `meshID`; returns the instance id.
    uint32_t addInstance(uint32_t meshID, uint32_t nodeID, const float4x4& worldMatrix);
    /// Sets (or adds, when `id` == material count) a material.
    void setMaterial(uint32_t id, MaterialData material);
    /// Builds the acceleration structure and bounds; the next `update()` is the first frame.
    void finalize();

    // ---- Scene cache ------------------------------------------------------------------------
    /// Writes the meshes and their built bottom-level trees (after `finalize`).
    void writeGeometryCache(ByteWriter& out) const;
    /// Restores what `writeGeometryCache` wrote into a scene with no meshes yet; instances and
    /// materials are then added as usual and `finalize` reuses the trees instead of building
    /// them. Damaged data raises (every array length and tree reference is checked).
    void readGeometryCache(ByteReader& in);

    // ---- Per-frame updates (pushed by the Python scene, then `update()`) --------------------
    /// New world matrices, one per instance.
    void setInstanceTransforms(std::span<const float4x4> worldMatrices);
    void setCamera(const Camera::Params& params, bool switched);
    /// The active lights, in order. `activeSetChanged` when lights were (de)activated.
    void setLights(std::vector<LightData> activeLights, bool activeSetChanged);
    void setEnvMap(std::shared_ptr<EnvMap> envMap);
    void setRenderSettings(const RenderSettings& settings);
    /// Replaces a mesh's vertex data (same vertex count; Falcor's set_mesh_vertices). The mesh's
    /// bottom-level tree is rebuilt at the next update (MeshesChanged); previous-frame positions
    /// are not kept (the new vertices are a new rest shape, not motion).
    void setMeshVertices(uint32_t meshID, HugePageVector<float3> positions, HugePageVector<float3> normals, HugePageVector<float4> tangents,
                         HugePageVector<float2> texCrds);
    /// Makes a mesh skinned (see MeshSkin; its bind pose has the mesh's vertex count). Its vertices
    /// stay as they are until the first `setSkinningMatrices`.
    void setMeshSkin(uint32_t meshID, MeshSkin skin);
    /// Poses a skinned mesh: one matrix per joint (joint world matrix · inverse bind matrix). The
    /// vertices are skinned now; the positions they replace become the previous frame's (motion
    /// vectors), except in the first frame of a history. Its bottom-level tree is refit at the
    /// next update (GeometryMoved).
    void setSkinningMatrices(uint32_t meshID, std::span<const float4x4> skinningMatrices);
    /// Ends the frame's update: advances the camera (jitter, previous-frame matrices), makes
    /// untouched instances' previous matrices current, refits the acceleration structure and
    /// returns what changed (plus `extra`, flags the caller determined).
    UpdateFlags update(UpdateFlags extra = UpdateFlags::None);
    /// The next update starts a new frame history, as the first one after finalize: previous-
    /// frame matrices (instances and camera) and positions equal the current ones, and the camera
    /// has no jitter pattern until a G-buffer installs one.
    void resetFrameHistory()
    {
        mFirstFrame = true;
        mCamera.setPatternGenerator(nullptr, float2(0.f));
    }

    /// A skinned mesh's vertices as a frame left them.
    struct PosedVertices
    {
        uint32_t meshID = 0;
        HugePageVector<float3> positions, normals, prevPositions;
        HugePageVector<float4> tangents;
    };

    /// What updates change, static geometry aside: instance matrices, skinned vertices, lights,
    /// the camera (with its jitter pattern and previous-frame data) and the frame-history state. A
    /// render that borrows the scene (`falcor.render`) saves it and restores it afterwards, so the
    /// scene's owner finds the scene as it left it.
    struct FrameState
    {
        const Scene* pScene = nullptr; ///< The scene it was saved from.
        std::vector<Instance> instances;
        std::vector<PosedVertices> posedVertices;
        std::vector<uint32_t> movedMeshes, treesToRebuild;
        std::vector<LightData> lights;
        Camera camera;
        bool cameraSwitched = false, firstFrame = true, transformsSet = false;
        UpdateFlags pendingUpdates = UpdateFlags::None, updates = UpdateFlags::None;
    };
    FrameState saveFrameState() const;
    /// Puts back a saved state (refitting the acceleration structure if instances moved). The
    /// update count keeps counting: it tells passes the scene may differ from their last frame.
    void restoreFrameState(FrameState state);

    // ---- Queries ----------------------------------------------------------------------------
    const std::vector<Mesh>& getMeshes() const { return mMeshes; }
    const Mesh& getMesh(uint32_t meshID) const { return mMeshes.at(meshID); }
    const std::vector<Instance>& getInstances() const { return mInstances; }
    const Instance& getInstance(uint32_t instanceID) const { return mInstances.at(instanceID); }
    const std::vector<MaterialData>& getMaterials() const { return mMaterials; }
    const MaterialData& getMaterial(uint32_t materialID) const { return mMaterials.at(materialID); }
    const std::vector<LightData>& getActiveLights() const { return mLights; }
    /// nullptr when the scene has no environment map.
    const EnvMap* getEnvMap() const { return mpEnvMap.get(); }
    const RenderSettings& getRenderSettings() const { return mRenderSettings; }
    Camera& getCamera() { return mCamera; }
    const Camera& getCamera() const { return mCamera; }
    /// World-space bounds of all instances.
    const AABB& getSceneBounds() const { return mBounds; }
    const SceneAccel& getAccel() const { return mAccel; }

    /// Readers (graph executions, ray queries) share the scene; a change waits until they are
    /// done. A change from a thread that is reading the scene (a pass editing the scene it
    /// renders) would wait forever, so it raises instead.
    class [[nodiscard]] ReadLock
    {
    public:
        explicit ReadLock(const Scene* pScene);
        ReadLock(ReadLock&& other) noexcept : mpScene(std::exchange(other.mpScene, nullptr)) {}
        ReadLock& operator=(ReadLock&&) = delete;
        ~ReadLock();

    private:
        const Scene* mpScene;
    };
    ReadLock lockForReading() const { return ReadLock(this); }
    std::unique_lock<std::shared_mutex> lockForWriting();
    UpdateFlags getUpdates() const { return mUpdates; }
    uint64_t getUpdateCount() const { return mUpdateCount; }

    // ---- Geometry at hits and ray queries ------------------------------------------------
    /// The vertex data at a hit (a TriangleHit), or at one hit per lane (TriangleHitLanes<F>: each
    /// lane reads its own instance and mesh). Lanes outside `active` may hold any IDs, even invalid
    /// ones: they compute a copy of an active lane. Inline: every path vertex calls it.
    template<typename Hit>
    VertexDataT<HitFloat<Hit>> getVertexData(const Hit& hit, const MaskOf<HitFloat<Hit>>& active = true) const;
    /// As above, also deciding `frontFacing` for a ray travelling along `rayDir`.
    VertexData getVertexData(const TriangleHit& hit, const float3& rayDir) const;
    /// World position of the hit point in the previous frame (instance matrix and, for skinned
    /// meshes, vertex positions).
    float3 getPrevPosW(const TriangleHit& hit) const;
    /// Closest hit; `alphaTest` discards hits the materials' alpha masks reject.
    TriangleHit closestHit(const Ray& ray, RayCullMode cull = RayCullMode::None, bool alphaTest = true) const;
    bool anyHit(const Ray& ray, RayCullMode cull = RayCullMode::None, bool alphaTest = true) const;
    /// closestHit/anyHit of every ray (results[i] for rays[i]), bit-identical to one call per ray
    /// and faster on large streams of a structure that does not fit in cache (interleaved:
    /// SceneAccel::closestHitStream; smaller ones are traced one ray at a time). Runs on the caller's thread.
    void closestHitStream(std::span<const Ray> rays, RayCullMode cull, bool alphaTest, std::span<TriangleHit> hits) const;
    void anyHitStream(std::span<const Ray> rays, RayCullMode cull, bool alphaTest, std::span<uint8_t> occluded) const;
    /// Batch queries on the thread pool (fixed chunks: results don't depend on the thread count).
    void castRays(std::span<const Ray> rays, std::span<TriangleHit> hits, RayCullMode cull = RayCullMode::None,
                  bool alphaTest = true) const;
    void castShadowRays(std::span<const Ray> rays, std::span<uint8_t> hits, RayCullMode cull = RayCullMode::None,
                        bool alphaTest = true) const;

private:
    class MaterialAlphaTest : public AlphaTest
    {
    public:
        explicit MaterialAlphaTest(const Scene& scene) : mScene(scene) {}
        bool accept(uint32_t instanceID, uint32_t primitiveIndex, float2 barycentrics) const override;

    private:
        const Scene& mScene;
    };

    /// What getVertexData reads of one hit's triangle: its vertices (read from the mesh when
    /// asked) and its instance's flags.
    struct HitTriangle
    {
        const Mesh& mesh;
        const uint3& tri;
        bool identity, frontFaceCW; ///< Instance::identity, Mesh::frontFaceCW.
        std::array<float3, 3> positions() const { return corners(mesh.positions); }
        std::array<float3, 3> normals() const { return corners(mesh.normals); }
        std::array<float4, 3> tangents() const { return corners(mesh.tangents); }
        std::array<float2, 3> texCrds() const { return corners(mesh.texCrds); }
        template<typename V>
        std::array<V, 3> corners(const HugePageVector<V>& values) const
        {
            return {values[tri.x()], values[tri.y()], values[tri.z()]};
        }
    };
    /// The same for one hit per lane, gathered lane by lane.
    template<typename F>
    struct HitTriangleLanes
    {
        std::array<vector<F, 3>, 3> positionLanes, normalLanes;
        std::array<vector<F, 4>, 3> tangentLanes;
        std::array<vector<F, 2>, 3> texCrdLanes;
        MaskOf<F> identity, frontFaceCW;
        const auto& positions() const { return positionLanes; }
        const auto& normals() const { return normalLanes; }
        const auto& tangents() const { return tangentLanes; }
        const auto& texCrds() const { return texCrdLanes; }
        void setLane(int i, const HitTriangle& s);
    };
    /// The world and normal matrices of the instances hit, one per lane.
    template<typename F>
    struct HitTransformLanes
    {
        matrix<F, 4, 4> worldMatrix;
        matrix<F, 3, 3> normalMatrix;
        void setLane(int i, const Instance& s);
    };
    /// `t` with the bitangent sign of `w` in w: ±1, or 0 (an invalid tangent) for 0 and NaN.
    template<typename F>
    static vector<F, 4> tangentWithSign(const vector<F, 3>& t, const F& w)
    {
        return {t.x(), t.y(), t.z(), select(w > 0.f, F(1.f), select(w < 0.f, F(-1.f), F(0.f)))};
    }
    HitTriangle fetchHitTriangle(uint32_t instanceID, uint32_t primitiveIndex) const;
    /// Each lane's triangle and instance (HitTriangle and Instance for F = float); see
    /// getVertexData for `active`.
    template<typename Hit>
    auto fetchHitTriangles(const Hit& hit, const MaskOf<HitFloat<Hit>>& active) const;
    template<typename Hit>
    decltype(auto) fetchHitTransforms(const Hit& hit, const MaskOf<HitFloat<Hit>>& active) const;

    void buildAccel();
    /// Brings the bottom levels of the meshes whose vertices moved up to date: a new tree for
    /// new shapes (mTreesToRebuild), a refit for deformations (skinning).
    void updateMovedTrees();
    void updateMeshBounds(Mesh& mesh);
    /// Records that a mesh's vertices changed (its tree is rebuilt at the next update).
    void markMoved(uint32_t meshID, UpdateFlags flags);
    /// Drops the previous-frame positions of meshes that did not move since the last update.
    void settlePrevPositions();
    /// The top level follows the instances' world matrices (same meshes and winding).
    void refitAccel();
    std::vector<MeshGeometry> accelGeometry() const;
    std::vector<InstanceDesc> accelInstances() const;
    void updateBounds();
    void markUpdate(UpdateFlags flags);
    const AlphaTest* alphaTestFor(bool enabled) const { return enabled ? &mAlphaTest : nullptr; }

    std::vector<Mesh> mMeshes;
    std::vector<Instance> mInstances;
    std::vector<MaterialData> mMaterials;
    std::vector<LightData> mLights;
    std::shared_ptr<EnvMap> mpEnvMap;
    RenderSettings mRenderSettings;
    Camera mCamera;
    bool mCameraSwitched = false;
    SceneAccel mAccel;
    mutable std::shared_mutex mMutex;
    MaterialAlphaTest mAlphaTest{*this};
    AABB mBounds;

    bool mFinalized = false;
    bool mBottomLevelsCached = false; ///< readGeometryCache restored the trees: finalize keeps them.
    bool mFirstFrame = true;
    bool mTransformsSet = false; ///< Instance matrices were pushed since the last update.
    bool mAccelDirty = false;    ///< The opaque/alpha-tested status of a mesh or a winding changed: rebuild.
    bool mBoundsDirty = false;   ///< Mesh vertices changed.
    std::vector<uint32_t> mMovedMeshes;    ///< Meshes whose vertices changed since the last update (sorted, unique).
    std::vector<uint32_t> mTreesToRebuild; ///< Those of them given a new shape (setMeshVertices).
    UpdateFlags mPendingUpdates = UpdateFlags::None;
    UpdateFlags mUpdates = UpdateFlags::None;
    uint64_t mUpdateCount = 0;
};

// ---- Vertex data at hits: one implementation for one hit and for one hit per lane ------------

inline Scene::HitTriangle Scene::fetchHitTriangle(uint32_t instanceID, uint32_t primitiveIndex) const
{
    const Instance& inst = mInstances.at(instanceID);
    const Mesh& mesh = mMeshes[inst.meshID];
    return {mesh, mesh.triangles.at(primitiveIndex), inst.identity, mesh.frontFaceCW};
}

template<typename F>
void Scene::HitTriangleLanes<F>::setLane(int i, const HitTriangle& s)
{
    const auto put = [i](auto& lanes, const auto& values) {
        for (size_t k = 0; k < 3; ++k)
            for (size_t c = 0; c < std::size(values[k].data); ++c)
                lanes[k][c].set(i, values[k][c]);
    };
    put(positionLanes, s.positions());
    put(normalLanes, s.normals());
    put(tangentLanes, s.tangents());
    put(texCrdLanes, s.texCrds());
    identity.set(i, s.identity);
    frontFaceCW.set(i, s.frontFaceCW);
}

template<typename F>
void Scene::HitTransformLanes<F>::setLane(int i, const Instance& s)
{
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c)
            worldMatrix[r][c].set(i, s.worldMatrix[r][c]);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            normalMatrix[r][c].set(i, s.normalMatrix[r][c]);
}

template<typename Hit>
auto Scene::fetchHitTriangles(const Hit& hit, const MaskOf<HitFloat<Hit>>& active) const
{
    using F = HitFloat<Hit>;
    if constexpr (kLaneWidth<F> == 1)
        return fetchHitTriangle(hit.instanceID, hit.primitiveIndex);
    else
    {
        HitTriangleLanes<F> t;
        forEachHitLane(hit, active, [&](int i, uint32_t instanceID, uint32_t primitiveIndex) { t.setLane(i, fetchHitTriangle(instanceID, primitiveIndex)); });
        return t;
    }
}

template<typename Hit>
decltype(auto) Scene::fetchHitTransforms(const Hit& hit, const MaskOf<HitFloat<Hit>>& active) const
{
    using F = HitFloat<Hit>;
    if constexpr (kLaneWidth<F> == 1)
        return mInstances.at(hit.instanceID); // const Instance&
    else
    {
        HitTransformLanes<F> m;
        forEachHitLane(hit, active, [&](int i, uint32_t instanceID, uint32_t) { m.setLane(i, mInstances.at(instanceID)); });
        return m;
    }
}

template<typename Hit>
Scene::VertexDataT<HitFloat<Hit>> Scene::getVertexData(const Hit& hit, const MaskOf<HitFloat<Hit>>& active) const
{
    using F = HitFloat<Hit>;
    using F3 = vector<F, 3>;
    VertexDataT<F> v;
    if (!any(active))
        return v;
    const auto tri = fetchHitTriangles(hit, active);
    const vector<F, 2>& b = hit.barycentrics;
    const auto& positions = tri.positions();
    const F3 posO = interpolateBarycentric(positions, b), normalO = interpolateBarycentric(tri.normals(), b);
    const vector<F, 4> t = interpolateBarycentric(tri.tangents(), b);
    // Face normal in object space (front side per the mesh's winding), then to world space: the
    // normal matrix keeps it on the front side even when the instance mirrors.
    const F3 n = crossAnyScale(positions[1] - positions[0], positions[2] - positions[0]);
    const F3 faceO = select(tri.frontFaceCW, -n, n);
    // Identity instances (static meshes, pre-transformed) skip the transforms, whose products
    // with 1 and 0 would only differ for signed zeros and infinities. The common case (every lane
    // pre-transformed) is written out: through the selects below it costs one path 5 % more.
    if (all(tri.identity))
    {
        v.posW = posO;
        v.normalW = safeNormalize(normalO);
        v.faceNormalW = safeNormalize(faceO);
        v.tangentW = tangentWithSign(safeNormalize(t.xyz()), t.w());
    }
    else
    {
        const auto& m = fetchHitTransforms(hit, active);
        v.posW = select(tri.identity, posO, transformPoint(m.worldMatrix, posO));
        v.normalW = safeNormalize(select(tri.identity, normalO, mul(m.normalMatrix, normalO)));
        v.faceNormalW = safeNormalize(select(tri.identity, faceO, mul(m.normalMatrix, faceO)));
        v.tangentW = tangentWithSign(safeNormalize(select(tri.identity, t.xyz(), transformVector(m.worldMatrix, t.xyz()))), t.w());
    }
    v.texC = interpolateBarycentric(tri.texCrds(), b);
    return v;
}
} // namespace falcor
