#pragma once
#include "Rendering/Materials/LobeType.h"
#include "Utils/Math/Vector.h"

namespace falcor
{
/// Directions this close to the shading plane are treated as grazing and carry nothing.
constexpr float kMinCosTheta = 1e-6f;

/// A sampled scattering direction (Falcor's BSDFSample). `weight` = f·cos/pdf of the sampled
/// lobe; `pdf` is the density of the whole BSDF (0 for delta lobes), which is what MIS needs.
struct BSDFSample
{
    float3 wo{0.f, 0.f, 0.f};
    float pdf = 0.f;
    float3 weight{0.f, 0.f, 0.f};
    uint32_t lobeType = kLobeDiffuseReflection;

    bool isLobe(uint32_t lobes) const { return (lobeType & lobes) != 0; }
};
} // namespace falcor
