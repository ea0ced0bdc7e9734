#pragma once
#include "Rendering/Lights/LightHelpers.h"
#include "Rendering/Materials/MaterialInstance.h"
#include "Scene/Scene.h"
#include "Utils/Sampling/UniformSampleGenerator.h"
#include <span>

namespace falcor
{
/// The shadow ray of a vertex's analytic light sample, traced after the vertex is shaded, and
/// what it adds when unoccluded: thp · (f · Li · lightCount), f the BSDF value towards the light.
struct MinimalShadowRay
{
    float3 origin{0.f, 0.f, 0.f};
    float3 dir{0.f, 0.f, 0.f};
    float distance = 0.f;
    float3 thp{0.f, 0.f, 0.f}; ///< Throughput at the vertex.
    float3 f{0.f, 0.f, 0.f};   ///< Set at shading, or once unoccluded (layered materials: see evalAfterShadowRay).
    float3 Li{0.f, 0.f, 0.f};
    float lightCount = 0.f;    ///< The light was picked uniformly from this many.
    bool pending = false;
    bool evalAfterShadowRay = false; ///< The BSDF draws random numbers when evaluated, which Falcor does only when unoccluded.

    Ray ray() const { return Ray{origin, 0.f, dir, distance}; }
};

/// One MinimalPathTracer path in flight.
struct MinimalPathState
{
    float3 origin{0.f, 0.f, 0.f};
    float3 dir{0.f, 0.f, 0.f}; ///< Of the current segment; also the view direction at its hit.
    TriangleHit hit;           ///< Where the current segment ended.
    float3 thp{1.f, 1.f, 1.f}; ///< Throughput: product of BSDF weights so far.
    float3 L{0.f, 0.f, 0.f};   ///< Radiance gathered so far.
    uint32_t bounces = 0;      ///< Scatter rays traced (0 at the primary hit).
    bool active = true;
    MinimalShadowRay shadow;
};

/// Settings of the MinimalPathTracer (its properties) and what one frame's paths share.
struct MinimalPathParams
{
    uint32_t maxBounces = 3;
    bool computeDirect = true;
    bool useImportanceSampling = true;
    std::span<const LightData> lights; ///< Empty when analytic lights are off.
    bool useEmissiveLights = true;
    const EnvMap* envLight = nullptr;      ///< Env map lighting paths, or nullptr.
    const EnvMap* envBackground = nullptr; ///< Env map seen by primary rays, or nullptr.
};

/// Falcor's MinimalPathTracer loop, one vertex at a time, in the calls the Wavefront
/// (Rendering/Wavefront/Wavefront.h) runs over queues of paths. At every vertex: emission (at the
/// primary hit only with computeDirect; at later ones when the emissive lights are on, and not at
/// the first bounce's hit without computeDirect), one uniformly picked analytic light whose shadow
/// ray is left pending, and a BSDF sample; the last vertex (maxBounces scatters after the primary
/// hit) adds emission only. The environment counts where a path escapes.
class MinimalPathIntegrator
{
public:
    MinimalPathIntegrator(const Scene& scene, const MinimalPathParams& params) : mScene(scene), mParams(params) {}

    /// Starts a path at its primary hit (or miss) seen along `dir`.
    static MinimalPathState startPath(const float3& dir, const TriangleHit& primaryHit)
    {
        MinimalPathState path;
        path.dir = dir;
        path.hit = primaryHit;
        return path;
    }

    void handleVertex(MinimalPathState& path, UniformSampleGenerator& sg) const
    {
        if (!path.hit.isValid())
            return handleMiss(path);
        const ShadingData sd = loadShadingData(mScene, path.hit, path.dir);
        MaterialInstance mi = createMaterialInstance(sd, TextureLod{}, kHintNone);
        if (path.bounces == 0)
        {
            if (!mParams.computeDirect)
                return scatter(path, sd, mi, sg);
            path.L += mi.getProperties().emission;
        }
        else
        {
            if (mParams.useEmissiveLights && countsEmission(path))
                path.L += path.thp * mi.getProperties().emission;
            if (path.bounces > mParams.maxBounces)
            {
                path.active = false;
                return;
            }
        }
        sampleLight(path, sd, mi, sg);
        if (!path.shadow.evalAfterShadowRay)
            scatter(path, sd, mi, sg);
    }

    /// A layered material's vertex is set up again here (the same bits as at shading) to evaluate
    /// its BSDF when unoccluded and then scatter, in the order of Falcor's draws.
    void resolveShadowRay(MinimalPathState& path, bool occluded, UniformSampleGenerator& sg) const
    {
        MinimalShadowRay& shadow = path.shadow;
        shadow.pending = false;
        if (!shadow.evalAfterShadowRay)
            return addDirect(path, occluded ? float3(0.f) : shadow.f * shadow.Li * shadow.lightCount);
        shadow.evalAfterShadowRay = false;
        const ShadingData sd = loadShadingData(mScene, path.hit, path.dir);
        MaterialInstance mi = createMaterialInstance(sd, TextureLod{}, kHintNone);
        addDirect(path, occluded ? float3(0.f) : mi.eval(sd, shadow.dir, sg) * shadow.Li * shadow.lightCount);
        scatter(path, sd, mi, sg);
    }

    Ray nextRay(const MinimalPathState& path) const { return Ray{path.origin, 0.f, path.dir}; }

    void arrive(MinimalPathState& path, const TriangleHit& hit) const
    {
        path.hit = hit;
        ++path.bounces;
    }

    bool useAlphaTest() const { return true; }

private:
    /// Without computeDirect, what the first scatter ray finds is direct light too.
    bool countsEmission(const MinimalPathState& path) const { return mParams.computeDirect || path.bounces > 1; }

    void handleMiss(MinimalPathState& path) const
    {
        path.active = false;
        if (path.bounces == 0)
            path.L = mParams.envBackground ? mParams.envBackground->eval(path.dir) : float3(0.f);
        else if (mParams.envLight && countsEmission(path))
            path.L += path.thp * mParams.envLight->eval(path.dir);
    }

    /// Adds the vertex's light sample. A sample that brings nothing still adds thp · 0, as the
    /// one-path code did: a non-finite throughput makes the radiance NaN either way.
    static void addDirect(MinimalPathState& path, const float3& direct)
    {
        path.L += path.shadow.thp * direct;
    }

    /// Picks one analytic light uniformly and samples it; its shadow ray is left pending.
    void sampleLight(MinimalPathState& path, const ShadingData& sd, MaterialInstance& mi, UniformSampleGenerator& sg) const
    {
        MinimalShadowRay& shadow = path.shadow;
        shadow.thp = path.thp;
        const uint32_t lightCount = uint32_t(mParams.lights.size());
        if (lightCount == 0)
            return addDirect(path, float3(0.f));
        const uint32_t lightIndex = std::min(uint32_t(sampleNext1D(sg) * float(lightCount)), lightCount - 1);
        AnalyticLightSample ls;
        if (!falcor::sampleLight(sd.posW, mParams.lights[lightIndex], sg, ls))
            return addDirect(path, float3(0.f));
        // Skip lights on a side of the surface the material does not scatter to.
        const uint32_t lobes = mi.getLobeTypes();
        const float NdotL = dot(sd.getOrientedFaceNormal(), ls.dir);
        if ((NdotL <= kMinCosTheta && !(lobes & kLobeTransmission)) || (NdotL >= -kMinCosTheta && !(lobes & kLobeReflection)))
            return addDirect(path, float3(0.f));

        shadow.origin = computeRayOrigin(sd.posW, dot(sd.faceN, ls.dir) >= 0.f ? sd.faceN : -sd.faceN);
        shadow.dir = ls.dir;
        shadow.distance = ls.distance;
        shadow.Li = ls.Li;
        shadow.lightCount = float(lightCount);
        shadow.pending = true;
        shadow.evalAfterShadowRay = mi.visit([](const auto& m) { return evalDraws(m); });
        if (!shadow.evalAfterShadowRay)
            shadow.f = mi.eval(sd, ls.dir, sg); // Draws nothing.
    }

    /// Whether the material's BSDF evaluation draws random numbers (layered BSDFs).
    template<typename Instance>
    static constexpr bool evalDraws(const Instance&)
    {
        return requires(const Instance& m, const float3& w, UniformSampleGenerator& sg) { m.bsdf.eval(w, w, sg); };
    }

    /// Samples the BSDF for the next segment, or ends the path.
    void scatter(MinimalPathState& path, const ShadingData& sd, const MaterialInstance& mi, UniformSampleGenerator& sg) const
    {
        BSDFSample bs;
        if (!mi.sample(sd, sg, bs, mParams.useImportanceSampling))
        {
            path.active = false;
            return;
        }
        path.thp *= bs.weight;
        if (!anyPositive(path.thp))
        {
            path.active = false;
            return;
        }
        path.origin = sd.computeRayOrigin(!bs.isLobe(kLobeTransmission));
        path.dir = bs.wo;
    }

    const Scene& mScene;
    const MinimalPathParams& mParams;
};
} // namespace falcor
