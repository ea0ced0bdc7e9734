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

/// Traces one path: Falcor's PathTracer handleHit / handleMiss loop, templated on the sample
/// generator so the inner loop has no indirection.
template<typename SampleGenerator>
class PathIntegrator
{
public:
    PathIntegrator(const Scene& scene, const PathTracerParams& params, const PathTracerLights& lights, uint2 frameDim)
        : mScene(scene), mParams(params), mLights(lights), mFrameDim(frameDim)
    {}

    void tracePath(PathState& path, SampleGenerator& sg) const
    {
        if (path.hit.isValid())
            handleHit(path, sg);
        else
            handleMiss(path);
        while (path.active)
        {
            ++path.vertexIndex;
            ++path.closestHitRays;
            path.hit = mScene.closestHit(Ray{path.origin, 0.f, path.dir}, RayCullMode::None, mParams.useAlphaTest);
            if (path.hit.isValid())
                handleHit(path, sg);
            else
                handleMiss(path);
        }
    }

    /// Bounces the path took, not counting the scatter ray of the last vertex.
    uint32_t getTerminatedPathLength(const PathState& path) const
    {
        const uint32_t d = std::min(mParams.maxDiffuseBounces, path.getBounces(BounceType::Diffuse));
        const uint32_t s = std::min(mParams.maxSpecularBounces, path.getBounces(BounceType::Specular));
        const uint32_t t = std::min(mParams.maxTransmissionBounces, path.getBounces(BounceType::Transmission));
        return std::min(mParams.maxSurfaceBounces, d + s + t);
    }

private:
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
    /// Attenuation by the dielectric volume the segment just traced ran through.
    void applyVolumeAbsorption(PathState& path, const ShadingData& sd) const;
    /// Skips false intersections inside higher-priority volumes; sets the outside IoR of true ones.
    bool handleNestedDielectrics(PathState& path, ShadingData& sd) const;
    void handleMiss(PathState& path) const;
    /// Emission at the hit, MIS-weighted against the light sample taken at the previous vertex.
    void addEmission(PathState& path, const ShadingData& sd, const BSDFProperties& props, bool isPrimaryHit) const;
    void sampleLightAndShade(PathState& path, const ShadingData& sd, const MaterialInstance& mi, uint32_t lobes, SampleGenerator& sg) const;
    bool generateLightSample(const ShadingData& sd, bool upper, bool lower, SampleGenerator& sg, PathLightSample& ls) const;
    bool generateScatterRay(PathState& path, const ShadingData& sd, const MaterialInstance& mi, const BSDFProperties& props,
                            SampleGenerator& sg) const;
    void setGuideData(PathState& path, const ShadingData& sd, const BSDFProperties& props) const;
    /// Texture LOD: the primary hit's per primaryLodMode, lodBias elsewhere.
    TextureLod textureLod(const PathState& path, const ShadingData& sd) const;

    const Scene& mScene;
    const PathTracerParams& mParams;
    const PathTracerLights& mLights;
    uint2 mFrameDim; ///< For ray differentials at primary hits.
};
} // namespace falcor

#include "PathIntegrator.inl"
