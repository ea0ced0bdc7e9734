#include "PathTracer.h"
#include "PathIntegrator.h"
#include "PathWavefront.h"
#include "RenderGraph/RenderPassStandardFlags.h"
#include "Core/Logger.h"
#include "Core/PluginRegistry.h"
#include "Core/ThreadPool.h"
#include "Utils/Sampling/TinyUniformSampleGenerator.h"
#include "Utils/Sampling/UniformSampleGenerator.h"
#include <algorithm>

namespace falcor
{
namespace
{
const std::string kVBuffer = "vbuffer", kViewW = "viewW", kSampleCount = "sampleCount", kMotionVectors = "mvec";

const PathTracerOutputChannel& channel(size_t i)
{
    return kPathTracerOutputs[i];
}
} // namespace

struct PathTracer::Frame
{
    const Scene& scene;
    PathTracerLights lights;
    uint32_t seed;
};

PathTracer::PathTracer(const Properties& props)
{
    mParams.parse(props, [this](const std::string& key) { warnUnknownProperty(key); });
    scriptMethod("reset", [this](const PropertyValue::Array&) { reset(); return PropertyValue(); });
    scriptMethod("setSimdShading", [this](const PropertyValue::Array& args) {
        FALCOR_CHECK(args.size() == 1 && args[0].type() == PropertyValue::Type::Bool, "PathTracer.setSimdShading takes one bool");
        mSimdShading = args[0].getBool();
        return PropertyValue();
    });
    scriptMethod("simdShadingStats", [this](const PropertyValue::Array&) {
        return PropertyValue(PropertyValue::Object{{"laneShadedHits", mStats.laneShadedHits}, {"scalarShadedHits", mStats.scalarShadedHits}});
    });
    scriptProperty<bool>("useFixedSeed", [this] { return mParams.useFixedSeed; }, [this](bool v) { mParams.useFixedSeed = v; });
    scriptProperty<uint32_t>("fixedSeed", [this] { return mParams.fixedSeed; }, [this](uint32_t v) { mParams.fixedSeed = v; });
    scriptProperty<bool>("pixelStats.enabled", [this] { return mParams.pixelStatsEnabled; }, [this](bool v) { mParams.pixelStatsEnabled = v; });
    scriptReadOnlyProperty<PropertyValue>("pixelStats.stats", [this] { return getPixelStats(); });
}

void PathTracer::setProperties(const Properties& props)
{
    mParams.parse(props, [this](const std::string& key) { warnUnknownProperty(key); });
    mLightsUpdateCount = ~0ull; // The emissive sampler may have changed.
    requestRecompile();
}

RenderPassReflection PathTracer::reflect(const CompileData& compileData)
{
    RenderPassReflection r;
    r.addInput(kVBuffer, "Visibility buffer in packed format").format(ResourceFormat::RGBA32Uint);
    r.addInput(kMotionVectors, "Motion vector buffer (float format)").flags(RenderPassReflection::Field::Flags::Optional);
    r.addInput(kViewW, "World-space view direction (xyz float format)").flags(RenderPassReflection::Field::Flags::Optional);
    r.addInput(kSampleCount, "Sample count buffer (integer format)")
        .format(ResourceFormat::R8Uint)
        .flags(RenderPassReflection::Field::Flags::Optional);
    const uint2 size = calculateIOSize(mParams.outputSize, mParams.fixedOutputSize, compileData.defaultTexDims);
    for (const PathTracerOutputChannel& output : kPathTracerOutputs)
    {
        auto& field = r.addOutput(output.name, output.desc).format(output.format).flags(RenderPassReflection::Field::Flags::Optional);
        if (size.x() != 0)
            field.texture2D(size.x(), size.y());
    }
    return r;
}

void PathTracer::setScene(RenderContext*, const std::shared_ptr<Scene>& pScene)
{
    mpScene = pScene;
    mFrameCount = 0;
    if (pScene)
        mHitInfo = HitInfoLayout(*pScene);
    rebuildLights();
}

void PathTracer::rebuildLights()
{
    mpEmissiveLights.reset();
    mpLightBVH.reset();
    mEmissiveSampler = {};
    if (!mpScene)
    {
        mpEnvMapSampler.reset();
        return;
    }
    mLightsUpdateCount = mpScene->getUpdateCount();
    mpEmissiveLights = std::make_unique<EmissiveLightCollection>(*mpScene);
    if (mParams.emissiveSampler == EmissiveLightSamplerType::LightBVH)
        mpLightBVH = std::make_unique<LightBVH>(*mpEmissiveLights, mParams.bvhOptions.build);
    mEmissiveSampler = EmissiveLightSampler(mpEmissiveLights.get(), &mpScene->getMaterials(), mParams.emissiveSampler, mpLightBVH.get(),
                                            mParams.bvhOptions.sampler);
    if (const EnvMap* envMap = mpScene->getEnvMap())
    {
        if (!mpEnvMapSampler || !mpEnvMapSampler->isBuiltFor(*envMap))
            mpEnvMapSampler = std::make_unique<EnvMapSampler>(*envMap);
    }
    else
        mpEnvMapSampler.reset();
}

void PathTracer::warnUnsupportedOnce() const
{
    if (mParams.useSER)
        logWarningOnce("PathTracer: 'useSER' (shader execution reordering) is a GPU scheduling feature; it has no effect on the CPU.");
    if (mParams.useRTXDI)
        logWarningOnce("PathTracer: 'useRTXDI' needs NVIDIA's RTXDI SDK on a GPU; direct light is sampled by NEE instead.");
    if (mParams.colorFormat == ColorFormat::LogLuvHDR && mParams.samplesPerPixel > 1)
        logWarningOnce("PathTracer: colorFormat 'LogLuvHDR' is a GPU storage format for per-sample colors; samples are kept in "
                       "32-bit float (slightly more precise than Falcor).");
}

void PathTracer::execute(RenderContext*, const RenderData& renderData)
{
    if (!mpScene)
    {
        for (const PathTracerOutputChannel& output : kPathTracerOutputs)
            if (Texture* t = renderData[output.name])
                t->clear();
        return;
    }
    warnUnsupportedOnce();
    // As in Falcor, connecting either output turns the pixel stats on (and they stay on).
    if (renderData["rayCount"] || renderData["pathLength"])
        mParams.pixelStatsEnabled = true;
    const Scene& scene = *mpScene;
    // Scenes edited without the graph being told (a script calling g.execute() directly) still
    // render their current lights: rebuild whenever the scene changed since the last build.
    if (scene.getUpdateCount() != mLightsUpdateCount)
        rebuildLights();
    const Scene::RenderSettings& settings = scene.getRenderSettings();

    Frame frame{scene, {}, mParams.useFixedSeed ? mParams.fixedSeed : frameSeed(renderData.getDictionary(), mFrameCount)};
    PathTracerLights& lights = frame.lights;
    if (settings.useEnvLight && mpEnvMapSampler)
        lights.envMap = mpEnvMapSampler.get();
    if (settings.useEmissiveLights && mpEmissiveLights && mpEmissiveLights->getTriangleCount() > 0)
    {
        lights.emissive = mpEmissiveLights.get();
        lights.emissiveSampler = &mEmissiveSampler;
    }
    if (settings.useAnalyticLights)
        lights.analytic = scene.getActiveLights();
    const float present[3] = {lights.envMap ? 1.f : 0.f, lights.emissive ? 1.f : 0.f, lights.analytic.empty() ? 0.f : 1.f};
    const float typeCount = present[0] + present[1] + present[2];
    for (int i = 0; i < 3; ++i)
        lights.selectionPdf[i] = typeCount > 0.f ? present[i] / typeCount : 0.f;

    mStats = mParams.sampleGenerator == 0 ? renderFrame<TinyUniformSampleGenerator>(frame, renderData)
                                          : renderFrame<UniformSampleGenerator>(frame, renderData);
    mStatsPixelCount = uint64_t(renderData[kVBuffer]->getWidth()) * renderData[kVBuffer]->getHeight();
    ++mFrameCount;
}

/// What the tiles of one frame share.
template<typename SampleGenerator>
struct PathTracer::FrameJob
{
    const Frame& frame;
    const PathIntegrator<SampleGenerator>& integrator;
    const Texture& vbuffer;
    uint2 frameDim;
    uint32_t maxSpp;
    const Texture* viewW;
    const Texture* sampleCount;
    std::vector<std::pair<PathTracerOutput, Texture*>> outputs; ///< The connected ones: only their texels are computed.
};

template<typename SampleGenerator>
PathTracerPixel PathTracer::finishPixel(const FrameJob<SampleGenerator>& job, const float3& dir, const TriangleHit& primaryHit,
                                        std::span<const PathState> samples, const SampleGenerator* generators, size_t stride) const
{
    const PathIntegrator<SampleGenerator>& integrator = job.integrator;
    PathTracerPixel r;
    for (uint32_t s = 0; s < samples.size(); ++s)
    {
        const PathState& path = samples[s];
        r.color += path.L;
        r.addRays(path);
        // Falcor writes (not adds) each sample's path length, from the last sample down to
        // sample 0: sample 0's stays. Camera rays that missed write nothing (0).
        if (s == 0 && primaryHit.isValid())
            r.stats.pathLength = integrator.getTerminatedPathLength(path);
        if (integrator.getOutputs().guide)
        {
            GuideData& g = r.guide;
            g.albedo += path.guide.albedo, g.specularAlbedo += path.guide.specularAlbedo, g.indirectAlbedo += path.guide.indirectAlbedo;
            g.guideNormal += path.guide.guideNormal, g.reflectionPosW += path.guide.reflectionPosW;
        }
        if (!integrator.getOutputs().nrd)
            continue;
        if (s == 0)
            r.nrdPrimary = primaryHit.isValid() ? path.nrdPrimary : NRDPrimaryHit{path.L}; // A miss: the background.
        // A camera ray that missed has no NRD radiance: the background is in nrdEmission.
        const float3 nrdRadiance = primaryHit.isValid() ? path.L : float3(0.f);
        r.nrd.add(path.nrdFlags.pathType(), nrdRadiance, path.nrd, r.nrdPrimary.diffuseReflectance);
    }
    // The guide paths: Falcor's guide passes trace every sample's, from the last to the first,
    // each overwriting the pixel, so sample 0's is the one that stays (and every sample's rays
    // count).
    if (!integrator.getOutputs().nrdAdditional)
        return r;
    const bool demodulate = mParams.useNRDDemodulation;
    r.deltaReflection = r.deltaTransmission = NRDDeltaGuide::make(demodulate, float3(0.f), float3(0.f), -dir, 0.f, kNRDInvalidPathLength);
    r.deltaTransmission.posW = float3(0.f);
    if (!primaryHit.isValid())
        return r;
    for (uint32_t s = uint32_t(samples.size()); s-- > 0;)
    {
        SampleGenerator sgReflection = generators[s * stride], sgTransmission = generators[s * stride];
        PathState reflection, transmission;
        startPath(reflection, job.frame, dir, primaryHit, s), startPath(transmission, job.frame, dir, primaryHit, s);
        r.deltaReflection = integrator.traceDeltaReflectionGuide(reflection, sgReflection);
        r.deltaTransmission = integrator.traceDeltaTransmissionGuide(transmission, sgTransmission);
        r.addRays(reflection), r.addRays(transmission);
    }
    return r;
}

void PathTracer::startPath(PathState& path, const Frame& frame, const float3& dir, const TriangleHit& primaryHit, uint32_t sampleIndex) const
{
    path.interiorList = InteriorList(mParams.maxNestedMaterials);
    path.origin = frame.scene.getCamera().getData().posW;
    path.dir = dir;
    path.hit = primaryHit;
    path.vertexIndex = primaryHit.isValid() ? 1 : 0;
    path.sampleIndex = sampleIndex;
}

/// One tile's rows and paths. Kept per thread and reused from tile to tile: the arrays stay
/// allocated (fresh ones would be page-faulted in for every tile).
template<typename SampleGenerator>
struct PathTracer::Tile
{
    struct Row
    {
        std::vector<uint32_t> spp, firstPath;
        std::vector<float3> dirs;
        std::vector<TriangleHit> hits;
        std::vector<SampleGenerator> generators; ///< Of (x, s) at s * width + x.
    };
    std::vector<Row> rows;
    std::vector<PathState> paths;
    std::vector<SampleGenerator> generators; ///< paths[i] draws from generators[i].
    std::vector<std::vector<float4>> texels; ///< One row per connected output.
    typename PathWavefront<SampleGenerator>::Queues queues;
};

template<typename SampleGenerator>
void PathTracer::startRows(const FrameJob<SampleGenerator>& job, uint32_t y0, uint32_t y1, Tile<SampleGenerator>& tile) const
{
    const uint32_t width = job.frameDim.x();
    const Camera& camera = job.frame.scene.getCamera();
    tile.rows.resize(y1 - y0);
    uint32_t pathCount = 0;
    for (uint32_t y = y0; y < y1; ++y)
    {
        auto& row = tile.rows[y - y0];
        row.spp.assign(width, job.maxSpp);
        if (job.sampleCount)
            for (uint32_t x = 0; x < width; ++x)
                row.spp[x] = std::min(uint32_t(job.sampleCount->loadTexel(x, y).x()), job.maxSpp);
        // Falcor seeds sample s of a frame with frame.seed * maxSpp + s.
        const uint32_t rowSpp = std::max(1u, *std::max_element(row.spp.begin(), row.spp.end())); // At least one: pixels point into the row.
        row.generators.assign(size_t(rowSpp) * width, SampleGenerator(uint2(0u), 0u));
        for (uint32_t s = 0; s < rowSpp; ++s)
            SampleGenerator::createRow(0, y, width, job.frame.seed * job.maxSpp + s, &row.generators[size_t(s) * width]);
        row.dirs.clear(), row.hits.clear(), row.firstPath.clear();
        for (uint32_t x = 0; x < width; ++x)
        {
            row.dirs.push_back(job.viewW ? -job.viewW->loadTexel(x, y).xyz() : camera.computeRayPinhole(uint2(x, y), job.frameDim).dir);
            row.hits.push_back(mHitInfo.unpackTriangleHit(loadPackedHitInfo(job.vbuffer, x, y)));
            row.firstPath.push_back(pathCount);
            pathCount += row.spp[x];
        }
    }
    tile.paths.assign(pathCount, PathState{});
    tile.generators.clear();
    for (const auto& row : tile.rows)
        for (uint32_t x = 0; x < width; ++x)
            for (uint32_t s = 0; s < row.spp[x]; ++s)
            {
                startPath(tile.paths[row.firstPath[x] + s], job.frame, row.dirs[x], row.hits[x], s);
                tile.generators.push_back(row.generators[size_t(s) * width + x]);
            }
}

template<typename SampleGenerator>
PathTracer::RayStats PathTracer::renderRows(const FrameJob<SampleGenerator>& job, uint32_t y0, uint32_t y1) const
{
    thread_local Tile<SampleGenerator> tile;
    startRows(job, y0, y1, tile);
    PathWavefront<SampleGenerator> wavefront(job.frame.scene, job.integrator, mSimdShading, tile.queues);
    wavefront.run(tile.paths, tile.generators);

    RayStats stats;
    stats.laneShadedHits = wavefront.getLaneShadedHits(), stats.scalarShadedHits = wavefront.getScalarShadedHits();
    const uint32_t width = job.frameDim.x();
    tile.texels.resize(job.outputs.size());
    for (uint32_t y = y0; y < y1; ++y)
    {
        const auto& row = tile.rows[y - y0];
        for (auto& texels : tile.texels)
            texels.resize(width);
        for (uint32_t x = 0; x < width; ++x)
        {
            const std::span<const PathState> samples(tile.paths.data() + row.firstPath[x], row.spp[x]);
            const PathTracerPixel r = finishPixel(job, row.dirs[x], row.hits[x], samples, &row.generators[x], width);
            for (size_t i = 0; i < job.outputs.size(); ++i)
                tile.texels[i][x] = r.texel(job.outputs[i].first, row.spp[x]);
            stats += r.stats;
        }
        for (size_t i = 0; i < job.outputs.size(); ++i)
            job.outputs[i].second->storeRow(y, tile.texels[i].data());
    }
    return stats;
}

template<typename SampleGenerator>
PathTracer::RayStats PathTracer::renderFrame(const Frame& frame, const RenderData& renderData) const
{
    const Texture& vbuffer = *renderData[kVBuffer];
    const uint2 frameDim = vbuffer.getDims();
    std::vector<std::pair<PathTracerOutput, Texture*>> outputs;
    PathIntegratorOutputs needs;
    for (size_t i = 0; i < kPathTracerOutputCount; ++i)
    {
        Texture* texture = renderData[channel(i).name];
        checkFieldDims(getType(), frameDim, {{channel(i).name, texture}});
        if (!texture)
            continue;
        outputs.emplace_back(PathTracerOutput(i), texture);
        needs.guide |= isGuideOutput(PathTracerOutput(i));
        needs.nrd |= isNRDOutput(PathTracerOutput(i));
        needs.nrdAdditional |= isNRDGuidePathOutput(PathTracerOutput(i));
    }
    const Texture* viewW = renderData[kViewW];
    const Texture* sampleCount = renderData[kSampleCount];
    checkFieldDims(getType(), frameDim, {{kViewW, viewW}, {kSampleCount, sampleCount}});
    const PathIntegrator<SampleGenerator> integrator(frame.scene, mParams, frame.lights, frameDim, needs);
    const uint32_t maxSpp = sampleCount ? PathTracerParams::kMaxSamplesPerPixel : mParams.samplesPerPixel;
    const FrameJob<SampleGenerator> job{frame, integrator, vbuffer, frameDim, maxSpp, viewW, sampleCount, std::move(outputs)};

    // Tiles of whole rows, about kTilePaths paths each: enough for wide stages, small enough to
    // stay in cache. Paths are independent, so the split changes no bit of the image.
    const uint32_t rowsPerTile = std::clamp(kTilePaths / std::max(1u, frameDim.x() * maxSpp), 1u, 64u);
    const uint32_t tileCount = (frameDim.y() + rowsPerTile - 1) / rowsPerTile;
    std::vector<RayStats> tileStats(tileCount);
    parallelFor(tileCount, 1, [&](size_t t0, size_t t1) {
        for (size_t t = t0; t < t1; ++t)
            tileStats[t] = renderRows(job, uint32_t(t * rowsPerTile), std::min(frameDim.y(), uint32_t((t + 1) * rowsPerTile)));
    });
    RayStats total;
    for (const RayStats& tile : tileStats)
        total += tile;
    return total;
}

PropertyValue PathTracer::getPixelStats() const
{
    const double pixels = std::max(1.0, double(mStatsPixelCount));
    const RayStats& s = mParams.pixelStatsEnabled ? mStats : RayStats{};
    const uint64_t total = s.visibilityRays + s.closestHitRays;
    return PropertyValue::Object{
        {"visibilityRays", s.visibilityRays},      {"closestHitRays", s.closestHitRays},
        {"totalRays", total},                      {"pathVertices", s.pathVertices},
        {"volumeLookups", uint64_t(0)},            {"avgVisibilityRays", double(s.visibilityRays) / pixels},
        {"avgClosestHitRays", double(s.closestHitRays) / pixels}, {"avgTotalRays", double(total) / pixels},
        {"avgPathLength", double(s.pathLength) / pixels},         {"avgPathVertices", double(s.pathVertices) / pixels},
        {"avgVolumeLookups", 0.0},
    };
}
} // namespace falcor

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(falcor::PluginRegistry& registry)
{
    registry.registerRenderPass<falcor::PathTracer>();
}
