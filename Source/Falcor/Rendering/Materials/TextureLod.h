#pragma once
#include "Scene/Material.h"
#include "Scene/TextureSampler.h"
#include <algorithm>
#include <cmath>

namespace falcor
{
/// How material textures are filtered, one kind per Falcor texture sampler. Levels depend on the
/// texture's size, so they are resolved per lookup; levels below 0 clamp to 0 (the sampler clamps
/// above). Gradients are filtered anisotropically, as Falcor's SampleGrad through the material
/// system's default sampler (8x anisotropy); the other kinds are trilinear at one level.
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

    /// Maximum anisotropy of Falcor's default material sampler (MaterialSystem).
    static constexpr uint32_t kMaxAnisotropy = 8;

    /// The slot's texture filtered by this footprint, or `constant` when the slot has no texture.
    float4 sample(const MaterialData& mtl, MaterialTextureSlot slot, float2 uv, const float4& constant) const
    {
        const TexturePtr& texture = mtl.getTexture(slot);
        if (!texture)
            return constant;
        if (kind == Kind::Gradients)
            return sampleAnisotropic(*texture, uv, ddx, ddy, kMaxAnisotropy);
        return sampleTrilinear(*texture, uv, trilinearLevel(*texture));
    }

private:
    float trilinearLevel(const Texture& texture) const
    {
        const float width = float(texture.getWidth()), height = float(texture.getHeight());
        float lod = level;
        switch (kind)
        {
        case Kind::Explicit:
        case Kind::Gradients: // Not reached: gradients are filtered by sampleAnisotropic.
            break;
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
