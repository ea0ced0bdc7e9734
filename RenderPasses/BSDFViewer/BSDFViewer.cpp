#include "BSDFViewer.h"
#include "RenderGraph/RenderPassStandardFlags.h"
#include "Core/Logger.h"
#include "Core/PluginRegistry.h"
#include "Core/ThreadPool.h"
#include "Utils/Math/MathHelpers.h"

namespace falcor
{
namespace
{
const std::string kMaterialID = "materialID", kViewerMode = "viewerMode", kUseEnvMap = "useEnvMap", kTexCoords = "texCoords",
                  kOutputAlbedo = "outputAlbedo", kOutput = "output";

// Falcor's viewer defaults: a projective camera on +z looking at the unit sphere.
constexpr float kCameraDistance = 1.5f;
constexpr float kCameraFovY = 90.f;
const uint32_t kActiveLobes = kLobeDiffuseReflection | kLobeSpecularReflection | kLobeDeltaReflection;

enum AlbedoSelection : uint32_t
{
    kShowAlbedo = 0x1,
    kDiffuseReflection = 0x2,
    kDiffuseTransmission = 0x4,
    kSpecularReflection = 0x8,
    kSpecularTransmission = 0x10,
};

/// Distance along the ray (unit direction) to the unit sphere at the origin, if it is hit.
bool intersectUnitSphere(const float3& origin, const float3& dir, float& t)
{
    const float b = dot(origin, dir), c = dot(origin, origin) - 1.f;
    const float disc = b * b - c;
    if (disc < 0.f)
        return false;
    const float s = std::sqrt(disc);
    t = -b - s > 0.f ? -b - s : -b + s;
    return t > 0.f;
}
} // namespace

BSDFViewer::BSDFViewer(const Properties& props)
{
    for (const auto& [key, value] : props)
    {
        if (key == kMaterialID) mMaterialID = value.as<uint32_t>(key);
        else if (key == kViewerMode) mViewerMode = value.as<BSDFViewerMode>(key);
        else if (key == kUseEnvMap) mUseEnvMap = value.as<bool>(key);
        else if (key == kTexCoords) mTexCoords = value.as<float2>(key), mUseFixedTexCoords = true;
        else if (key == kOutputAlbedo) mOutputAlbedo = value.as<uint32_t>(key);
        else warnUnknownProperty(key);
    }
}

Properties BSDFViewer::getProperties() const
{
    Properties props;
    props.set(kMaterialID, mMaterialID);
    props.set(kViewerMode, mViewerMode);
    props.set(kUseEnvMap, mUseEnvMap);
    if (mUseFixedTexCoords)
        props.set(kTexCoords, mTexCoords);
    if (mOutputAlbedo != 0)
        props.set(kOutputAlbedo, mOutputAlbedo);
    return props;
}

RenderPassReflection BSDFViewer::reflect(const CompileData&)
{
    RenderPassReflection r;
    r.addOutput(kOutput, "Output buffer").format(ResourceFormat::RGBA32Float);
    return r;
}

void BSDFViewer::setScene(RenderContext*, const std::shared_ptr<Scene>& pScene)
{
    mpScene = pScene;
    mFrameCount = 0;
    const uint32_t count = pScene ? uint32_t(pScene->getMaterials().size()) : 0;
    if (count > 0 && mMaterialID >= count)
    {
        mMaterialID = count - 1;
        logWarning("BSDFViewer: materialID is out of range. Clamping to ID ", mMaterialID, ".");
    }
}

void BSDFViewer::execute(RenderContext*, const RenderData& renderData)
{
    Texture& output = *renderData[kOutput];
    if (!mpScene || mpScene->getMaterials().empty())
    {
        output.clear();
        return;
    }
    const uint2 dim = output.getDims();
    const uint32_t extent = std::min(dim.x(), dim.y());
    const float2 offset(float((dim.x() - extent) / 2), float((dim.y() - extent) / 2));
    const uint32_t seed = frameSeed(renderData.getDictionary(), mFrameCount);
    parallelForRows(dim.y(), [&](uint32_t y) {
        std::vector<float4> row(dim.x());
        for (uint32_t x = 0; x < dim.x(); ++x)
        {
            UniformSampleGenerator sg(uint2(x, y), seed);
            const float2 uv = (float2(float(x), float(y)) + float2(0.5f) - offset) / float(extent);
            const float3 c = evalPixel(uv, sg);
            row[x] = float4(c.x(), c.y(), c.z(), 1.f);
        }
        output.storeRow(y, row.data());
    });
    ++mFrameCount;
}

float3 BSDFViewer::evalPixel(float2 uv, UniformSampleGenerator& sg) const
{
    if (mViewerMode == BSDFViewerMode::Slice)
    {
        const bool inside = uv.x() >= 0.f && uv.y() >= 0.f && uv.x() < 1.f && uv.y() < 1.f;
        return inside ? evalSlice(uv, sg) : float3(0.f);
    }
    return evalSphere(uv, sg);
}

MaterialInstance BSDFViewer::createInstance(const ShadingData& sd) const
{
    MaterialInstance mi = createMaterialInstance(sd, TextureLod{}, kHintDisableNormalMapping);
    mi.setActiveLobes(kActiveLobes);
    return mi;
}

float3 BSDFViewer::evalSphere(float2 uv, UniformSampleGenerator& sg) const
{
    // uv in [0, 1]² spans the viewport, y down; the camera's image plane at z = 0 spans ±scale.
    const float2 ndc(2.f * uv.x() - 1.f, 1.f - 2.f * uv.y());
    const float scale = std::tan(0.5f * kCameraFovY * kPi / 180.f) * kCameraDistance;
    const float3 origin(0.f, 0.f, kCameraDistance);
    const float3 dir = normalize(float3(ndc.x() * scale, ndc.y() * scale, 0.f) - origin);
    float t;
    if (!intersectUnitSphere(origin, dir, t))
        return evalLighting(dir);

    Scene::VertexData v;
    v.posW = origin + dir * t;
    v.normalW = v.faceNormalW = normalize(v.posW);
    const float3 tangent = perpStark(v.normalW);
    v.tangentW = float4(tangent.x(), tangent.y(), tangent.z(), 1.f);
    v.texC = mUseFixedTexCoords ? mTexCoords
                                : float2(std::atan2(v.posW.z(), -v.posW.x()) / kPi, std::acos(std::clamp(-v.posW.y(), -1.f, 1.f)) / kPi);
    const ShadingData sd = prepareShadingData(v, mMaterialID, mpScene->getMaterial(mMaterialID), -dir);
    const MaterialInstance mi = createInstance(sd);
    if (mOutputAlbedo & kShowAlbedo)
        return selectedAlbedo(mi.getProperties());
    BSDFSample s;
    return mi.sample(sd, sg, s) ? evalLighting(s.wo) * s.weight : float3(0.f);
}

float3 BSDFViewer::evalSlice(float2 uv, UniformSampleGenerator& sg) const
{
    // x: half-angle θh, y: difference angle θd (top = grazing), both in [0, π/2].
    const float thetaH = uv.x() * 0.5f * kPi, thetaD = (1.f - uv.y()) * 0.5f * kPi;
    const float cosD = std::cos(thetaD), sinD = std::sin(thetaD);
    const float cosH = std::cos(thetaH), sinH = std::sin(thetaH);
    // L and V mirror each other about the half vector, which is tilted by θh about x.
    auto tilt = [&](const float3& w) { return float3(w.x(), cosH * w.y() - sinH * w.z(), sinH * w.y() + cosH * w.z()); };
    const float3 L = normalize(tilt(float3(sinD, 0.f, cosD)));
    const float3 V = tilt(float3(-sinD, 0.f, cosD));

    Scene::VertexData v;
    v.posW = float3(0.f);
    v.normalW = v.faceNormalW = float3(0.f, 0.f, 1.f);
    v.tangentW = float4(1.f, 0.f, 0.f, 1.f);
    v.texC = mTexCoords;
    const ShadingData sd = prepareShadingData(v, mMaterialID, mpScene->getMaterial(mMaterialID), V);
    const MaterialInstance mi = createInstance(sd);
    const float3 f = mi.eval(sd, L, sg);
    const float NdotL = dot(sd.frame.N, L);
    return NdotL > 0.f ? f / NdotL : float3(0.f); // The BSDF itself, without the cosine.
}

float3 BSDFViewer::evalLighting(const float3& dir) const
{
    const EnvMap* env = mUseEnvMap ? mpScene->getEnvMap() : nullptr;
    return env ? env->eval(dir) : float3(1.f);
}

float3 BSDFViewer::selectedAlbedo(const BSDFProperties& p) const
{
    float3 albedo(0.f);
    if (mOutputAlbedo & kDiffuseReflection)
        albedo += p.diffuseReflectionAlbedo;
    if (mOutputAlbedo & kDiffuseTransmission)
        albedo += p.diffuseTransmissionAlbedo;
    if (mOutputAlbedo & kSpecularReflection)
        albedo += p.specularReflectionAlbedo;
    if (mOutputAlbedo & kSpecularTransmission)
        albedo += p.specularTransmissionAlbedo;
    return albedo;
}
} // namespace falcor

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(falcor::PluginRegistry& registry)
{
    registry.registerRenderPass<falcor::BSDFViewer>();
}
