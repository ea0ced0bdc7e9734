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
    p.guideNormal = sf.N, p.roughness = b.fitted.roughness, p.diffuseReflectionAlbedo = b.albedo;
    return p;
}
inline uint32_t materialLobeTypes(const MERLMeasuredBRDF&) { return kLobeDiffuseReflection | kLobeSpecularReflection; }

inline MERLMaterialInstance createMERL(const ShadingData& sd, const TextureLod& lod, uint32_t hints)
{
    // No normal map (Falcor's MERL material has none).
    const ShadingFrame sf = computeShadingFrame(sd, lod, hints | kHintDisableNormalMapping);
    return {sf, {sd.mtl->merl.get(), sd.mtl->merl->albedo(dot(sf.N, sd.V)), DiffuseSpecularBRDF(sd.mtl->merlFit)}};
}

/// Which of a MERLMix material's tables shades `uv`: the index map's texel there (point
/// sampled, wrapping; red channel as an 8-bit index), modulo the table count; 0 without a map.
inline uint32_t merlMixIndex(const MaterialData& m, float2 uv)
{
    const Texture* map = m.textures[size_t(MaterialTextureSlot::Index)].get();
    if (!map)
        return 0;
    auto texel = [](float t, uint32_t size) { return std::min(uint32_t((t - std::floor(t)) * float(size)), size - 1); };
    const float red = map->loadTexel(texel(uv.x(), map->getWidth()), texel(uv.y(), map->getHeight())).x();
    return uint32_t(red * 255.f) % uint32_t(m.merlMix.size());
}

/// A MERLMix material: the table its index map picks, with a normal map (as Falcor's).
inline MERLMaterialInstance createMERLMix(const ShadingData& sd, const TextureLod& lod, uint32_t hints)
{
    const ShadingFrame sf = computeShadingFrame(sd, lod, hints);
    const uint32_t index = merlMixIndex(*sd.mtl, sd.uv);
    const MERLBRDF* table = sd.mtl->merlMix[index].get();
    return {sf, {table, table->albedo(dot(sf.N, sd.V)), DiffuseSpecularBRDF(sd.mtl->merlMixFits[index])}};
}
} // namespace falcor
