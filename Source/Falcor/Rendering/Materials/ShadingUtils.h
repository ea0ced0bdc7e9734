#pragma once
#include "Rendering/Materials/BSDFSample.h"
#include "Rendering/Materials/MaterialInstanceHints.h"
#include "Rendering/Materials/TextureLod.h"
#include "Scene/ShadingData.h"

// What every material does at a hit before and around its BSDF (Falcor's ShadingUtils): the
// shading frame from the normal map, double-sided flip and shading-normal adjustment, and the
// checks that keep light from leaking through the geometric surface.
namespace falcor
{
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

/// The shading frame a basic material uses at `sd`: normal map (unless the hints disable it),
/// mirrored for the back of a double-sided material (unless its BSDF is two-sided itself),
/// optionally adjusted.
inline ShadingFrame computeShadingFrame(const ShadingData& sd, const TextureLod& lod, uint32_t hints, bool flipBackFaces = true)
{
    const MaterialData& m = *sd.mtl;
    ShadingFrame sf = sd.frame;
    if (!(hints & kHintDisableNormalMapping))
        sf = applyNormalMap(sd, lod.sample(m, MaterialTextureSlot::Normal, sd.uv, float4(0.f)).xyz());
    if (flipBackFaces && !sd.frontFacing && m.doubleSided)
        sf.N = -sf.N;
    if (hints & kHintAdjustShadingNormal)
        adjustShadingNormal(sd, sf);
    return sf;
}

/// a != b for masks: per lane for lane masks.
FALCOR_LANE_INLINE bool masksDiffer(bool a, bool b)
{
    return a != b;
}
template<int W>
FALCOR_LANE_INLINE LaneMask<W> masksDiffer(const LaneMask<W>& a, const LaneMask<W>& b)
{
    return LaneMask<W>(a.m ^ b.m);
}

/// Whether wi (= sd.V) and wo may be connected by reflection or transmission: both clear of the
/// shading plane, on the geometric sides the event needs, and the shading normal on the viewer's
/// geometric side (back faces are black). With `fullSphere` (two-sided BSDFs whose shading
/// normal is not flipped), wi may lie below the shading plane and back faces are not black.
/// Per lane when F is a lane type (`sd` and `sf` then hold lanes too). Inlined: on every BSDF call.
template<typename SD, typename Frame, typename F>
FALCOR_VECTOR_INLINE MaskOf<F> isValidHemisphereReflectionOrTransmission(const SD& sd, const Frame& sf, const vector<F, 3>& wiLocal, const vector<F, 3>& woLocal,
                                                    const vector<F, 3>& wo, bool fullSphere = false)
{
    const F cosThetaI = fullSphere ? abs(wiLocal.z()) : wiLocal.z();
    const MaskOf<F> clear = !(min(cosThetaI, abs(woLocal.z())) < kMinCosTheta);
    const MaskOf<F> isTransmission = wiLocal.z() * woLocal.z() < 0.f;
    const MaskOf<F> wiTop = sd.frontFacing;
    const MaskOf<F> woTop = dot(wo, sd.faceN) >= 0.f;
    const MaskOf<F> sidesMatch = !masksDiffer(masksDiffer(wiTop, woTop), isTransmission);
    if (fullSphere)
        return clear && sidesMatch;
    return clear && sidesMatch && !masksDiffer(wiTop, MaskOf<F>(dot(sf.N, sd.faceN) >= 0.f));
}

/// As above, for reflection only.
template<typename SD, typename Frame, typename F>
FALCOR_VECTOR_INLINE MaskOf<F> isValidHemisphereReflection(const SD& sd, const Frame& sf, const vector<F, 3>& wiLocal, const vector<F, 3>& woLocal,
                                      const vector<F, 3>& wo)
{
    return woLocal.z() > 0.f && isValidHemisphereReflectionOrTransmission(sd, sf, wiLocal, woLocal, wo);
}
} // namespace falcor
