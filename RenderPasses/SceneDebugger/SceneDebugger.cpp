#include "SceneDebugger.h"
#include "Core/Logger.h"
#include "Core/PluginRegistry.h"
#include "Core/ThreadPool.h"
#include "Rendering/Materials/StandardMaterial.h"
#include "Utils/Color/ColorHelpers.h"
#include "Scene/SceneMath.h"
#include <cstring>
#include <map>
#include <set>

namespace falcor
{
namespace
{
const std::string kMode = "mode";
const std::string kShowVolumes = "showVolumes";
const std::string kUseVBuffer = "useVBuffer";
const std::string kVBuffer = "vbuffer";
const std::string kOutput = "output";

/// Range of log2(triangles per unit area) that TriangleDensity maps onto the color map.
constexpr float kTriangleDensityLogMin = -16.f, kTriangleDensityLogMax = 16.f;

uint32_t jenkinsHash(uint32_t a)
{
    a = (a + 0x7ed55d16u) + (a << 12);
    a = (a ^ 0xc761c23cu) ^ (a >> 19);
    a = (a + 0x165667b1u) + (a << 5);
    a = (a + 0xd3a2646cu) ^ (a << 9);
    a = (a + 0xfd7046c5u) + (a << 3);
    a = (a ^ 0xb55a4f09u) ^ (a >> 16);
    return a;
}

/// A stable color per ID: three bytes of its hash.
float3 pseudocolor(uint32_t value)
{
    const uint32_t h = jenkinsHash(value);
    return float3(float(h & 0xffu), float((h >> 8) & 0xffu), float((h >> 16) & 0xffu)) / 255.f;
}

/// Falcor's polynomial fit of matplotlib's viridis map (colormapViridis), x clamped to [0, 1].
float3 viridis(float x)
{
    const float3 c[7] = {
        {0.2777273272234177f, 0.005407344544966578f, 0.3340998053353061f},
        {0.1050930431085774f, 1.404613529898575f, 1.384590162594685f},
        {-0.3308618287255563f, 0.214847559468213f, 0.09509516302823659f},
        {-4.634230498983486f, -5.799100973351585f, -19.33244095627987f},
        {6.228269936347081f, 14.17993336680509f, 56.69055260068105f},
        {4.776384997670288f, -13.74514537774601f, -65.35303263337234f},
        {-5.435455855934631f, 4.645852612178535f, 26.3124352495832f},
    };
    x = saturate(x);
    float3 r = c[6];
    for (int i = 5; i >= 0; --i)
        r = c[i] + r * x;
    return saturate(r);
}

/// Unit-range view of a signed vector: v/2 + 1/2.
float3 remap(const float3& v)
{
    return v * 0.5f + float3(0.5f);
}

/// Background: an 8-pixel checkerboard of white and mid gray.
float3 checkerboard(uint2 pixel)
{
    return ((pixel.x() ^ pixel.y()) & 0x8u) != 0 ? float3(1.f) : float3(0.5f);
}
} // namespace

SceneDebugger::SceneDebugger(const Properties& props)
{
    for (const auto& [key, value] : props)
    {
        if (key == kMode)
            mMode = value.as<SceneDebuggerMode>(key);
        else if (key == kShowVolumes)
            mShowVolumes = value.as<bool>(key);
        else if (key == kUseVBuffer)
            mUseVBuffer = value.as<bool>(key);
        else
            warnUnknownProperty(key);
    }
    scriptProperty<SceneDebuggerMode>(kMode, [this] { return mMode; }, [this](SceneDebuggerMode mode) { mMode = mode; });
}

Properties SceneDebugger::getProperties() const
{
    Properties props;
    props.set(kMode, mMode);
    props.set(kShowVolumes, mShowVolumes);
    props.set(kUseVBuffer, mUseVBuffer);
    return props;
}

RenderPassReflection SceneDebugger::reflect(const CompileData&)
{
    RenderPassReflection reflector;
    reflector.addInput(kVBuffer, "Visibility buffer in packed format")
        .format(ResourceFormat::RGBA32Uint)
        .flags(RenderPassReflection::Field::Flags::Optional);
    reflector.addOutput(kOutput, "Scene debugger output").format(ResourceFormat::RGBA32Float);
    return reflector;
}

void SceneDebugger::compile(RenderContext*, const CompileData& compileData)
{
    mFrameDim = compileData.defaultTexDims;
}

void SceneDebugger::setScene(RenderContext*, const std::shared_ptr<Scene>& pScene)
{
    mpScene = pScene;
    if (pScene)
    {
        mHitInfo = HitInfoLayout(*pScene);
        assignBlasIDs();
    }
}

void SceneDebugger::assignBlasIDs()
{
    // Falcor: all static non-instanced meshes share the first BLAS; moving non-instanced meshes
    // share one per scene-graph node; instanced meshes share one per identical set of nodes.
    const auto& meshes = mpScene->getMeshes();
    std::vector<std::set<uint32_t>> meshNodes(meshes.size());
    for (const Scene::Instance& instance : mpScene->getInstances())
        meshNodes[instance.meshID].insert(instance.nodeID);

    std::vector<uint32_t> staticMeshes;
    std::map<uint32_t, std::vector<uint32_t>> dynamicByNode;
    std::map<std::set<uint32_t>, std::vector<uint32_t>> instancedByNodes;
    for (uint32_t meshID = 0; meshID < meshes.size(); ++meshID)
    {
        if (meshNodes[meshID].size() > 1)
            instancedByNodes[meshNodes[meshID]].push_back(meshID);
        else if (!meshes[meshID].isAnimated)
            staticMeshes.push_back(meshID);
        else
            dynamicByNode[*meshNodes[meshID].begin()].push_back(meshID);
    }

    mMeshToBlasID.assign(meshes.size(), 0);
    mMeshInstanceCount.assign(meshes.size(), 0);
    for (uint32_t meshID = 0; meshID < meshes.size(); ++meshID)
        mMeshInstanceCount[meshID] = uint32_t(meshNodes[meshID].size());
    uint32_t blasID = 0;
    auto addGroup = [&](const std::vector<uint32_t>& group) {
        for (uint32_t meshID : group)
            mMeshToBlasID[meshID] = blasID;
        ++blasID;
    };
    if (!staticMeshes.empty())
        addGroup(staticMeshes);
    for (const auto& [node, group] : dynamicByNode)
        addGroup(group);
    for (const auto& [nodes, group] : instancedByNodes)
        addGroup(group);
}

void SceneDebugger::execute(RenderContext*, const RenderData& renderData)
{
    Texture& output = *renderData[kOutput];
    const Texture* vbuffer = renderData[kVBuffer];
    if (mUseVBuffer && !vbuffer)
    {
        logWarningOnce("SceneDebugger cannot use vbuffer as none is connected");
        mUseVBuffer = false;
    }
    if (!mpScene)
    {
        output.clear();
        return;
    }

    const Camera& camera = mpScene->getCamera();
    parallelForRows(mFrameDim.y(), [&](uint32_t y) {
        std::vector<float4> row(mFrameDim.x());
        for (uint32_t x = 0; x < mFrameDim.x(); ++x)
        {
            const uint2 pixel(x, y);
            const Ray ray = camera.computeRayPinhole(pixel, mFrameDim);
            const TriangleHit hit = mUseVBuffer ? mHitInfo.unpackTriangleHit(loadPackedHitInfo(*vbuffer, x, y))
                                                : mpScene->closestHit(ray, RayCullMode::None, true);
            // Our scenes have no grid volumes, so showVolumes leaves the color unchanged.
            const float3 color = saturate(hit.isValid() ? shadeHit(pixel, ray, hit) : checkerboard(pixel));
            row[x] = float4(color.x(), color.y(), color.z(), 1.f);
        }
        output.storeRow(y, row.data());
    });
    ++mFrameCount;
}

float3 SceneDebugger::shadeHit(uint2 pixel, const Ray& ray, const TriangleHit& hit) const
{
    const Scene::Instance& instance = mpScene->getInstance(hit.instanceID);
    const MaterialData& material = mpScene->getMaterial(instance.materialID);
    const ShadingData sd = prepareShadingData(mpScene->getVertexData(hit), instance.materialID, material, -ray.dir);

    // Flat shading: the face seen from the ray's side, lit from the camera.
    const float3 frontN = dot(ray.dir, sd.faceN) < 0.f ? sd.faceN : -sd.faceN;
    const float flatShaded = 0.8f * saturate(dot(-frontN, ray.dir)) + 0.2f;
    // Gray level that tells faces of different orientation apart.
    const float faceShade = 0.75f * luminance(abs(sd.faceN)) + 0.25f;

    switch (mMode)
    {
    case SceneDebuggerMode::FlatShaded:
        return float3(flatShaded);
    case SceneDebuggerMode::TriangleDensity:
    {
        const Scene::Mesh& mesh = mpScene->getMesh(instance.meshID);
        const uint3& tri = mesh.triangles[hit.primitiveIndex];
        float3 p[3];
        for (int i = 0; i < 3; ++i)
            p[i] = transformPoint(instance.worldMatrix, mesh.positions[tri[i]]);
        const float area = 0.5f * length(cross(p[1] - p[0], p[2] - p[0]));
        const float logDensity = std::log2(1.f / area);
        return viridis((logDensity - kTriangleDensityLogMin) / (kTriangleDensityLogMax - kTriangleDensityLogMin));
    }
    case SceneDebuggerMode::HitType:
        return pseudocolor(uint32_t(HitType::Triangle));
    case SceneDebuggerMode::InstanceID:
        return pseudocolor(hit.instanceID);
    case SceneDebuggerMode::MaterialID:
        return pseudocolor(instance.materialID) * flatShaded;
    case SceneDebuggerMode::GeometryID:
        return pseudocolor(instance.meshID);
    case SceneDebuggerMode::BlasID:
        return pseudocolor(mMeshToBlasID[instance.meshID]);
    case SceneDebuggerMode::PrimitiveID:
        return pseudocolor(hit.primitiveIndex);
    case SceneDebuggerMode::InstancedGeometry:
        // Green: the mesh is placed more than once; red: once.
        return mMeshInstanceCount[instance.meshID] > 1 ? float3(0.f, faceShade, 0.f) : float3(faceShade, 0.f, 0.f);
    case SceneDebuggerMode::MaterialType:
        return pseudocolor(uint32_t(material.type)) * flatShaded;
    case SceneDebuggerMode::FaceNormal:
        return remap(sd.faceN);
    case SceneDebuggerMode::ShadingNormal:
        return remap(sd.frame.N);
    case SceneDebuggerMode::ShadingTangent:
        return remap(sd.frame.T);
    case SceneDebuggerMode::ShadingBitangent:
        return remap(sd.frame.B);
    case SceneDebuggerMode::FrontFacingFlag:
        return sd.frontFacing ? float3(0.f, faceShade, 0.f) : float3(faceShade, 0.f, 0.f);
    case SceneDebuggerMode::BackfacingShadingNormal:
    {
        // Shading normals facing away from the viewer get yellow/black zebra stripes that move each frame.
        const float stripe = ((pixel.x() + pixel.y() - mFrameCount) & 0x8u) ? 1.f : 0.f;
        const bool backFacing = dot(sd.frame.N, sd.V) <= 0.f;
        return backFacing ? float3(stripe, stripe, 0.f) : float3(faceShade);
    }
    case SceneDebuggerMode::TexCoords:
    {
        const float3 uv = remap(float3(sd.uv.x(), sd.uv.y(), 0.f));
        return float3(uv.x() - std::floor(uv.x()), uv.y() - std::floor(uv.y()), 0.f);
    }
    case SceneDebuggerMode::BSDFProperties:
    {
        // Falcor's default BSDF property (the others are chosen in its UI only) is the emission.
        return createStandardMaterialInstance(sd, TextureLod{}, kHintNone).getProperties().emission;
    }
    }
    return float3(1.f, 0.f, 0.f);
}
} // namespace falcor

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(falcor::PluginRegistry& registry)
{
    registry.registerRenderPass<falcor::SceneDebugger>();
}
