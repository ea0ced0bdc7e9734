#include "ToneMapCurves.h"

namespace tonemapping
{
namespace
{
// Hable's Uncharted 2 curve with his published constants; the toe offset E/F makes uc2(0) = 0.
float uc2(float x)
{
    const float A = 0.22f, B = 0.3f, C = 0.1f, D = 0.2f, E = 0.01f, F = 0.3f;
    return ((x * (A * x + C * B) + D * E) / (x * (A * x + B) + D * F)) - E / F;
}

// The ALU fit of Heji's curve on one channel, with a small black offset.
float hejiHableAluChannel(float x)
{
    x = std::max(0.f, x - 0.004f);
    x = (x * (6.2f * x + 0.5f)) / (x * (6.2f * x + 1.7f) + 0.06f);
    // The fit produces display (gamma) values; the 2.2 power returns them to linear.
    return std::pow(x, 2.2f);
}

// Narkowicz's ACES fit on one channel, saturated as in the fit's definition.
float acesChannel(float x)
{
    const float A = 2.51f, B = 0.03f, C = 2.43f, D = 0.59f, E = 0.14f;
    float y = (x * (A * x + B)) / (x * (C * x + D) + E);
    return std::clamp(y, 0.f, 1.f);
}
} // namespace

ToneMapCurve::ToneMapCurve(ToneMapperOperator op, float whiteMaxLuminance, float whiteScale)
    : mOperator(op), mWhiteMaxLuminance(whiteMaxLuminance), mHableUc2WhiteNorm(1.f / uc2(whiteScale))
{}

float3 ToneMapCurve::apply(const float3& color) const
{
    switch (mOperator)
    {
    case ToneMapperOperator::Linear: return color;
    case ToneMapperOperator::Reinhard: return reinhard(color);
    case ToneMapperOperator::ReinhardModified: return reinhardModified(color);
    case ToneMapperOperator::HejiHableAlu: return hejiHableAlu(color);
    case ToneMapperOperator::HableUc2: return hableUc2(color);
    case ToneMapperOperator::Aces: return aces(color);
    }
    return color;
}

// The luminance ratio scales all channels, preserving hue. Black gives 0/0 = NaN, as on the GPU.
float3 ToneMapCurve::reinhard(const float3& color) const
{
    float L = toneMapLuminance(color);
    float mapped = L / (L + 1.f);
    return color * (mapped / L);
}

// Falcor's shader multiplies by (1 + L) where the textbook operator divides; we follow Falcor.
float3 ToneMapCurve::reinhardModified(const float3& color) const
{
    float L = toneMapLuminance(color);
    float mapped = L * (1.f + L / (mWhiteMaxLuminance * mWhiteMaxLuminance)) * (1.f + L);
    return color * (mapped / L);
}

float3 ToneMapCurve::hejiHableAlu(const float3& color) const
{
    return falcor::map(color, hejiHableAluChannel);
}

float3 ToneMapCurve::hableUc2(const float3& color) const
{
    const float exposureBias = 2.f;
    return falcor::map(color, [&](float x) { return uc2(exposureBias * x) * mHableUc2WhiteNorm; });
}

float3 ToneMapCurve::aces(const float3& color) const
{
    // The fit expects its inputs pre-exposed by 1/0.6; 0.6 undoes that so 1 stays mid-range.
    return falcor::map(color * 0.6f, acesChannel);
}
} // namespace tonemapping
