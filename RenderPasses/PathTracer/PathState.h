#pragma once
#include "NRDHelpers.h"
#include "Rendering/Materials/InteriorList.h"
#include "Scene/Acceleration/RayTracing.h"
#include "Utils/Math/Vector.h"
#include "Utils/Simd/Lane.h"
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

/// The shadow ray of a vertex's light sample, traced after the vertex is shaded (so a wavefront
/// traces a whole queue of them together), and what it adds to the path when unoccluded.
template<typename F>
struct PendingShadowRayT
{
    using Float3 = vector<F, 3>;
    Float3 origin{0.f, 0.f, 0.f};
    Float3 dir{0.f, 0.f, 0.f};
    F distance = 0.f;
    Float3 contribution{0.f, 0.f, 0.f}; ///< Throughput at the vertex times the light's BSDF-weighted radiance.
    MaskOf<F> pending = false;

    Ray ray() const requires(kLaneWidth<F> == 1) { return Ray{origin, 0.f, dir, distance}; }
};

/// What shading a vertex reads and writes of a path (Falcor's PathState, less what only the
/// one-path-at-a-time code uses): one path when F is float, a lane per path when F is
/// FloatLanes<W> (PathShadeLanes.h).
template<typename F>
struct PathVertexState
{
    using Float = F;
    using Float3 = vector<F, 3>;
    using Uint = UintOf<F>;
    using Mask = MaskOf<F>;

    Float3 origin{0.f, 0.f, 0.f};
    Float3 dir{0.f, 0.f, 0.f};
    Float3 thp{1.f, 1.f, 1.f};    ///< Throughput: product of BSDF weights so far.
    Float3 L{0.f, 0.f, 0.f};      ///< Radiance gathered so far.
    F pdf = 0.f;                  ///< BSDF density of the last scatter direction (for MIS).
    Float3 normal{0.f, 0.f, 0.f}; ///< Oriented face normal where the last light sample was taken.
    Float3 neePosW{0.f, 0.f, 0.f}; ///< Where it was taken (MIS evaluates light densities from there).
    Uint vertexIndex = 0u;        ///< 1 at the primary hit.
    Uint bounces[3] = {0u, 0u, 0u};
    Mask active = true;
    Mask lightSampledUpper = false, lightSampledLower = false;
    Mask isDelta = false, isSpecular = false, isTransmission = false; ///< Of the last scatter event.
    Uint visibilityRays = 0u;     ///< Shadow rays traced for this path (PixelStats).
    Uint pathVertices = 0u;
    PendingShadowRayT<F> shadow;  ///< Set by shading, cleared when traced.

    Uint getBounces(BounceType type) const { return bounces[uint32_t(type)]; }
    Mask isLightSampled() const { return lightSampledUpper || lightSampledLower; }
    /// Light sampling could have produced the last scatter direction (not a delta lobe).
    Mask isLightSamplable() const { return !isDelta; }
};

/// Calls fn(a.field, b.field) for every field of two PathVertexStates (of one path, or of lanes):
/// how the wavefront moves paths into lanes and back.
template<typename A, typename B, typename Fn>
void forEachPathField(A& a, B& b, Fn&& fn)
{
    fn(a.origin, b.origin), fn(a.dir, b.dir), fn(a.thp, b.thp), fn(a.L, b.L), fn(a.pdf, b.pdf);
    fn(a.normal, b.normal), fn(a.neePosW, b.neePosW), fn(a.vertexIndex, b.vertexIndex);
    for (int i = 0; i < 3; ++i)
        fn(a.bounces[i], b.bounces[i]);
    fn(a.active, b.active), fn(a.lightSampledUpper, b.lightSampledUpper), fn(a.lightSampledLower, b.lightSampledLower);
    fn(a.isDelta, b.isDelta), fn(a.isSpecular, b.isSpecular), fn(a.isTransmission, b.isTransmission);
    fn(a.visibilityRays, b.visibilityRays), fn(a.pathVertices, b.pathVertices);
    fn(a.shadow.origin, b.shadow.origin), fn(a.shadow.dir, b.shadow.dir), fn(a.shadow.distance, b.shadow.distance);
    fn(a.shadow.contribution, b.shadow.contribution), fn(a.shadow.pending, b.shadow.pending);
}

/// One path in flight (Falcor's PathState).
struct PathState : PathVertexState<float>
{
    TriangleHit hit;
    InteriorList interiorList;   ///< Dielectric volumes the path is inside.
    uint32_t rejectedHits = 0;   ///< False intersections skipped (nested dielectrics).
    uint32_t closestHitRays = 0; ///< Traced for this path (PixelStats).
    uint32_t sampleIndex = 0;    ///< Which of the pixel's samples this is.
    GuideData guide;
    // Denoiser (NRD) data, kept when the pass outputs it.
    float sceneLength = 0.f;     ///< Path length after the primary hit, in half precision (Falcor's float16).
    float primaryHitDist = 0.f;  ///< Length of the camera segment (delta reflection guide paths).
    NRDPathFlags nrdFlags;
    NRDSample nrd;
    NRDPrimaryHit nrdPrimary;    ///< Written by sample 0 at its primary hit.

    void incrementBounces(BounceType type) { ++bounces[uint32_t(type)]; }
    bool isInsideDielectricVolume() const { return !interiorList.isEmpty(); }
};
} // namespace falcor
