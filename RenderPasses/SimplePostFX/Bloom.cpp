#include "Bloom.h"
#include <array>
#include <numbers>
#include <optional>
#include <span>

namespace postfx
{
namespace
{
constexpr int kDownsampleSteps = 8;

/// One tap of a separable filter made of bilinear fetches: offset in texels of the filter's
/// scale, weight of the fetch.
struct Tap
{
    float offset;
    float weight;
};

// Binomial 1 9 36 84 126 126 84 36 9 1 with neighbouring pairs merged into single bilinear fetches.
// Falcor weighs the outer pair (1, 9) as 11/512 instead of 10/512, so the 2D kernel sums to
// (514/512)^2; we keep its numbers.
const Tap kDownsampleTaps[] = {
    {-(3.5f + 1.f / 10.f), 11.f / 512.f},
    {-(1.5f + 36.f / 120.f), 120.f / 512.f},
    {0.f, 252.f / 512.f},
    {1.5f + 36.f / 120.f, 120.f / 512.f},
    {3.5f + 1.f / 10.f, 11.f / 512.f},
};

// Binomial 1 5 10 10 5 1, merged the same way.
const Tap kUpsampleTaps[] = {
    {-(1.5f + 1.f / 6.f), 6.f / 32.f},
    {0.f, 20.f / 32.f},
    {1.5f + 1.f / 6.f, 6.f / 32.f},
};

float4 filterSeparable(const FloatImage& img, float2 uv, float2 texelSize, std::span<const Tap> taps)
{
    float4 sum(0.f);
    for (const Tap& tv : taps)
        for (const Tap& tu : taps)
            sum += img.sample(uv + float2(tu.offset * texelSize.x(), tv.offset * texelSize.y())) * (tu.weight * tv.weight);
    return sum;
}

/// Six streaks: three lines through the pixel, 60 degrees apart, each sampled at 41 points.
struct StarStreaks
{
    float amount;
    std::array<float2, 3> steps; ///< uv distance between consecutive samples along each line.

    StarStreaks(float amount_, float angle, float2 invRes) : amount(amount_)
    {
        for (float2& step : steps)
        {
            step = float2(std::sin(angle), std::cos(angle)) * invRes * 4.f;
            angle += std::numbers::pi_v<float> / 3.f;
        }
    }

    float4 gather(const FloatImage& img, float2 uv) const
    {
        // Falcor's normalization constant; the weights 1/(10+i^2) actually sum to 1.5 times it.
        constexpr float kNormalization = 1.f / 1.793358534742959f;
        float4 sum(0.f);
        for (int i = -20; i <= 20; ++i)
        {
            float4 lines = img.sample(uv + steps[0] * float(i)) + img.sample(uv + steps[1] * float(i)) + img.sample(uv + steps[2] * float(i));
            sum += lines * (1.f / float(10 + i * i));
        }
        return sum * kNormalization;
    }
};

FloatImage downsample(const FloatImage& fine)
{
    FloatImage coarse(std::max(1u, fine.width >> 1), std::max(1u, fine.height >> 1));
    const float2 invRes = coarse.invResolution();
    // Half a coarse texel is (about) one fine texel: the kernel is laid out on the fine grid.
    const float2 fineTexel = invRes * 0.5f;
    fillImage(coarse, [&](uint32_t x, uint32_t y) {
        return roundToHalf(filterSeparable(fine, pixelCenterUV(x, y, invRes), fineTexel, kDownsampleTaps));
    });
    return coarse;
}

FloatImage upsample(const FloatImage& fine, const FloatImage& coarse, float amount, const std::optional<StarStreaks>& star)
{
    FloatImage result(fine.width, fine.height);
    const float2 invRes = fine.invResolution();
    fillImage(result, [&](uint32_t x, uint32_t y) {
        const float2 uv = pixelCenterUV(x, y, invRes);
        float4 value = lerp(fine.at(x, y), filterSeparable(coarse, uv, invRes, kUpsampleTaps), amount);
        if (star)
            value = lerp(value, star->gather(coarse, uv), star->amount);
        return roundToHalf(value);
    });
    return result;
}
} // namespace

FloatImage computeBloom(const FloatImage& src, const BloomSettings& settings)
{
    // coarser[k] is pyramid level k + 1; level 0 is the source itself.
    std::vector<FloatImage> coarser;
    coarser.reserve(kDownsampleSteps);
    for (int k = 0; k < kDownsampleSteps; ++k)
        coarser.push_back(downsample(k == 0 ? src : coarser.back()));

    FloatImage bloomed = std::move(coarser.back());
    for (int level = kDownsampleSteps - 1; level >= 0; --level)
    {
        const FloatImage& fine = level == 0 ? src : coarser[level - 1];
        std::optional<StarStreaks> star;
        if (settings.starAmount > 0.f && (level == 1 || level == 2))
            star.emplace(settings.starAmount, settings.starAngle, fine.invResolution());
        bloomed = upsample(fine, bloomed, settings.amount, star);
    }
    return bloomed;
}
} // namespace postfx
