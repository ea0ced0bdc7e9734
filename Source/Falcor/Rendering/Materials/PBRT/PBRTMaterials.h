#pragma once
#include "Rendering/Materials/BSDFMaterialInstance.h"
#include "Rendering/Materials/BSDFs/CoatedBSDF.h"
#include "Rendering/Materials/BSDFs/LambertDiffuseBRDF.h"
#include "Rendering/Materials/BSDFs/PBRTConductorBSDF.h"
#include "Rendering/Materials/BSDFs/PBRTDielectricBSDF.h"
#include "Rendering/Materials/BSDFs/PBRTDiffuseTransmissionBSDF.h"
#include "Rendering/Materials/StandardMaterial.h"

// pbrt-v4's materials as Falcor defines them (PBRT*Material.slang): what each reads from the
// material data, and the properties integrators and denoisers see. None emits.
namespace falcor
{
/// Per lane for F = FloatLanes<W> (filled lane by lane from the scalar instances: setLane).
template<typename F>
using PBRTDiffuseMaterialInstanceT = BSDFMaterialInstance<LambertDiffuseBRDFT<F>, BSDFSides::Reflection>;
using PBRTDiffuseMaterialInstance = PBRTDiffuseMaterialInstanceT<float>;
template<typename F>
using PBRTConductorMaterialInstanceT = BSDFMaterialInstance<PBRTConductorBSDFT<F>, BSDFSides::Reflection>;
using PBRTConductorMaterialInstance = PBRTConductorMaterialInstanceT<float>;
using PBRTDielectricMaterialInstance = BSDFMaterialInstance<PBRTDielectricBSDF, BSDFSides::FullSphere>;
using PBRTDiffuseTransmissionMaterialInstance = BSDFMaterialInstance<PBRTDiffuseTransmissionBSDF, BSDFSides::FullSphere>;
using PBRTCoatedConductorMaterialInstance = BSDFMaterialInstance<CoatedBSDF<PBRTConductorBSDF>, BSDFSides::Reflection>;
using PBRTCoatedDiffuseMaterialInstance = BSDFMaterialInstance<CoatedBSDF<LambertDiffuseBRDF>, BSDFSides::Reflection>;

inline BSDFProperties materialProperties(const LambertDiffuseBRDF& b, const ShadingFrame& sf)
{
    BSDFProperties p;
    p.guideNormal = sf.N, p.roughness = 1.f, p.diffuseReflectionAlbedo = b.albedo;
    return p;
}
template<typename F>
uint32_t materialLobeTypes(const LambertDiffuseBRDFT<F>&)
{
    return kLobeDiffuseReflection;
}

inline BSDFProperties materialProperties(const PBRTConductorBSDF& b, const ShadingFrame& sf)
{
    BSDFProperties p;
    p.guideNormal = sf.N, p.roughness = b.D.getIsotropicRoughness();
    p.specularReflectionAlbedo = float3(1.f); // As Falcor: no albedo estimate from eta and k.
    return p;
}
template<typename F>
UintOf<F> materialLobeTypes(const PBRTConductorBSDFT<F>& b)
{
    return select(b.D.isSingular(), UintOf<F>(kLobeDeltaReflection), UintOf<F>(kLobeSpecularReflection));
}

inline BSDFProperties materialProperties(const PBRTDielectricBSDF& b, const ShadingFrame& sf)
{
    BSDFProperties p;
    p.guideNormal = sf.N, p.roughness = b.D.getIsotropicRoughness();
    p.specularReflectionAlbedo = p.specularTransmissionAlbedo = float3(1.f);
    p.isTransmissive = true;
    return p;
}
inline uint32_t materialLobeTypes(const PBRTDielectricBSDF& b)
{
    return b.D.isSingular() ? kLobeDeltaReflection | kLobeDeltaTransmission : kLobeSpecularReflection | kLobeSpecularTransmission;
}

inline BSDFProperties materialProperties(const PBRTDiffuseTransmissionBSDF& b, const ShadingFrame& sf)
{
    BSDFProperties p;
    p.guideNormal = sf.N, p.roughness = 1.f;
    p.diffuseReflectionAlbedo = b.albedoR, p.diffuseTransmissionAlbedo = b.albedoT;
    p.isTransmissive = true;
    return p;
}
inline uint32_t materialLobeTypes(const PBRTDiffuseTransmissionBSDF&) { return kLobeDiffuseReflection | kLobeDiffuseTransmission; }

/// Coated materials report the coat (as Falcor: no albedo estimate of the walk).
template<typename Base>
BSDFProperties materialProperties(const CoatedBSDF<Base>& b, const ShadingFrame& sf)
{
    BSDFProperties p;
    p.guideNormal = sf.N, p.roughness = b.interfaceD.getIsotropicRoughness();
    p.specularReflectionAlbedo = float3(1.f);
    return p;
}
inline uint32_t materialLobeTypes(const CoatedBSDF<PBRTConductorBSDF>& b)
{
    return materialLobeTypes(PBRTConductorBSDF{b.interfaceD}) | materialLobeTypes(b.base);
}
inline uint32_t materialLobeTypes(const CoatedBSDF<LambertDiffuseBRDF>& b)
{
    return kLobeDiffuseReflection | materialLobeTypes(PBRTConductorBSDF{b.interfaceD});
}

namespace pbrt
{
inline float3 slotColor(const ShadingData& sd, const TextureLod& lod, MaterialTextureSlot slot, const float4& constant)
{
    return lod.sample(*sd.mtl, slot, sd.uv, constant).xyz();
}

inline float4 specularSlot(const ShadingData& sd, const TextureLod& lod)
{
    return lod.sample(*sd.mtl, MaterialTextureSlot::Specular, sd.uv, sd.mtl->specular);
}

/// The anisotropic roughness in the specular slot's first two channels, used as GGX alpha.
inline AnisotropicGGX roughness(const ShadingData& sd, const TextureLod& lod)
{
    const float4 s = specularSlot(sd, lod);
    return AnisotropicGGX{float2(s.x(), s.y())};
}
} // namespace pbrt

inline PBRTDiffuseMaterialInstance createPBRTDiffuse(const ShadingData& sd, const TextureLod& lod, uint32_t hints)
{
    return {computeShadingFrame(sd, lod, hints), {pbrt::slotColor(sd, lod, MaterialTextureSlot::BaseColor, sd.mtl->baseColor)}};
}

/// eta + i·k from the base color and transmission color.
inline PBRTConductorMaterialInstance createPBRTConductor(const ShadingData& sd, const TextureLod& lod, uint32_t hints)
{
    const float3& t = sd.mtl->transmission;
    return {computeShadingFrame(sd, lod, hints),
            {pbrt::roughness(sd, lod), pbrt::slotColor(sd, lod, MaterialTextureSlot::BaseColor, sd.mtl->baseColor),
             pbrt::slotColor(sd, lod, MaterialTextureSlot::Transmission, float4(t.x(), t.y(), t.z(), 1.f))}};
}

/// Two-sided: the shading normal keeps facing the front, and the indices follow the side seen.
inline PBRTDielectricMaterialInstance createPBRTDielectric(const ShadingData& sd, const TextureLod& lod, uint32_t hints)
{
    const float eta = headerIoR(*sd.mtl);
    PBRTDielectricBSDF bsdf{pbrt::roughness(sd, lod), sd.frontFacing ? sd.IoR : eta, sd.frontFacing ? eta : sd.IoR};
    return {computeShadingFrame(sd, lod, hints, false), bsdf};
}

inline PBRTDiffuseTransmissionMaterialInstance createPBRTDiffuseTransmission(const ShadingData& sd, const TextureLod& lod, uint32_t hints)
{
    const float3& t = sd.mtl->transmission;
    return {computeShadingFrame(sd, lod, hints, false),
            {pbrt::slotColor(sd, lod, MaterialTextureSlot::BaseColor, sd.mtl->baseColor),
             pbrt::slotColor(sd, lod, MaterialTextureSlot::Transmission, float4(t.x(), t.y(), t.z(), 1.f))}};
}

/// A dielectric coat (roughness in the specular slot's RG, the header's IoR) over a conductor
/// (eta = base color, k = transmission color, roughness in BA), as Falcor sets it up.
inline PBRTCoatedConductorMaterialInstance createPBRTCoatedConductor(const ShadingData& sd, const TextureLod& lod, uint32_t hints)
{
    const float3& t = sd.mtl->transmission;
    const float4 r = pbrt::specularSlot(sd, lod);
    const PBRTConductorBSDF conductor{AnisotropicGGX{float2(r.z(), r.w())}, pbrt::slotColor(sd, lod, MaterialTextureSlot::BaseColor, sd.mtl->baseColor),
                                      pbrt::slotColor(sd, lod, MaterialTextureSlot::Transmission, float4(t.x(), t.y(), t.z(), 1.f))};
    return {computeShadingFrame(sd, lod, hints), {AnisotropicGGX{float2(r.x(), r.y())}, headerIoR(*sd.mtl), sd.IoR, conductor}};
}

/// A dielectric coat (roughness in RG, the header's IoR) over a Lambertian base color.
inline PBRTCoatedDiffuseMaterialInstance createPBRTCoatedDiffuse(const ShadingData& sd, const TextureLod& lod, uint32_t hints)
{
    const LambertDiffuseBRDF diffuse{pbrt::slotColor(sd, lod, MaterialTextureSlot::BaseColor, sd.mtl->baseColor)};
    return {computeShadingFrame(sd, lod, hints), {pbrt::roughness(sd, lod), headerIoR(*sd.mtl), sd.IoR, diffuse}};
}
} // namespace falcor
