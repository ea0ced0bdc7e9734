#pragma once
#include "Scene/Scene.h"
#include "Utils/Math/Float16.h"
#include <cmath>

// Shading at a primary hit as Falcor's shaders define it: the shading frame and ShadingData
// (Scene/ShadingData.slang, MaterialFactory.slang), the standard material's instance and its
// BSDF properties (StandardMaterial.slang, StandardMaterialInstance.slang, StandardBSDF.slang),
// and the packed material header (MaterialData.slang). Header-only so that the G-buffer and the
// scene debugger libraries share one definition.
namespace falcor
{
namespace shading
{
inline float3 abs3(const float3& v)
{
    return map(v, [](float c) { return std::fabs(c); });
}

/// A unit vector orthogonal to `u` (Falcor's perp_stark).
inline float3 perpStark(const float3& u)
{
    const float3 a = abs3(u);
    const uint32_t uyx = (a.x() - a.y()) < 0.f ? 1 : 0;
    const uint32_t uzx = (a.x() - a.z()) < 0.f ? 1 : 0;
    const uint32_t uzy = (a.y() - a.z()) < 0.f ? 1 : 0;
    const uint32_t xm = uyx & uzx;
    const uint32_t ym = (1 ^ xm) & uzy;
    const uint32_t zm = 1 ^ (xm | ym);
    return normalize(cross(u, float3(float(xm), float(ym), float(zm))));
}
} // namespace shading

/// Orthonormal tangent frame in world space.
struct ShadingFrame
{
    float3 T{1.f, 0.f, 0.f}, B{0.f, 1.f, 0.f}, N{0.f, 0.f, 1.f};

    /// Frame around `normal` whose tangent lies in the plane of the normal and `tangentW.xyz`;
    /// `tangentW.w` (±1) gives the bitangent's side. Assumes the tangent is usable.
    static ShadingFrame fromNormalTangent(const float3& normal, const float4& tangentW)
    {
        ShadingFrame f;
        f.N = normalize(normal);
        f.T = normalize(tangentW.xyz() - f.N * dot(tangentW.xyz(), f.N));
        f.B = cross(f.N, f.T) * tangentW.w();
        return f;
    }

    /// As above, but invents a tangent (and reports `valid` = false) when the given one has no
    /// sign, zero length, NaNs or lies (almost) along the normal.
    static ShadingFrame createSafe(const float3& normal, const float4& tangentW, bool& valid)
    {
        ShadingFrame f;
        f.N = normalize(normal);
        const float NdotT = dot(tangentW.xyz(), f.N);
        valid = std::fabs(tangentW.w()) == 1.f && dot(tangentW.xyz(), tangentW.xyz()) > 0.f && std::fabs(NdotT) < 0.9999f;
        if (valid)
        {
            f.T = normalize(tangentW.xyz() - f.N * NdotT);
            f.B = cross(f.N, f.T) * tangentW.w();
        }
        else
        {
            f.T = shading::perpStark(f.N);
            f.B = cross(f.N, f.T);
        }
        return f;
    }

    float3 fromLocal(const float3& v) const { return T * v.x() + B * v.y() + N * v.z(); }
};

/// What the material sees at a hit (Falcor's ShadingData).
struct ShadingData
{
    float3 posW;
    float3 V;            ///< Towards the viewer (normalized).
    float2 uv;
    ShadingFrame frame;  ///< From the interpolated normal and tangent, before any material change.
    float4 tangentW;     ///< The tangent the frame was built from (invented when invalid, w = 1).
    float3 faceN;
    bool frontFacing = true; ///< V lies on the front side of the face.
    uint32_t materialID = 0;
    const MaterialData* mtl = nullptr;

    float3 getOrientedFaceNormal() const { return frontFacing ? faceN : -faceN; }
};

inline ShadingData prepareShadingData(const Scene::VertexData& v, uint32_t materialID, const MaterialData& mtl, const float3& viewDir)
{
    ShadingData sd;
    sd.posW = v.posW;
    sd.uv = v.texC;
    sd.V = viewDir;
    bool valid;
    sd.frame = ShadingFrame::createSafe(v.normalW, v.tangentW, valid);
    sd.tangentW = valid ? v.tangentW : float4(sd.frame.T.x(), sd.frame.T.y(), sd.frame.T.z(), 1.f);
    sd.faceN = v.faceNormalW;
    sd.frontFacing = dot(sd.V, sd.faceN) >= 0.f;
    sd.materialID = materialID;
    sd.mtl = &mtl;
    return sd;
}

/// Mip level of material texture lookups: the finest, or from uv gradients (ray cones / ray
/// differentials). Falcor's hardware SampleGrad filters anisotropically; we use the isotropic
/// trilinear level of the longer gradient, log2(max(|ddx|, |ddy|) · texture size).
struct TextureLod
{
    bool fromGradients = false;
    float2 ddx{0.f, 0.f}, ddy{0.f, 0.f};

    float operator()(const MaterialData& mtl, MaterialTextureSlot slot) const
    {
        const TexturePtr& texture = mtl.getTexture(slot);
        if (!fromGradients || !texture)
            return 0.f;
        const float2 size(float(texture->getWidth()), float(texture->getHeight()));
        const float footprint = std::max(length(ddx * size), length(ddy * size));
        return footprint > 0.f ? std::max(0.f, std::log2(footprint)) : 0.f;
    }
};

/// Falcor's MaterialInstanceHints bits.
enum MaterialInstanceHints : uint32_t
{
    kHintNone = 0x0,
    kHintDisableNormalMapping = 0x1,
    kHintAdjustShadingNormal = 0x2,
};

/// Falcor's LobeType bits.
enum LobeType : uint32_t
{
    kLobeDiffuseReflection = 0x01,
    kLobeSpecularReflection = 0x02,
    kLobeDeltaReflection = 0x04,
    kLobeDiffuseTransmission = 0x10,
    kLobeSpecularTransmission = 0x20,
    kLobeDeltaTransmission = 0x40,
    kLobeAll = 0xff,
};

/// Below this GGX alpha (roughness²) the standard BSDF is a perfect mirror.
constexpr float kMinGGXAlpha = 0.0064f;

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

namespace shading
{
/// The material's index of refraction as the header stores it (half precision).
inline float headerIoR(const MaterialData& mtl)
{
    return f16tof32(f32tof16(mtl.IoR));
}

/// The shading frame with the material's normal map applied (Falcor's computeShadingFrameFromNormalMap).
inline ShadingFrame applyNormalMap(const ShadingData& sd, const float3& encoded)
{
    float3 mapN(0.f, 0.f, 1.f);
    switch (sd.mtl->normalMapType)
    {
    case NormalMapType::RGB:
        mapN = encoded * 2.f - float3(1.f);
        break;
    case NormalMapType::RG:
    {
        // Falcor takes z from the encoded (not the remapped) pair: z = sqrt(1 - saturate(r² + g²)).
        const float2 rg(encoded.x(), encoded.y());
        mapN = float3(rg.x() * 2.f - 1.f, rg.y() * 2.f - 1.f, std::sqrt(1.f - saturate(dot(rg, rg))));
        break;
    }
    case NormalMapType::None:
        return sd.frame;
    }
    return ShadingFrame::fromNormalTangent(sd.frame.fromLocal(mapN), sd.tangentW);
}

/// Bends the shading normal towards the geometric normal where the view would otherwise be
/// (almost) below it (Falcor's adjustShadingNormal; breaks BSDF reciprocity).
inline void adjustShadingNormal(const ShadingData& sd, ShadingFrame& sf)
{
    const float3 Ng = sd.getOrientedFaceNormal();
    const float signN = dot(sf.N, Ng) >= 0.f ? 1.f : -1.f;
    const float3 Ns = sf.N * signN;
    constexpr float kCosThetaThreshold = 0.1f;
    const float cosTheta = dot(sd.V, Ns);
    if (cosTheta <= kCosThetaThreshold)
    {
        const float t = saturate(cosTheta * (1.f / kCosThetaThreshold));
        sf = ShadingFrame::fromNormalTangent(lerp(Ng, Ns, t) * signN, sd.tangentW);
    }
}
} // namespace shading

/// Sets up the standard material at `sd` (every basic material type is evaluated this way).
inline StandardMaterialInstance createStandardMaterialInstance(const ShadingData& sd, const TextureLod& lod, uint32_t hints,
                                                               float diffuseAlbedoMultiplier = 1.f)
{
    const MaterialData& m = *sd.mtl;
    auto sample = [&](MaterialTextureSlot slot, const float4& constant) { return m.sample(slot, sd.uv, lod(m, slot), constant); };
    StandardMaterialInstance mi;
    mi.diffuseTransmission = m.diffuseTransmission;
    mi.specularTransmission = m.specularTransmission;
    if (mi.diffuseTransmission > 0.f || mi.specularTransmission > 0.f)
    {
        const float3& t = m.transmission;
        mi.transmission = sample(MaterialTextureSlot::Transmission, float4(t.x(), t.y(), t.z(), 0.f)).xyz();
    }

    // Dielectric reflectance at normal incidence from the IoR (0.04 for the default 1.5).
    const float ior = shading::headerIoR(m);
    const float f = (ior - 1.f) / (ior + 1.f);
    const float F0 = f * f;
    const float3 baseColor = sample(MaterialTextureSlot::BaseColor, m.baseColor).xyz();
    const float4 spec = sample(MaterialTextureSlot::Specular, m.specular);
    if (m.shadingModel == ShadingModel::MetalRough)
    {
        // specular = (occlusion, roughness, metallic, -)
        mi.diffuse = lerp(baseColor, float3(0.f), spec.z());
        mi.specular = lerp(float3(F0), baseColor, spec.z());
        mi.roughness = spec.y();
    }
    else
    {
        // specular = (specular color, glossiness)
        mi.diffuse = baseColor;
        mi.specular = spec.xyz();
        mi.roughness = 1.f - spec.w();
    }
    if (diffuseAlbedoMultiplier != 1.f)
        mi.diffuse = saturate(mi.diffuse * diffuseAlbedoMultiplier);

    mi.sf = sd.frame;
    if (!(hints & kHintDisableNormalMapping))
        mi.sf = shading::applyNormalMap(sd, sample(MaterialTextureSlot::Normal, float4(0.f)).xyz());
    if (!sd.frontFacing && m.doubleSided)
        mi.sf.N = -mi.sf.N; // Seen from the back, a double-sided material mirrors around the surface.
    if (hints & kHintAdjustShadingNormal)
        shading::adjustShadingNormal(sd, mi.sf);

    // Emission is uniform over the front hemisphere only.
    if (sd.frontFacing)
    {
        const float3& e = m.emissiveColor;
        mi.emission = sample(MaterialTextureSlot::Emissive, float4(e.x(), e.y(), e.z(), 1.f)).xyz() * m.emissiveFactor;
    }
    return mi;
}

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
