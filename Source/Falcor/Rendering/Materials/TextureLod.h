#pragma once
#include "Scene/Material.h"
#include <algorithm>
#include <cmath>

namespace falcor
{
/// Mip level of material texture lookups: the finest, or from uv gradients (ray cones / ray
/// differentials). Falcor's hardware SampleGrad filters anisotropically; we use the isotropic
/// trilinear level of the longer gradient, log2(max(|ddx|, |ddy|) · texture size).
struct TextureLod
{
    bool fromGradients = false;
    float2 ddx{0.f, 0.f}, ddy{0.f, 0.f};
    float explicitLod = 0.f; ///< The level when not from gradients (the PathTracer's lodBias on secondary hits).

    float operator()(const MaterialData& mtl, MaterialTextureSlot slot) const
    {
        const TexturePtr& texture = mtl.getTexture(slot);
        if (!texture)
            return 0.f;
        if (!fromGradients)
            return explicitLod;
        const float2 size(float(texture->getWidth()), float(texture->getHeight()));
        const float footprint = std::max(length(ddx * size), length(ddy * size));
        return footprint > 0.f ? std::max(0.f, std::log2(footprint)) : 0.f;
    }
};
} // namespace falcor
