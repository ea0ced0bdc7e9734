#pragma once
#include "Rendering/Materials/BSDFMaterialInstance.h"
#include "Rendering/Materials/RGLBRDF.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"

// Falcor's RGL material (RGLMaterial.slang): a measured BRDF of the RGL database in a shading
// frame, its tables looked up for the view once per hit.
namespace falcor
{
/// An RGL table seen from one view (local directions, z up).
struct RGLMeasuredBRDF
{
    const RGLBRDF* table = nullptr;
    RGLBRDF::View view;
    float3 albedo{0.f, 0.f, 0.f}; ///< Directional albedo of the view, for the guides.

    float3 eval(const float3& wi, const float3& wo) const { return table->eval(wi, wo, view); }

    template<typename SampleGenerator>
    bool sample(const float3& wi, BSDFSample& s, SampleGenerator& sg) const
    {
        return table->sample(wi, sampleNext2D(sg), view, s);
    }

    float evalPdf(const float3& wi, const float3& wo) const { return table->evalPdf(wi, wo, view); }
};

using RGLMaterialInstance = BSDFMaterialInstance<RGLMeasuredBRDF, BSDFSides::Reflection>;

/// As Falcor: a medium roughness, the albedo as diffuse, one diffuse lobe.
inline BSDFProperties materialProperties(const RGLMeasuredBRDF& b, const ShadingFrame& sf)
{
    BSDFProperties p;
    p.guideNormal = sf.N, p.roughness = 0.5f, p.diffuseReflectionAlbedo = b.albedo;
    return p;
}
inline uint32_t materialLobeTypes(const RGLMeasuredBRDF&) { return kLobeDiffuseReflection; }

inline RGLMaterialInstance createRGL(const ShadingData& sd, const TextureLod& lod, uint32_t hints)
{
    // No normal map (Falcor's RGL material has none).
    const ShadingFrame sf = computeShadingFrame(sd, lod, hints | kHintDisableNormalMapping);
    RGLMeasuredBRDF brdf;
    brdf.table = sd.mtl->rgl.get();
    const float cosTheta = dot(sf.N, sd.V);
    if (cosTheta >= kMinCosTheta)
    {
        brdf.view = brdf.table->view(sf.toLocal(sd.V));
        brdf.albedo = brdf.table->albedo(cosTheta);
    }
    return {sf, brdf};
}
} // namespace falcor
