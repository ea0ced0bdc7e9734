#include "Scene/Material.h"
#include "Scene/TextureSampler.h"

namespace falcor
{
float4 MaterialData::sample(MaterialTextureSlot slot, float2 uv, float lod, const float4& constant) const
{
    const TexturePtr& t = getTexture(slot);
    return t ? sampleTrilinear(*t, uv, lod) : constant;
}

float3 MaterialData::getTransmission(float2 uv, float lod) const
{
    const float3& c = transmission;
    return sample(MaterialTextureSlot::Transmission, uv, lod, float4(c.x(), c.y(), c.z(), 1.f)).xyz();
}

float3 MaterialData::getEmission(float2 uv, float lod) const
{
    if (!emissive)
        return float3(0.f);
    const float3& c = emissiveColor;
    return sample(MaterialTextureSlot::Emissive, uv, lod, float4(c.x(), c.y(), c.z(), 1.f)).xyz() * emissiveFactor;
}

float MaterialData::getRoughness(float2 uv, float lod) const
{
    const float4 s = getSpecular(uv, lod);
    return shadingModel == ShadingModel::MetalRough ? s.y() : 1.f - s.w();
}

bool MaterialData::alphaTestFails(float2 uv) const
{
    return alphaMode == AlphaMode::Mask && getBaseColor(uv, 0.f).w() < alphaThreshold;
}

bool MaterialData::emissionDiffers(const MaterialData& o) const
{
    return emissive != o.emissive || !(emissiveColor == o.emissiveColor) || emissiveFactor != o.emissiveFactor ||
           getTexture(MaterialTextureSlot::Emissive) != o.getTexture(MaterialTextureSlot::Emissive);
}
} // namespace falcor
