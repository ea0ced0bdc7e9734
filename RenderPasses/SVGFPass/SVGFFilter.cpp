#include "SVGFFilter.h"
#include "Core/ThreadPool.h"
#include "Utils/Color/ColorHelpers.h"
#include "Utils/Math/MathHelpers.h"
#include <algorithm>
#include <cmath>

using namespace falcor;

namespace svgf
{
namespace
{
constexpr float kMaxHistoryLength = 32.f;

// GPU semantics where they differ from the C++ library's: saturate, min and max drop NaN (a miss
// pixel's zero normal packs to NaN; std::fmax/fmin do the same), float-to-int conversion
// truncates and maps NaN to 0.
float gpuSaturate(float v)
{
    return v > 0.f ? (v < 1.f ? v : 1.f) : 0.f;
}

/// max(v, 0) with a NaN giving 0, as a GPU's max does.
float gpuMax0(float v)
{
    return v > 0.f ? v : 0.f;
}

int gpuToInt(float v)
{
    return v == v ? int(std::clamp(v, -1e9f, 1e9f)) : 0;
}

/// Falcor's oct_to_ndir_snorm, the inverse of ndirToOctSnorm.
float3 octSnormToNdir(float2 p)
{
    float3 n(p.x(), p.y(), 1.f - std::abs(p.x()) - std::abs(p.y()));
    if (n.z() < 0.f)
        n = float3((1.f - std::abs(n.y())) * (n.x() >= 0.f ? 1.f : -1.f), (1.f - std::abs(n.x())) * (n.y() >= 0.f ? 1.f : -1.f), n.z());
    return normalize(n);
}

Surface unpackSurface(const float4& linearZAndNormal)
{
    return {linearZAndNormal.x(), linearZAndNormal.y(), octSnormToNdir(float2(linearZAndNormal.z(), linearZAndNormal.w()))};
}

void unpackSurfaces(const Image<float4>& packed, Image<Surface>& surfaces)
{
    surfaces.resize(packed.width, packed.height);
    parallelForRows(packed.height, [&](uint32_t y) {
        for (uint32_t x = 0; x < packed.width; ++x)
            surfaces.at(x, y) = unpackSurface(packed.at(x, y));
    });
}

/// pow(cosine, exponent) for the normal weight. Exponents are usually whole (Falcor's default is
/// 128): those go by repeated squaring, a few multiplications instead of a pow call, the largest
/// single cost of the filter (a relative difference of at most exponent * 2^-24 from powf).
class NormalPower
{
public:
    explicit NormalPower(float exponent)
        : mExponent(exponent), mWhole(exponent >= 0.f && exponent <= 65536.f && exponent == std::floor(exponent)) {}

    [[gnu::always_inline]] float operator()(float cosine) const
    {
        if (!mWhole)
            return std::pow(cosine, mExponent);
        float result = 1.f, base = cosine;
        for (uint32_t e = uint32_t(mExponent); e != 0; e >>= 1, base *= base)
            if (e & 1u)
                result *= base;
        return result;
    }

private:
    float mExponent;
    bool mWhole;
};

/// Falcor's computeWeight: the edge-stopping weight of a neighbour by depth, normal and luminance.
[[gnu::always_inline]] inline float edgeStoppingWeight(float zCenter, float zP, float phiDepth, const float3& nCenter, const float3& nP, const NormalPower& phiNormal,
                         float lumCenter, float lumP, float phiLum)
{
    const float weightNormal = phiNormal(gpuSaturate(dot(nCenter, nP)));
    const float weightZ = phiDepth == 0.f ? 0.f : std::abs(zCenter - zP) / phiDepth;
    const float weightLum = std::abs(lumCenter - lumP) / phiLum;
    return std::exp(0.f - gpuMax0(weightLum) - gpuMax0(weightZ)) * weightNormal;
}

/// Rows of an image computed in parallel: out.at(x, y) = shade(x, y).
template<typename T, typename Shade>
void fill(Image<T>& out, Shade&& shade)
{
    parallelForRows(out.height, [&](uint32_t y) {
        for (uint32_t x = 0; x < out.width; ++x)
            out.at(x, y) = shade(x, y);
    });
}

/// Stage 1 (SVGFPackLinearZAndNormal): linear z, its slope and the octahedral normal.
void packLinearZAndNormal(const FrameInputs& in, Image<float4>& packed)
{
    fill(packed, [&](uint32_t x, uint32_t y) {
        const float2 oct = ndirToOctSnorm(in.worldNormal.at(x, y).xyz());
        return float4(in.linearZ.at(x, y).x(), in.linearZ.at(x, y).y(), oct.x(), oct.y());
    });
}

/// Stage 2 (SVGFReproject): the previous frame's data at this pixel, when its surface matches.
class Reprojector
{
public:
    Reprojector(const FrameInputs& in, const Image<Surface>& current, const Image<Surface>& previous, const History& history)
        : mIn(in), mCurrent(current), mPrevious(previous), mHistory(history)
    {}

    struct Previous
    {
        float4 illumination{0.f};
        float2 moments{0.f};
        float length = 0.f;
        bool valid = false;
    };

    Previous load(uint32_t x, uint32_t y) const
    {
        const float2 dims(float(mIn.color.width), float(mIn.color.height));
        const float4 motion = mIn.motion.at(x, y);
        const float2 posPrev(float(x) + motion.x() * dims.x(), float(y) + motion.y() * dims.y());
        // +0.5: the pixel whose center is nearest.
        const int2 iposPrev(gpuToInt(posPrev.x() + 0.5f), gpuToInt(posPrev.y() + 0.5f));
        const Check check{mCurrent.at(x, y), mIn.posNormalFwidth.at(x, y).y(), iposPrev, int2(int(dims.x()), int(dims.y()))};

        Previous prev = bilinear(check, posPrev);
        if (!prev.valid)
            prev = crossBilateral(check);
        if (prev.valid)
            prev.length = mHistory.length.load(iposPrev.x(), iposPrev.y());
        else
            prev = Previous{};
        return prev;
    }

private:
    /// Falcor's isReprjValid for one previous-frame texel.
    struct Check
    {
        Surface current;
        float normalFwidth;
        int2 iposPrev;
        int2 dims;

        bool accepts(const Surface& prev) const
        {
            if (iposPrev.x() < 1 || iposPrev.y() < 1 || iposPrev.x() > dims.x() - 1 || iposPrev.y() > dims.y() - 1)
                return false;
            if (std::abs(prev.z - current.z) / (current.zSlope + 1e-2f) > 10.f)
                return false;
            return !(length(current.normal - prev.normal) / (normalFwidth + 1e-2f) > 16.f);
        }
    };

    /// A previous-frame surface; outside the image it reads as a zero texel does.
    Surface previousSurface(int x, int y) const
    {
        static const Surface kZeroTexel = unpackSurface(float4(0.f));
        return mPrevious.inside(x, y) ? mPrevious.at(uint32_t(x), uint32_t(y)) : kZeroTexel;
    }

    /// The bilinear taps around the reprojected position that pass the check, renormalized.
    Previous bilinear(const Check& check, float2 posPrev) const
    {
        const int2 base(gpuToInt(posPrev.x()), gpuToInt(posPrev.y()));
        const int2 offsets[4] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
        bool accepted[4];
        bool any = false;
        for (int i = 0; i < 4; ++i)
        {
            accepted[i] = check.accepts(previousSurface(base.x() + offsets[i].x(), base.y() + offsets[i].y()));
            any = any || accepted[i];
        }
        Previous prev;
        if (!any)
            return prev;
        const float fx = posPrev.x() - std::floor(posPrev.x()), fy = posPrev.y() - std::floor(posPrev.y());
        const float weights[4] = {(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy};
        float sumWeights = 0.f;
        for (int i = 0; i < 4; ++i)
        {
            if (!accepted[i])
                continue;
            const int2 p = base + offsets[i];
            prev.illumination += weights[i] * mHistory.lighting.load(p.x(), p.y());
            prev.moments += weights[i] * mHistory.moments.load(p.x(), p.y());
            sumWeights += weights[i];
        }
        prev.valid = sumWeights >= 0.01f;
        prev.illumination = prev.valid ? prev.illumination / sumWeights : float4(0.f);
        prev.moments = prev.valid ? prev.moments / sumWeights : float2(0.f);
        return prev;
    }

    /// Fallback: the mean of the matching texels of the 3x3 block around the reprojected pixel.
    Previous crossBilateral(const Check& check) const
    {
        Previous prev;
        float count = 0.f;
        for (int yy = -1; yy <= 1; ++yy)
            for (int xx = -1; xx <= 1; ++xx)
            {
                const int2 p = check.iposPrev + int2(xx, yy);
                if (!check.accepts(previousSurface(p.x(), p.y())))
                    continue;
                prev.illumination += mHistory.lighting.load(p.x(), p.y());
                prev.moments += mHistory.moments.load(p.x(), p.y());
                count += 1.f;
            }
        prev.valid = count > 0.f;
        if (prev.valid)
        {
            prev.illumination /= count;
            prev.moments /= count;
        }
        return prev;
    }

    const FrameInputs& mIn;
    const Image<Surface>& mCurrent;
    const Image<Surface>& mPrevious;
    const History& mHistory;
};

/// Stage 2: demodulated illumination blended with its reprojected history, with moments and variance.
void reproject(const FrameInputs& in, const History& history, const Settings& s, Workspace& work)
{
    unpackSurfaces(history.linearZAndNormal, work.previousSurfaces);
    const Reprojector reprojector(in, work.surfaces, work.previousSurfaces, history);
    parallelForRows(in.color.height, [&](uint32_t y) {
        for (uint32_t x = 0; x < in.color.width; ++x)
        {
            const float3 albedo = map(in.albedo.at(x, y).xyz(), [](float a) { return std::fmax(a, 0.001f); });
            float3 illumination = (in.color.at(x, y).xyz() - in.emission.at(x, y).xyz()) / albedo;
            if (std::isnan(illumination.x()) || std::isnan(illumination.y()) || std::isnan(illumination.z()))
                illumination = float3(0.f); // Falcor's guard against path tracer NaNs.

            const Reprojector::Previous prev = reprojector.load(x, y);
            const float length = std::min(kMaxHistoryLength, prev.valid ? prev.length + 1.f : 1.f);
            // Short histories weigh every frame equally.
            const float alpha = prev.valid ? std::max(s.alpha, 1.f / length) : 1.f;
            const float alphaMoments = prev.valid ? std::max(s.momentsAlpha, 1.f / length) : 1.f;

            const float lum = luminance(illumination);
            const float2 moments = lerp(prev.moments, float2(lum, lum * lum), alphaMoments);
            const float variance = std::max(0.f, moments.y() - moments.x() * moments.x());
            float4 integrated = lerp(prev.illumination, float4(illumination.x(), illumination.y(), illumination.z(), 0.f), alpha);
            integrated.w() = variance;
            work.illumination.at(x, y) = integrated;
            work.moments.at(x, y) = moments;
            work.length.at(x, y) = length;
        }
    });
}

/// Stage 3 (SVGFFilterMoments): below 4 frames of history, variance from a 7x7 cross-bilateral
/// estimate of the moments (boosted by 4 / length), which also filters the illumination.
void filterMoments(const Workspace& work, const Image<Surface>& surfaces, const Settings& s, Image<float4>& out)
{
    const NormalPower phiNormal(s.phiNormal);
    fill(out, [&](uint32_t x, uint32_t y) {
        const float length = work.length.at(x, y);
        const float4 center = work.illumination.at(x, y);
        const Surface& sc = surfaces.at(x, y);
        if (length >= 4.f || sc.z < 0.f) // Enough history, or no surface (environment).
            return center;
        const float lumCenter = luminance(center.xyz());
        const float phiDepth = std::fmax(sc.zSlope, 1e-8f) * 3.f;
        float sumWeights = 0.f;
        float3 sumIllumination(0.f);
        float2 sumMoments(0.f);
        const int radius = 3;
        for (int yy = -radius; yy <= radius; ++yy)
            for (int xx = -radius; xx <= radius; ++xx)
            {
                const int px = int(x) + xx, py = int(y) + yy;
                if (!work.illumination.inside(px, py))
                    continue;
                const float3 illumination = work.illumination.at(px, py).xyz();
                const Surface& sp = surfaces.at(px, py);
                const float w = edgeStoppingWeight(sc.z, sp.z, phiDepth * std::sqrt(float(xx * xx + yy * yy)), sc.normal, sp.normal,
                                                   phiNormal, lumCenter, luminance(illumination), s.phiColor);
                sumWeights += w;
                sumIllumination += illumination * w;
                sumMoments += work.moments.at(px, py) * w;
            }
        sumWeights = std::fmax(sumWeights, 1e-6f);
        sumIllumination /= sumWeights;
        sumMoments /= sumWeights;
        const float variance = (sumMoments.y() - sumMoments.x() * sumMoments.x()) * (4.f / length);
        return float4(sumIllumination.x(), sumIllumination.y(), sumIllumination.z(), variance);
    });
}

/// The variance at a pixel blurred by a 3x3 Gaussian (outside texels count as 0).
float blurredVariance(const Image<float4>& illumination, int x, int y)
{
    const float kernel[2][2] = {{1.f / 4.f, 1.f / 8.f}, {1.f / 8.f, 1.f / 16.f}};
    float sum = 0.f;
    for (int yy = -1; yy <= 1; ++yy)
        for (int xx = -1; xx <= 1; ++xx)
            sum += illumination.load(x + xx, y + yy).w() * kernel[std::abs(xx)][std::abs(yy)];
    return sum;
}

/// Stage 4 (SVGFAtrous): one a-trous iteration, a 5x5 B3-spline kernel with holes of `step` pixels
/// and edge-stopping weights; the variance (alpha) is filtered with the squared weights.
void atrousStep(const Image<float4>& in, const Image<Surface>& surfaces, const Settings& s, int step, Image<float4>& out)
{
    const float kernelWeights[3] = {1.f, 2.f / 3.f, 1.f / 6.f};
    const NormalPower phiNormal(s.phiNormal);
    fill(out, [&](uint32_t x, uint32_t y) {
        const float4 center = in.at(x, y);
        const float lumCenter = luminance(center.xyz());
        const float variance = blurredVariance(in, int(x), int(y));
        const Surface& sc = surfaces.at(x, y);
        if (sc.z < 0.f)
            return center;
        const float phiLum = s.phiColor * std::sqrt(std::max(0.f, 1e-10f + variance));
        const float phiDepth = std::fmax(sc.zSlope, 1e-8f) * float(step);
        // The center counts with weight 1, whatever its edge-stopping weight would be.
        float sumWeights = 1.f;
        float4 sum = center;
        for (int yy = -2; yy <= 2; ++yy)
            for (int xx = -2; xx <= 2; ++xx)
            {
                const int px = int(x) + xx * step, py = int(y) + yy * step;
                if (!in.inside(px, py) || (xx == 0 && yy == 0))
                    continue;
                const float4 p = in.at(px, py);
                const Surface& sp = surfaces.at(px, py);
                const float w = edgeStoppingWeight(sc.z, sp.z, phiDepth * std::sqrt(float(xx * xx + yy * yy)), sc.normal, sp.normal,
                                                   phiNormal, lumCenter, luminance(p.xyz()), phiLum) *
                                kernelWeights[std::abs(xx)] * kernelWeights[std::abs(yy)];
                sumWeights += w;
                sum += float4(w, w, w, w * w) * p;
            }
        return sum / float4(sumWeights, sumWeights, sumWeights, sumWeights * sumWeights);
    });
}
} // namespace

void History::reset(uint32_t width, uint32_t height)
{
    linearZAndNormal.reset(width, height);
    lighting.reset(width, height);
    moments.reset(width, height);
    length.reset(width, height);
}

void denoise(const FrameInputs& in, const Settings& s, History& history, Workspace& work, Image<float4>& filtered)
{
    const uint32_t width = in.color.width, height = in.color.height;
    for (Image<float4>* img : {&work.linearZAndNormal, &work.illumination, &work.current, &work.next})
        img->resize(width, height);
    work.moments.resize(width, height);
    work.length.resize(width, height);
    packLinearZAndNormal(in, work.linearZAndNormal);
    unpackSurfaces(work.linearZAndNormal, work.surfaces);
    reproject(in, history, s, work);

    filterMoments(work, work.surfaces, s, work.current);
    for (int i = 0; i < s.iterations; ++i)
    {
        atrousStep(work.current, work.surfaces, s, 1 << i, work.next);
        if (i == std::min(s.feedbackTap, s.iterations - 1))
            history.lighting.texels = work.next.texels;
        std::swap(work.current, work.next);
    }
    if (s.feedbackTap < 0)
        history.lighting.texels = work.illumination.texels;

    fill(filtered, [&](uint32_t x, uint32_t y) { return in.albedo.at(x, y) * work.current.at(x, y) + in.emission.at(x, y); });
    std::swap(history.linearZAndNormal, work.linearZAndNormal);
    std::swap(history.moments, work.moments);
    std::swap(history.length, work.length);
}
} // namespace svgf
