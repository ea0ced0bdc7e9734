#pragma once
#include "Core/Macros.h"
#include "Scene/DiffuseSpecularData.h"
#include "Utils/Image/Texture.h"
#include "Utils/Math/Vector.h"
#include <array>
#include <memory>
#include <vector>
#include <cstdint>

namespace falcor
{
class MERLBRDF;
class RGLBRDF;

/// Material types (Falcor's MaterialType values).
enum class MaterialType : uint32_t
{
    Unknown,
    Standard,
    Cloth,
    Hair,
    MERL,
    MERLMix,
    PBRTDiffuse,
    PBRTDiffuseTransmission,
    PBRTConductor,
    PBRTDielectric,
    PBRTCoatedConductor,
    PBRTCoatedDiffuse,
    RGL,
};

enum class AlphaMode : uint32_t
{
    Opaque,
    Mask, ///< Hits whose alpha is below `alphaThreshold` are ignored.
};

enum class ShadingModel : uint32_t
{
    MetalRough, ///< specular = (occlusion, roughness, metallic, -)
    SpecGloss,  ///< specular = (specular color RGB, glossiness)
};

enum class NormalMapType : uint32_t
{
    None,
    RGB, ///< Tangent-space normal in RGB, [0,1] -> [-1,1].
    RG,  ///< XY in RG, Z reconstructed.
};

enum class MaterialTextureSlot : uint32_t
{
    BaseColor,
    Specular,
    Emissive,
    Normal,
    Transmission,
    Displacement,
    Index,
    Count
};

/// One material as renderers read it: Falcor's material header and BasicMaterialData fields,
/// flattened, plus the textures. Where a slot has a texture, the texture's value replaces the
/// constant (as in Falcor's shaders); the `get*` helpers do that lookup.
struct FALCOR_API MaterialData
{
    MaterialType type = MaterialType::Standard;
    bool isBasicMaterial = true; ///< Standard, cloth, hair and PBRT materials: the fields below apply.
    bool doubleSided = false;
    bool thinSurface = false;
    bool emissive = false; ///< Emits light (emissiveFactor > 0 and an emissive color or texture).
    AlphaMode alphaMode = AlphaMode::Opaque;
    float alphaThreshold = 0.5f;
    uint32_t nestedPriority = 0;
    float IoR = 1.5f;
    ShadingModel shadingModel = ShadingModel::MetalRough;
    NormalMapType normalMapType = NormalMapType::None;

    float4 baseColor{1.f, 1.f, 1.f, 1.f}; ///< RGB + opacity.
    float4 specular{0.f, 0.f, 0.f, 0.f};
    float3 emissiveColor{0.f, 0.f, 0.f};
    float emissiveFactor = 1.f;
    float3 transmission{1.f, 1.f, 1.f};
    float diffuseTransmission = 0.f, specularTransmission = 0.f;
    float3 volumeAbsorption{0.f, 0.f, 0.f}, volumeScattering{0.f, 0.f, 0.f};
    float volumeAnisotropy = 0.f;
    float displacementScale = 0.f, displacementOffset = 0.f;

    std::array<TexturePtr, size_t(MaterialTextureSlot::Count)> textures{};
    std::shared_ptr<const MERLBRDF> merl; ///< The measured table of a MERL material.
    DiffuseSpecularData merlFit;          ///< The lobe a MERL material is sampled with.
    /// The tables of a MERLMix material, chosen per texel by the index map (red * 255, modulo the count).
    std::vector<std::shared_ptr<const MERLBRDF>> merlMix;
    std::vector<DiffuseSpecularData> merlMixFits; ///< One per table.
    std::shared_ptr<const RGLBRDF> rgl; ///< The measured tables of an RGL material.

    const TexturePtr& getTexture(MaterialTextureSlot slot) const { return textures[size_t(slot)]; }
    bool hasTexture(MaterialTextureSlot slot) const { return getTexture(slot) != nullptr; }

    /// Trilinear, wrapped lookup of the slot's texture at `uv` and mip `lod`; `constant` when the
    /// slot has no texture.
    float4 sample(MaterialTextureSlot slot, float2 uv, float lod, const float4& constant) const;

    float4 getBaseColor(float2 uv, float lod = 0.f) const { return sample(MaterialTextureSlot::BaseColor, uv, lod, baseColor); }
    float4 getSpecular(float2 uv, float lod = 0.f) const { return sample(MaterialTextureSlot::Specular, uv, lod, specular); }
    float3 getTransmission(float2 uv, float lod = 0.f) const;
    /// Emitted radiance: (emissive texture or color) · emissiveFactor; zero for non-emissive materials.
    float3 getEmission(float2 uv, float lod = 0.f) const;
    /// Roughness of the MetalRough model (specular.g); 1 - glossiness in SpecGloss.
    float getRoughness(float2 uv, float lod = 0.f) const;
    /// True when a hit at `uv` is discarded by the alpha test (Mask mode and alpha < threshold).
    /// Falcor tests the base color's alpha at mip 0.
    bool alphaTestFails(float2 uv) const;
    /// Whether emission-related fields differ (the light collection must be rebuilt).
    bool emissionDiffers(const MaterialData& other) const;
};
} // namespace falcor
