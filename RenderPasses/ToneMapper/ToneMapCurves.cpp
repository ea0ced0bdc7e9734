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
[[gnu::always_inline]] inline float acesChannel(float x)
{
    const float A = 2.51f, B = 0.03f, C = 2.43f, D = 0.59f, E = 0.14f;
    float y = (x * (A * x + B)) / (x * (C * x + D) + E);
    return std::clamp(y, 0.f, 1.f);
}

/// GPU saturate: NaN becomes 0 (std::clamp would keep it).
float gpuSaturate(float v)
{
    return v > 0.f ? std::min(v, 1.f) : 0.f;
}

template<typename Curve>
void applyCurve(float4* pixels, size_t count, const float3x3& transform, float exposure, bool clamp, Curve curve)
{
    for (size_t i = 0; i < count; ++i)
    {
        float3 c = curve(falcor::mul(transform, pixels[i].xyz() * exposure));
        if (clamp)
            c = float3(gpuSaturate(c.x()), gpuSaturate(c.y()), gpuSaturate(c.z()));
        pixels[i] = float4(c.x(), c.y(), c.z(), pixels[i].w());
    }
}
} // namespace

ToneMapCurve::ToneMapCurve(ToneMapperOperator op, float whiteMaxLuminance, float whiteScale)
    : mOperator(op), mWhiteMaxLuminance(whiteMaxLuminance), mHableUc2WhiteNorm(1.f / uc2(whiteScale))
{}

// The curves are forced inline into the per-operator loops of applyToRow (GCC otherwise keeps
// them out of line, which costs ~2x for ACES).
void ToneMapCurve::applyToRow(float4* pixels, size_t count, const float3x3& transform, float exposure, bool clamp) const
{
    auto run = [&](auto curve) { applyCurve(pixels, count, transform, exposure, clamp, curve); };
    switch (mOperator)
    {
    case ToneMapperOperator::Linear: return run([](const float3& c) { return c; });
    case ToneMapperOperator::Reinhard: return run([this](const float3& c) { return reinhard(c); });
    case ToneMapperOperator::ReinhardModified: return run([this](const float3& c) { return reinhardModified(c); });
    case ToneMapperOperator::HejiHableAlu: return run([this](const float3& c) { return hejiHableAlu(c); });
    case ToneMapperOperator::HableUc2: return run([this](const float3& c) { return hableUc2(c); });
    case ToneMapperOperator::Aces: return run([this](const float3& c) { return aces(c); });
    }
}

// The luminance ratio scales all channels, preserving hue. Black gives 0/0 = NaN, as on the GPU.
[[gnu::always_inline]] inline float3 ToneMapCurve::reinhard(const float3& color) const
{
    float L = toneMapLuminance(color);
    float mapped = L / (L + 1.f);
    return color * (mapped / L);
}

// Falcor's shader multiplies by (1 + L) where the textbook operator divides; we follow Falcor.
[[gnu::always_inline]] inline float3 ToneMapCurve::reinhardModified(const float3& color) const
{
    float L = toneMapLuminance(color);
    float mapped = L * (1.f + L / (mWhiteMaxLuminance * mWhiteMaxLuminance)) * (1.f + L);
    return color * (mapped / L);
}

[[gnu::always_inline]] inline float3 ToneMapCurve::hejiHableAlu(const float3& color) const
{
    return falcor::map(color, hejiHableAluChannel);
}

[[gnu::always_inline]] inline float3 ToneMapCurve::hableUc2(const float3& color) const
{
    const float exposureBias = 2.f;
    return falcor::map(color, [&](float x) { return uc2(exposureBias * x) * mHableUc2WhiteNorm; });
}

[[gnu::always_inline]] inline float3 ToneMapCurve::aces(const float3& color) const
{
    // The fit expects its inputs pre-exposed by 1/0.6; 0.6 undoes that so 1 stays mid-range.
    const float3 x = color * 0.6f;
    return float3(acesChannel(x.x()), acesChannel(x.y()), acesChannel(x.z()));
}
} // namespace tonemapping
