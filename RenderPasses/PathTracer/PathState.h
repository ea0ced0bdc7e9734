#pragma once
#include "NRDHelpers.h"
#include "Rendering/Materials/InteriorList.h"
#include "Scene/Acceleration/RayTracing.h"
#include "Utils/Math/Vector.h"
#include <algorithm>

namespace falcor
{
enum class BounceType : uint32_t
{
    Diffuse = 0,
    Specular = 1,
    Transmission = 2,
};

/// Denoiser guide values of one sample (Falcor's GuideData).
struct GuideData
{
    float3 albedo{0.f, 0.f, 0.f};
    float3 specularAlbedo{0.f, 0.f, 0.f};
    float3 indirectAlbedo{0.f, 0.f, 0.f};
    float3 guideNormal{0.f, 0.f, 0.f};
    float3 reflectionPosW{0.f, 0.f, 0.f};
};

/// One path in flight (Falcor's PathState).
struct PathState
{
    float3 origin{0.f, 0.f, 0.f};
    float3 dir{0.f, 0.f, 0.f};
    TriangleHit hit;
    float3 thp{1.f, 1.f, 1.f};   ///< Throughput: product of BSDF weights so far.
    float3 L{0.f, 0.f, 0.f};     ///< Radiance gathered so far.
    float pdf = 0.f;             ///< BSDF density of the last scatter direction (for MIS).
    float3 normal{0.f, 0.f, 0.f}; ///< Oriented face normal where the last light sample was taken.
    float3 neePosW{0.f, 0.f, 0.f}; ///< Where it was taken (MIS evaluates light densities from there).
    uint32_t vertexIndex = 0;    ///< 1 at the primary hit.
    uint32_t bounces[3] = {0, 0, 0};
    bool active = true;
    bool lightSampledUpper = false, lightSampledLower = false;
    bool isDelta = false, isSpecular = false, isTransmission = false; ///< Of the last scatter event.
    InteriorList interiorList;   ///< Dielectric volumes the path is inside.
    uint32_t rejectedHits = 0;   ///< False intersections skipped (nested dielectrics).
    uint32_t visibilityRays = 0, closestHitRays = 0; ///< Traced for this path (PixelStats).
    uint32_t pathVertices = 0;
    uint32_t sampleIndex = 0;    ///< Which of the pixel's samples this is.
    GuideData guide;
    // Denoiser (NRD) data, kept when the pass outputs it.
    float sceneLength = 0.f;     ///< Path length after the primary hit, in half precision (Falcor's float16).
    float primaryHitDist = 0.f;  ///< Length of the camera segment (delta reflection guide paths).
    NRDPathFlags nrdFlags;
    NRDSample nrd;
    NRDPrimaryHit nrdPrimary;    ///< Written by sample 0 at its primary hit.

    uint32_t getBounces(BounceType type) const { return bounces[uint32_t(type)]; }
    void incrementBounces(BounceType type) { ++bounces[uint32_t(type)]; }
    bool isInsideDielectricVolume() const { return !interiorList.isEmpty(); }
    bool isLightSampled() const { return lightSampledUpper || lightSampledLower; }
    /// Light sampling could have produced the last scatter direction (not a delta lobe).
    bool isLightSamplable() const { return !isDelta; }
};
} // namespace falcor
