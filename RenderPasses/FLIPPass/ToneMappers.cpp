#include "ToneMappers.h"
#include "ColorSpaces.h"
#include <cmath>

namespace flip
{
namespace
{
/// Narkowicz's ACES fit, with its 0.6 pre-exposure folded into the coefficients so that exposure 0
/// means the unscaled image.
constexpr RationalCurve kACES{{0.6f * 0.6f * 2.51f, 0.6f * 0.03f, 0.f, 0.6f * 0.6f * 2.43f, 0.6f * 0.59f, 0.14f}};

/// Hable's filmic curve (shoulder A, linear B, angle C, toe D, toe numerator E, toe denominator F)
/// rewritten as one rational function, with exposure bias 2 and white point W = 11.2 folded in.
RationalCurve hableCurve()
{
    constexpr float A = 0.15f, B = 0.5f, C = 0.1f, D = 0.2f, E = 0.02f, F = 0.3f, W = 11.2f;
    RationalCurve c{{A * F - A * E, C * B * F - B * E, 0.f, A * F, B * F, D * F * F}};
    const float whiteScale = c.denominator(W) / c.numerator(W);
    return RationalCurve{{4.f * c.k[0] * whiteScale, 2.f * c.k[1] * whiteScale, c.k[2] * whiteScale, 4.f * c.k[3], 2.f * c.k[4], c.k[5]}};
}

constexpr RationalCurve kReinhard{{0.f, 1.f, 0.f, 0.f, 1.f, 1.f}};
} // namespace

RationalCurve toneCurve(ToneMapperType type)
{
    switch (type)
    {
    case ToneMapperType::ACES: return kACES;
    case ToneMapperType::Hable:
    {
        static const RationalCurve kHable = hableCurve();
        return kHable;
    }
    default: return kReinhard;
    }
}

float3 toneMap(const float3& color, ToneMapperType type)
{
    if (type == ToneMapperType::Reinhard)
        return falcor::saturate(color / (luminance(color) + 1.f));

    const RationalCurve curve = toneCurve(type);
    return map(color, [&](float x) {
        const float denominator = curve.denominator(x);
        // An infinite input would give inf / inf = NaN; dividing by 1 instead maps it to white after the clamp.
        return std::clamp(curve.numerator(x) / (std::isinf(denominator) ? 1.f : denominator), 0.f, 1.f);
    });
}
} // namespace flip
