#pragma once
// Denoiser (NRD) guide data the PathTracer computes: which kind of path a sample is, its radiance
// split from the reflectance it can be demodulated by, and the per-pixel guides of the delta
// reflection and delta transmission guide paths. The values follow Falcor's PathTracer so its
// outputs feed the same denoisers.
#include "Rendering/Materials/BSDFProperties.h"
#include "Rendering/Materials/Fresnel.h"
#include "Rendering/Materials/IsotropicGGX.h"
#include "Scene/Material.h"
#include "Scene/ShadingData.h"
#include "Utils/Math/Float16.h"
#include "Utils/Math/MathHelpers.h"

namespace falcor
{
constexpr float kNRDInvalidPathLength = 65504.f; ///< Largest half float: misses, and paths without a length.
constexpr float kNRDMinReflectance = 0.01f;      ///< Floor of demodulation reflectances (no divide by ~0).

/// How the path left its primary hit, which decides the denoiser it feeds (Falcor's NRDPathType).
enum class NRDPathType : uint32_t
{
    Residual = 0,
    Diffuse = 1,
    Specular = 2,
    DeltaReflection = 3,
    DeltaTransmission = 4,
};

/// Path classification flags (Falcor's PathFlags bits for NRD).
struct NRDPathFlags
{
    bool diffusePrimaryHit = false;        ///< Scattered by a diffuse lobe at the primary hit.
    bool specularPrimaryHit = false;       ///< Scattered by a glossy lobe at the primary hit.
    bool deltaReflectionPrimaryHit = false; ///< Scattered by delta reflection at the primary hit.
    bool deltaTransmissionPath = false;    ///< Followed delta transmission from the primary hit on.
    bool deltaOnlyPath = false;            ///< No vertex with non-delta lobes so far.

    NRDPathType pathType() const
    {
        if (diffusePrimaryHit)
            return NRDPathType::Diffuse;
        if (specularPrimaryHit)
            return NRDPathType::Specular;
        if (deltaReflectionPrimaryHit)
            return NRDPathType::DeltaReflection;
        if (deltaTransmissionPath)
            return NRDPathType::DeltaTransmission;
        return NRDPathType::Residual;
    }
};

/// Per-sample values the resolve demodulates the sample's radiance with. The defaults are those
/// of a sample whose camera ray missed.
struct NRDSample
{
    float3 emission{0.f, 0.f, 0.f};    ///< Emission along the path that is not denoised.
    float3 reflectance{1.f, 1.f, 1.f}; ///< What the radiance is divided by.
    float3 neeOnDelta{0.f, 0.f, 0.f};  ///< Primary-hit light on a delta reflection path (goes to diffuse).
    float hitDist = kNRDInvalidPathLength; ///< Length of the segment from the primary to the second vertex.
};

/// Per-pixel values of the primary hit (sample 0).
struct NRDPrimaryHit
{
    float3 emission{0.f, 0.f, 0.f};
    float3 diffuseReflectance{0.f, 0.f, 0.f};
    float3 specularReflectance{0.f, 0.f, 0.f};
};

/// Per-pixel result of a delta reflection or delta transmission guide path.
struct NRDDeltaGuide
{
    float3 emission{0.f, 0.f, 0.f};
    float3 reflectance{0.f, 0.f, 0.f};
    float2 octNormal{0.5f, 0.5f};     ///< Normal at the path's end, octahedral in [0,1]².
    float roughness = 0.f;            ///< Below 0.08 reported as 0 (what the renderer treats as a mirror).
    float pathLength = kNRDInvalidPathLength;
    float hitDist = kNRDInvalidPathLength; ///< Delta reflection: path length minus the primary segment.
    float3 posW{0.f, 0.f, 0.f};       ///< Delta transmission: where the path ended.

    /// Falcor's writeNRDDelta*GuideBuffers: without demodulation emission is 0 and reflectance 1.
    static NRDDeltaGuide make(bool demodulate, const float3& reflectance, const float3& emission, const float3& normal, float roughness,
                              float pathLength)
    {
        NRDDeltaGuide g;
        g.emission = demodulate ? emission : float3(0.f);
        g.reflectance = demodulate ? max(float3(kNRDMinReflectance), reflectance) : float3(1.f);
        g.octNormal = ndirToOctUnorm(normal);
        g.roughness = roughness < 0.08f ? 0.f : roughness;
        g.pathLength = pathLength;
        return g;
    }
};

/// Adds a distance to a path length kept in half precision, as Falcor's float16 sceneLength.
inline float addHalf(float sum, float distance)
{
    return f16tof32(f32tof16(sum + f16tof32(f32tof16(distance))));
}

inline float3 diffuseReflectanceNRD(const BSDFProperties& props)
{
    // Reflection and transmission are denoised together.
    return max(float3(kNRDMinReflectance), props.diffuseReflectionAlbedo + props.diffuseTransmissionAlbedo);
}

/// The single-lobe GGX approximation of the specular reflectance, seen from sd.V.
inline float3 specularReflectanceNRD(const ShadingData& sd, const BSDFProperties& props)
{
    const float NdotV = saturate(dot(props.guideNormal, sd.V));
    return max(float3(kNRDMinReflectance), approxSpecularIntegralGGX(props.specularReflectionAlbedo, props.roughness * props.roughness, NdotV));
}

/// Falcor's getMaterialReflectanceForDeltaPaths: what a delta path's end vertex is demodulated by.
inline float3 materialReflectanceForDeltaPaths(bool hasDeltaLobes, const ShadingData& sd, const BSDFProperties& props)
{
    const MaterialData& md = *sd.mtl;
    if (md.type == MaterialType::Standard)
    {
        const float metallic = md.specular.z();
        if (metallic < 1.f)
            return diffuseReflectanceNRD(props);
        if (!hasDeltaLobes)
            return specularReflectanceNRD(sd, props);
    }
    else if (md.type == MaterialType::Hair)
        return diffuseReflectanceNRD(props);
    return float3(1.f);
}

/// Whether a delta transmission guide path may take a delta reflection here: total internal
/// reflection, or an opaque mirror.
inline bool isDeltaReflectionAllowedAlongDeltaTransmissionPath(const ShadingData& sd, float insideIoR)
{
    const MaterialData& md = *sd.mtl;
    const bool totalInternalReflection = evalFresnelDielectric(sd.IoR / insideIoR, sd.frame.toLocal(sd.V).z()) == 1.f;
    const bool nonTransmissiveMirror = md.specularTransmission == 0.f && md.specular.z() == 1.f;
    return totalInternalReflection || nonTransmissiveMirror;
}

/// Sums a pixel's samples into the NRD radiance outputs (Falcor's ResolvePass).
struct NRDResolve
{
    float3 diffuse{0.f, 0.f, 0.f}, specular{0.f, 0.f, 0.f}, deltaReflection{0.f, 0.f, 0.f}, deltaTransmission{0.f, 0.f, 0.f},
        residual{0.f, 0.f, 0.f};
    float hitDist = 0.f;

    /// `primaryDiffuseReflectance` is the pixel's NRDPrimaryHit::diffuseReflectance.
    void add(NRDPathType type, const float3& L, const NRDSample& s, const float3& primaryDiffuseReflectance)
    {
        // On a primary hit with both a diffuse and a delta reflection lobe, light sampling only
        // saw the diffuse lobe: that part moves from the delta reflection radiance to diffuse.
        const float3 demodulated = max(float3(0.f), L - s.emission - s.neeOnDelta) / s.reflectance;
        switch (type)
        {
        case NRDPathType::Diffuse:
            diffuse += demodulated;
            break;
        case NRDPathType::Specular:
            specular += demodulated;
            break;
        case NRDPathType::DeltaReflection:
            deltaReflection += demodulated;
            for (int c = 0; c < 3; ++c)
                diffuse[c] += primaryDiffuseReflectance[c] > 0.f ? s.neeOnDelta[c] / primaryDiffuseReflectance[c] : 0.f;
            break;
        case NRDPathType::DeltaTransmission:
            deltaTransmission += demodulated;
            break;
        case NRDPathType::Residual:
            residual += L; // Not demodulated.
            break;
        }
        hitDist += s.hitDist;
    }
};
} // namespace falcor
