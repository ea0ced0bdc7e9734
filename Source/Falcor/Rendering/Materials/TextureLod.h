#pragma once
#include "Scene/Material.h"
#include <algorithm>
#include <cmath>

namespace falcor
{
/// Mip level of material texture lookups, one kind per Falcor texture sampler. The level of a
/// texture depends on its size, so it is resolved per lookup. Levels below 0 clamp to 0 (the
/// sampler clamps above). Falcor's hardware SampleGrad filters anisotropically; for gradients we
/// use the isotropic trilinear level of the longer gradient, log2(max(|ddx|, |ddy|) · size).
struct TextureLod
{
    enum class Kind
    {
        Explicit,          ///< `level` as is (ExplicitLodTextureSampler).
        Gradients,         ///< From uv gradients ddx, ddy (ExplicitGradientTextureSampler).
        RayCone,           ///< `level` plus half the log2 of the texel count (ExplicitRayConesLodTextureSampler).
        RayDiffsIsotropic, ///< Isotropic level of ray-differential uv derivatives (ExplicitRayDiffsIsotropicTextureSampler).
    };
    Kind kind = Kind::Explicit;
    float2 ddx{0.f, 0.f}, ddy{0.f, 0.f};
    float level = 0.f;

    static TextureLod explicitLevel(float level) { return {Kind::Explicit, {0.f, 0.f}, {0.f, 0.f}, level}; }
    static TextureLod gradients(const float2& ddx, const float2& ddy) { return {Kind::Gradients, ddx, ddy, 0.f}; }
    /// `lambda`: a ray cone's level without the texture size (RayCone::computeLOD).
    static TextureLod rayCone(float lambda) { return {Kind::RayCone, {0.f, 0.f}, {0.f, 0.f}, lambda}; }
    static TextureLod rayDiffsIsotropic(const float2& dUVdx, const float2& dUVdy) { return {Kind::RayDiffsIsotropic, dUVdx, dUVdy, 0.f}; }

    float operator()(const MaterialData& mtl, MaterialTextureSlot slot) const
    {
        const TexturePtr& texture = mtl.getTexture(slot);
        if (!texture)
            return 0.f;
        const float width = float(texture->getWidth()), height = float(texture->getHeight());
        float lod = level;
        switch (kind)
        {
        case Kind::Explicit:
            break;
        case Kind::Gradients:
        {
            const float2 size(width, height);
            lod = std::log2(std::max(length(ddx * size), length(ddy * size)));
            break;
        }
        case Kind::RayCone:
            lod = 0.5f * std::log2(width * height) + level;
            break;
        case Kind::RayDiffsIsotropic:
        {
            // As Falcor: both components of the x derivative scale by the width, of y by the height.
            const float2 dx = ddx * width, dy = ddy * height;
            lod = 0.5f * std::log2(std::max(dot(dx, dx), dot(dy, dy)));
            break;
        }
        }
        return lod > 0.f ? lod : 0.f; // Also maps NaN (a degenerate footprint) to the finest level.
    }
};
} // namespace falcor
