#include "Scene/Scene.h"
#include "Core/Error.h"
#include "Core/ThreadPool.h"
#include "Scene/SceneMath.h"
#include "Utils/Math/MathHelpers.h"
#include <algorithm>

namespace falcor
{
namespace
{
/// Rays per thread-pool task in batch queries (fixed: the split never depends on thread count).
constexpr size_t kRayChunk = 256;

AABB transformBounds(const AABB& box, const float4x4& m)
{
    AABB r;
    if (!box.valid())
        return r;
    for (int corner = 0; corner < 8; ++corner)
    {
        float3 p((corner & 1) ? box.maxPoint.x() : box.minPoint.x(), (corner & 2) ? box.maxPoint.y() : box.minPoint.y(),
                 (corner & 4) ? box.maxPoint.z() : box.minPoint.z());
        r.include(transformPoint(m, p));
    }
    return r;
}

/// The value at `bary` of the vertex attribute `values` over triangle `tri`.
template<typename T>
T interpolate(const HugePageVector<T>& values, const uint3& tri, float2 bary)
{
    return interpolateBarycentric(std::array{values[tri.x()], values[tri.y()], values[tri.z()]}, bary);
}

void insertSorted(std::vector<uint32_t>& ids, uint32_t id)
{
    auto at = std::lower_bound(ids.begin(), ids.end(), id);
    if (at == ids.end() || *at != id)
        ids.insert(at, id);
}

/// Light changes between two frames as Falcor's Light::beginFrame classifies them.
Scene::UpdateFlags lightChanges(const LightData& a, const LightData& b)
{
    using F = Scene::UpdateFlags;
    F f = F::None;
    if (!(a.posW == b.posW) || !(a.dirW == b.dirW) || !(a.transMat == b.transMat))
        f |= F::LightsMoved;
    if (!(a.intensity == b.intensity))
        f |= F::LightIntensityChanged;
    if (a.openingAngle != b.openingAngle || a.penumbraAngle != b.penumbraAngle || a.cosSubtendedAngle != b.cosSubtendedAngle ||
        a.surfaceArea != b.surfaceArea || a.type != b.type)
        f |= F::LightPropertiesChanged;
    return f;
}
} // namespace

// ---- Building -------------------------------------------------------------------------------

uint32_t Scene::addMesh(Mesh mesh)
{
    const size_t n = mesh.positions.size();
    FALCOR_CHECK(mesh.normals.size() == n && mesh.tangents.size() == n && mesh.texCrds.size() == n, "Scene::addMesh: mesh '",
                 mesh.name, "' has vertex arrays of different lengths.");
    for (const uint3& t : mesh.triangles)
        FALCOR_CHECK(t.x() < n && t.y() < n && t.z() < n, "Scene::addMesh: mesh '", mesh.name, "' has an index out of range.");
    mesh.bounds = AABB();
    for (const float3& p : mesh.positions)
        mesh.bounds.include(p);
    mMeshes.push_back(std::move(mesh));
    return uint32_t(mMeshes.size() - 1);
}

uint32_t Scene::addInstance(uint32_t meshID, uint32_t nodeID, const float4x4& worldMatrix)
{
    FALCOR_CHECK(meshID < mMeshes.size(), "Scene::addInstance: mesh ", meshID, " out of range (", mMeshes.size(), " meshes).");
    Instance inst;
    inst.meshID = meshID;
    inst.materialID = mMeshes[meshID].materialID;
    inst.nodeID = nodeID;
    inst.worldMatrix = inst.prevWorldMatrix = worldMatrix;
    inst.normalMatrix = inst.prevNormalMatrix = normalMatrix(worldMatrix);
    inst.identity = worldMatrix == float4x4::identity();
    inst.frontFaceCW = mMeshes[meshID].frontFaceCW != (determinant3x3(worldMatrix) < 0.f);
    mInstances.push_back(inst);
    return uint32_t(mInstances.size() - 1);
}

void Scene::setMaterial(uint32_t id, MaterialData material)
{
    FALCOR_CHECK(id <= mMaterials.size(), "Scene::setMaterial: material id ", id, " out of range (", mMaterials.size(), " materials).");
    if (id == mMaterials.size())
    {
        mMaterials.push_back(std::move(material));
        markUpdate(UpdateFlags::MaterialsChanged);
        return;
    }
    MaterialData& old = mMaterials[id];
    UpdateFlags f = UpdateFlags::MaterialsChanged;
    if (old.emissionDiffers(material))
        f |= UpdateFlags::EmissiveMaterialsChanged;
    if ((old.alphaMode == AlphaMode::Opaque) != (material.alphaMode == AlphaMode::Opaque))
        mAccelDirty = true;
    old = std::move(material);
    markUpdate(f);
}

namespace
{
/// Scenes the current thread holds read locks on (with repeats: read locks nest).
thread_local std::vector<const Scene*> tScenesBeingRead;
} // namespace

Scene::ReadLock::ReadLock(const Scene* pScene) : mpScene(pScene)
{
    if (std::find(tScenesBeingRead.begin(), tScenesBeingRead.end(), pScene) == tScenesBeingRead.end())
        pScene->mMutex.lock_shared();
    tScenesBeingRead.push_back(pScene);
}

Scene::ReadLock::~ReadLock()
{
    if (!mpScene)
        return;
    tScenesBeingRead.erase(std::find(tScenesBeingRead.begin(), tScenesBeingRead.end(), mpScene));
    if (std::find(tScenesBeingRead.begin(), tScenesBeingRead.end(), mpScene) == tScenesBeingRead.end())
        mpScene->mMutex.unlock_shared();
}

std::unique_lock<std::shared_mutex> Scene::lockForWriting()
{
    FALCOR_CHECK(std::find(tScenesBeingRead.begin(), tScenesBeingRead.end(), this) == tScenesBeingRead.end(),
                 "Can't change the scene while this thread is rendering it or tracing rays in it (called from inside a render pass?).");
    return std::unique_lock(mMutex);
}

void Scene::finalize()
{
    for (const Mesh& m : mMeshes)
        FALCOR_CHECK(m.materialID < mMaterials.size(), "Scene::finalize: mesh '", m.name, "' uses material ", m.materialID, " of ",
                     mMaterials.size(), ".");
    if (mBottomLevelsCached)
        mAccel.setInstances(accelGeometry(), accelInstances());
    else
        buildAccel();
    mBottomLevelsCached = false;
    updateBounds();
    mFinalized = true;
    mFirstFrame = true;
    mPendingUpdates = UpdateFlags::None;
}

std::vector<MeshGeometry> Scene::accelGeometry() const
{
    std::vector<MeshGeometry> geometry;
    for (const Mesh& m : mMeshes)
    {
        const bool opaque = m.materialID >= mMaterials.size() || mMaterials[m.materialID].alphaMode == AlphaMode::Opaque;
        geometry.push_back({m.positions, m.triangles, opaque});
    }
    return geometry;
}

std::vector<InstanceDesc> Scene::accelInstances() const
{
    std::vector<InstanceDesc> descs;
    for (const Instance& i : mInstances)
        descs.push_back({i.meshID, i.worldMatrix, i.frontFaceCW});
    return descs;
}

void Scene::buildAccel()
{
    mAccel.build(accelGeometry(), accelInstances());
    mAccelDirty = false;
}

void Scene::writeGeometryCache(ByteWriter& out) const
{
    FALCOR_CHECK(mFinalized, "Scene::writeGeometryCache: the scene is not finalized.");
    out.write<uint64_t>(mMeshes.size());
    for (const Mesh& m : mMeshes)
    {
        out.writeString(m.name);
        out.writeArray(std::span(m.positions));
        out.writeArray(std::span(m.normals));
        out.writeArray(std::span(m.tangents));
        out.writeArray(std::span(m.texCrds));
        out.writeArray(std::span(m.triangles));
        out.write(m.materialID);
        out.write<uint8_t>(uint8_t(m.frontFaceCW) | uint8_t(m.isAnimated) << 1);
    }
    mAccel.writeBottomLevels(out);
}

void Scene::readGeometryCache(ByteReader& in)
{
    FALCOR_CHECK(mMeshes.empty() && !mFinalized, "Scene::readGeometryCache: the scene already has meshes.");
    const uint64_t count = in.read<uint64_t>("mesh count");
    FALCOR_CHECK(count <= in.remaining() / 64, "truncated data: ", count, " meshes claimed in ", in.remaining(), " bytes.");
    std::vector<Mesh> meshes(count);
    in.deferCopies();
    for (Mesh& m : meshes)
    {
        m.name = in.readString("mesh name");
        in.readArray(m.positions, "mesh positions");
        in.readArray(m.normals, "mesh normals");
        in.readArray(m.tangents, "mesh tangents");
        in.readArray(m.texCrds, "mesh texture coordinates");
        in.readArray(m.triangles, "mesh triangles");
        m.materialID = in.read<uint32_t>("mesh material");
        const uint8_t flags = in.read<uint8_t>("mesh flags");
        m.frontFaceCW = flags & 1;
        m.isAnimated = flags & 2;
    }
    in.copyDeferred();
    try
    {
        for (Mesh& m : meshes)
            addMesh(std::move(m)); // checks lengths and indices
        mAccel.readBottomLevels(in, accelGeometry());
    }
    catch (...)
    {
        mMeshes.clear(); // no half-restored scene
        throw;
    }
    mBottomLevelsCached = true;
}

void Scene::refitAccel()
{
    std::vector<float4x4> m;
    m.reserve(mInstances.size());
    for (const Instance& inst : mInstances)
        m.push_back(inst.worldMatrix);
    mAccel.updateInstanceTransforms(m);
}

void Scene::updateBounds()
{
    mBounds = AABB();
    for (const Instance& i : mInstances)
        mBounds.include(transformBounds(mMeshes[i.meshID].bounds, i.worldMatrix));
}

// ---- Per-frame updates ------------------------------------------------------------------------

void Scene::markUpdate(UpdateFlags flags)
{
    if (mFinalized)
        mPendingUpdates |= flags;
}

void Scene::setInstanceTransforms(std::span<const float4x4> worldMatrices)
{
    FALCOR_CHECK(worldMatrices.size() == mInstances.size(), "Scene::setInstanceTransforms: got ", worldMatrices.size(),
                 " matrices for ", mInstances.size(), " instances.");
    for (size_t i = 0; i < mInstances.size(); ++i)
    {
        Instance& inst = mInstances[i];
        inst.prevWorldMatrix = inst.worldMatrix;
        inst.prevNormalMatrix = inst.normalMatrix;
        inst.worldMatrix = worldMatrices[i];
        inst.normalMatrix = normalMatrix(inst.worldMatrix);
        inst.identity = inst.worldMatrix == float4x4::identity();
        const bool cw = mMeshes[inst.meshID].frontFaceCW != (determinant3x3(inst.worldMatrix) < 0.f);
        mAccelDirty |= cw != inst.frontFaceCW;
        inst.frontFaceCW = cw;
    }
    mTransformsSet = true;
    markUpdate(UpdateFlags::GeometryMoved | UpdateFlags::SceneGraphChanged);
}

void Scene::setCamera(const Camera::Params& params, bool switched)
{
    mCamera.setParams(params);
    mCameraSwitched |= switched;
}

void Scene::setLights(std::vector<LightData> activeLights, bool activeSetChanged)
{
    UpdateFlags f = UpdateFlags::None;
    if (activeSetChanged || activeLights.size() != mLights.size())
        f |= UpdateFlags::LightCountChanged;
    for (size_t i = 0; i < std::min(activeLights.size(), mLights.size()); ++i)
        f |= lightChanges(mLights[i], activeLights[i]);
    mLights = std::move(activeLights);
    for (LightData& l : mLights)
        l.transMatIT = transpose(inverse(l.transMat));
    markUpdate(f);
}

void Scene::setEnvMap(std::shared_ptr<EnvMap> envMap)
{
    UpdateFlags f = UpdateFlags::None;
    if (bool(envMap) != bool(mpEnvMap) || (envMap && envMap->texture != mpEnvMap->texture))
        f = UpdateFlags::EnvMapChanged;
    else if (envMap && (!(envMap->transform == mpEnvMap->transform) || !(envMap->tint == mpEnvMap->tint) ||
                        envMap->intensity != mpEnvMap->intensity))
        f = UpdateFlags::EnvMapPropertiesChanged;
    mpEnvMap = std::move(envMap);
    markUpdate(f);
}

void Scene::setRenderSettings(const RenderSettings& settings)
{
    if (!(settings == mRenderSettings))
        markUpdate(UpdateFlags::RenderSettingsChanged);
    mRenderSettings = settings;
}

void Scene::setMeshVertices(uint32_t meshID, HugePageVector<float3> positions, HugePageVector<float3> normals, HugePageVector<float4> tangents,
                            HugePageVector<float2> texCrds)
{
    Mesh& mesh = mMeshes.at(meshID);
    const size_t n = mesh.positions.size();
    FALCOR_CHECK(positions.size() == n && normals.size() == n && tangents.size() == n && texCrds.size() == n,
                 "Scene::setMeshVertices: mesh '", mesh.name, "' has ", n, " vertices; every array must have as many.");
    mesh.positions = std::move(positions);
    mesh.normals = std::move(normals);
    mesh.tangents = std::move(tangents);
    mesh.texCrds = std::move(texCrds);
    mesh.prevPositions = {};
    updateMeshBounds(mesh);
    markMoved(meshID, UpdateFlags::MeshesChanged);
    insertSorted(mTreesToRebuild, meshID); // a new shape: a tree of its own
}

void Scene::setMeshSkin(uint32_t meshID, MeshSkin skin)
{
    Mesh& mesh = mMeshes.at(meshID);
    FALCOR_CHECK(skin.vertexCount() == mesh.positions.size(), "Scene::setMeshSkin: mesh '", mesh.name, "' has ", mesh.positions.size(),
                 " vertices, its skin ", skin.vertexCount(), ".");
    skin.check(mesh.name);
    mesh.skin = std::make_shared<const MeshSkin>(std::move(skin));
}

void Scene::setSkinningMatrices(uint32_t meshID, std::span<const float4x4> skinningMatrices)
{
    Mesh& mesh = mMeshes.at(meshID);
    FALCOR_CHECK(mesh.skin, "Scene::setSkinningMatrices: mesh '", mesh.name, "' is not skinned.");
    const size_t n = mesh.positions.size();
    HugePageVector<float3> positions(n), normals(n);
    HugePageVector<float4> tangents(n);
    skinVertices(*mesh.skin, skinningMatrices, {positions, normals, tangents});
    // The previous frame's positions are those of the last update, even if this mesh was posed
    // several times since (only the last pose is drawn).
    const bool posedThisFrame = std::binary_search(mMovedMeshes.begin(), mMovedMeshes.end(), meshID);
    if (!posedThisFrame)
        mesh.prevPositions = std::move(mesh.positions);
    mesh.positions = std::move(positions);
    mesh.normals = std::move(normals);
    mesh.tangents = std::move(tangents);
    updateMeshBounds(mesh);
    markMoved(meshID, UpdateFlags::GeometryMoved);
}

void Scene::updateMeshBounds(Mesh& mesh)
{
    mesh.bounds = AABB();
    for (const float3& p : mesh.positions)
        mesh.bounds.include(p);
    mBoundsDirty = true;
}

void Scene::markMoved(uint32_t meshID, UpdateFlags flags)
{
    insertSorted(mMovedMeshes, meshID);
    markUpdate(flags);
}

void Scene::updateMovedTrees()
{
    if (mMovedMeshes.empty())
        return;
    std::vector<uint32_t> refit;
    std::set_difference(mMovedMeshes.begin(), mMovedMeshes.end(), mTreesToRebuild.begin(), mTreesToRebuild.end(), std::back_inserter(refit));
    const std::vector<MeshGeometry> geometry = accelGeometry();
    if (!mTreesToRebuild.empty())
        mAccel.rebuildMeshes(geometry, mTreesToRebuild);
    if (!refit.empty())
        mAccel.refitMeshes(geometry, refit);
}

Scene::UpdateFlags Scene::update(UpdateFlags extra)
{
    FALCOR_CHECK(mFinalized, "Scene::update: the scene is not finalized.");
    UpdateFlags flags = mPendingUpdates | extra;
    if (!mTransformsSet || mFirstFrame)
    {
        // Nothing moved since the last frame (or there is none): previous matrices = current.
        for (Instance& inst : mInstances)
        {
            inst.prevWorldMatrix = inst.worldMatrix;
            inst.prevNormalMatrix = inst.normalMatrix;
        }
    }
    settlePrevPositions();
    if (mAccelDirty)
        buildAccel();
    else
    {
        updateMovedTrees();
        if (mTransformsSet)
            refitAccel();
    }
    if (mTransformsSet || mBoundsDirty)
        updateBounds();
    mBoundsDirty = false;
    mMovedMeshes.clear();
    mTreesToRebuild.clear();

    const Camera::Changes changes = mCamera.beginFrame(mFirstFrame);
    if (isSet(changes, Camera::Changes::Movement))
        flags |= UpdateFlags::CameraMoved;
    if (uint32_t(changes) & ~uint32_t(Camera::Changes::Movement))
        flags |= UpdateFlags::CameraPropertiesChanged;
    if (mCameraSwitched)
        flags |= UpdateFlags::CameraSwitched;

    mCameraSwitched = mTransformsSet = mFirstFrame = false;
    mPendingUpdates = UpdateFlags::None;
    mUpdates = flags;
    ++mUpdateCount;
    return flags;
}

void Scene::settlePrevPositions()
{
    // Meshes that did not move since the last update were in the previous frame where they are
    // now; in the first frame of a history, every mesh was.
    for (uint32_t id = 0; id < mMeshes.size(); ++id)
        if (mFirstFrame || !std::binary_search(mMovedMeshes.begin(), mMovedMeshes.end(), id))
            mMeshes[id].prevPositions = {};
}

Scene::FrameState Scene::saveFrameState() const
{
    std::vector<PosedVertices> posed;
    for (uint32_t id = 0; id < mMeshes.size(); ++id)
        if (const Mesh& m = mMeshes[id]; m.skin)
            posed.push_back({id, m.positions, m.normals, m.prevPositions, m.tangents});
    return {this, mInstances, std::move(posed), mMovedMeshes, mTreesToRebuild, mLights, mCamera, mCameraSwitched, mFirstFrame, mTransformsSet,
            mPendingUpdates, mUpdates};
}

void Scene::restoreFrameState(FrameState state)
{
    FALCOR_CHECK(state.pScene == this, "Scene::restoreFrameState: the state was saved from another scene.");
    bool moved = false, windingChanged = false;
    for (size_t i = 0; i < mInstances.size(); ++i)
    {
        moved |= !(state.instances[i].worldMatrix == mInstances[i].worldMatrix);
        windingChanged |= state.instances[i].frontFaceCW != mInstances[i].frontFaceCW;
    }
    std::vector<uint32_t> reposed;
    for (PosedVertices& v : state.posedVertices)
    {
        Mesh& mesh = mMeshes.at(v.meshID);
        const bool changed = !(v.positions == mesh.positions);
        mesh.positions = std::move(v.positions);
        mesh.normals = std::move(v.normals);
        mesh.prevPositions = std::move(v.prevPositions);
        mesh.tangents = std::move(v.tangents);
        if (changed)
        {
            updateMeshBounds(mesh);
            reposed.push_back(v.meshID);
        }
    }
    mInstances = std::move(state.instances);
    mMovedMeshes = std::move(state.movedMeshes);
    mTreesToRebuild = std::move(state.treesToRebuild);
    mLights = std::move(state.lights);
    mCamera = std::move(state.camera);
    mCameraSwitched = state.cameraSwitched;
    mFirstFrame = state.firstFrame;
    mTransformsSet = state.transformsSet;
    mPendingUpdates = state.pendingUpdates;
    mUpdates = state.updates;
    if (windingChanged)
        buildAccel();
    else
    {
        if (!reposed.empty())
            mAccel.refitMeshes(accelGeometry(), reposed);
        if (moved)
            refitAccel();
    }
    if (moved || !reposed.empty())
        updateBounds();
    ++mUpdateCount;
}

// ---- Geometry at hits and ray queries ---------------------------------------------------------

Scene::VertexData Scene::getVertexData(const TriangleHit& hit, const float3& rayDir) const
{
    VertexData v = getVertexData(hit);
    v.frontFacing = dot(rayDir, v.faceNormalW) <= 0.f;
    return v;
}

float3 Scene::getPrevPosW(const TriangleHit& hit) const
{
    const Instance& inst = mInstances.at(hit.instanceID);
    const Mesh& mesh = mMeshes[inst.meshID];
    const HugePageVector<float3>& positions = mesh.prevPositions.empty() ? mesh.positions : mesh.prevPositions;
    return transformPoint(inst.prevWorldMatrix, interpolate(positions, mesh.triangles.at(hit.primitiveIndex), hit.barycentrics));
}

bool Scene::MaterialAlphaTest::accept(uint32_t instanceID, uint32_t primitiveIndex, float2 barycentrics) const
{
    const Instance& inst = mScene.mInstances[instanceID];
    const Mesh& mesh = mScene.mMeshes[inst.meshID];
    const float2 uv = interpolate(mesh.texCrds, mesh.triangles[primitiveIndex], barycentrics);
    return !mScene.mMaterials[inst.materialID].alphaTestFails(uv);
}

TriangleHit Scene::closestHit(const Ray& ray, RayCullMode cull, bool alphaTest) const
{
    return mAccel.closestHit(ray, cull, alphaTestFor(alphaTest));
}

bool Scene::anyHit(const Ray& ray, RayCullMode cull, bool alphaTest) const
{
    return mAccel.anyHit(ray, cull, alphaTestFor(alphaTest));
}

namespace
{
/// Acceleration structures up to this size stay in a core's cache (2 MiB L2 on the machines
/// measured): their rays wait on no memory, and interleaving them only adds bookkeeping (7 % of
/// a Cornell box frame of the wavefront path tracer, where the terrain's rays gain 25-50 %).
constexpr size_t kCacheResidentBytes = size_t(1) << 20;
} // namespace

void Scene::closestHitStream(std::span<const Ray> rays, RayCullMode cull, bool alphaTest, std::span<TriangleHit> hits) const
{
    mAccel.closestHitStream(rays, cull, alphaTestFor(alphaTest), hits, mAccel.getStats().memoryBytes > kCacheResidentBytes);
}

void Scene::anyHitStream(std::span<const Ray> rays, RayCullMode cull, bool alphaTest, std::span<uint8_t> occluded) const
{
    mAccel.anyHitStream(rays, cull, alphaTestFor(alphaTest), occluded, mAccel.getStats().memoryBytes > kCacheResidentBytes);
}

void Scene::castRays(std::span<const Ray> rays, std::span<TriangleHit> hits, RayCullMode cull, bool alphaTest) const
{
    FALCOR_CHECK(hits.size() == rays.size(), "Scene::castRays: ", rays.size(), " rays but room for ", hits.size(), " hits.");
    parallelFor(rays.size(), kRayChunk, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i)
            hits[i] = closestHit(rays[i], cull, alphaTest);
    });
}

void Scene::castShadowRays(std::span<const Ray> rays, std::span<uint8_t> hits, RayCullMode cull, bool alphaTest) const
{
    FALCOR_CHECK(hits.size() == rays.size(), "Scene::castShadowRays: ", rays.size(), " rays but room for ", hits.size(), " results.");
    parallelFor(rays.size(), kRayChunk, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i)
            hits[i] = anyHit(rays[i], cull, alphaTest) ? 1 : 0;
    });
}
} // namespace falcor
