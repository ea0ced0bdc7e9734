#pragma once
#include "Rendering/Materials/MaterialInstanceHints.h"
#include "Rendering/Materials/StandardMaterialInstance.h"
#include "Rendering/Materials/TextureLod.h"
#include "Scene/ShadingData.h"
#include "Utils/Math/Float16.h"
#include <cmath>

// Setting up Falcor's standard material at a hit (StandardMaterial.slang, and the normal-map and
// shading-normal helpers every basic material shares).
namespace falcor
{
namespace shading
{
/// The material's index of refraction as the header stores it (half precision).
inline float headerIoR(const MaterialData& mtl)
{
    return f16tof32(f32tof16(mtl.IoR));
}

/// The shading frame with the material's normal map applied (Falcor's computeShadingFrameFromNormalMap).
inline ShadingFrame applyNormalMap(const ShadingData& sd, const float3& encoded)
{
    float3 mapN(0.f, 0.f, 1.f);
    switch (sd.mtl->normalMapType)
    {
    case NormalMapType::RGB:
        mapN = encoded * 2.f - float3(1.f);
        break;
    case NormalMapType::RG:
    {
        // Falcor takes z from the encoded (not the remapped) pair: z = sqrt(1 - saturate(r² + g²)).
        const float2 rg(encoded.x(), encoded.y());
        mapN = float3(rg.x() * 2.f - 1.f, rg.y() * 2.f - 1.f, std::sqrt(1.f - saturate(dot(rg, rg))));
        break;
    }
    case NormalMapType::None:
        return sd.frame;
    }
    return ShadingFrame::fromNormalTangent(sd.frame.fromLocal(mapN), sd.tangentW);
}

/// Bends the shading normal towards the geometric normal where the view would otherwise be
/// (almost) below it (Falcor's adjustShadingNormal; breaks BSDF reciprocity).
inline void adjustShadingNormal(const ShadingData& sd, ShadingFrame& sf)
{
    const float3 Ng = sd.getOrientedFaceNormal();
    const float signN = dot(sf.N, Ng) >= 0.f ? 1.f : -1.f;
    const float3 Ns = sf.N * signN;
    constexpr float kCosThetaThreshold = 0.1f;
    const float cosTheta = dot(sd.V, Ns);
    if (cosTheta <= kCosThetaThreshold)
    {
        const float t = saturate(cosTheta * (1.f / kCosThetaThreshold));
        sf = ShadingFrame::fromNormalTangent(lerp(Ng, Ns, t) * signN, sd.tangentW);
    }
}
} // namespace shading

/// Sets up the standard material at `sd` (every basic material type is evaluated this way).
inline StandardMaterialInstance createStandardMaterialInstance(const ShadingData& sd, const TextureLod& lod, uint32_t hints,
                                                               float diffuseAlbedoMultiplier = 1.f)
{
    const MaterialData& m = *sd.mtl;
    auto sample = [&](MaterialTextureSlot slot, const float4& constant) { return m.sample(slot, sd.uv, lod(m, slot), constant); };
    StandardMaterialInstance mi;
    mi.diffuseTransmission = m.diffuseTransmission;
    mi.specularTransmission = m.specularTransmission;
    if (mi.diffuseTransmission > 0.f || mi.specularTransmission > 0.f)
    {
        const float3& t = m.transmission;
        mi.transmission = sample(MaterialTextureSlot::Transmission, float4(t.x(), t.y(), t.z(), 0.f)).xyz();
    }

    // Dielectric reflectance at normal incidence from the IoR (0.04 for the default 1.5).
    const float ior = shading::headerIoR(m);
    const float f = (ior - 1.f) / (ior + 1.f);
    const float F0 = f * f;
    const float3 baseColor = sample(MaterialTextureSlot::BaseColor, m.baseColor).xyz();
    const float4 spec = sample(MaterialTextureSlot::Specular, m.specular);
    if (m.shadingModel == ShadingModel::MetalRough)
    {
        // specular = (occlusion, roughness, metallic, -)
        mi.diffuse = lerp(baseColor, float3(0.f), spec.z());
        mi.specular = lerp(float3(F0), baseColor, spec.z());
        mi.roughness = spec.y();
    }
    else
    {
        // specular = (specular color, glossiness)
        mi.diffuse = baseColor;
        mi.specular = spec.xyz();
        mi.roughness = 1.f - spec.w();
    }
    if (diffuseAlbedoMultiplier != 1.f)
        mi.diffuse = saturate(mi.diffuse * diffuseAlbedoMultiplier);

    mi.sf = sd.frame;
    if (!(hints & kHintDisableNormalMapping))
        mi.sf = shading::applyNormalMap(sd, sample(MaterialTextureSlot::Normal, float4(0.f)).xyz());
    if (!sd.frontFacing && m.doubleSided)
        mi.sf.N = -mi.sf.N; // Seen from the back, a double-sided material mirrors around the surface.
    if (hints & kHintAdjustShadingNormal)
        shading::adjustShadingNormal(sd, mi.sf);

    // Emission is uniform over the front hemisphere only.
    if (sd.frontFacing)
    {
        const float3& e = m.emissiveColor;
        mi.emission = sample(MaterialTextureSlot::Emissive, float4(e.x(), e.y(), e.z(), 1.f)).xyz() * m.emissiveFactor;
    }
    return mi;
}
} // namespace falcor
