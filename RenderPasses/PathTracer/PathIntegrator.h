#pragma once
#include "PathState.h"
#include "PathTracerParams.h"
#include "Rendering/Lights/EmissiveLightSampler.h"
#include "Rendering/Lights/EnvMapSampler.h"
#include "Rendering/Lights/LightHelpers.h"
#include "Rendering/Materials/MaterialInstance.h"
#include "Utils/Color/ColorHelpers.h"
#include <cmath>
#include <span>

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

/// A light sample ready for a shadow ray (Falcor's PathTracer LightSample).
struct PathLightSample
{
    float3 Li{0.f, 0.f, 0.f}; ///< Incident radiance divided by pdf.
    float pdf = 0.f;
    float3 origin{0.f, 0.f, 0.f};
    float distance = 0.f;
    float3 dir{0.f, 0.f, 0.f};
    uint32_t lightType = 0;
};

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
        : mScene(scene), mParams(params), mLights(lights), mFrameDim(frameDim), mOutputs(outputs)
    {}

    /// Traces a path from its primary hit (or miss) to its end.
    void tracePath(PathState& path, SampleGenerator& sg) const
    {
        if (path.hit.isValid())
            handleHit(path, sg);
        else
            handleMiss(path);
        continuePath(path, [&](PathState& p) { handleHit(p, sg); }, [&](PathState& p) { handleMiss(p); });
    }

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
    /// Traces the path's scatter rays until it ends, handing each hit or miss on.
    template<typename OnHit, typename OnMiss>
    void continuePath(PathState& path, OnHit&& onHit, OnMiss&& onMiss) const
    {
        while (path.active)
        {
            ++path.vertexIndex;
            ++path.closestHitRays;
            path.hit = mScene.closestHit(Ray{path.origin, 0.f, path.dir}, RayCullMode::None, mParams.useAlphaTest);
            const bool tracksLength = mOutputs.nrd || mOutputs.nrdAdditional; // Only NRD data reads it.
            if (path.hit.isValid())
            {
                if (tracksLength)
                    path.sceneLength = addHalf(path.sceneLength, path.hit.t);
                onHit(path);
            }
            else
            {
                path.sceneLength = kNRDInvalidPathLength;
                onMiss(path);
            }
        }
    }

    bool hasFinishedSurfaceBounces(const PathState& path) const
    {
        const uint32_t d = path.getBounces(BounceType::Diffuse), s = path.getBounces(BounceType::Specular),
                       t = path.getBounces(BounceType::Transmission);
        return d + s + t > mParams.maxSurfaceBounces || d > mParams.maxDiffuseBounces || s > mParams.maxSpecularBounces ||
               t > mParams.maxTransmissionBounces;
    }

    float evalMIS(float p0, float p1) const
    {
        switch (mParams.misHeuristic)
        {
        case MISHeuristic::Balance:
            return p0 / (p0 + p1);
        case MISHeuristic::PowerTwo:
            return p0 * p0 / (p0 * p0 + p1 * p1);
        case MISHeuristic::PowerExp:
        {
            const float q0 = std::pow(p0, mParams.misPowerExponent), q1 = std::pow(p1, mParams.misPowerExponent);
            return q0 / (q0 + q1);
        }
        }
        return 0.f;
    }

    /// Paths give up after this many false intersections (Falcor's kMaxRejectedHits).
    static constexpr uint32_t kMaxRejectedHits = 16;

    void handleHit(PathState& path, SampleGenerator& sg) const;
    /// The material's part of handleHit, on the concrete material instance so that its BSDF
    /// calls inline (one dispatch per hit).
    template<typename Material>
    void shadeHit(PathState& path, const ShadingData& sd, Material& mi, SampleGenerator& sg) const;
    /// Attenuation by the dielectric volume the segment just traced ran through.
    void applyVolumeAbsorption(PathState& path, const ShadingData& sd) const;
    /// Skips false intersections inside higher-priority volumes; sets the outside IoR of true ones.
    bool handleNestedDielectrics(PathState& path, ShadingData& sd) const;
    /// Adds the env map's light; returns it (MIS-weighted, before the path throughput).
    float3 handleMiss(PathState& path) const;
    MaterialInstance createMaterial(const PathState& path, const ShadingData& sd) const;
    /// Emission at the hit, MIS-weighted against the light sample taken at the previous vertex;
    /// returns what it added to the path.
    float3 addEmission(PathState& path, const ShadingData& sd, const BSDFProperties& props, bool isPrimaryHit) const;
    /// `Material`, here and in generateScatterRay: a MaterialInstance or one of its concrete types.
    template<typename Material>
    void sampleLightAndShade(PathState& path, const ShadingData& sd, const Material& mi, uint32_t lobes, SampleGenerator& sg) const;
    bool generateLightSample(const ShadingData& sd, bool upper, bool lower, SampleGenerator& sg, PathLightSample& ls) const;
    template<typename Material>
    bool generateScatterRay(PathState& path, const ShadingData& sd, const Material& mi, const BSDFProperties& props,
                            SampleGenerator& sg) const;
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
};
} // namespace falcor

#include "PathIntegrator.inl"
#include "PathIntegratorNRD.inl"
