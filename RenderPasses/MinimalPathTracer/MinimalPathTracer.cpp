#include "MinimalPathTracer.h"
#include "RenderGraph/RenderPassStandardFlags.h"
#include "Core/PluginRegistry.h"
#include "Core/ThreadPool.h"
#include "Rendering/Wavefront/Wavefront.h"
#include "Utils/Simd/IsaKernels.h"
#include <algorithm>
#include <atomic>

// The SIMD shade stage, compiled once per instruction set (MinimalShadeLanes.lanes.cpp).
FALCOR_DECLARE_ISA_KERNEL(void, shadeMinimalLaneQueue,
                          (const MinimalPathIntegrator& integrator, const Scene& scene, std::span<MinimalPathState> paths,
                           std::span<UniformSampleGenerator> generators, std::span<const uint32_t> queue))

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
    scriptMethod("setSimdShading", [this](const PropertyValue::Array& args) {
        FALCOR_CHECK(args.size() == 1 && args[0].type() == PropertyValue::Type::Bool, "MinimalPathTracer.setSimdShading takes one bool");
        mSimdShading = args[0].getBool();
        return PropertyValue();
    });
    scriptMethod("simdShadingStats", [this](const PropertyValue::Array&) {
        return PropertyValue(PropertyValue::Object{{"laneShadedHits", mStats.laneShadedHits}, {"scalarShadedHits", mStats.scalarShadedHits}});
    });
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
    MinimalPathParams params;
    params.maxBounces = mMaxBounces;
    params.computeDirect = mComputeDirect;
    params.useImportanceSampling = mUseImportanceSampling;
    if (settings.useAnalyticLights)
        params.lights = scene.getActiveLights();
    params.useEmissiveLights = settings.useEmissiveLights;
    params.envLight = settings.useEnvLight ? scene.getEnvMap() : nullptr;
    params.envBackground = scene.getEnvMap();
    const MinimalPathIntegrator integrator(scene, params);
    const Frame frame{scene, integrator, vbuffer, viewW, output, output.getDims(), frameSeed(renderData.getDictionary(), mFrameCount)};
    checkFieldDims(getType(), frame.frameDim, {{kVBuffer, &vbuffer}, {kViewW, viewW}});

    // Tiles of whole rows, about kTilePaths paths each: enough for wide stages, small enough to
    // stay in cache. Paths are independent, so the split changes no bit of the image.
    const uint32_t rowsPerTile = std::clamp(kTilePaths / std::max(1u, frame.frameDim.x()), 1u, 64u);
    const uint32_t tileCount = (frame.frameDim.y() + rowsPerTile - 1) / rowsPerTile;
    std::atomic<uint64_t> laneShadedHits = 0, scalarShadedHits = 0;
    parallelFor(tileCount, 1, [&](size_t t0, size_t t1) {
        for (size_t t = t0; t < t1; ++t)
        {
            const ShadedHits hits = renderRows(frame, uint32_t(t * rowsPerTile), std::min(frame.frameDim.y(), uint32_t((t + 1) * rowsPerTile)));
            laneShadedHits += hits.laneShadedHits, scalarShadedHits += hits.scalarShadedHits;
        }
    });
    mStats = {laneShadedHits, scalarShadedHits};
    ++mFrameCount;
}

/// One tile's paths. Kept per thread and reused from tile to tile: the arrays stay allocated
/// (fresh ones would be page-faulted in for every tile).
struct MinimalPathTracer::Tile
{
    std::vector<MinimalPathState> paths;           ///< Of pixel (x, y0 + r) at r * width + x.
    std::vector<UniformSampleGenerator> generators; ///< paths[i] draws from generators[i].
    std::vector<float4> row;
    WavefrontQueues queues;
};

MinimalPathTracer::ShadedHits MinimalPathTracer::renderRows(const Frame& frame, uint32_t y0, uint32_t y1) const
{
    thread_local Tile tile;
    const uint32_t width = frame.frameDim.x();
    const Camera& camera = frame.scene.getCamera();
    tile.paths.resize(size_t(width) * (y1 - y0));
    tile.generators.resize(tile.paths.size(), UniformSampleGenerator(uint2(0u), 0u));
    for (uint32_t y = y0; y < y1; ++y)
    {
        const size_t first = size_t(y - y0) * width;
        UniformSampleGenerator::createRow(0, y, width, frame.seed, &tile.generators[first]);
        for (uint32_t x = 0; x < width; ++x)
        {
            const float3 dir = frame.viewW ? -frame.viewW->loadTexel(x, y).xyz() : camera.computeRayPinhole(uint2(x, y), frame.frameDim).dir;
            const TriangleHit hit = mHitInfo.unpackTriangleHit(loadPackedHitInfo(frame.vbuffer, x, y));
            tile.paths[first + x] = MinimalPathIntegrator::startPath(dir, hit);
        }
    }
    using MinimalWavefront = Wavefront<MinimalPathIntegrator, MinimalPathState, UniformSampleGenerator>;
    MinimalWavefront wavefront(frame.scene, frame.integrator, tile.queues,
                               mSimdShading ? MinimalWavefront::ShadeLanesFn(FALCOR_PICK_ISA_KERNEL(shadeMinimalLaneQueue)) : nullptr);
    wavefront.run(tile.paths, tile.generators);

    tile.row.resize(width);
    for (uint32_t y = y0; y < y1; ++y)
    {
        for (uint32_t x = 0; x < width; ++x)
        {
            const float3& L = tile.paths[size_t(y - y0) * width + x].L;
            tile.row[x] = float4(L.x(), L.y(), L.z(), 1.f);
        }
        frame.output.storeRow(y, tile.row.data());
    }
    return {wavefront.getLaneShadedHits(), wavefront.getScalarShadedHits()};
}
} // namespace falcor

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(falcor::PluginRegistry& registry)
{
    registry.registerRenderPass<falcor::MinimalPathTracer>();
}
