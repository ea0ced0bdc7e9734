#pragma once
#include "Rendering/Materials/BSDFProperties.h"
#include "Rendering/Materials/LobeType.h"
#include "Utils/Math/ShadingFrame.h"

namespace falcor
{
/// Below this GGX alpha (roughness²) the standard BSDF is a perfect mirror.
constexpr float kMinGGXAlpha = 0.0064f;

/// The standard material set up at one hit (Falcor's StandardMaterialInstance): its final
/// shading frame and the BSDF parameters the textures and constants give there.
struct StandardMaterialInstance
{
    ShadingFrame sf;
    float3 diffuse{0.f, 0.f, 0.f}, specular{0.f, 0.f, 0.f}, transmission{0.f, 0.f, 0.f};
    float roughness = 0.f;
    float diffuseTransmission = 0.f, specularTransmission = 0.f;
    float3 emission{0.f, 0.f, 0.f};

    BSDFProperties getProperties() const
    {
        BSDFProperties p;
        p.guideNormal = sf.N;
        p.emission = emission;
        p.roughness = roughness * roughness < kMinGGXAlpha ? 0.f : roughness;
        p.diffuseReflectionAlbedo = diffuse * ((1.f - diffuseTransmission) * (1.f - specularTransmission));
        p.diffuseTransmissionAlbedo = transmission * (diffuseTransmission * (1.f - specularTransmission));
        p.specularReflectionAlbedo = specular * (1.f - specularTransmission);
        p.specularTransmissionAlbedo = specular * specularTransmission;
        p.specularReflectance = specular;
        p.isTransmissive = diffuseTransmission > 0.f || specularTransmission > 0.f;
        return p;
    }

    uint32_t getLobeTypes() const
    {
        const bool isDelta = roughness * roughness < kMinGGXAlpha;
        uint32_t lobes = isDelta ? kLobeDeltaReflection : kLobeSpecularReflection;
        const bool hasDiffuse = diffuse.x() > 0.f || diffuse.y() > 0.f || diffuse.z() > 0.f;
        if (hasDiffuse && specularTransmission < 1.f)
        {
            if (diffuseTransmission < 1.f)
                lobes |= kLobeDiffuseReflection;
            if (diffuseTransmission > 0.f)
                lobes |= kLobeDiffuseTransmission;
        }
        if (specularTransmission > 0.f)
            lobes |= isDelta ? kLobeDeltaTransmission : kLobeSpecularTransmission;
        return lobes;
    }
};
} // namespace falcor
