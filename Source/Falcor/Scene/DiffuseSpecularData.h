#pragma once
#include "Utils/Math/Vector.h"

namespace falcor
{
/// Disney-style parameters of a diffuse + GGX fit to a measured BRDF (Falcor's
/// DiffuseSpecularData, read from the JSON file beside a MERL table). The defaults are Falcor's
/// when there is no such file: half diffuse, half specular, medium roughness.
struct DiffuseSpecularData
{
    float3 baseColor{0.5f, 0.5f, 0.5f}; ///< Linear.
    float roughness = 0.5f;             ///< Perceptual (the GGX alpha is its square).
    float specular = 0.f;
    float metallic = 0.5f;
};
} // namespace falcor
