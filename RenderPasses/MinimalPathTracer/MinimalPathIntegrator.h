#pragma once
#include "Rendering/Lights/LightHelpers.h"
#include "Rendering/Wavefront/LaneShading.h"
#include "Rendering/Materials/MaterialInstance.h"
#include "Scene/Scene.h"
#include "Utils/Sampling/UniformSampleGenerator.h"
#include <span>

namespace falcor
{
/// The shadow ray of a vertex's analytic light sample, traced after the vertex is shaded, and
/// what it adds when unoccluded: thp · (f · Li · lightCount), f the BSDF value towards the light.
/// One path (F = float) or one path per lane (F = FloatLanes<W>, MinimalShadeLanes.lanes.cpp).
template<typename F>
struct MinimalShadowRayT
{
    using Float3 = vector<F, 3>;
    Float3 origin{0.f, 0.f, 0.f};
    Float3 dir{0.f, 0.f, 0.f};
    F distance = 0.f;
    Float3 thp{0.f, 0.f, 0.f}; ///< Throughput at the vertex.
    Float3 f{0.f, 0.f, 0.f};   ///< Set at shading, or once unoccluded (layered materials: see evalAfterShadowRay).
    Float3 Li{0.f, 0.f, 0.f};
    F lightCount = 0.f;        ///< The light was picked uniformly from this many.
    MaskOf<F> pending = false;
    MaskOf<F> evalAfterShadowRay = false; ///< The BSDF draws random numbers when evaluated, which Falcor does only when unoccluded.

    Ray ray() const requires(kLaneWidth<F> == 1) { return Ray{origin, 0.f, dir, distance}; }
};

/// What shading a vertex reads and writes of a MinimalPathTracer path: one path when F is float,
/// a lane per path when F is FloatLanes<W>.
template<typename F>
struct MinimalPathVertexState
{
    using Float = F;
    using Float3 = vector<F, 3>;
    Float3 origin{0.f, 0.f, 0.f};
    Float3 dir{0.f, 0.f, 0.f}; ///< Of the current segment; also the view direction at its hit.
    Float3 thp{1.f, 1.f, 1.f}; ///< Throughput: product of BSDF weights so far.
    Float3 L{0.f, 0.f, 0.f};   ///< Radiance gathered so far.
    UintOf<F> bounces = 0u;    ///< Scatter rays traced (0 at the primary hit).
    MaskOf<F> active = true;
    MinimalShadowRayT<F> shadow;
};

/// Calls fn(a.field, b.field) for every field of two MinimalPathVertexStates (of one path, or of
/// lanes): how the SIMD shade stage moves paths into lanes and back.
template<typename A, typename B, typename Fn>
void forEachMinimalPathField(A& a, B& b, Fn&& fn)
{
    fn(a.origin, b.origin), fn(a.dir, b.dir), fn(a.thp, b.thp), fn(a.L, b.L), fn(a.bounces, b.bounces), fn(a.active, b.active);
    fn(a.shadow.origin, b.shadow.origin), fn(a.shadow.dir, b.shadow.dir), fn(a.shadow.distance, b.shadow.distance);
    fn(a.shadow.thp, b.shadow.thp), fn(a.shadow.f, b.shadow.f), fn(a.shadow.Li, b.shadow.Li);
    fn(a.shadow.lightCount, b.shadow.lightCount), fn(a.shadow.pending, b.shadow.pending);
    fn(a.shadow.evalAfterShadowRay, b.shadow.evalAfterShadowRay);
}

/// One MinimalPathTracer path in flight.
struct MinimalPathState : MinimalPathVertexState<float>
{
    TriangleHit hit; ///< Where the current segment ended.
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
    MinimalPathIntegrator(const Scene& scene, const MinimalPathParams& params)
        : mScene(scene), mParams(params), mLaneModels(scene)
    {}

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
        createMaterial(sd).visit([&](const auto& mi) { shadeHit(path, sd, mi, sg); });
    }

    /// Whether the path's hit can be shaded in SIMD lanes (MinimalShadeLanes.lanes.cpp): a material
    /// with a lane form (isLaneModel, InstanceLaneModels.h), whose evaluation draws no random numbers.
    bool isLaneShadeable(const MinimalPathState& path) const { return path.hit.isValid() && laneModelOf(path) != MaterialType::Unknown; }
    /// The lane model of the path's hit (isLaneModel), Unknown for none; the hit must be valid.
    MaterialType laneModelOf(const MinimalPathState& path) const { return mLaneModels.of(path.hit); }
    /// The one-path material setup at a hit.
    static MaterialInstance createMaterial(const ShadingData& sd) { return createMaterialInstance(sd, TextureLod{}, kHintNone); }

    /// Shades a hit, written once over the path's float type: one path (F = float, the concrete
    /// material instance) or one path per lane (F = FloatLanes<W>, lane material and generator).
    /// `path.active` lanes are shading; the others keep their state and draw nothing, so every
    /// lane computes what the one-path code computes for its path.
    template<typename Path, typename SD, typename Material, typename Gen>
    void shadeHit(Path& path, const SD& sd, const Material& mi, Gen& sg) const
    {
        const auto primary = path.active && path.bounces == 0u;
        const auto emission = emissionOf<typename Path::Float>(mi);
        if (mParams.computeDirect)
            path.L = select(primary, path.L + emission, path.L);
        if (mParams.useEmissiveLights)
        {
            const auto seen = path.active && !primary && countsEmission(path);
            path.L = select(seen, path.L + path.thp * emission, path.L);
        }
        path.active = path.active && path.bounces <= mParams.maxBounces;
        // Without computeDirect the primary hit only scatters.
        sampleLight(path, sd, mi, sg, mParams.computeDirect ? path.active : path.active && !primary);
        scatter(path, sd, mi, sg, path.active && !path.shadow.evalAfterShadowRay);
    }

    /// A layered material's vertex is set up again here (the same bits as at shading) to evaluate
    /// its BSDF when unoccluded and then scatter, in the order of Falcor's draws.
    void resolveShadowRay(MinimalPathState& path, bool occluded, UniformSampleGenerator& sg) const
    {
        MinimalShadowRayT<float>& shadow = path.shadow;
        shadow.pending = false;
        if (!shadow.evalAfterShadowRay)
            return addDirect(path, occluded ? float3(0.f) : shadow.f * shadow.Li * shadow.lightCount, true);
        shadow.evalAfterShadowRay = false;
        const ShadingData sd = loadShadingData(mScene, path.hit, path.dir);
        createMaterial(sd).visit([&](const auto& mi) {
            addDirect(path, occluded ? float3(0.f) : evalBSDF(mi, sd, shadow.dir, sg) * shadow.Li * shadow.lightCount, true);
            scatter(path, sd, mi, sg, true);
        });
    }

    Ray nextRay(const MinimalPathState& path) const { return Ray{path.origin, 0.f, path.dir}; }

    void arrive(MinimalPathState& path, const TriangleHit& hit) const
    {
        path.hit = hit;
        ++path.bounces;
    }

    bool useAlphaTest() const { return true; }

private:
    /// Whether emission found past the primary hit counts: without computeDirect, what the first
    /// scatter ray finds is direct light too.
    template<typename Path>
    auto countsEmission(const Path& path) const
    {
        return path.bounces > (mParams.computeDirect ? 0u : 1u);
    }

    void handleMiss(MinimalPathState& path) const
    {
        path.active = false;
        if (path.bounces == 0)
            path.L = mParams.envBackground ? mParams.envBackground->eval(path.dir) : float3(0.f);
        else if (mParams.envLight && countsEmission(path))
            path.L += path.thp * mParams.envLight->eval(path.dir);
    }

    /// Emission of the material at the hit, per lane for lane materials.
    template<typename F, typename Material>
    static vector<F, 3> emissionOf(const Material& mi)
    {
        if constexpr (kLaneWidth<F> == 1)
            return mi.getProperties().emission;
        else
            return shadingProperties(mi).emission;
    }

    /// Adds the vertex's light sample where `where`. A sample that brings nothing still adds
    /// thp · 0, as the one-path code did: a non-finite throughput makes the radiance NaN either way.
    template<typename Path>
    static void addDirect(Path& path, const vector<typename Path::Float, 3>& direct, MaskOf<typename Path::Float> where)
    {
        path.L = select(where, path.L + path.shadow.thp * direct, path.L);
    }

    /// Picks one analytic light uniformly and samples it where `live`; its shadow ray is left pending.
    template<typename Path, typename SD, typename Material, typename Gen>
    void sampleLight(Path& path, const SD& sd, const Material& mi, Gen& sg, MaskOf<typename Path::Float> live) const
    {
        using F = typename Path::Float;
        using Float3 = vector<F, 3>;
        if (!any(live))
            return;
        auto& shadow = path.shadow;
        shadow.thp = select(live, path.thp, shadow.thp);
        const uint32_t lightCount = uint32_t(mParams.lights.size());
        if (lightCount == 0)
            return addDirect(path, Float3(0.f), live);
        const UintOf<F> lightIndex =
            min(convertLanes<uint32_t>(detail::sampleNext1DWhere<F>(sg, live) * float(lightCount)), UintOf<F>(lightCount - 1));
        AnalyticLightSampleT<F> ls;
        auto valid = falcor::sampleLight<F>(sd.posW, mParams.lights, lightIndex, sg, live, ls);
        // Skip lights on a side of the surface the material does not scatter to.
        const auto lobes = mi.getLobeTypes();
        const F NdotL = dot(sd.getOrientedFaceNormal(), ls.dir);
        valid = valid && !((NdotL <= kMinCosTheta && (lobes & kLobeTransmission) == 0u) || (NdotL >= -kMinCosTheta && (lobes & kLobeReflection) == 0u));
        addDirect(path, Float3(0.f), live && !valid);
        if (!any(valid))
            return;

        shadow.origin = select(valid, computeRayOrigin(sd.posW, select(dot(sd.faceN, ls.dir) >= 0.f, sd.faceN, -sd.faceN)), shadow.origin);
        shadow.dir = select(valid, ls.dir, shadow.dir);
        shadow.distance = select(valid, ls.distance, shadow.distance);
        shadow.Li = select(valid, ls.Li, shadow.Li);
        shadow.lightCount = select(valid, F(float(lightCount)), shadow.lightCount);
        shadow.pending = shadow.pending || valid;
        if constexpr (kLaneWidth<F> == 1 && evalDraws<Material>()) // Lane materials draw nothing.
            shadow.evalAfterShadowRay = valid;
        else
            shadow.f = select(valid, evalBSDF(mi, sd, ls.dir, sg), shadow.f);
    }

    /// Whether the material's BSDF evaluation draws random numbers (layered BSDFs).
    template<typename Instance>
    static constexpr bool evalDraws()
    {
        return requires(const Instance& m, const float3& w, UniformSampleGenerator& sg) { m.bsdf.eval(w, w, sg); };
    }

    /// Samples the BSDF for the next segment where `live`, or ends the path there.
    template<typename Path, typename SD, typename Material, typename Gen>
    void scatter(Path& path, const SD& sd, const Material& mi, Gen& sg, MaskOf<typename Path::Float> live) const
    {
        using F = typename Path::Float;
        if (!any(live))
            return;
        BSDFSampleT<F> bs;
        MaskOf<F> sampled;
        if constexpr (kLaneWidth<F> == 1)
            sampled = live && mi.sample(sd, sg, bs, mParams.useImportanceSampling);
        else
            sampled = mi.sample(sd, sg, bs, mParams.useImportanceSampling, live);
        path.thp = select(sampled, path.thp * bs.weight, path.thp);
        const auto going = sampled && anyPositive(path.thp);
        path.active = select(live, going, path.active);
        path.origin = select(going, sd.computeRayOrigin(!bs.isLobe(kLobeTransmission)), path.origin);
        path.dir = select(going, bs.wo, path.dir);
    }

    const Scene& mScene;
    const MinimalPathParams& mParams;
    InstanceLaneModels mLaneModels;
};
} // namespace falcor
