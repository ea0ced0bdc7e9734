#pragma once
#include "Rendering/Materials/StandardMaterialInstance.h"
#include "Utils/Math/Float16.h"
#include <cmath>

// Setting up Falcor's standard material at a hit (StandardMaterial.slang).
namespace falcor
{
/// The material's index of refraction as the header stores it (half precision).
inline float headerIoR(const MaterialData& mtl)
{
    return f16tof32(f32tof16(mtl.IoR));
}

/// Metalness implied by spec-gloss colors, assuming a specular level of 0.5 (Falcor's getMetallic,
/// after UE4 and Substance Painter; it may go negative, as Falcor's does).
inline float metallicFromSpecGloss(const float3& diffuse, const float3& specular)
{
    const float d = luminance(diffuse), s = luminance(specular);
    if (s == 0.f)
        return 0.f;
    const float b = s + d - 0.08f;
    const float c = 0.04f - s;
    return (std::sqrt(b * b - 0.16f * c) - b) * 12.5f;
}

/// Sets up the standard material at `sd`.
inline StandardMaterialInstance createStandardMaterialInstance(const ShadingData& sd, const TextureLod& lod, uint32_t hints,
                                                               float diffuseAlbedoMultiplier = 1.f)
{
    const MaterialData& m = *sd.mtl;
    auto sample = [&](MaterialTextureSlot slot, const float4& constant) { return lod.sample(m, slot, sd.uv, constant); };
    StandardMaterialInstance mi;
    StandardBSDFData& d = mi.data;
    const float ior = headerIoR(m);
    d.eta = sd.frontFacing ? sd.IoR / ior : ior / sd.IoR;
    d.thinSurface = m.thinSurface;
    d.diffuseTransmission = m.diffuseTransmission;
    d.specularTransmission = m.specularTransmission;
    if (d.diffuseTransmission > 0.f || d.specularTransmission > 0.f)
    {
        const float3& t = m.transmission;
        d.transmission = sample(MaterialTextureSlot::Transmission, float4(t.x(), t.y(), t.z(), 0.f)).xyz();
    }

    // Dielectric reflectance at normal incidence from the IoR (0.04 for the default 1.5).
    const float f = (ior - 1.f) / (ior + 1.f);
    const float F0 = f * f;
    const float3 baseColor = sample(MaterialTextureSlot::BaseColor, m.baseColor).xyz();
    const float4 spec = sample(MaterialTextureSlot::Specular, m.specular);
    if (m.shadingModel == ShadingModel::MetalRough)
    {
        // specular = (occlusion, roughness, metallic, -)
        d.diffuse = lerp(baseColor, float3(0.f), spec.z());
        d.specular = lerp(float3(F0), baseColor, spec.z());
        d.roughness = spec.y();
        d.metallic = spec.z();
    }
    else
    {
        // specular = (specular color, glossiness)
        d.diffuse = baseColor;
        d.specular = spec.xyz();
        d.roughness = 1.f - spec.w();
        d.metallic = metallicFromSpecGloss(d.diffuse, d.specular);
    }
    if (diffuseAlbedoMultiplier != 1.f)
        d.diffuse = saturate(d.diffuse * diffuseAlbedoMultiplier);

    mi.sf = computeShadingFrame(sd, lod, hints);

    // Emission is uniform over the front hemisphere only.
    if (sd.frontFacing)
    {
        const float3& e = m.emissiveColor;
        mi.emission = sample(MaterialTextureSlot::Emissive, float4(e.x(), e.y(), e.z(), 1.f)).xyz() * m.emissiveFactor;
    }
    return mi;
}
} // namespace falcor
