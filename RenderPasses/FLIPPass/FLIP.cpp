#include "FLIP.h"
#include "ColorSpaces.h"
#include "Core/ThreadPool.h"
#include <algorithm>
#include "Core/Error.h"
#include <cmath>
#include <numbers>

namespace flip
{
namespace
{
using falcor::length;
using falcor::parallelForRows;
constexpr float kPi = std::numbers::pi_v<float>;

// Published FLIP constants.
constexpr float kColorExponent = 0.7f;      ///< q_c: compresses the HyAB color distance.
constexpr float kCutoffFraction = 0.4f;     ///< p_c: share of the maximal distance that maps to...
constexpr float kCutoffError = 0.95f;       ///< p_t: ...this error; larger distances share the rest.
constexpr float kFeatureWidth = 0.082f;     ///< w: feature detector width in degrees.
constexpr float kFeatureExponent = 0.5f;    ///< q_f: compresses the feature difference.

/// Contrast sensitivity of one opponent channel in the spatial domain: a weighted sum of two
/// Gaussians a * sqrt(pi / b) * exp(-pi^2 d^2 / b), d in degrees.
struct CSFParameters
{
    float a1, b1, a2, b2;
};
constexpr CSFParameters kAchromaticCSF{1.f, 0.0047f, 0.f, 1e-5f};
constexpr CSFParameters kRedGreenCSF{1.f, 0.0053f, 0.f, 1e-5f};
constexpr CSFParameters kBlueYellowCSF{34.1f, 0.04f, 13.5f, 0.025f};

constexpr int kMaxFilterRadius = 256;

/// Filter radius in pixels: three standard deviations of the widest CSF Gaussian (b = 0.04). It
/// also bounds the feature detectors, which use the same window (as Falcor does).
float filterExtent(float ppd)
{
    return std::ceil(3.f * std::sqrt(0.04f / (2.f * kPi * kPi)) * ppd);
}

int filterRadius(float ppd)
{
    return int(filterExtent(ppd)); // ppd was validated by pixelsPerDegree: the extent fits an int
}

std::vector<float> taps(int radius, auto&& f)
{
    std::vector<float> t;
    for (int i = -radius; i <= radius; ++i)
        t.push_back(f(float(i)));
    return t;
}

float sum(const std::vector<float>& v)
{
    float s = 0.f;
    for (float x : v)
        s += x;
    return s;
}

/// Sum of the positive (sign > 0) or negated negative (sign < 0) entries.
float signedPartSum(const std::vector<float>& v, float sign)
{
    float s = 0.f;
    for (float x : v)
        s += std::max(0.f, sign * x);
    return s;
}

SeparableFilter csfFilter(const CSFParameters& p, int radius, float ppd)
{
    const float dx = 1.f / ppd; // Pixel size in degrees.
    SeparableFilter f;
    for (auto [a, b] : {std::pair{p.a1, p.b1}, std::pair{p.a2, p.b2}})
    {
        if (a == 0.f)
            continue;
        auto gaussian = taps(radius, [&](float i) { return std::exp(-kPi * kPi * (i * dx) * (i * dx) / b); });
        f.terms.push_back({a * std::sqrt(kPi / b), gaussian, gaussian});
    }
    // Normalize the whole 2D kernel to unit sum, so that filtering preserves flat colors.
    float total = 0.f;
    for (const auto& t : f.terms)
        total += t.weight * sum(t.horizontal) * sum(t.vertical);
    for (auto& t : f.terms)
        t.weight /= total;
    return f;
}

/// Hunt effect: chroma is perceived weaker at low lightness, so a and b are scaled by L / 100.
float3 hunt(const float3& lab)
{
    const float s = 0.01f * lab.x();
    return {lab.x(), s * lab.y(), s * lab.z()};
}

/// HyAB distance: city-block in lightness, Euclidean in the chromatic plane.
float hyab(const float3& a, const float3& b)
{
    const float3 d = a - b;
    return std::abs(d.x()) + std::sqrt(d.y() * d.y() + d.z() * d.z());
}

float huntLab(const float3& linearRGB, const float3& otherLinearRGB)
{
    return hyab(hunt(linearRGBToCIELab(linearRGB)), hunt(linearRGBToCIELab(otherLinearRGB)));
}

/// Maps the color distance to [0, 1] (piecewise linearly around the perceptual cutoff, relative to
/// the largest distance between sRGB primaries, green vs. blue) and raises it to 1 - feature
/// difference, which amplifies color errors where features differ.
float combineErrors(float colorDistance, float featureDifference)
{
    static const float maxDistance = std::pow(huntLab({0.f, 1.f, 0.f}, {0.f, 0.f, 1.f}), kColorExponent);
    const float cutoff = kCutoffFraction * maxDistance;
    float e = std::pow(colorDistance, kColorExponent);
    e = e < cutoff ? e * (kCutoffError / cutoff) : kCutoffError + (e - cutoff) / (maxDistance - cutoff) * (1.f - kCutoffError);
    return std::pow(e, 1.f - featureDifference);
}

Plane<float> convolveRows(const Plane<float>& src, const std::vector<float>& kernel)
{
    const int r = int(kernel.size() / 2), w = int(src.width);
    Plane<float> dst(src.width, src.height);
    parallelForRows(src.height, [&](uint32_t y) {
        for (int x = 0; x < w; ++x)
        {
            float s = 0.f;
            for (int i = -r; i <= r; ++i)
                s += kernel[i + r] * src.at(std::clamp(x + i, 0, w - 1), y);
            dst.at(x, y) = s;
        }
    });
    return dst;
}

Plane<float> convolveColumns(const Plane<float>& src, const std::vector<float>& kernel)
{
    const int r = int(kernel.size() / 2), h = int(src.height);
    Plane<float> dst(src.width, src.height);
    parallelForRows(src.height, [&](uint32_t y) {
        for (uint32_t x = 0; x < src.width; ++x)
        {
            float s = 0.f;
            for (int j = -r; j <= r; ++j)
                s += kernel[j + r] * src.at(x, std::clamp(int(y) + j, 0, h - 1));
            dst.at(x, y) = s;
        }
    });
    return dst;
}

template<typename T, typename F>
Plane<std::invoke_result_t<F, const T&>> mapPlane(const Plane<T>& src, F&& f)
{
    Plane<std::invoke_result_t<F, const T&>> dst(src.width, src.height);
    parallelForRows(src.height, [&](uint32_t y) {
        for (uint32_t x = 0; x < src.width; ++x)
            dst.at(x, y) = f(src.at(x, y));
    });
    return dst;
}

Plane<float2> zip(const Plane<float>& x, const Plane<float>& y)
{
    Plane<float2> dst(x.width, x.height);
    for (size_t i = 0; i < dst.data.size(); ++i)
        dst.data[i] = float2(x.data[i], y.data[i]);
    return dst;
}
} // namespace

float pixelsPerDegree(uint32_t monitorWidthPixels, float monitorWidthMeters, float monitorDistanceMeters)
{
    // Pixels per meter times the length one degree subtends at the viewing distance (small-angle).
    const float ppd = monitorDistanceMeters * (float(monitorWidthPixels) / monitorWidthMeters) * (kPi / 180.f);
    // Non-positive values leave the filters empty; huge ones make them wider than any image.
    FALCOR_CHECK(std::isfinite(ppd) && ppd > 0.f && filterExtent(ppd) <= float(kMaxFilterRadius), "FLIP: a monitor ", monitorWidthPixels,
                 " pixels and ", monitorWidthMeters, " m wide seen from ", monitorDistanceMeters, " m gives ", ppd,
                 " pixels per degree; FLIP needs a positive value whose filters stay within ", kMaxFilterRadius, " pixels.");
    return ppd;
}

Plane<float> SeparableFilter::apply(const Plane<float>& image) const
{
    Plane<float> result(image.width, image.height);
    for (const Term& t : terms)
    {
        Plane<float> filtered = convolveColumns(convolveRows(image, t.horizontal), t.vertical);
        for (size_t i = 0; i < result.data.size(); ++i)
            result.data[i] += t.weight * filtered.data[i];
    }
    return result;
}

LDRFLIP::LDRFLIP(float ppd)
{
    const int radius = filterRadius(ppd);
    mCSF[0] = csfFilter(kAchromaticCSF, radius, ppd);
    mCSF[1] = csfFilter(kRedGreenCSF, radius, ppd);
    mCSF[2] = csfFilter(kBlueYellowCSF, radius, ppd);

    // Edge detector: first derivative of a Gaussian; point detector: its second derivative. Each is
    // scaled so that its positive lobe sums to 1 and its negative lobe to -1 over the 2D window.
    const float sigma = 0.5f * kFeatureWidth * ppd;
    const auto gaussian = taps(radius, [&](float i) { return std::exp(-i * i / (2.f * sigma * sigma)); });
    const auto edge = taps(radius, [&](float i) { return -i * std::exp(-i * i / (2.f * sigma * sigma)); });
    auto point = taps(radius, [&](float i) { return (i * i / (sigma * sigma) - 1.f) * std::exp(-i * i / (2.f * sigma * sigma)); });

    const float gaussianSum = sum(gaussian);
    const float edgeLobe = signedPartSum(edge, 1.f) * gaussianSum;
    const float pointPositiveLobe = signedPartSum(point, 1.f) * gaussianSum;
    const float pointNegativeLobe = signedPartSum(point, -1.f) * gaussianSum;
    for (float& p : point)
        p /= p >= 0.f ? pointPositiveLobe : pointNegativeLobe;

    mEdgeX.terms = {{1.f / edgeLobe, edge, gaussian}};
    mEdgeY.terms = {{1.f / edgeLobe, gaussian, edge}};
    mPointX.terms = {{1.f, point, gaussian}};
    mPointY.terms = {{1.f, gaussian, point}};
}

LDRFLIP::Percept LDRFLIP::perceive(const Plane<float3>& image) const
{
    const Plane<float3> ycxcz = mapPlane(image, [](const float3& c) { return linearRGBToYCxCz(c); });
    Percept p;
    for (int c = 0; c < 3; ++c)
        p.color[c] = mCSF[c].apply(mapPlane(ycxcz, [c](const float3& v) { return v[c]; }));

    // Features are detected on lightness normalized to [0, 1]: (Y + 16) / 116.
    const Plane<float> lightness = mapPlane(ycxcz, [](const float3& v) { return (v.x() + 16.f) / 116.f; });
    p.edge = zip(mEdgeX.apply(lightness), mEdgeY.apply(lightness));
    p.point = zip(mPointX.apply(lightness), mPointY.apply(lightness));
    return p;
}

Plane<float> LDRFLIP::evaluate(const Plane<float3>& reference, const Plane<float3>& test) const
{
    const Percept ref = perceive(reference), tst = perceive(test);
    Plane<float> error(reference.width, reference.height);
    parallelForRows(error.height, [&](uint32_t y) {
        for (uint32_t x = 0; x < error.width; ++x)
        {
            const auto filteredRGB = [&](const Percept& p) {
                const float3 c(p.color[0].at(x, y), p.color[1].at(x, y), p.color[2].at(x, y));
                return falcor::saturate(YCxCzToLinearRGB(c));
            };
            const float colorDistance = huntLab(filteredRGB(ref), filteredRGB(tst));

            const float edgeDifference = std::abs(length(ref.edge.at(x, y)) - length(tst.edge.at(x, y)));
            const float pointDifference = std::abs(length(ref.point.at(x, y)) - length(tst.point.at(x, y)));
            const float featureDifference = std::pow(std::max(edgeDifference, pointDifference) / std::sqrt(2.f), kFeatureExponent);

            error.at(x, y) = combineErrors(colorDistance, featureDifference);
        }
    });
    return error;
}
} // namespace flip
