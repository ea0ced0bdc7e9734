#include "WhittedRayTracer.h"
#include "Core/Logger.h"
#include "Core/PluginRegistry.h"
#include "Core/ThreadPool.h"
#include "Rendering/Lights/LightHelpers.h"
#include "Scene/HitInfo.h"

namespace falcor
{
namespace
{
const std::string kMaxBounces = "maxBounces", kTexLODMode = "texLODMode", kRayConeMode = "rayConeMode",
                  kRayConeFilterMode = "rayConeFilterMode", kRayDiffFilterMode = "rayDiffFilterMode",
                  kUseRoughnessToVariance = "useRoughnessToVariance";
const std::string kPosW = "posW", kNormalW = "normalW", kTangentW = "tangentW", kFaceNormalW = "faceNormalW", kTexC = "texC",
                  kMtlData = "mtlData", kVBuffer = "vbuffer", kTexGrads = "texGrads", kColor = "color";

/// Below this throughput the chain stops (Falcor's cut-off).
constexpr float kMinThroughput = 0.01f;
/// Falcor traces the chain only from primary hits this smooth.
constexpr float kMaxPrimaryRoughness = 0.19f;

/// rayDir refracted about `normal` (facing against it) with eta = etaI / etaT; false under total internal reflection.
bool refractWithTIR(const float3& rayDir, const float3& normal, float eta, float3& refracted)
{
    const float NdotD = dot(normal, rayDir);
    const float k = 1.f - eta * eta * (1.f - NdotD * NdotD);
    if (k < 0.f)
        return false;
    refracted = rayDir * eta - normal * (eta * NdotD + std::sqrt(k));
    return true;
}

/// The shading normal turned to the viewer's side for the back of double-sided materials.
float3 flippedShadingNormal(const ShadingData& sd)
{
    return !sd.frontFacing && sd.mtl->doubleSided ? -sd.frame.N : sd.frame.N;
}
} // namespace

struct WhittedRayTracer::GBufferTexel
{
    Scene::VertexData v;
    uint32_t materialID = 0;
    TextureLod lod;
    bool valid = false;
};

struct WhittedRayTracer::ScatterRay
{
    float3 origin, dir;
    float3 thp{1.f, 1.f, 1.f};
};

WhittedRayTracer::WhittedRayTracer(const Properties& props)
{
    for (const auto& [key, value] : props)
    {
        if (key == kMaxBounces) mMaxBounces = value.as<uint32_t>(key);
        else if (key == kTexLODMode) mTexLODMode = value.as<TexLODMode>(key);
        else if (key == kRayConeMode) mRayConeMode = value.as<RayConeMode>(key);
        else if (key == kRayConeFilterMode) mRayConeFilterMode = value.as<RayFootprintFilterMode>(key);
        else if (key == kRayDiffFilterMode) mRayDiffFilterMode = value.as<RayFootprintFilterMode>(key);
        else if (key == kUseRoughnessToVariance) mUseRoughnessToVariance = value.as<bool>(key);
        else warnUnknownProperty(key);
    }
}

Properties WhittedRayTracer::getProperties() const
{
    Properties props;
    props.set(kMaxBounces, mMaxBounces);
    props.set(kTexLODMode, mTexLODMode);
    props.set(kRayConeMode, mRayConeMode);
    props.set(kRayConeFilterMode, mRayConeFilterMode);
    props.set(kRayDiffFilterMode, mRayDiffFilterMode);
    props.set(kUseRoughnessToVariance, mUseRoughnessToVariance);
    return props;
}

RenderPassReflection WhittedRayTracer::reflect(const CompileData&)
{
    RenderPassReflection r;
    r.addInput(kPosW, "World-space position (xyz) and foreground flag (w)");
    r.addInput(kNormalW, "World-space shading normal (xyz)");
    r.addInput(kTangentW, "World-space shading tangent (xyz) and sign (w)");
    r.addInput(kFaceNormalW, "Face normal in world space (xyz)");
    r.addInput(kTexC, "Texture coordinate");
    r.addInput(kTexGrads, "Texture gradients").flags(RenderPassReflection::Field::Flags::Optional);
    r.addInput(kMtlData, "Material data");
    r.addInput(kVBuffer, "Visibility buffer in packed format");
    r.addOutput(kColor, "Output color (sum of direct and indirect)").format(ResourceFormat::RGBA32Float);
    return r;
}

void WhittedRayTracer::setScene(RenderContext*, const std::shared_ptr<Scene>& pScene)
{
    mpScene = pScene;
    mFrameCount = 0;
}

void WhittedRayTracer::execute(RenderContext*, const RenderData& renderData)
{
    Texture& output = *renderData[kColor];
    if (!mpScene)
    {
        output.clear();
        return;
    }
    const uint2 frameDim = output.getDims();
    const Texture &posW = *renderData[kPosW], &normalW = *renderData[kNormalW], &tangentW = *renderData[kTangentW],
                  &faceNormalW = *renderData[kFaceNormalW], &texC = *renderData[kTexC], &mtlData = *renderData[kMtlData];
    const Texture& vbuffer = *renderData[kVBuffer];
    checkFieldDims(getType(), frameDim,
                   {{kPosW, &posW}, {kNormalW, &normalW}, {kTangentW, &tangentW}, {kFaceNormalW, &faceNormalW}, {kTexC, &texC},
                    {kMtlData, &mtlData}, {kVBuffer, &vbuffer}});
    const bool footprintLod = mTexLODMode == TexLODMode::RayCones || mTexLODMode == TexLODMode::RayDiffs;
    if (footprintLod)
        logWarningOnce("WhittedRayTracer: texLODMode '", enumToString(mTexLODMode), "' filters primary hits (isotropically); hits along "
                       "reflection and refraction use mip 0 (footprints are not propagated yet).");
    const HitInfoLayout hitInfo(*mpScene);

    const Camera& camera = mpScene->getCamera();
    parallelForRows(frameDim.y(), [&](uint32_t y) {
        std::vector<float4> row(frameDim.x());
        for (uint32_t x = 0; x < frameDim.x(); ++x)
        {
            GBufferTexel g;
            const float4 p = posW.loadTexel(x, y), t = tangentW.loadTexel(x, y), uv = texC.loadTexel(x, y);
            const float3 tangent = normalize(t.xyz());
            g.valid = p.w() != 0.f;
            g.v.posW = p.xyz();
            g.v.normalW = normalize(normalW.loadTexel(x, y).xyz());
            g.v.tangentW = float4(tangent.x(), tangent.y(), tangent.z(), t.w());
            g.v.faceNormalW = normalize(faceNormalW.loadTexel(x, y).xyz());
            g.v.texC = float2(uv.x(), uv.y());
            g.materialID = uint32_t(mtlData.loadTexel(x, y).x());
            const float3 dir = camera.computeRayPinhole(uint2(x, y), frameDim).dir;
            const TriangleHit hit = hitInfo.unpackTriangleHit(loadPackedHitInfo(vbuffer, x, y));
            if (footprintLod && g.valid && hit.isValid())
            {
                const float t = length(g.v.posW - camera.getData().posW);
                g.lod = mTexLODMode == TexLODMode::RayCones ? primaryHitRayConesLod(*mpScene, hit, g.v, dir, t, frameDim.y())
                                                           : primaryHitRayDiffsLod(*mpScene, hit, dir, t, frameDim);
            }
            UniformSampleGenerator sg(uint2(x, y), mFrameCount);
            const float3 L = shadePixel(g, dir, sg);
            row[x] = float4(L.x(), L.y(), L.z(), 1.f);
        }
        output.storeRow(y, row.data());
    });
    ++mFrameCount;
}

float3 WhittedRayTracer::shadePixel(const GBufferTexel& g, const float3& rayDir, UniformSampleGenerator& sg) const
{
    const Scene& scene = *mpScene;
    if (!g.valid || g.materialID >= scene.getMaterials().size())
    {
        const EnvMap* env = scene.getEnvMap();
        return env ? env->eval(rayDir) : float3(0.f);
    }
    const ShadingData sd = prepareShadingData(g.v, g.materialID, scene.getMaterial(g.materialID), -rayDir);
    const MaterialInstance mi = createMaterialInstance(sd, g.lod, kHintNone);
    ScatterRay ray{float3(0.f), rayDir};
    float3 L = mi.getProperties().emission; // Emission seen directly, whatever the scene settings.
    const bool chain = shadeHit(sd, mi, ray, L, sg) && mi.getProperties().roughness <= kMaxPrimaryRoughness;
    for (uint32_t depth = 0; chain && depth <= mMaxBounces; ++depth)
    {
        const TriangleHit hit = scene.closestHit(falcor::Ray{ray.origin, 0.f, ray.dir});
        if (!hit.isValid())
        {
            if (scene.getEnvMap() && scene.getRenderSettings().useEnvLight)
                L += ray.thp * scene.getEnvMap()->eval(ray.dir);
            break;
        }
        const ShadingData hitSd = loadShadingData(scene, hit, ray.dir);
        const MaterialInstance hitMi = createMaterialInstance(hitSd, TextureLod{}, kHintNone);
        if (scene.getRenderSettings().useEmissiveLights)
            L += ray.thp * hitMi.getProperties().emission;
        if (depth >= mMaxBounces || !shadeHit(hitSd, hitMi, ray, L, sg))
            break;
    }
    return L;
}

bool WhittedRayTracer::shadeHit(const ShadingData& sd, const MaterialInstance& mi, ScatterRay& ray, float3& radiance,
                                UniformSampleGenerator& sg) const
{
    const BSDFProperties props = mi.getProperties();
    const float3 origin = sd.computeRayOrigin();
    if (mpScene->getRenderSettings().useAnalyticLights)
        radiance += ray.thp * evalDirectAnalytic(sd, mi, origin, sg);

    // The relative IoR across the surface: 1 reflects, anything else refracts (Falcor's test-bed rule).
    const float ior = headerIoR(*sd.mtl);
    const float eta = sd.frontFacing ? sd.IoR / ior : ior / sd.IoR;
    const float3 N = flippedShadingNormal(sd);
    float3 refracted(0.f);
    const bool tir = eta != 1.f && !refractWithTIR(ray.dir, N, eta, refracted);
    if (eta == 1.f || tir)
    {
        const float3 incoming = ray.dir;
        ray.dir = incoming - N * (2.f * dot(N, incoming));
        ray.origin = origin;
        const float3& s = props.specularReflectance;
        ray.thp *= tir ? 1.f : (s.x() + s.y() + s.z()) / 3.f;
    }
    else
    {
        ray.dir = refracted;
        ray.origin = sd.computeRayOrigin(false);
        ray.thp *= 1.f - props.roughness;
    }
    return maxComponent(ray.thp) >= kMinThroughput;
}

float3 WhittedRayTracer::evalDirectAnalytic(const ShadingData& sd, const MaterialInstance& mi, const float3& origin,
                                            UniformSampleGenerator& sg) const
{
    // Every light, each with one sample. (Falcor divides this sum by the light count, a remnant
    // of picking one light at random; see docs/compatibility.md.)
    float3 sum(0.f);
    const float3 N = flippedShadingNormal(sd);
    for (const LightData& light : mpScene->getActiveLights())
    {
        AnalyticLightSample ls;
        if (!sampleLight(origin, light, sg, ls) || dot(ls.dir, N) <= kMinCosTheta)
            continue;
        if (!mpScene->anyHit(falcor::Ray{origin, 0.f, ls.dir, ls.distance}))
            sum += mi.eval(sd, ls.dir, sg) * ls.Li;
    }
    return sum;
}
} // namespace falcor

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(falcor::PluginRegistry& registry)
{
    registry.registerRenderPass<falcor::WhittedRayTracer>();
}
