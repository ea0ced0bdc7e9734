#pragma once
#include "Rendering/Materials/BSDFSample.h"
#include "Rendering/Materials/BSDFs/DiffuseSpecularBRDF.h"
#include "Rendering/Materials/MERLBRDF.h"
#include "Utils/Math/MathHelpers.h"

namespace falcor
{
/// A MERL measured BRDF as a BSDF (Falcor's MERLMaterialInstance): the table evaluates, a
/// diffuse + GGX lobe fitted to it (its JSON sidecar, or Falcor's defaults) importance samples.
struct MERLMeasuredBRDF
{
    const MERLBRDF* table = nullptr;
    float3 albedo{0.f, 0.f, 0.f}; ///< Directional albedo at the view (for getProperties).
    DiffuseSpecularBRDF fitted;

    float3 eval(const float3& wi, const float3& wo) const { return table->eval(wi, wo); }

    template<typename SampleGenerator>
    bool sample(const float3& wi, BSDFSample& s, SampleGenerator& sg) const
    {
        if (!fitted.sample(wi, s, sg) || s.pdf == 0.f)
            return false;
        s.weight = table->eval(wi, s.wo) / s.pdf;
        return true;
    }

    float evalPdf(const float3& wi, const float3& wo) const { return fitted.evalPdf(wi, wo); }
};
} // namespace falcor
