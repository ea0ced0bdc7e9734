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

/// An image split into planes (`red`, `green`, `blue`, `variance` from .w) with its luminance,
/// for the loops over rows.
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

/// A bilateral filter's sums over a span of one row, tap after tap. Each tap's neighbours are
/// read from rows shifted by the tap's offset, so element i of every array belongs to the same
/// pixel: loops over i run four pixels at a time.
struct RowFilter
{
    static constexpr int kMaxChannels = 5;
    // The span's own pixels (element 0 = the span's first pixel).
    const float *zC, *lumC, *nxC, *nyC, *nzC;
    const float *phiDepth, *phiLum; ///< Per pixel, before the tap's distance factor.
    // The neighbours at the current tap.
    const float *zP, *lumP, *nxP, *nyP, *nzP;
    const float* channelP[kMaxChannels];
    int channels;
    bool lastChannelSquaredWeight; ///< A-trous filters the variance (last channel) with squared weights.
    float distance, kernel;        ///< |tap offset| in taps; the tap's kernel weight.
    // Running sums.
    float* sumWeights;
    float* sums[kMaxChannels];

    template<typename V>
    [[gnu::always_inline]] void accumulate(int i, const NormalPower& phiNormal) const
    {
        const V cosine = load<V>(nxC + i) * load<V>(nxP + i) + load<V>(nyC + i) * load<V>(nyP + i) + load<V>(nzC + i) * load<V>(nzP + i);
        const V edge = edgeStoppingWeight(load<V>(zC + i), load<V>(zP + i), load<V>(phiDepth + i) * distance, cosine, phiNormal,
                                          load<V>(lumC + i), load<V>(lumP + i), load<V>(phiLum + i));
        const V weight = edge * kernel;
        store(sumWeights + i, load<V>(sumWeights + i) + weight);
        for (int c = 0; c < channels; ++c)
        {
            const V w = lastChannelSquaredWeight && c == channels - 1 ? weight * weight : weight;
            store(sums[c] + i, load<V>(sums[c] + i) + w * load<V>(channelP[c] + i));
        }
    }

    /// Adds the tap at pixel offset (dx, dy) for the span [begin, end) of row y.
    void addTap(const Workspace& w, const std::vector<const Image<float>*>& channelImages, int begin, int end, int y, int dx, int dy,
                const NormalPower& phiNormal)
    {
        const int py = y + dy;
        if (py < 0 || py >= int(w.depth.height))
            return;
        // Pixels of the span whose neighbour is inside the image, as indices into the span.
        const int first = std::max(begin, -dx) - begin, last = std::min(end, int(w.depth.width) - dx) - begin;
        const int shift = begin + dx; // Element i of a shifted row is pixel begin + i + dx.
        zP = &w.depth.at(0, py) + shift, lumP = &w.luminance.at(0, py) + shift;
        nxP = &w.normalX.at(0, py) + shift, nyP = &w.normalY.at(0, py) + shift, nzP = &w.normalZ.at(0, py) + shift;
        for (int c = 0; c < channels; ++c)
            channelP[c] = &channelImages[c]->at(0, py) + shift;
        int i = first;
        for (; i + kWidth <= last; i += kWidth)
            accumulate<FloatVec4>(i, phiNormal);
        for (; i < last; ++i)
            accumulate<float>(i, phiNormal);
    }
};

/// Per-row scratch: sums and per-pixel scales for a RowFilter over `n` pixels.
struct RowBuffers
{
    std::vector<float> data;
    float *sumWeights, *phiDepth, *phiLum;
    float* sums[RowFilter::kMaxChannels];

    explicit RowBuffers(int n) : data(size_t(n) * (3 + RowFilter::kMaxChannels))
    {
        float* p = data.data();
        sumWeights = p, phiDepth = p + n, phiLum = p + 2 * n;
        for (int c = 0; c < RowFilter::kMaxChannels; ++c)
            sums[c] = p + (3 + c) * n;
    }

    /// A RowFilter for the pixels [begin, begin + n) of row y, its sums here.
    RowFilter filter(const Workspace& w, int begin, int y, int channels, bool lastChannelSquaredWeight)
    {
        RowFilter f{&w.depth.at(begin, y), &w.luminance.at(begin, y), &w.normalX.at(begin, y), &w.normalY.at(begin, y), &w.normalZ.at(begin, y),
                    phiDepth, phiLum};
        f.channels = channels, f.lastChannelSquaredWeight = lastChannelSquaredWeight, f.sumWeights = sumWeights;
        std::copy(sums, sums + channels, f.sums);
        return f;
    }
};

/// Stage 3 (SVGFFilterMoments): below 4 frames of history, variance from a 7x7 cross-bilateral
/// estimate of the moments (boosted by 4 / length), which also filters the illumination. Rows are
/// filtered over the span from their first to their last pixel that needs it.
void filterMoments(Workspace& work, const Settings& s, Image<float4>& out)
{
    splitIllumination(work.illumination, work);
    for (Image<float>* img : {&work.firstMoment, &work.secondMoment})
        img->resize(work.moments.width, work.moments.height);
    fill(work.firstMoment, [&](uint32_t x, uint32_t y) { return work.moments.at(x, y).x(); });
    fill(work.secondMoment, [&](uint32_t x, uint32_t y) { return work.moments.at(x, y).y(); });
    const std::vector<const Image<float>*> channels = {&work.red, &work.green, &work.blue, &work.firstMoment, &work.secondMoment};
    const NormalPower phiNormal(s.phiNormal);
    const Workspace& w = work;
    parallelForRows(out.height, [&](uint32_t y) {
        auto needsSpatial = [&](int x) { return w.length.at(x, y) < 4.f && !(w.depth.at(x, y) < 0.f); }; // Short history, a surface.
        int begin = int(out.width), end = 0;
        for (int x = 0; x < int(out.width); ++x)
        {
            out.at(x, y) = w.illumination.at(x, y);
            if (needsSpatial(x))
                begin = std::min(begin, x), end = x + 1;
        }
        if (begin >= end)
            return;
        RowBuffers buffers(end - begin);
        RowFilter filter = buffers.filter(w, begin, int(y), 5, false);
        for (int i = 0; i < end - begin; ++i)
        {
            buffers.phiDepth[i] = std::fmax(w.surfaces.at(begin + i, y).zSlope, 1e-8f) * 3.f;
            buffers.phiLum[i] = s.phiColor;
        }
        filter.kernel = 1.f;
        for (int dy = -3; dy <= 3; ++dy)
            for (int dx = -3; dx <= 3; ++dx)
            {
                filter.distance = std::sqrt(float(dx * dx + dy * dy));
                filter.addTap(w, channels, begin, end, int(y), dx, dy, phiNormal);
            }
        for (int x = begin; x < end; ++x)
        {
            if (!needsSpatial(x))
                continue;
            const int i = x - begin;
            const float sumWeights = std::fmax(buffers.sumWeights[i], 1e-6f);
            const float m1 = buffers.sums[3][i] / sumWeights, m2 = buffers.sums[4][i] / sumWeights;
            const float variance = (m2 - m1 * m1) * (4.f / w.length.at(x, y));
            out.at(x, y) = float4(buffers.sums[0][i] / sumWeights, buffers.sums[1][i] / sumWeights, buffers.sums[2][i] / sumWeights, variance);
        }
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
/// and edge-stopping weights; the variance (alpha) is filtered with the squared weights. Taps in
/// Falcor's order, so each pixel's sums add up as in the shader.
void atrousStep(const Image<float4>& in, Workspace& work, const Settings& s, int step, Image<float4>& out)
{
    splitIllumination(in, work);
    const std::vector<const Image<float>*> channels = {&work.red, &work.green, &work.blue, &work.variance};
    const float kernelWeights[3] = {1.f, 2.f / 3.f, 1.f / 6.f};
    const NormalPower phiNormal(s.phiNormal);
    const Workspace& w = work;
    const int width = int(in.width);
    parallelForRows(in.height, [&](uint32_t y) {
        RowBuffers buffers(width);
        RowFilter filter = buffers.filter(w, 0, int(y), 4, true);
        for (int x = 0; x < width; ++x)
        {
            const float4 center = in.at(x, y);
            buffers.sumWeights[x] = 1.f; // The center counts with weight 1, whatever its edge-stopping weight would be.
            for (int c = 0; c < 4; ++c)
                buffers.sums[c][x] = center[c];
            buffers.phiLum[x] = s.phiColor * std::sqrt(std::max(0.f, 1e-10f + blurredVariance(in, x, int(y))));
            buffers.phiDepth[x] = std::fmax(w.surfaces.at(x, y).zSlope, 1e-8f) * float(step);
        }
        for (int yy = -2; yy <= 2; ++yy)
            for (int xx = -2; xx <= 2; ++xx)
            {
                if (xx == 0 && yy == 0)
                    continue;
                filter.distance = std::sqrt(float(xx * xx + yy * yy));
                filter.kernel = kernelWeights[std::abs(xx)] * kernelWeights[std::abs(yy)];
                filter.addTap(w, channels, 0, width, int(y), xx * step, yy * step, phiNormal);
            }
        for (int x = 0; x < width; ++x)
        {
            const float sw = buffers.sumWeights[x];
            // No surface (environment): left unfiltered.
            out.at(x, y) = w.depth.at(x, y) < 0.f ? in.at(x, y)
                                                  : float4(buffers.sums[0][x] / sw, buffers.sums[1][x] / sw, buffers.sums[2][x] / sw,
                                                           buffers.sums[3][x] / (sw * sw));
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

    filterMoments(work, s, work.current);
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
