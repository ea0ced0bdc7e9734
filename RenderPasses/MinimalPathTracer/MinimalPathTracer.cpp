#include "MinimalPathTracer.h"
#include "RenderGraph/RenderPassStandardFlags.h"
#include "Core/PluginRegistry.h"
#include "Core/ThreadPool.h"
#include "Rendering/Lights/LightHelpers.h"

namespace falcor
{
namespace
{
const std::string kMaxBounces = "maxBounces";
const std::string kComputeDirect = "computeDirect";
const std::string kUseImportanceSampling = "useImportanceSampling";
const std::string kVBuffer = "vbuffer";
const std::string kViewW = "viewW";
const std::string kColor = "color";
} // namespace

struct MinimalPathTracer::Context
{
    const Scene& scene;
    std::span<const LightData> lights; ///< Empty when analytic lights are off.
    bool useEmissiveLights;
    const EnvMap* envLight;      ///< Env map lighting paths, or nullptr.
    const EnvMap* envBackground; ///< Env map seen by primary rays, or nullptr.
    uint32_t seed;               ///< This frame's seed of the per-pixel random streams.
};

MinimalPathTracer::MinimalPathTracer(const Properties& props)
{
    for (const auto& [key, value] : props)
    {
        if (key == kMaxBounces)
            mMaxBounces = value.as<uint32_t>(key);
        else if (key == kComputeDirect)
            mComputeDirect = value.as<bool>(key);
        else if (key == kUseImportanceSampling)
            mUseImportanceSampling = value.as<bool>(key);
        else
            warnUnknownProperty(key);
    }
}

Properties MinimalPathTracer::getProperties() const
{
    Properties props;
    props.set(kMaxBounces, mMaxBounces);
    props.set(kComputeDirect, mComputeDirect);
    props.set(kUseImportanceSampling, mUseImportanceSampling);
    return props;
}

RenderPassReflection MinimalPathTracer::reflect(const CompileData&)
{
    RenderPassReflection reflector;
    reflector.addInput(kVBuffer, "Visibility buffer in packed format").format(ResourceFormat::RGBA32Uint);
    reflector.addInput(kViewW, "World-space view direction (xyz float format)").flags(RenderPassReflection::Field::Flags::Optional);
    reflector.addOutput(kColor, "Output color (sum of direct and indirect)").format(ResourceFormat::RGBA32Float);
    return reflector;
}

void MinimalPathTracer::setScene(RenderContext*, const std::shared_ptr<Scene>& pScene)
{
    mpScene = pScene;
    mFrameCount = 0;
    if (pScene)
        mHitInfo = HitInfoLayout(*pScene);
}

void MinimalPathTracer::execute(RenderContext*, const RenderData& renderData)
{
    Texture& output = *renderData[kColor];
    if (!mpScene)
    {
        output.clear();
        return;
    }
    const Texture& vbuffer = *renderData[kVBuffer];
    const Texture* viewW = renderData[kViewW];
    const Scene& scene = *mpScene;
    const Scene::RenderSettings& settings = scene.getRenderSettings();
    const Context ctx{
        scene,
        settings.useAnalyticLights ? std::span<const LightData>(scene.getActiveLights()) : std::span<const LightData>(),
        settings.useEmissiveLights,
        settings.useEnvLight ? scene.getEnvMap() : nullptr,
        scene.getEnvMap(),
        frameSeed(renderData.getDictionary(), mFrameCount),
    };

    const uint2 frameDim = output.getDims();
    checkFieldDims(getType(), frameDim, {{kVBuffer, &vbuffer}, {kViewW, viewW}});
    const Camera& camera = scene.getCamera();
    parallelForRows(frameDim.y(), [&](uint32_t y) {
        std::vector<float4> row(frameDim.x());
        for (uint32_t x = 0; x < frameDim.x(); ++x)
        {
            const uint2 pixel(x, y);
            const float3 dir = viewW ? -viewW->loadTexel(x, y).xyz() : camera.computeRayPinhole(pixel, frameDim).dir;
            const TriangleHit hit = mHitInfo.unpackTriangleHit(loadPackedHitInfo(vbuffer, x, y));
            const float3 L = tracePath(ctx, pixel, dir, hit);
            row[x] = float4(L.x(), L.y(), L.z(), 1.f);
        }
        output.storeRow(y, row.data());
    });
    ++mFrameCount;
}

float3 MinimalPathTracer::tracePath(const Context& ctx, uint2 pixel, const float3& primaryDir, const TriangleHit& primaryHit) const
{
    if (!primaryHit.isValid())
        return ctx.envBackground ? ctx.envBackground->eval(primaryDir) : float3(0.f);

    UniformSampleGenerator sg(pixel, ctx.seed);
    ShadingData sd = loadShadingData(ctx.scene, primaryHit, primaryDir);
    MaterialInstance mi = createMaterialInstance(sd, TextureLod{}, kHintNone);

    float3 L(0.f);
    if (mComputeDirect)
        L += mi.getProperties().emission + evalDirectAnalytic(ctx, sd, mi, sg);

    // Scatter from the primary hit, then up to maxBounces more vertices; the last only adds emission.
    float3 thp(1.f);
    for (uint32_t pathLength = 0;; ++pathLength)
    {
        BSDFSample bs;
        if (!mi.sample(sd, sg, bs, mUseImportanceSampling))
            break;
        thp *= bs.weight;
        if (!anyPositive(thp))
            break;
        const Ray ray{sd.computeRayOrigin(!bs.isLobe(kLobeTransmission)), 0.f, bs.wo};
        const TriangleHit hit = ctx.scene.closestHit(ray);
        const bool countsEmission = mComputeDirect || pathLength > 0;
        if (!hit.isValid())
        {
            if (ctx.envLight && countsEmission)
                L += thp * ctx.envLight->eval(bs.wo);
            break;
        }
        sd = loadShadingData(ctx.scene, hit, bs.wo);
        mi = createMaterialInstance(sd, TextureLod{}, kHintNone);
        if (ctx.useEmissiveLights && countsEmission)
            L += thp * mi.getProperties().emission;
        if (pathLength >= mMaxBounces)
            break;
        L += thp * evalDirectAnalytic(ctx, sd, mi, sg);
    }
    return L;
}

float3 MinimalPathTracer::evalDirectAnalytic(const Context& ctx, const ShadingData& sd, const MaterialInstance& mi,
                                             UniformSampleGenerator& sg) const
{
    const uint32_t lightCount = uint32_t(ctx.lights.size());
    if (lightCount == 0)
        return float3(0.f);
    const uint32_t lightIndex = std::min(uint32_t(sampleNext1D(sg) * float(lightCount)), lightCount - 1);
    AnalyticLightSample ls;
    if (!sampleLight(sd.posW, ctx.lights[lightIndex], sg, ls))
        return float3(0.f);

    // Skip lights on a side of the surface the material does not scatter to.
    const uint32_t lobes = mi.getLobeTypes();
    const float NdotL = dot(sd.getOrientedFaceNormal(), ls.dir);
    if ((NdotL <= kMinCosTheta && !(lobes & kLobeTransmission)) || (NdotL >= -kMinCosTheta && !(lobes & kLobeReflection)))
        return float3(0.f);

    const Ray shadowRay{computeRayOrigin(sd.posW, dot(sd.faceN, ls.dir) >= 0.f ? sd.faceN : -sd.faceN), 0.f, ls.dir, ls.distance};
    if (ctx.scene.anyHit(shadowRay))
        return float3(0.f);
    return mi.eval(sd, ls.dir, sg) * ls.Li * float(lightCount);
}
} // namespace falcor

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(falcor::PluginRegistry& registry)
{
    registry.registerRenderPass<falcor::MinimalPathTracer>();
}
