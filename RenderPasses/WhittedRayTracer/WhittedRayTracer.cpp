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

/// Falcor's background where there is no environment map.
const float3 kDefaultBackgroundColor(0.25f, 0.25f, 0.25f);

/// The shading normal turned to the viewer's side for the back of double-sided materials.
float3 flippedShadingNormal(const ShadingData& sd)
{
    return !sd.frontFacing && sd.mtl->doubleSided ? -sd.frame.N : sd.frame.N;
}

/// Relative IoR across the surface (outside over inside, as the ray travels).
float relativeIoR(const ShadingData& sd)
{
    const float ior = headerIoR(*sd.mtl);
    return sd.frontFacing ? sd.IoR / ior : ior / sd.IoR;
}

float3 mirror(const float3& dir, const float3& normal)
{
    return dir - normal * (2.f * dot(normal, dir));
}

/// Whether a footprint filters isotropically at this point of the chain.
bool isIsotropic(RayFootprintFilterMode mode, bool hasHitRefractiveMaterial)
{
    return mode == RayFootprintFilterMode::Isotropic || (mode == RayFootprintFilterMode::AnisotropicWhenRefraction && !hasHitRefractiveMaterial);
}

uint32_t envMapHeight(const EnvMap& env)
{
    return env.texture ? env.texture->getHeight() : 1u;
}
} // namespace

struct WhittedRayTracer::GBufferTexel
{
    Scene::VertexData v;
    uint32_t materialID = 0;
    TriangleHit hit; ///< From the V-buffer (footprints need the triangle).
    TextureLod lod;
    bool valid = false;
};

/// A hit along the chain: its shading data, texture level, relative IoR and (for ray cones) the
/// spread the surface adds; the refraction when the footprint computed it.
struct WhittedRayTracer::HitFootprint
{
    ShadingData sd;
    float3 normalW; ///< Interpolated vertex normal: Falcor reflects about it along the chain.
    TextureLod lod;
    float eta = 1.f;
    float surfaceSpread = 0.f;
    float3 refracted{0.f, 0.f, 0.f};
    bool tir = false;
};

/// The ray in flight along the chain, with its footprint (a cone or a differential, per texLODMode).
struct WhittedRayTracer::ScatterRay
{
    float3 origin, dir; ///< dir is a unit vector.
    float3 thp{1.f, 1.f, 1.f};
    RayCone cone;
    RayDiff diff;
    bool hasHitRefractiveMaterial = false;
    uint32_t pathLength = 0; ///< Hits after the primary one so far.
    bool terminated = false;
};

/// Where the primary hit sends the ray, and its footprint on the way.
struct WhittedRayTracer::PrimaryScatter
{
    float3 refracted{0.f, 0.f, 0.f};
    bool tir = false;
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
    const Texture* texGrads = renderData[kTexGrads];
    checkFieldDims(getType(), frameDim,
                   {{kPosW, &posW}, {kNormalW, &normalW}, {kTangentW, &tangentW}, {kFaceNormalW, &faceNormalW}, {kTexC, &texC},
                    {kMtlData, &mtlData}, {kVBuffer, &vbuffer}, {kTexGrads, texGrads}});
    const HitInfoLayout hitInfo(*mpScene);

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
            g.hit = hitInfo.unpackTriangleHit(loadPackedHitInfo(vbuffer, x, y));
            // As Falcor: the G-buffer's texture gradients when connected, else the finest level.
            if (texGrads)
            {
                const float4 grads = texGrads->loadTexel(x, y);
                g.lod = TextureLod::gradients(float2(grads.x(), grads.y()), float2(grads.z(), grads.w()));
            }
            UniformSampleGenerator sg(uint2(x, y), mFrameCount);
            const float3 L = shadePixel(g, uint2(x, y), frameDim, sg);
            row[x] = float4(L.x(), L.y(), L.z(), 1.f);
        }
        output.storeRow(y, row.data());
    });
    ++mFrameCount;
}

float3 WhittedRayTracer::shadePixel(const GBufferTexel& g, uint2 pixel, uint2 frameDim, UniformSampleGenerator& sg) const
{
    const Scene& scene = *mpScene;
    const float3 cameraDir = scene.getCamera().computeNonNormalizedRayDirPinhole(pixel, frameDim);
    const float3 rayDir = normalize(cameraDir);
    if (!g.valid || g.materialID >= scene.getMaterials().size())
        return background(cameraDir, rayDir, frameDim);

    const ShadingData sd = prepareShadingData(g.v, g.materialID, scene.getMaterial(g.materialID), -rayDir);
    const MaterialInstance mi = createMaterialInstance(sd, g.lod, kHintNone);
    const BSDFProperties props = mi.getProperties();
    const float3 origin = sd.computeRayOrigin();
    float3 L = props.emission; // Emission seen directly, whatever the scene settings.
    if (scene.getRenderSettings().useAnalyticLights)
        L += evalDirectAnalytic(sd, mi, origin, sg);

    ScatterRay ray;
    const PrimaryScatter scatter = startFootprint(g, sd, props, cameraDir, rayDir, pixel, frameDim, ray);
    const float3 N = flippedShadingNormal(sd);
    if (relativeIoR(sd) == 1.f || scatter.tir)
    {
        ray.dir = mirror(rayDir, N);
        ray.origin = origin;
        const float3& s = props.specularReflectance;
        ray.thp *= scatter.tir ? 1.f : (s.x() + s.y() + s.z()) / 3.f;
    }
    else
    {
        ray.dir = scatter.refracted;
        ray.origin = sd.computeRayOrigin(false);
        ray.thp *= 1.f - props.roughness;
    }
    // Falcor follows the chain only from smooth primary hits.
    if (props.roughness <= kMaxPrimaryRoughness)
        for (uint32_t depth = 0; depth <= mMaxBounces && !ray.terminated; ++depth)
            traceScatterRay(ray, L, sg);
    return L;
}

float3 WhittedRayTracer::background(const float3& cameraDir, const float3& rayDir, uint2 frameDim) const
{
    const EnvMap* env = mpScene->getEnvMap();
    if (!env)
        return kDefaultBackgroundColor;
    float lod = 0.f;
    const CameraData& cd = mpScene->getCamera().getData();
    if (mTexLODMode == TexLODMode::RayCones)
        lod = environmentMapLod(pixelSpreadAngle(cd, frameDim.y()), envMapHeight(*env));
    else if (mTexLODMode == TexLODMode::RayDiffs)
    {
        float3 dDdx, dDdy;
        rayDirectionDifferentials(cameraDir, cd.cameraU, cd.cameraV, float2(frameDim), dDdx, dDdy);
        lod = environmentMapLod(dDdx, dDdy, envMapHeight(*env));
    }
    return env->eval(rayDir, lod);
}

WhittedRayTracer::PrimaryScatter WhittedRayTracer::startFootprint(const GBufferTexel& g, const ShadingData& sd, const BSDFProperties& props,
                                                                  const float3& cameraDir, const float3& rayDir, uint2 pixel, uint2 frameDim,
                                                                  ScatterRay& ray) const
{
    const Scene& scene = *mpScene;
    const CameraData& cd = scene.getCamera().getData();
    const float eta = relativeIoR(sd);
    const float3 N = flippedShadingNormal(sd);
    const float hitT = length(cd.posW - g.v.posW);
    PrimaryScatter out;
    const bool footprint = g.hit.isValid() && (mTexLODMode == TexLODMode::RayCones || mTexLODMode == TexLODMode::RayDiffs);
    if (!footprint)
    {
        out.tir = !refractWithTIR(rayDir, N, eta, out.refracted);
        return out;
    }
    // The pixel's ray differential at the hit, on the plane of `normal` (RayDiffs and Combo cones).
    auto primaryDiff = [&](const float3& normal) {
        float3 dDdx, dDdy;
        rayDirectionDifferentials(cameraDir, cd.cameraU, cd.cameraV, float2(frameDim), dDdx, dDdy);
        return RayDiff{float3(0.f), float3(0.f), dDdx, dDdy}.propagate(rayDir, hitT, normal);
    };
    if (mTexLODMode == TexLODMode::RayDiffs)
    {
        const RayDiffTriangle tri = getRayDiffTriangle(scene, g.hit, rayDir);
        ray.diff = primaryDiff(sd.faceN);
        float2 dBarydx, dBarydy;
        barycentricDifferentials(ray.diff, tri.edge01, tri.edge02, sd.faceN, dBarydx, dBarydy);
        const float3 n = normalize(tri.unnormalizedN);
        if (eta == 1.f)
            reflectRayDifferential(ray.diff, rayDir, tri, n, dBarydx, dBarydy);
        else if (!refractRayDifferential(ray.diff, rayDir, tri, n, dBarydx, dBarydy, eta, out.refracted))
        {
            reflectRayDifferential(ray.diff, rayDir, tri, n, dBarydx, dBarydy);
            out.tir = true;
        }
        return out;
    }
    // Ray cones: the surface's spread from the normal's change across the pixel (Combo) or from
    // the triangle's curvature (Unified).
    const float pixelSpread = pixelSpreadAngle(cd, frameDim.y());
    float surfaceSpread;
    if (mRayConeMode == RayConeMode::Combo)
    {
        const RayDiffTriangle tri = getRayDiffTriangle(scene, g.hit, rayDir);
        const RayDiff diff = primaryDiff(N);
        float2 dBarydx, dBarydy;
        barycentricDifferentials(diff, tri.edge01, tri.edge02, sd.faceN, dBarydx, dBarydy);
        float3 dNdx, dNdy;
        normalDifferentials(tri, dBarydx, dBarydy, dNdx, dNdy);
        const Camera& camera = scene.getCamera();
        const float3 right = normalize(camera.computeNonNormalizedRayDirPinhole(pixel + uint2(1, 0), frameDim)) - rayDir;
        const float3 up = normalize(camera.computeNonNormalizedRayDirPinhole(pixel + uint2(0, 1), frameDim)) - rayDir;
        surfaceSpread = screenSpaceSurfaceSpreadAngle(right, up, dNdx, dNdy);
    }
    else
        surfaceSpread = spreadAngleFromCurvature(getTriangleCurvatures(scene, g.hit).acrossRay(rayDir), hitT * pixelSpread, rayDir, N);
    if (mUseRoughnessToVariance)
        surfaceSpread += roughnessToSpread(props.roughness);
    ray.cone = RayCone{0.f, pixelSpread}.propagateDistance(hitT);
    if (eta == 1.f)
        ray.cone = ray.cone.addToSpreadAngle(2.f * surfaceSpread); // A mirror doubles the normal's spread.
    else if (!refractRayCone(ray.cone, rayDir, N, surfaceSpread, eta, out.refracted))
    {
        ray.cone = ray.cone.addToSpreadAngle(surfaceSpread);
        out.tir = true;
    }
    return out;
}

void WhittedRayTracer::traceScatterRay(ScatterRay& ray, float3& L, UniformSampleGenerator& sg) const
{
    const Scene& scene = *mpScene;
    const Scene::RenderSettings& settings = scene.getRenderSettings();
    const TriangleHit hit = scene.closestHit(falcor::Ray{ray.origin, 0.f, ray.dir});
    if (!hit.isValid())
    {
        ray.terminated = true;
        const EnvMap* env = scene.getEnvMap();
        if (env && settings.useEnvLight && env->intensity > 0.f)
        {
            float lod = 0.f;
            if (mTexLODMode == TexLODMode::RayCones)
                lod = environmentMapLod(ray.cone.spreadAngle, envMapHeight(*env));
            else if (mTexLODMode == TexLODMode::RayDiffs)
                lod = environmentMapLod(ray.diff.dDdx, ray.diff.dDdy, envMapHeight(*env));
            L += ray.thp * env->eval(ray.dir, lod);
        }
        return;
    }
    HitFootprint fp = footprintAtHit(hit, ray);
    const MaterialInstance mi = createMaterialInstance(fp.sd, fp.lod, kHintNone);
    const BSDFProperties props = mi.getProperties();
    if (mTexLODMode == TexLODMode::RayCones)
    {
        // The cone's spread grows here, after the material gives the roughness.
        if (mUseRoughnessToVariance)
            fp.surfaceSpread += roughnessToSpread(props.roughness);
        if (fp.eta == 1.f)
            ray.cone = ray.cone.addToSpreadAngle(2.f * fp.surfaceSpread);
        else if (!refractRayCone(ray.cone, ray.dir, flippedShadingNormal(fp.sd), fp.surfaceSpread, fp.eta, fp.refracted))
        {
            ray.cone = ray.cone.addToSpreadAngle(fp.surfaceSpread);
            fp.tir = true;
        }
    }
    if (settings.useEmissiveLights)
        L += ray.thp * props.emission;
    if (ray.pathLength >= mMaxBounces)
    {
        ray.terminated = true;
        return;
    }
    const float3 origin = fp.sd.computeRayOrigin();
    if (settings.useAnalyticLights)
        L += ray.thp * evalDirectAnalytic(fp.sd, mi, origin, sg);
    if (fp.eta == 1.f || fp.tir)
    {
        ray.dir = mirror(ray.dir, fp.normalW);
        ray.origin = origin;
        const float3& s = props.specularReflectance;
        ray.thp *= fp.tir ? 1.f : (s.x() + s.y() + s.z()) / 3.f;
    }
    else
    {
        ray.dir = fp.refracted;
        ray.origin = fp.sd.computeRayOrigin(false);
        ray.thp *= 1.f - props.roughness;
        ray.hasHitRefractiveMaterial = true;
    }
    ++ray.pathLength;
    ray.terminated = maxComponent(ray.thp) < kMinThroughput;
}

WhittedRayTracer::HitFootprint WhittedRayTracer::footprintAtHit(const TriangleHit& hit, ScatterRay& ray) const
{
    const Scene& scene = *mpScene;
    const float3 rayDir = ray.dir;
    const Scene::VertexData v = scene.getVertexData(hit, rayDir);
    const uint32_t materialID = scene.getInstance(hit.instanceID).materialID;
    HitFootprint fp;
    fp.normalW = v.normalW;
    fp.sd = prepareShadingData(v, materialID, scene.getMaterial(materialID), -rayDir);
    fp.eta = relativeIoR(fp.sd);
    if (mTexLODMode == TexLODMode::RayCones)
    {
        const float coneWidth = ray.cone.spreadAngle * hit.t + ray.cone.width;
        fp.surfaceSpread = spreadAngleFromCurvature(getTriangleCurvatures(scene, hit).average(), coneWidth, rayDir, v.normalW);
        ray.cone = ray.cone.propagateDistance(hit.t);
        const TriangleCorners corners = getTriangleCorners(scene, hit);
        if (isIsotropic(mRayConeFilterMode, ray.hasHitRefractiveMaterial))
            fp.lod = TextureLod::rayCone(ray.cone.computeLod(rayConeTriangleLodConstant(corners.posW, corners.texC), rayDir, v.normalW));
        else
        {
            // Falcor passes the cone's width as the footprint's radius.
            fp.lod = TextureLod::gradients(float2(0.f), float2(0.f));
            rayConeGradients(corners, v, rayDir, ray.cone.width, fp.lod.ddx, fp.lod.ddy);
        }
    }
    else if (mTexLODMode == TexLODMode::RayDiffs)
    {
        ray.diff = ray.diff.propagate(rayDir, hit.t, v.faceNormalW);
        const RayDiffTriangle tri = getRayDiffTriangle(scene, hit, rayDir);
        float2 dBarydx, dBarydy, dUVdx, dUVdy;
        barycentricDifferentials(ray.diff, tri.edge01, tri.edge02, v.faceNormalW, dBarydx, dBarydy);
        interpolateDifferentials(dBarydx, dBarydy, tri.texC, dUVdx, dUVdy);
        fp.lod = isIsotropic(mRayDiffFilterMode, ray.hasHitRefractiveMaterial) ? TextureLod::rayDiffsIsotropic(dUVdx, dUVdy)
                                                                               : TextureLod::gradients(dUVdx, dUVdy);
        if (fp.eta == 1.f)
            reflectRayDifferential(ray.diff, rayDir, tri, v.normalW, dBarydx, dBarydy);
        else if (!refractRayDifferential(ray.diff, rayDir, tri, normalize(tri.unnormalizedN), dBarydx, dBarydy, fp.eta, fp.refracted))
        {
            reflectRayDifferential(ray.diff, rayDir, tri, v.normalW, dBarydx, dBarydy);
            fp.tir = true;
        }
    }
    else if (fp.eta != 1.f)
        fp.tir = !refractWithTIR(rayDir, flippedShadingNormal(fp.sd), fp.eta, fp.refracted);
    return fp;
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
