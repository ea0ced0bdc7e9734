#include "RTXDIPass.h"
#include "Core/Error.h"
#include "Core/Logger.h"
#include "Core/PluginRegistry.h"
#include "Core/ThreadPool.h"
#include "RenderGraph/RenderPassStandardFlags.h"
#include "Rendering/Lights/LightHelpers.h"
#include "Rendering/Materials/IsotropicGGX.h"
#include "Utils/Color/ColorHelpers.h"
#include <algorithm>
#include <array>
#include <cmath>

namespace falcor
{
namespace
{
const std::string kOptions = "options";
const std::string kVBuffer = "vbuffer";
const std::string kTexGrads = "texGrads";
const std::string kMotionVectors = "mvec";

enum OutputChannel : size_t
{
    kColor,
    kEmission,
    kDiffuseIllumination,
    kDiffuseReflectance,
    kSpecularIllumination,
    kSpecularReflectance,
    kOutputCount,
};
const std::array<std::pair<const char*, const char*>, kOutputCount> kOutputs = {{
    {"color", "Final color"},
    {"emission", "Emissive color"},
    {"diffuseIllumination", "Diffuse illumination"},
    {"diffuseReflectance", "Diffuse reflectance"},
    {"specularIllumination", "Specular illumination"},
    {"specularReflectance", "Specular reflectance"},
}};

/// Falcor's FinalShading writes this light distance where no light sample survived.
constexpr float kNoHitDistance = 10000.f;

MaterialInstance createInstance(const RTXDIPass::Surface& s)
{
    return createMaterialInstance(s.sd, TextureLod{}, kHintNone);
}

/// The target density p̂: luminance of the unshadowed reflected light.
float targetPdf(const RTXDIPass::Surface& s, const MaterialInstance& mi, const Incident& inc)
{
    // A fixed stream: the target must be a function of the sample (layered BSDFs evaluate stochastically).
    UniformSampleGenerator sg(uint2(0, 0), 0);
    return luminance(mi.eval(s.sd, inc.dir, sg) * inc.Li);
}

/// The BSDF times cosine towards `dir`, split into its diffuse and specular reflection lobes where
/// the material can restrict its lobes; single-lobe models go whole to the lobe they have.
std::pair<float3, float3> evalReflectionLobes(MaterialInstance mi, const ShadingData& sd, const float3& dir, UniformSampleGenerator& sg)
{
    const bool selectable = mi.visit([](auto& instance) { return requires { instance.activeLobes; }; });
    if (!selectable)
    {
        const float3 f = mi.eval(sd, dir, sg);
        return (mi.getLobeTypes() & kLobeDiffuse) ? std::pair(f, float3(0.f)) : std::pair(float3(0.f), f);
    }
    mi.setActiveLobes(kLobeDiffuseReflection);
    const float3 diffuse = mi.eval(sd, dir, sg);
    mi.setActiveLobes(kLobeSpecularReflection);
    return {diffuse, mi.eval(sd, dir, sg)};
}

/// Calls body(pixel, row-major index) for every pixel, rows on the pool (each pixel on one task).
template<typename F>
void forEachPixel(uint2 dim, F&& body)
{
    parallelForRows(dim.y(), [&](uint32_t y) {
        for (uint32_t x = 0; x < dim.x(); ++x)
            body(uint2(x, y), size_t(y) * dim.x() + x);
    });
}

float3 safeDivide(const float3& a, const float3& b)
{
    return float3(b.x() > 0.f ? a.x() / b.x() : 0.f, b.y() > 0.f ? a.y() / b.y() : 0.f, b.z() > 0.f ? a.z() / b.z() : 0.f);
}

float4 toFloat4(const float3& v, float w)
{
    return float4(v.x(), v.y(), v.z(), w);
}
} // namespace

/// What one frame's phases share: the scene, the lights in use and the candidate counts of the
/// strategies that have lights to draw (0 for the others).
struct RTXDIPass::Frame
{
    const Scene& scene;
    uint2 dim;
    uint32_t seed;
    const Texture* motionVectors;
    const EmissiveLightCollection* emissive; ///< Null when emissive lights are off or absent.
    const EnvMapSampler* envMap;             ///< Null when the env map does not light the scene.
    float localCount, infiniteCount, envCount, brdfCount;
    float triangleFraction; ///< Probability that a local candidate is an emissive triangle (else a point light).

    bool evalIncident(const LightSample& y, const float3& posW, Incident& inc) const;
};

bool RTXDIPass::Frame::evalIncident(const LightSample& y, const float3& posW, Incident& inc) const
{
    switch (y.kind)
    {
    case LightKind::Triangle:
    {
        const float3 toLight = y.posOrDir - posW;
        const float distSqr = std::max(dot(toLight, toLight), kMinLightDistSqr);
        inc.distance = std::sqrt(distSqr);
        inc.dir = toLight / inc.distance;
        const float cosLight = -dot(y.normal, inc.dir);
        if (cosLight <= 0.f)
            return false;
        inc.geometry = cosLight / distSqr;
        inc.Li = y.Le * inc.geometry;
        return true;
    }
    case LightKind::Point:
    {
        if (y.index >= scene.getActiveLights().size())
            return false; // A sample from before the scene's lights changed.
        AnalyticLightSample ls;
        detail::samplePointLight(posW, scene.getActiveLights()[y.index], ls);
        inc.dir = ls.dir, inc.distance = ls.distance, inc.Li = ls.Li;
        return anyPositive(inc.Li);
    }
    case LightKind::Infinite:
    case LightKind::Env:
        inc.dir = y.posOrDir, inc.distance = kMaxLightDistance, inc.Li = y.Le;
        return true;
    case LightKind::None:
        break;
    }
    return false;
}

RTXDIPass::RTXDIPass(const Properties& props)
{
    logWarningOnce("RTXDIPass: this is a CPU replacement implementing ReSTIR DI itself, not NVIDIA's RTXDI SDK.");
    for (const auto& [key, value] : props)
    {
        if (key == kOptions)
            mOptions = RTXDIOptions::fromDict(value, getType(), key);
        else
            warnUnknownProperty(key);
    }
}

Properties RTXDIPass::getProperties() const
{
    Properties props;
    props.setValue(kOptions, mOptions.toDict());
    return props;
}

RenderPassReflection RTXDIPass::reflect(const CompileData&)
{
    RenderPassReflection reflector;
    reflector.addInput(kVBuffer, "Visibility buffer in packed format").format(ResourceFormat::RGBA32Uint);
    reflector.addInput(kTexGrads, "Texture gradients").flags(RenderPassReflection::Field::Flags::Optional);
    reflector.addInput(kMotionVectors, "Motion vector buffer (float format)").flags(RenderPassReflection::Field::Flags::Optional);
    for (const auto& [name, desc] : kOutputs)
        reflector.addOutput(name, desc).format(ResourceFormat::RGBA32Float).flags(RenderPassReflection::Field::Flags::Optional);
    return reflector;
}

void RTXDIPass::setScene(RenderContext*, const std::shared_ptr<Scene>& pScene)
{
    mpScene = pScene;
    mFrameCount = 0;
    mHasHistory = false;
    if (pScene)
        mHitInfo = HitInfoLayout(*pScene);
    rebuildLights();
}

void RTXDIPass::rebuildLights()
{
    mpEmissiveLights.reset();
    mEmissiveSampler = {};
    mPointLights.clear();
    mInfiniteLights.clear();
    if (!mpScene)
    {
        mpEnvMapSampler.reset();
        return;
    }
    mLightsUpdateCount = mpScene->getUpdateCount();
    // Local lights are drawn by power, as RTXDI's presampled tiles are.
    mpEmissiveLights = std::make_unique<EmissiveLightCollection>(*mpScene);
    mEmissiveSampler = EmissiveLightSampler(mpEmissiveLights.get(), &mpScene->getMaterials(), EmissiveLightSamplerType::Power);
    if (const EnvMap* envMap = mpScene->getEnvMap())
    {
        if (!mpEnvMapSampler || !mpEnvMapSampler->isBuiltFor(*envMap))
            mpEnvMapSampler = std::make_unique<EnvMapSampler>(*envMap);
    }
    else
        mpEnvMapSampler.reset();
    // Analytic area lights are left out, as Falcor's RTXDI does.
    const std::vector<LightData>& lights = mpScene->getActiveLights();
    for (uint32_t i = 0; i < uint32_t(lights.size()); ++i)
    {
        if (lights[i].type == LightType::Point)
            mPointLights.push_back(i);
        else if (lights[i].type == LightType::Directional || lights[i].type == LightType::Distant)
            mInfiniteLights.push_back(i);
    }
}

void RTXDIPass::execute(RenderContext*, const RenderData& renderData)
{
    if (!mpScene)
    {
        for (const auto& output : kOutputs)
            if (Texture* t = renderData[output.first])
                t->clear();
        return;
    }
    if (mOptions.boilingFilterStrength > 0.f)
        logWarningOnce("RTXDIPass: 'boilingFilterStrength' is not applied by the CPU pass.");
    if (mpScene->getUpdateCount() != mLightsUpdateCount)
        rebuildLights();

    const Texture& vbuffer = *renderData[kVBuffer];
    const Texture* mvec = renderData[kMotionVectors];
    const uint2 dim = vbuffer.getDims();
    checkFieldDims(getType(), dim, {{kMotionVectors, mvec}, {kOutputs[kColor].first, renderData[kOutputs[kColor].first]}});
    resizeState(dim);
    const Frame frame = makeFrame(dim, frameSeed(renderData.getDictionary(), mFrameCount), mvec);

    mSurfaces.swap(mPrevSurfaces);
    loadSurfaces(frame, vbuffer);
    resample(frame);
    shade(frame, renderData);
    mPrevReservoirs.swap(mReservoirs); // The next frame's initial sampling overwrites every reservoir.
    mHasHistory = true;
    ++mFrameCount;
}

RTXDIPass::Frame RTXDIPass::makeFrame(uint2 dim, uint32_t seed, const Texture* mvec) const
{
    const Scene::RenderSettings& settings = mpScene->getRenderSettings();
    const bool useEmissive = settings.useEmissiveLights && mpEmissiveLights->getTriangleCount() > 0;
    const size_t triangles = useEmissive ? mpEmissiveLights->getTriangleCount() : 0;
    const size_t points = settings.useAnalyticLights ? mPointLights.size() : 0;
    const bool useInfinite = settings.useAnalyticLights && !mInfiniteLights.empty();
    const EnvMapSampler* envMap = settings.useEnvLight ? mpEnvMapSampler.get() : nullptr;
    return Frame{
        *mpScene,
        dim,
        seed,
        mvec,
        useEmissive ? mpEmissiveLights.get() : nullptr,
        envMap,
        triangles + points > 0 ? float(mOptions.localLightCandidateCount) : 0.f,
        useInfinite ? float(mOptions.infiniteLightCandidateCount) : 0.f,
        envMap ? float(mOptions.envLightCandidateCount) : 0.f,
        (useEmissive || envMap) ? float(mOptions.brdfCandidateCount) : 0.f,
        triangles + points > 0 ? float(triangles) / float(triangles + points) : 0.f,
    };
}

void RTXDIPass::resizeState(uint2 dim)
{
    if (dim == mFrameDim)
        return;
    const size_t count = size_t(dim.x()) * dim.y();
    mFrameDim = dim;
    mSurfaces.assign(count, {});
    mPrevSurfaces.assign(count, {});
    mReservoirs.assign(count, {});
    mScratch.assign(count, {});
    mPrevReservoirs.assign(count, {});
    mGenerators.assign(count, UniformSampleGenerator(uint2(0, 0), 0));
    mHasHistory = false;
}

void RTXDIPass::resample(const Frame& frame)
{
    // Initial candidates; each pixel's random stream then carries on through the reuse passes.
    forEachPixel(frame.dim, [&](uint2 pixel, size_t i) {
        mGenerators[i] = UniformSampleGenerator(pixel, frame.seed);
        mReservoirs[i] = sampleInitial(frame, mSurfaces[i], mGenerators[i]);
    });
    const bool temporal = mOptions.mode == RTXDIMode::TemporalResampling || mOptions.mode == RTXDIMode::SpatiotemporalResampling;
    if (temporal && mHasHistory)
    {
        forEachPixel(frame.dim, [&](uint2 pixel, size_t i) { mScratch[i] = resampleTemporal(frame, pixel, mReservoirs[i], mGenerators[i]); });
        mReservoirs.swap(mScratch);
    }
    const uint32_t spatialPasses = mOptions.mode == RTXDIMode::SpatialResampling          ? mOptions.spatialIterations
                                   : mOptions.mode == RTXDIMode::SpatiotemporalResampling ? 1u
                                                                                          : 0u;
    for (uint32_t pass = 0; pass < spatialPasses; ++pass)
    {
        resampleSpatial(frame, mReservoirs, mScratch);
        mReservoirs.swap(mScratch);
    }
}

void RTXDIPass::loadSurfaces(const Frame& frame, const Texture& vbuffer)
{
    const Camera& camera = frame.scene.getCamera();
    const std::vector<MaterialData>& materials = frame.scene.getMaterials();
    forEachPixel(frame.dim, [&](uint2 pixel, size_t i) {
        // Last frame's surfaces point at the materials of the scene as it is now.
        Surface& prev = mPrevSurfaces[i];
        prev.valid = prev.valid && prev.sd.materialID < materials.size();
        if (prev.valid)
            prev.sd.mtl = &materials[prev.sd.materialID];

        Surface& s = mSurfaces[i];
        const TriangleHit hit = mHitInfo.unpackTriangleHit(loadPackedHitInfo(vbuffer, pixel.x(), pixel.y()));
        s.valid = hit.isValid();
        if (!s.valid)
            return;
        const Ray ray = camera.computeRayPinhole(pixel, frame.dim);
        s.sd = loadShadingData(frame.scene, hit, ray.dir);
        s.viewDepth = length(s.sd.posW - ray.origin);
    });
}

Reservoir RTXDIPass::sampleInitial(const Frame& frame, const Surface& s, UniformSampleGenerator& sg) const
{
    Reservoir r;
    if (!s.valid)
        return r;
    const MaterialInstance mi = createInstance(s);
    // Resampling weights by the balance heuristic over every candidate strategy (Talbot's RIS
    // with multiple importance sampling): w = p̂(y) / Σ_t M_t p_t(y).
    const auto candidate = [&](bool drawn, const LightSample& y) {
        Incident inc;
        if (!drawn || !frame.evalIncident(y, s.sd.posW, inc))
            return;
        const float p = falcor::targetPdf(s, mi, inc);
        const float pdfSum = candidatePdfSum(frame, s, mi, y, inc);
        if (p > 0.f && pdfSum > 0.f)
            r.stream(y, p / pdfSum, p, sampleNext1D(sg));
    };
    LightSample y;
    for (uint32_t i = 0; i < uint32_t(frame.localCount); ++i)
        candidate(sampleLocal(frame, s, sg, y), y);
    for (uint32_t i = 0; i < uint32_t(frame.infiniteCount); ++i)
        candidate(sampleInfinite(frame, s, sg, y), y);
    for (uint32_t i = 0; i < uint32_t(frame.envCount); ++i)
        candidate(sampleEnv(frame, sg, y), y);
    for (uint32_t i = 0; i < uint32_t(frame.brdfCount); ++i)
        candidate(sampleBrdf(frame, s, mi, sg, y), y);
    r.M = 1.f;
    r.finalize(1.f);
    // An occluded choice is dropped here, before reuse spreads it (RTXDI's testCandidateVisibility).
    if (mOptions.testCandidateVisibility && r.hasSample() && !isVisible(frame, s, r.y))
        r.finalize(0.f);
    return r;
}

bool RTXDIPass::sampleLocal(const Frame& frame, const Surface& s, UniformSampleGenerator& sg, LightSample& y) const
{
    if (sampleNext1D(sg) < frame.triangleFraction)
    {
        TriangleLightSample ls;
        if (!mEmissiveSampler.sampleLight(s.sd.posW, s.sd.frame.N, true, sg, ls))
            return false;
        y = {LightKind::Triangle, ls.triangleIndex, ls.posW, ls.normalW, ls.Le};
        return true;
    }
    const uint32_t count = uint32_t(mPointLights.size());
    const uint32_t pick = std::min(uint32_t(sampleNext1D(sg) * float(count)), count - 1);
    y = {LightKind::Point, mPointLights[pick], {}, {}, {}};
    return true;
}

bool RTXDIPass::sampleInfinite(const Frame& frame, const Surface& s, UniformSampleGenerator& sg, LightSample& y) const
{
    const uint32_t count = uint32_t(mInfiniteLights.size());
    const uint32_t index = mInfiniteLights[std::min(uint32_t(sampleNext1D(sg) * float(count)), count - 1)];
    AnalyticLightSample ls;
    if (!sampleLight(s.sd.posW, frame.scene.getActiveLights()[index], sg, ls))
        return false;
    y = {LightKind::Infinite, index, ls.dir, {}, ls.Li};
    return true;
}

bool RTXDIPass::sampleEnv(const Frame& frame, UniformSampleGenerator& sg, LightSample& y) const
{
    EnvMapSample es;
    if (!frame.envMap->sample(sg, es))
        return false;
    y = {LightKind::Env, 0, es.dir, {}, es.Le};
    return true;
}

bool RTXDIPass::sampleBrdf(const Frame& frame, const Surface& s, const MaterialInstance& mi, UniformSampleGenerator& sg,
                           LightSample& y) const
{
    BSDFSample bs;
    if (!mi.sample(s.sd, sg, bs) || bs.isLobe(kLobeDelta))
        return false; // Delta directions never find a light point by chance; RTXDI skips them too.
    const Ray ray{s.sd.computeRayOrigin(!bs.isLobe(kLobeTransmission)), 0.f, bs.wo};
    const TriangleHit hit = frame.scene.closestHit(ray);
    if (!hit.isValid())
    {
        if (!frame.envMap)
            return false;
        y = {LightKind::Env, 0, bs.wo, {}, frame.envMap->eval(bs.wo)};
        return true;
    }
    const uint32_t index = frame.emissive ? frame.emissive->getTriangleIndex(hit.instanceID, hit.primitiveIndex) : kInvalidIndex;
    if (index == kInvalidIndex)
        return false;
    const EmissiveLightCollection::Triangle& tri = frame.emissive->getTriangle(index);
    const float3 b(1.f - hit.barycentrics.x() - hit.barycentrics.y(), hit.barycentrics.x(), hit.barycentrics.y());
    y = {LightKind::Triangle, index, tri.getPosition(b), tri.normalW, tri.getEmission(b, frame.scene.getMaterials())};
    return true;
}

float RTXDIPass::candidatePdfSum(const Frame& frame, const Surface& s, const MaterialInstance& mi, const LightSample& y,
                                  const Incident& inc) const
{
    switch (y.kind)
    {
    case LightKind::Triangle:
    {
        const float selection = mEmissiveSampler.evalSelectionPdf(s.sd.posW, s.sd.frame.N, true, y.index);
        const float lightPdf = frame.triangleFraction * selection / frame.emissive->getTriangle(y.index).area;
        return frame.localCount * lightPdf + frame.brdfCount * mi.evalPdf(s.sd, inc.dir) * inc.geometry;
    }
    case LightKind::Point:
        return frame.localCount * (1.f - frame.triangleFraction) / float(mPointLights.size());
    case LightKind::Infinite:
        return frame.infiniteCount / float(mInfiniteLights.size());
    case LightKind::Env:
        return frame.envCount * frame.envMap->evalPdf(inc.dir) + frame.brdfCount * mi.evalPdf(s.sd, inc.dir);
    case LightKind::None:
        break;
    }
    return 0.f;
}

float RTXDIPass::targetPdf(const Frame& frame, const Surface& s, const MaterialInstance& mi, const LightSample& y) const
{
    Incident inc;
    return s.valid && frame.evalIncident(y, s.sd.posW, inc) ? falcor::targetPdf(s, mi, inc) : 0.f;
}

float RTXDIPass::targetPdf(const Frame& frame, const Surface& s, const LightSample& y) const
{
    return s.valid ? targetPdf(frame, s, createInstance(s), y) : 0.f;
}

bool RTXDIPass::isVisible(const Frame& frame, const Surface& s, const LightSample& y) const
{
    Incident inc;
    if (!frame.evalIncident(y, s.sd.posW, inc))
        return false;
    const float3 origin = computeRayOrigin(s.sd.posW, dot(s.sd.faceN, inc.dir) >= 0.f ? s.sd.faceN : -s.sd.faceN);
    // Stop short of the emitter itself (rayEpsilon, relative to the distance).
    const float tMax = y.kind == LightKind::Triangle ? inc.distance * (1.f - mOptions.rayEpsilon) : inc.distance;
    return !frame.scene.anyHit(Ray{origin, 0.f, inc.dir, tMax});
}

bool RTXDIPass::isSimilar(const Surface& a, const Surface& b) const
{
    return a.valid && b.valid && std::abs(a.viewDepth - b.viewDepth) <= mOptions.depthThreshold * a.viewDepth &&
           dot(a.sd.frame.N, b.sd.frame.N) >= mOptions.normalThreshold;
}

Reservoir RTXDIPass::resampleTemporal(const Frame& frame, uint2 pixel, const Reservoir& current, UniformSampleGenerator& sg) const
{
    const size_t i = size_t(pixel.y()) * frame.dim.x() + pixel.x();
    const Surface& s = mSurfaces[i];
    if (!s.valid)
        return current;
    // Motion vectors are the screen-space (UV) offset to the previous frame's position.
    const float4 motion = frame.motionVectors ? frame.motionVectors->loadTexel(pixel.x(), pixel.y()) : float4(0.f);
    const float px = std::floor(float(pixel.x()) + 0.5f + motion.x() * float(frame.dim.x()));
    const float py = std::floor(float(pixel.y()) + 0.5f + motion.y() * float(frame.dim.y()));
    if (!(px >= 0.f && py >= 0.f && px < float(frame.dim.x()) && py < float(frame.dim.y())))
        return current;
    const size_t prevIndex = size_t(py) * frame.dim.x() + size_t(px);
    const Surface& prevSurface = mPrevSurfaces[prevIndex];
    if (!isSimilar(s, prevSurface))
        return current;
    Reservoir prev = mPrevReservoirs[prevIndex];
    prev.M = std::min(prev.M, float(mOptions.maxHistoryLength) * current.M);
    const Neighbour history{&prev, &prevSurface};
    return combine(frame, s, current, {&history, 1}, sg);
}

void RTXDIPass::resampleSpatial(const Frame& frame, std::span<const Reservoir> in, std::span<Reservoir> out)
{
    constexpr uint32_t kMaxNeighbours = 25; // Falcor's upper bound on spatialSampleCount.
    const int width = int(frame.dim.x()), height = int(frame.dim.y());
    forEachPixel(frame.dim, [&](uint2 pixel, size_t i) {
        const Surface& s = mSurfaces[i];
        if (!s.valid)
        {
            out[i] = in[i];
            return;
        }
        UniformSampleGenerator& sg = mGenerators[i];
        std::array<Neighbour, kMaxNeighbours> neighbours;
        uint32_t count = 0;
        for (uint32_t n = 0; n < std::min(mOptions.spatialSampleCount, kMaxNeighbours); ++n)
        {
            const float2 offset = sampleDiskConcentric(sampleNext2D(sg)) * mOptions.samplingRadius;
            const int qx = int(pixel.x()) + int(std::lround(offset.x())), qy = int(pixel.y()) + int(std::lround(offset.y()));
            if (qx < 0 || qy < 0 || qx >= width || qy >= height || (qx == int(pixel.x()) && qy == int(pixel.y())))
                continue;
            const size_t q = size_t(qy) * width + qx;
            if (isSimilar(s, mSurfaces[q]))
                neighbours[count++] = {&in[q], &mSurfaces[q]};
        }
        out[i] = combine(frame, s, in[i], std::span(neighbours.data(), count), sg);
    });
}

Reservoir RTXDIPass::combine(const Frame& frame, const Surface& s, const Reservoir& canonical, std::span<const Neighbour> neighbours,
                             UniformSampleGenerator& sg) const
{
    if (neighbours.empty())
        return canonical;
    if (mOptions.biasCorrection == RTXDIBiasCorrection::Pairwise)
        return combinePairwise(frame, s, canonical, neighbours, sg);

    // Bitterli et al.'s Algorithm 6: select in proportion to p̂(y_j) W_j M_j, then normalize by the
    // confidence of the inputs that could have produced the choice (1/Z) or by all of it (1/M).
    const MaterialInstance mi = createInstance(s);
    Reservoir out;
    const auto take = [&](const Reservoir& r) {
        out.M += r.M;
        if (!r.hasSample())
            return;
        const float p = targetPdf(frame, s, mi, r.y);
        out.stream(r.y, p * r.W * r.M, p, sampleNext1D(sg));
    };
    take(canonical);
    for (const Neighbour& n : neighbours)
        take(*n.reservoir);
    if (out.y.kind == LightKind::None || mOptions.biasCorrection == RTXDIBiasCorrection::Off)
    {
        out.finalize(out.M);
        return out;
    }
    const bool rayTraced = mOptions.biasCorrection == RTXDIBiasCorrection::RayTraced;
    const auto couldProduce = [&](const Surface& surface, float p) { return p > 0.f && (!rayTraced || isVisible(frame, surface, out.y)); };
    float Z = couldProduce(s, out.targetPdf) ? canonical.M : 0.f;
    for (const Neighbour& n : neighbours)
        if (couldProduce(*n.surface, targetPdf(frame, *n.surface, out.y)))
            Z += n.reservoir->M;
    out.finalize(Z);
    return out;
}

Reservoir RTXDIPass::combinePairwise(const Frame& frame, const Surface& s, const Reservoir& canonical, std::span<const Neighbour> neighbours,
                                     UniformSampleGenerator& sg) const
{
    // Pairwise MIS (Bitterli's thesis; Wyman et al. 2023), with confidence weights: neighbour i
    // and the centre pixel share α_i = (M_i + M_c/k) / M of the weight, split between them by the
    // balance heuristic of M_i p̂_i against (M_c/k) p̂_c. The weights of every sample sum to 1.
    const MaterialInstance mi = createInstance(s);
    const float k = float(neighbours.size());
    const float centreShare = canonical.M / k;
    float totalM = canonical.M;
    for (const Neighbour& n : neighbours)
        totalM += n.reservoir->M;
    const auto balance = [](float a, float b) { return a + b > 0.f ? a / (a + b) : 0.f; };

    Reservoir out;
    if (canonical.hasSample())
    {
        const float p = canonical.targetPdf;
        float m = 0.f;
        for (const Neighbour& n : neighbours)
        {
            const float pNeighbour = targetPdf(frame, *n.surface, canonical.y);
            m += (n.reservoir->M + centreShare) / totalM * balance(centreShare * p, n.reservoir->M * pNeighbour);
        }
        out.stream(canonical.y, m * p * canonical.W, p, sampleNext1D(sg));
    }
    for (const Neighbour& n : neighbours)
    {
        const Reservoir& r = *n.reservoir;
        if (!r.hasSample())
            continue;
        const float p = targetPdf(frame, s, mi, r.y);
        const float m = (r.M + centreShare) / totalM * balance(r.M * r.targetPdf, centreShare * p);
        out.stream(r.y, m * p * r.W, p, sampleNext1D(sg));
    }
    out.M = totalM;
    out.finalize(1.f);
    return out;
}

void RTXDIPass::shade(const Frame& frame, const RenderData& renderData)
{
    std::array<Texture*, kOutputCount> outputs;
    for (size_t c = 0; c < kOutputCount; ++c)
        outputs[c] = renderData[kOutputs[c].first];
    const Camera& camera = frame.scene.getCamera();
    const EnvMap* background = frame.scene.getEnvMap();
    parallelForRows(frame.dim.y(), [&](uint32_t y) {
        std::array<std::vector<float4>, kOutputCount> rows;
        for (size_t c = 0; c < kOutputCount; ++c)
            rows[c].assign(outputs[c] ? frame.dim.x() : 0, float4(0.f, 0.f, 0.f, 1.f));
        const auto set = [&](size_t c, uint32_t x, const float4& v) {
            if (!rows[c].empty())
                rows[c][x] = v;
        };
        for (uint32_t x = 0; x < frame.dim.x(); ++x)
        {
            const size_t i = size_t(y) * frame.dim.x() + x;
            const Surface& s = mSurfaces[i];
            if (!s.valid)
            {
                const float3 env = background ? background->eval(camera.computeRayPinhole(uint2(x, y), frame.dim).dir) : float3(0.f);
                set(kColor, x, toFloat4(env, 1.f));
                set(kEmission, x, toFloat4(env, 1.f));
                set(kDiffuseIllumination, x, float4(0.f, 0.f, 0.f, kNoHitDistance));
                set(kSpecularIllumination, x, float4(0.f, 0.f, 0.f, kNoHitDistance));
                continue;
            }
            const MaterialInstance mi = createInstance(s);
            const BSDFProperties props = mi.getProperties();
            Reservoir& r = mReservoirs[i];
            float3 diffuse(0.f), specular(0.f);
            float hitT = kNoHitDistance;
            Incident inc;
            const bool lit = r.hasSample() && frame.evalIncident(r.y, s.sd.posW, inc) && isVisible(frame, s, r.y);
            if (r.hasSample() && !lit)
                r.finalize(0.f);
            if (lit)
            {
                UniformSampleGenerator sg = mGenerators[i];
                const auto [fd, fs] = evalReflectionLobes(mi, s.sd, inc.dir, sg);
                diffuse = fd * inc.Li * r.W, specular = fs * inc.Li * r.W;
                hitT = std::min(inc.distance, kNoHitDistance); // Lights at infinity report the no-hit distance.
            }
            const float NdotV = saturate(dot(props.guideNormal, s.sd.V));
            const float3 specularReflectance = approxSpecularIntegralGGX(props.specularReflectance, props.roughness * props.roughness, NdotV);
            set(kColor, x, toFloat4(diffuse + specular + props.emission, 1.f));
            set(kEmission, x, toFloat4(props.emission, 1.f));
            set(kDiffuseIllumination, x, toFloat4(safeDivide(diffuse, props.diffuseReflectionAlbedo), hitT));
            set(kDiffuseReflectance, x, toFloat4(props.diffuseReflectionAlbedo, 1.f));
            set(kSpecularIllumination, x, toFloat4(safeDivide(specular, specularReflectance), hitT));
            set(kSpecularReflectance, x, toFloat4(specularReflectance, 1.f));
        }
        for (size_t c = 0; c < kOutputCount; ++c)
            if (outputs[c])
                outputs[c]->storeRow(y, rows[c].data());
    });
}
} // namespace falcor

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(falcor::PluginRegistry& registry)
{
    registry.registerRenderPass<falcor::RTXDIPass>();
}
