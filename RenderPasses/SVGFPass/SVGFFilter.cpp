#include "SVGFFilter.h"
#include "SVGFLanes.h"
#include "Core/ThreadPool.h"
#include "Utils/Color/ColorHelpers.h"
#include "Utils/Math/MathHelpers.h"
#include <algorithm>
#include <cmath>

using namespace falcor;
using namespace svgf::lanes;

namespace svgf
{
namespace
{
constexpr float kMaxHistoryLength = 32.f;

/// Float-to-int conversion as on a GPU: truncation, NaN to 0.
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
                const float w = edgeStoppingWeight(sc.z, sp.z, phiDepth * std::sqrt(float(xx * xx + yy * yy)), dot(sc.normal, sp.normal),
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

/// An a-trous step's input split into planes (and its luminance), for loops over rows.
void splitIllumination(const Image<float4>& in, Workspace& work)
{
    for (Image<float>* img : {&work.red, &work.green, &work.blue, &work.variance, &work.luminance})
        img->resize(in.width, in.height);
    parallelForRows(in.height, [&](uint32_t y) {
        for (uint32_t x = 0; x < in.width; ++x)
        {
            const float4& c = in.at(x, y);
            work.red.at(x, y) = c.x(), work.green.at(x, y) = c.y(), work.blue.at(x, y) = c.z(), work.variance.at(x, y) = c.w();
            work.luminance.at(x, y) = luminance(c.xyz());
        }
    });
}

/// One a-trous tap over a row: the center pixels' rows (C), the row of their neighbours at the
/// tap's offset (P: element x is pixel x's neighbour) and the row's running sums.
struct TapRows
{
    const float *zC, *lumC, *nxC, *nyC, *nzC, *phiDepth, *phiLum;
    const float *zP, *lumP, *nxP, *nyP, *nzP, *redP, *greenP, *blueP, *varianceP;
    float *sumW, *sumR, *sumG, *sumB, *sumV;
    float distance, kernelX, kernelY;
};

/// Adds the tap's contribution to pixels [x, x + width of V).
template<typename V>
[[gnu::always_inline]] inline void accumulateTap(const TapRows& r, int x, const NormalPower& phiNormal)
{
    const V cosine = load<V>(r.nxC + x) * load<V>(r.nxP + x) + load<V>(r.nyC + x) * load<V>(r.nyP + x) + load<V>(r.nzC + x) * load<V>(r.nzP + x);
    const V edge = edgeStoppingWeight(load<V>(r.zC + x), load<V>(r.zP + x), load<V>(r.phiDepth + x) * r.distance, cosine, phiNormal,
                                      load<V>(r.lumC + x), load<V>(r.lumP + x), load<V>(r.phiLum + x));
    const V weight = edge * r.kernelX * r.kernelY;
    store(r.sumW + x, load<V>(r.sumW + x) + weight);
    store(r.sumR + x, load<V>(r.sumR + x) + weight * load<V>(r.redP + x));
    store(r.sumG + x, load<V>(r.sumG + x) + weight * load<V>(r.greenP + x));
    store(r.sumB + x, load<V>(r.sumB + x) + weight * load<V>(r.blueP + x));
    store(r.sumV + x, load<V>(r.sumV + x) + weight * weight * load<V>(r.varianceP + x));
}

/// Stage 4 (SVGFAtrous): one a-trous iteration, a 5x5 B3-spline kernel with holes of `step` pixels
/// and edge-stopping weights; the variance (alpha) is filtered with the squared weights. A row at a
/// time, tap after tap (in Falcor's order, so each pixel's sums add up as in the shader), each tap
/// over the pixels whose neighbour is inside the image, four pixels at a time.
void atrousStep(const Image<float4>& in, Workspace& work, const Settings& s, int step, Image<float4>& out)
{
    const int width = int(in.width), height = int(in.height);
    splitIllumination(in, work);
    const float kernelWeights[3] = {1.f, 2.f / 3.f, 1.f / 6.f};
    const NormalPower phiNormal(s.phiNormal);
    const Workspace& w = work;
    parallelForRows(in.height, [&](uint32_t y) {
        std::vector<float> rowBuffers(size_t(width) * 7);
        float *sumW = rowBuffers.data(), *sumR = sumW + width, *sumG = sumR + width, *sumB = sumG + width, *sumV = sumB + width;
        float *phiLum = sumV + width, *phiDepth = phiLum + width;
        for (int x = 0; x < width; ++x)
        {
            const float4 center = in.at(x, y);
            sumW[x] = 1.f; // The center counts with weight 1, whatever its edge-stopping weight would be.
            sumR[x] = center.x(), sumG[x] = center.y(), sumB[x] = center.z(), sumV[x] = center.w();
            phiLum[x] = s.phiColor * std::sqrt(std::max(0.f, 1e-10f + blurredVariance(in, x, int(y))));
            phiDepth[x] = std::fmax(w.surfaces.at(x, y).zSlope, 1e-8f) * float(step);
        }
        TapRows rows{&w.depth.at(0, y), &w.luminance.at(0, y), &w.normalX.at(0, y), &w.normalY.at(0, y), &w.normalZ.at(0, y), phiDepth, phiLum};
        rows.sumW = sumW, rows.sumR = sumR, rows.sumG = sumG, rows.sumB = sumB, rows.sumV = sumV;
        for (int yy = -2; yy <= 2; ++yy)
        {
            const int py = int(y) + yy * step;
            if (py < 0 || py >= height)
                continue;
            for (int xx = -2; xx <= 2; ++xx)
            {
                const int offset = xx * step, begin = std::max(0, -offset), end = std::min(width, width - offset);
                if ((xx == 0 && yy == 0) || begin >= end)
                    continue;
                rows.zP = &w.depth.at(0, py) + offset, rows.lumP = &w.luminance.at(0, py) + offset;
                rows.nxP = &w.normalX.at(0, py) + offset, rows.nyP = &w.normalY.at(0, py) + offset, rows.nzP = &w.normalZ.at(0, py) + offset;
                rows.redP = &w.red.at(0, py) + offset, rows.greenP = &w.green.at(0, py) + offset;
                rows.blueP = &w.blue.at(0, py) + offset, rows.varianceP = &w.variance.at(0, py) + offset;
                rows.distance = std::sqrt(float(xx * xx + yy * yy));
                rows.kernelX = kernelWeights[std::abs(xx)], rows.kernelY = kernelWeights[std::abs(yy)];
                int x = begin;
                for (; x + kWidth <= end; x += kWidth)
                    accumulateTap<Lanes>(rows, x, phiNormal);
                for (; x < end; ++x)
                    accumulateTap<float>(rows, x, phiNormal);
            }
        }
        for (int x = 0; x < width; ++x)
        {
            // No surface (environment): left unfiltered.
            out.at(x, y) = rows.zC[x] < 0.f ? in.at(x, y) : float4(sumR[x] / sumW[x], sumG[x] / sumW[x], sumB[x] / sumW[x], sumV[x] / (sumW[x] * sumW[x]));
        }
    });
}

/// The surfaces' depth and normal components in separate images, for the a-trous loops.
void splitSurfaces(Workspace& work)
{
    const uint32_t width = work.surfaces.width, height = work.surfaces.height;
    for (Image<float>* img : {&work.depth, &work.normalX, &work.normalY, &work.normalZ})
        img->resize(width, height);
    parallelForRows(height, [&](uint32_t y) {
        for (uint32_t x = 0; x < width; ++x)
        {
            const Surface& surface = work.surfaces.at(x, y);
            work.depth.at(x, y) = surface.z;
            work.normalX.at(x, y) = surface.normal.x();
            work.normalY.at(x, y) = surface.normal.y();
            work.normalZ.at(x, y) = surface.normal.z();
        }
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
    splitSurfaces(work);
    reproject(in, history, s, work);

    filterMoments(work, work.surfaces, s, work.current);
    for (int i = 0; i < s.iterations; ++i)
    {
        atrousStep(work.current, work, s, 1 << i, work.next);
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
