#pragma once
#include "Rendering/Materials/LobeType.h"
#include "Utils/Math/Vector.h"
#include "Utils/Simd/Lane.h"

namespace falcor
{
/// Directions this close to the shading plane are treated as grazing and carry nothing.
constexpr float kMinCosTheta = 1e-6f;

/// Whether wi or wo (local) is grazing or below the shading plane: where a reflection carries
/// nothing. Per lane when F is a lane type.
template<typename F>
FALCOR_VECTOR_INLINE MaskOf<F> eitherBelowMinCos(const vector<F, 3>& wi, const vector<F, 3>& wo)
{
    return min(wi.z(), wo.z()) < kMinCosTheta;
}

/// A sampled scattering direction (Falcor's BSDFSample), one per lane when F is a lane type.
/// `weight` = f·cos/pdf of the sampled lobe; `pdf` is the density of the whole BSDF (0 for
/// delta lobes), which is what MIS needs.
template<typename F>
struct BSDFSampleT
{
    vector<F, 3> wo{0.f, 0.f, 0.f};
    F pdf = 0.f;
    vector<F, 3> weight{0.f, 0.f, 0.f};
    UintOf<F> lobeType = kLobeDiffuseReflection;

    MaskOf<F> isLobe(uint32_t lobes) const { return (lobeType & lobes) != 0u; }
};
using BSDFSample = BSDFSampleT<float>;
} // namespace falcor
