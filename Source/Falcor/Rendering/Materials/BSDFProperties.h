#pragma once
#include "Utils/Math/Vector.h"

namespace falcor
{
/// Approximate material properties for denoisers and debugging (Falcor's BSDFProperties).
struct BSDFProperties
{
    float3 emission{0.f, 0.f, 0.f};
    float roughness = 0.f;
    float3 guideNormal{0.f, 0.f, 0.f};
    float3 diffuseReflectionAlbedo{0.f, 0.f, 0.f};
    float3 diffuseTransmissionAlbedo{0.f, 0.f, 0.f};
    float3 specularReflectionAlbedo{0.f, 0.f, 0.f};
    float3 specularTransmissionAlbedo{0.f, 0.f, 0.f};
    float3 specularReflectance{0.f, 0.f, 0.f};
    bool isTransmissive = false;
};
} // namespace falcor
