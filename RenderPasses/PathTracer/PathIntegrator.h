#pragma once
#include "PathState.h"
#include "PathTracerParams.h"
#include "Rendering/Lights/EmissiveLightSampler.h"
#include "Rendering/Lights/EnvMapSampler.h"
#include "Rendering/Lights/LightHelpers.h"
#include "Rendering/Lights/LightLanes.h"
#include "Rendering/Materials/MaterialInstance.h"
#include "Rendering/Wavefront/InstanceLaneModels.h"
#include "Utils/Color/ColorHelpers.h"
#include <cmath>
#include <span>
#include <type_traits>

namespace falcor
{
/// The lights of one frame and how the path tracer picks among them.
struct PathTracerLights
{
    const EnvMapSampler* envMap = nullptr;            ///< Null when the env map does not light the scene.
    const EmissiveLightCollection* emissive = nullptr; ///< Null when emissive lights are off.
    const EmissiveLightSampler* emissiveSampler = nullptr; ///< Set with `emissive`.
    std::span<const LightData> analytic;
    float selectionPdf[3] = {0.f, 0.f, 0.f}; ///< Env map, emissive, analytic: uniform over the types present.

    enum Type : uint32_t { EnvMap = 0, Emissive = 1, Analytic = 2 };
};

/// A light sample ready for a shadow ray (Falcor's PathTracer LightSample), of one path or of a
/// path per lane.
template<typename F>
struct PathLightSampleT
{
    vector<F, 3> Li{0.f, 0.f, 0.f}; ///< Incident radiance divided by pdf.
    F pdf = 0.f;
    vector<F, 3> origin{0.f, 0.f, 0.f};
    F distance = 0.f;
    vector<F, 3> dir{0.f, 0.f, 0.f};
    UintOf<F> lightType = 0u;
};

/// The sample records of the light and BSDF calls, per float type (lanes: PathShadeLanes.h).
template<typename F>
struct PathLightTypes;
template<>
struct PathLightTypes<float>
{
    using EnvSample = EnvMapSample;
    using TriangleSample = TriangleLightSample;
    using AnalyticSample = AnalyticLightSample;
    using BSDFSample = falcor::BSDFSample;
};

/// The float type of a shading data record: float, or a lane type.
template<typename SD>
using ShadingFloat = std::remove_cvref_t<decltype(std::declval<const SD&>().posW.data[0])>;

/// What the integrator computes beyond color and the guide data.
struct PathIntegratorOutputs
{
    bool guide = false;         ///< Denoiser guide data (albedos, guide normal, reflection position).
    bool nrd = false;           ///< Per-sample NRD classification and demodulation data.
    bool nrdAdditional = false; ///< Delta reflection / transmission path flags (for the guide paths).
};

/// Traces one path: Falcor's PathTracer handleHit / handleMiss loop, templated on the sample
/// generator so the inner loop has no indirection.
template<typename SampleGenerator>
class PathIntegrator
{
public:
    PathIntegrator(const Scene& scene, const PathTracerParams& params, const PathTracerLights& lights, uint2 frameDim,
                   PathIntegratorOutputs outputs = {})
        : mScene(scene), mParams(params), mLights(lights), mFrameDim(frameDim), mOutputs(outputs), mLaneModels(scene)
    {}

    // A path advances one segment at a time, through the stages the wavefront (PathWavefront.h)
    // runs over whole queues of paths: `handleVertex` shades the hit (or the miss) at the end of
    // the current segment and leaves the light sample's shadow ray pending; `resolveShadowRay`
    // adds its light when unoccluded; while the path is active, `nextRay` is the next segment,
    // and `arrive` records its hit.

    /// Shades the current hit or miss: emission, a light sample (its shadow ray left pending), the
    /// next direction, or the end of the path.
    void handleVertex(PathState& path, SampleGenerator& sg) const
    {
        if (path.hit.isValid())
            handleHit(path, sg);
        else
            handleMiss(path);
    }

    /// Adds the pending light sample's light when `occluded` is false.
    static void resolveShadowRay(PathState& path, bool occluded)
    {
        path.shadow.pending = false;
        if (!occluded)
            path.L += path.shadow.contribution;
    }

    /// The next segment's ray (counted as traced).
    Ray nextRay(PathState& path) const
    {
        ++path.vertexIndex;
        ++path.closestHitRays;
        return Ray{path.origin, 0.f, path.dir};
    }

    /// Where the segment from `nextRay` ended.
    void arrive(PathState& path, const TriangleHit& hit) const
    {
        path.hit = hit;
        if (!hit.isValid())
            path.sceneLength = kNRDInvalidPathLength;
        else if (mOutputs.nrd || mOutputs.nrdAdditional) // Only NRD data reads it.
            path.sceneLength = addHalf(path.sceneLength, hit.t);
    }

    bool useAlphaTest() const { return mParams.useAlphaTest; }

    /// Whether hits may be shaded in SIMD lanes (PathShadeLanes.h): not while NRD data, which
    /// only the one-path code records and which every vertex may change, is asked for.
    bool canShadeInLanes() const { return !mOutputs.nrd && !mOutputs.nrdAdditional; }
    /// The lane model of the path's hit (isLaneModel), Unknown for none; the hit must be valid.
    MaterialType laneModelOf(const PathState& path) const { return mLaneModels.of(path.hit); }
    /// Whether the path's hit can join the SIMD shade stage (PathShadeLanes.h): a material with a
    /// lane form (PBRT diffuse and conductor, standard) seen from outside any dielectric volume
    /// (volume absorption and nested dielectrics need the interior list, which only the one-path
    /// code reads), past the vertices whose guide data (the first two) only the one-path code
    /// records. A path refracting into a volume there enters it after the stage.
    bool isLaneShadeable(const PathState& path) const
    {
        return path.hit.isValid() && path.interiorList.isEmpty() && (!mOutputs.guide || path.vertexIndex > 2) &&
               laneModelOf(path) != MaterialType::Unknown;
    }

    /// A path that refracted at the hit enters (or leaves) the volume behind its surface.
    static void enterVolume(PathState& path, const ShadingData& sd)
    {
        if (!sd.mtl->thinSurface)
            path.interiorList.handleIntersection(sd.materialID, sd.mtl->nestedPriority, sd.frontFacing);
    }

    /// The material's part of handleHit, on the concrete material instance so that its BSDF
    /// calls inline (one dispatch per hit). Written over the path's float type (PathShading.inl):
    /// `Path` is a PathState, or a PathVertexState of lanes with the matching hit, shading data,
    /// material and generator lanes.
    template<typename Path, typename SD, typename Material, typename Hit, typename Gen>
    void shadeHit(Path& path, const Hit& hit, const SD& sd, Material& mi, Gen& sg) const;
    MaterialInstance createMaterial(const PathState& path, const ShadingData& sd) const;
    /// What createMaterial asks of the material setup beyond the hit (MaterialInstanceHints.h).
    uint32_t materialHints() const { return mParams.adjustShadingNormals ? kHintAdjustShadingNormal : kHintNone; }

    /// NRD guide paths from a primary hit (Falcor's delta reflection and delta transmission
    /// passes): they follow delta lobes only and report where they end.
    NRDDeltaGuide traceDeltaReflectionGuide(PathState& path, SampleGenerator& sg) const;
    NRDDeltaGuide traceDeltaTransmissionGuide(PathState& path, SampleGenerator& sg) const;

    const PathIntegratorOutputs& getOutputs() const { return mOutputs; }

    /// Bounces the path took, not counting the scatter ray of the last vertex.
    uint32_t getTerminatedPathLength(const PathState& path) const
    {
        const uint32_t d = std::min(mParams.maxDiffuseBounces, path.getBounces(BounceType::Diffuse));
        const uint32_t s = std::min(mParams.maxSpecularBounces, path.getBounces(BounceType::Specular));
        const uint32_t t = std::min(mParams.maxTransmissionBounces, path.getBounces(BounceType::Transmission));
        return std::min(mParams.maxSurfaceBounces, d + s + t);
    }

private:
    /// Traces a guide path's scatter rays until it ends, handing each hit or miss on.
    template<typename OnHit, typename OnMiss>
    void continuePath(PathState& path, OnHit&& onHit, OnMiss&& onMiss) const
    {
        while (path.active)
        {
            arrive(path, mScene.closestHit(nextRay(path), RayCullMode::None, mParams.useAlphaTest));
            if (path.hit.isValid())
                onHit(path);
            else
                onMiss(path);
        }
    }

    /// Per lane when the path is lanes (here and below: PathShading.inl).
    template<typename Path>
    auto hasFinishedSurfaceBounces(const Path& path) const;
    template<typename F>
    F evalMIS(const F& p0, const F& p1) const;

    /// Paths give up after this many false intersections (Falcor's kMaxRejectedHits).
    static constexpr uint32_t kMaxRejectedHits = 16;

    void handleHit(PathState& path, SampleGenerator& sg) const;
    /// Attenuation by the dielectric volume the segment just traced ran through.
    void applyVolumeAbsorption(PathState& path, const ShadingData& sd) const;
    /// Skips false intersections inside higher-priority volumes; sets the outside IoR of true ones.
    bool handleNestedDielectrics(PathState& path, ShadingData& sd) const;
    /// Adds the env map's light; returns it (MIS-weighted, before the path throughput).
    float3 handleMiss(PathState& path) const;
    /// Emission at the hit, MIS-weighted against the light sample taken at the previous vertex;
    /// returns what it added to the path.
    template<typename Path, typename Hit, typename SD, typename Props>
    auto addEmission(Path& path, const Hit& hit, const SD& sd, const Props& props, MaskOf<typename Path::Float> isPrimaryHit) const;
    /// The light sample of the `live` paths; its shadow ray is left pending.
    template<typename Path, typename SD, typename Material, typename Gen>
    void sampleLightAndShade(Path& path, const SD& sd, const Material& mi, UintOf<typename Path::Float> lobes, Gen& sg,
                             MaskOf<typename Path::Float> live) const;
    template<typename SD, typename Gen>
    auto generateLightSample(const SD& sd, MaskOf<ShadingFloat<SD>> upper, MaskOf<ShadingFloat<SD>> lower, Gen& sg,
                             MaskOf<ShadingFloat<SD>> live, PathLightSampleT<ShadingFloat<SD>>& ls) const;
    template<typename SD, typename Gen, typename Towards>
    auto sampleAnalyticLights(const SD& sd, Gen& sg, MaskOf<ShadingFloat<SD>> live, PathLightSampleT<ShadingFloat<SD>>& ls,
                              Towards&& rayOriginTowards) const;
    template<typename Path, typename SD, typename Material, typename Props, typename Gen>
    auto generateScatterRay(Path& path, const SD& sd, const Material& mi, const Props& props, Gen& sg,
                            MaskOf<typename Path::Float> live) const;
    /// Guide and NRD data of the vertex (one path at a time only).
    void setDenoiserData(PathState& path, const ShadingData& sd, const BSDFProperties& props, uint32_t lobes, const float3& emission,
                         bool wasDeltaOnlyPath) const;
    void setGuideData(PathState& path, const ShadingData& sd, const BSDFProperties& props) const;
    /// Falcor's setNRD* calls of handleHit: demodulation data of the sample and the pixel.
    void setNRDData(PathState& path, const ShadingData& sd, const BSDFProperties& props, uint32_t lobes, const float3& emission,
                    bool wasDeltaOnlyPath) const;
    /// Classifies the path by the lobe sampled at this vertex (`sampledLobe` 0 when sampling failed).
    void updateNRDFlags(PathState& path, const ShadingData& sd, uint32_t lobes, uint32_t sampledLobe) const;
    void handleDeltaReflectionHit(PathState& path, SampleGenerator& sg, NRDDeltaGuide& guide) const;
    void handleDeltaTransmissionHit(PathState& path, SampleGenerator& sg, NRDDeltaGuide& guide) const;
    /// A guide path's result where it stops on a surface.
    NRDDeltaGuide deltaGuideAt(const PathState& path, const ShadingData& sd, const BSDFProperties& props, uint32_t lobes) const;
    /// Guide paths stop at volumes too dense to see through.
    static bool isSemiOpaque(const ShadingData& sd);
    /// Texture LOD: the primary hit's per primaryLodMode, lodBias elsewhere.
    TextureLod textureLod(const PathState& path, const ShadingData& sd) const;

    const Scene& mScene;
    const PathTracerParams& mParams;
    const PathTracerLights& mLights;
    uint2 mFrameDim; ///< For ray differentials at primary hits.
    PathIntegratorOutputs mOutputs;
    InstanceLaneModels mLaneModels;
};
} // namespace falcor

#include "PathIntegrator.inl"
#include "PathShading.inl"
#include "PathIntegratorNRD.inl"
