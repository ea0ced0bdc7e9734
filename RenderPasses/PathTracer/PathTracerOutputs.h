#pragma once
// The PathTracer's output channels (Falcor's names, formats and order) and how one pixel's
// samples become their texels.
#include "NRDHelpers.h"
#include "PathState.h"
#include "Utils/Image/ResourceFormat.h"
#include <cstdint>
#include <string>

namespace falcor
{
enum class PathTracerOutput : uint32_t
{
    Color, Albedo, SpecularAlbedo, IndirectAlbedo, GuideNormal, ReflectionPosW, RayCount, PathLength,
    // Denoiser (NRD) data of every sample: the radiance split by path type, demodulated.
    NRDDiffuseRadianceHitDist, NRDSpecularRadianceHitDist, NRDEmission, NRDDiffuseReflectance, NRDSpecularReflectance,
    // From the delta reflection and delta transmission guide paths.
    NRDDeltaReflectionRadianceHitDist, NRDDeltaReflectionReflectance, NRDDeltaReflectionEmission,
    NRDDeltaReflectionNormWRoughMaterialID, NRDDeltaReflectionPathLength, NRDDeltaReflectionHitDist,
    NRDDeltaTransmissionRadianceHitDist, NRDDeltaTransmissionReflectance, NRDDeltaTransmissionEmission,
    NRDDeltaTransmissionNormWRoughMaterialID, NRDDeltaTransmissionPathLength, NRDDeltaTransmissionPosW,
    NRDResidualRadianceHitDist,
    Count
};
constexpr size_t kPathTracerOutputCount = size_t(PathTracerOutput::Count);

struct PathTracerOutputChannel
{
    const char* name;
    const char* desc;
    ResourceFormat format;
};
extern const PathTracerOutputChannel kPathTracerOutputs[kPathTracerOutputCount];

/// Which outputs need the guide data, the NRD sample data, and the guide paths (Falcor's
/// kOutputNRDData, kOutputNRDAdditionalData).
bool isGuideOutput(PathTracerOutput output);
bool isNRDOutput(PathTracerOutput output);
bool isNRDGuidePathOutput(PathTracerOutput output);

/// Ray and vertex counts (Falcor's PixelStats): sums over a pixel's samples and NRD guide paths,
/// except the path length, which is sample 0's (see PathTracer::tracePixel).
struct PathTracerRayStats
{
    uint64_t visibilityRays = 0, closestHitRays = 0, pathVertices = 0, pathLength = 0;
    /// Surface hits shaded in SIMD lanes and one path at a time (`simdShadingStats()`).
    uint64_t laneShadedHits = 0, scalarShadedHits = 0;
    PathTracerRayStats& operator+=(const PathTracerRayStats& o)
    {
        visibilityRays += o.visibilityRays, closestHitRays += o.closestHitRays;
        pathVertices += o.pathVertices, pathLength += o.pathLength;
        laneShadedHits += o.laneShadedHits, scalarShadedHits += o.scalarShadedHits;
        return *this;
    }
};

/// The sums over one pixel's samples, and its per-pixel data.
struct PathTracerPixel
{
    float3 color{0.f, 0.f, 0.f};
    GuideData guide;
    PathTracerRayStats stats;
    NRDResolve nrd;
    NRDPrimaryHit nrdPrimary;
    NRDDeltaGuide deltaReflection, deltaTransmission;

    /// Adds one path's rays and vertices (the pixel's path length is set separately).
    void addRays(const PathState& path)
    {
        stats.visibilityRays += path.visibilityRays, stats.closestHitRays += path.closestHitRays;
        stats.pathVertices += path.pathVertices;
    }
    /// One output's texel, from `spp` samples.
    float4 texel(PathTracerOutput output, uint32_t spp) const;
};
} // namespace falcor
