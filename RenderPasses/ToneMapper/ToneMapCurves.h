#pragma once
#include "Core/Enum.h"
#include "Utils/Math/Matrix.h"
#include "Utils/Math/Vector.h"

namespace tonemapping
{
using falcor::float3;
using falcor::float3x3;
using falcor::float4;

/// Tone-mapping curves, in Falcor's order and with Falcor's names.
enum class ToneMapperOperator : uint32_t
{
    Linear,           ///< Identity.
    Reinhard,         ///< L / (1 + L), applied through the luminance.
    ReinhardModified, ///< Reinhard with a white luminance parameter (as Falcor's shader writes it).
    HejiHableAlu,     ///< Hable's ALU fit of Heji's filmic curve; includes a 2.2 gamma.
    HableUc2,         ///< Hable's Uncharted 2 filmic curve, normalized by a linear white.
    Aces,             ///< Narkowicz's ACES filmic fit.
};
FALCOR_ENUM_INFO(ToneMapperOperator, {{ToneMapperOperator::Linear, "Linear"},
                                      {ToneMapperOperator::Reinhard, "Reinhard"},
                                      {ToneMapperOperator::ReinhardModified, "ReinhardModified"},
                                      {ToneMapperOperator::HejiHableAlu, "HejiHableAlu"},
                                      {ToneMapperOperator::HableUc2, "HableUc2"},
                                      {ToneMapperOperator::Aces, "Aces"}});

/// Luminance with the Rec.601 luma weights that Falcor's tone mapper uses everywhere.
inline float toneMapLuminance(const float3& c)
{
    return 0.299f * c.x() + 0.587f * c.y() + 0.114f * c.z();
}

/// One operator with its per-frame constants resolved, applied per pixel.
class ToneMapCurve
{
public:
    ToneMapCurve(ToneMapperOperator op, float whiteMaxLuminance, float whiteScale);
    /// For each pixel: rgb = curve(transform · (rgb · exposure)), saturated if `clamp` (NaN -> 0);
    /// alpha kept. The operator is chosen once per row so the loop can be inlined and vectorized.
    void applyToRow(float4* pixels, size_t count, const float3x3& transform, float exposure, bool clamp) const;

private:
    float3 reinhard(const float3& color) const;
    float3 reinhardModified(const float3& color) const;
    float3 hejiHableAlu(const float3& color) const;
    float3 hableUc2(const float3& color) const;
    float3 aces(const float3& color) const;

    ToneMapperOperator mOperator;
    float mWhiteMaxLuminance;
    float mHableUc2WhiteNorm; ///< 1 / uc2(whiteScale): maps the linear white to 1.
};
} // namespace tonemapping
