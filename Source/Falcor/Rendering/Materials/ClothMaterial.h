#pragma once
#include "Rendering/Materials/BSDFMaterialInstance.h"
#include "Rendering/Materials/BSDFs/ClothBRDF.h"
#include "Rendering/Materials/StandardMaterial.h"

// Falcor's cloth material (ClothMaterial.slang): base color, sheen roughness in specular.g, sheen
// reflectance from the IoR.
namespace falcor
{
using ClothMaterialInstance = BSDFMaterialInstance<ClothBRDF, BSDFSides::Reflection>;

inline BSDFProperties materialProperties(const ClothBRDF& b, const ShadingFrame& sf)
{
    BSDFProperties p;
    p.guideNormal = sf.N, p.roughness = 0.5f * (b.roughness + 1.f), p.diffuseReflectionAlbedo = b.diffuseColor;
    return p;
}
inline uint32_t materialLobeTypes(const ClothBRDF&) { return kLobeDiffuseReflection; }

inline ClothMaterialInstance createCloth(const ShadingData& sd, const TextureLod& lod, uint32_t hints, float diffuseAlbedoMultiplier)
{
    const MaterialData& m = *sd.mtl;
    const float ior = headerIoR(m);
    const float f = (ior - 1.f) / (ior + 1.f);
    ClothBRDF brdf;
    brdf.diffuseColor = lod.sample(m, MaterialTextureSlot::BaseColor, sd.uv, m.baseColor).xyz();
    if (diffuseAlbedoMultiplier != 1.f)
        brdf.diffuseColor = saturate(brdf.diffuseColor * diffuseAlbedoMultiplier);
    brdf.roughness = lod.sample(m, MaterialTextureSlot::Specular, sd.uv, m.specular).y();
    brdf.f0 = float3(f * f);
    return {computeShadingFrame(sd, lod, hints), brdf};
}
} // namespace falcor
