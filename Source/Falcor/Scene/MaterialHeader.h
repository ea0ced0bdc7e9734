#pragma once
#include "Rendering/Materials/LobeType.h"
#include "Scene/Material.h"
#include "Utils/Math/Float16.h"

namespace falcor
{
/// The first two words of Falcor's material header, as G-buffers store them (mtlData.yz):
/// x = type | nestedPriority << 16 | activeLobes << 20 | doubleSided << 28 | thinSurface << 29 |
///     emissive << 30 | basic << 31;
/// y = alphaThreshold (half bits) | alphaMode << 16 | samplerID << 17 | lightProfile << 25 | deltaSpecular << 26.
/// Materials keep Falcor's default active lobes (all) and default sampler (0); light profiles are not modelled.
inline uint2 packMaterialHeader(const MaterialData& m)
{
    const uint32_t x = (uint32_t(m.type) & 0xffffu) | ((m.nestedPriority & 0xfu) << 16) | (uint32_t(kLobeAll) << 20) |
                       (uint32_t(m.doubleSided) << 28) | (uint32_t(m.thinSurface) << 29) | (uint32_t(m.emissive) << 30) |
                       (uint32_t(m.isBasicMaterial) << 31);

    // The standard material is "delta specular" when it only has mirror reflection/transmission.
    bool deltaSpecular = false;
    if (m.type == MaterialType::Standard && m.shadingModel == ShadingModel::MetalRough && !m.hasTexture(MaterialTextureSlot::Specular))
    {
        const bool noBaseColor = !m.hasTexture(MaterialTextureSlot::BaseColor) && m.baseColor.x() == 0.f && m.baseColor.y() == 0.f &&
                                 m.baseColor.z() == 0.f && m.diffuseTransmission == 0.f;
        const bool nonDiffuse = noBaseColor || m.specular.z() >= 1.f;
        deltaSpecular = m.specular.y() == 0.f && (nonDiffuse || m.specularTransmission >= 1.f);
    }
    const uint32_t y = uint32_t(f32tof16(m.alphaThreshold)) | (uint32_t(m.alphaMode) << 16) | (uint32_t(deltaSpecular) << 26);
    return uint2(x, y);
}
} // namespace falcor
