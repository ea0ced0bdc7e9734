#pragma once
#include "Rendering/Materials/BSDFMaterialInstance.h"
#include "Rendering/Materials/BSDFs/MERLMeasuredBRDF.h"

// Falcor's MERL material: a measured BRDF table in a shading frame (MERLMaterial.slang).
namespace falcor
{
using MERLMaterialInstance = BSDFMaterialInstance<MERLMeasuredBRDF, BSDFSides::Reflection>;

inline BSDFProperties materialProperties(const MERLMeasuredBRDF& b, const ShadingFrame& sf)
{
    BSDFProperties p;
    p.guideNormal = sf.N, p.roughness = 1.f, p.diffuseReflectionAlbedo = b.albedo;
    return p;
}
inline uint32_t materialLobeTypes(const MERLMeasuredBRDF&) { return kLobeDiffuseReflection; }

inline MERLMaterialInstance createMERL(const ShadingData& sd, const TextureLod& lod, uint32_t hints)
{
    // No normal map (Falcor's MERL material has none).
    const ShadingFrame sf = computeShadingFrame(sd, lod, hints | kHintDisableNormalMapping);
    return {sf, {sd.mtl->merl.get(), sd.mtl->merl->albedo(dot(sf.N, sd.V))}};
}
} // namespace falcor
