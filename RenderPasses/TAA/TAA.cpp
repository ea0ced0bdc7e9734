#include "TAA.h"
#include "Core/PluginRegistry.h"
#include "Core/ThreadPool.h"
#include <cmath>

using namespace falcor;

namespace
{
const std::string kMotionVec = "motionVecs";
const std::string kColorIn = "colorIn";
const std::string kColorOut = "colorOut";

const std::string kAlpha = "alpha";
const std::string kColorBoxSigma = "colorBoxSigma";
const std::string kAntiFlicker = "antiFlicker";

/// The 3x3 neighbourhood without its center, in Falcor's order (it decides ties between
/// equally long motion vectors).
const int2 kNeighbourOffsets[8] = {{-1, -1}, {-1, 1}, {1, -1}, {1, 1}, {1, 0}, {0, -1}, {0, 1}, {-1, 0}};

/// A decoded float4 image, rows top to bottom.
struct ImageView
{
    const float4* texels;
    uint32_t width, height;

    /// A GPU Load: texels outside the image read as 0.
    float4 load(int x, int y) const
    {
        const bool inside = x >= 0 && y >= 0 && x < int(width) && y < int(height);
        return inside ? texels[size_t(y) * width + x] : float4(0.f);
    }
};

/// A GPU's clamp, min(max(v, lo), hi), whose min and max ignore a NaN operand: a flat neighbourhood
/// gives the anti-flicker ratio 0 / 0, which clamps to 0.
float gpuClamp(float v, float lo, float hi)
{
    return std::fmin(std::fmax(v, lo), hi);
}

float3 rgbToYCgCo(const float3& rgb)
{
    return {dot(rgb, float3(0.25f, 0.5f, 0.25f)), dot(rgb, float3(-0.25f, 0.5f, -0.25f)), dot(rgb, float3(0.5f, 0.f, -0.5f))};
}

/// Decodes `tex` into `texels` (reusing its memory), each texel passed through `convert`.
template<typename Convert>
void decodeImage(const Texture& tex, std::vector<float4>& texels, Convert&& convert)
{
    const uint32_t width = tex.getWidth();
    texels.resize(size_t(width) * tex.getHeight());
    parallelForRows(tex.getHeight(), [&](uint32_t y) {
        float4* row = texels.data() + size_t(y) * width;
        tex.loadRow(y, row);
        for (uint32_t x = 0; x < width; ++x)
            row[x] = convert(row[x]);
    });
}

float3 yCgCoToRgb(const float3& c)
{
    const float yMinusCg = c.x() - c.y();
    return {yMinusCg + c.z(), c.x() + c.y(), yMinusCg - c.z()};
}

/// Index of texel coordinate `i` (a whole number) under wrap addressing.
uint32_t wrapIndex(float i, uint32_t size)
{
    if (i >= 0.f && i < float(size))
        return uint32_t(i);
    double r = std::fmod(double(i), double(size));
    r = r < 0.0 ? r + size : r;
    return r < double(size) ? uint32_t(r) : 0u;
}

/// Bilinear sample at texture coordinates (u, v), wrap addressing (Falcor's default sampler).
float3 sampleBilinearWrap(const ImageView& img, float u, float v)
{
    const float x = u * float(img.width) - 0.5f, y = v * float(img.height) - 0.5f;
    const float x0 = std::floor(x), y0 = std::floor(y);
    if (!std::isfinite(x0) || !std::isfinite(y0))
        return float3(0.f);
    const uint32_t i0 = wrapIndex(x0, img.width), i1 = wrapIndex(x0 + 1.f, img.width);
    const uint32_t j0 = wrapIndex(y0, img.height), j1 = wrapIndex(y0 + 1.f, img.height);
    auto texel = [&](uint32_t i, uint32_t j) { return img.texels[size_t(j) * img.width + i].xyz(); };
    const float tx = x - x0, ty = y - y0;
    return lerp(lerp(texel(i0, j0), texel(i1, j0), tx), lerp(texel(i0, j1), texel(i1, j1), tx), ty);
}

/// One axis of Catmull-Rom filtering in three bilinear taps: their texture coordinates and weights.
struct CatmullRomTaps
{
    float coord[3];
    float weight[3];
};

/// The taps along one axis for a sample at `pos` (texels) in a texture `size` texels long.
CatmullRomTaps catmullRomTaps(float pos, float size)
{
    const float invSize = 1.f / size;
    const float tc = std::floor(pos - 0.5f) + 0.5f;
    const float f = pos - tc, f2 = f * f, f3 = f2 * f;
    const float w0 = f2 - 0.5f * (f3 + f);
    const float w1 = 1.5f * f3 - 2.5f * f2 + 1.f;
    const float w3 = 0.5f * (f3 - f2);
    const float w2 = 1.f - w0 - w1 - w3;
    const float w12 = w1 + w2;
    // The middle two taps merge into one bilinear tap placed between them by their weights.
    return {{(tc - 1.f) * invSize, (tc + w2 / w12) * invSize, (tc + 2.f) * invSize}, {w0, w12, w3}};
}

/// Bicubic Catmull-Rom sample at `pos` (in texels) from nine bilinear taps.
float3 sampleCatmullRom(const ImageView& img, float2 pos)
{
    const CatmullRomTaps tx = catmullRomTaps(pos.x(), float(img.width));
    const CatmullRomTaps ty = catmullRomTaps(pos.y(), float(img.height));
    float3 sum(0.f);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            sum += sampleBilinearWrap(img, tx.coord[i], ty.coord[j]) * (tx.weight[i] * ty.weight[j]);
    return sum;
}

/// One output pixel of Falcor's TAA.ps.slang; `colorYCgCo` is the color input converted to YCgCo.
float3 resolvePixel(const TAA::Controls& controls, const ImageView& colorYCgCo, const ImageView& motionVecs, const ImageView& history,
                    int x, int y)
{
    // Color box of the neighbourhood in YCgCo.
    const float3 center = colorYCgCo.load(x, y).xyz();
    float3 mean = center, meanSquare = center * center;
    for (const int2& o : kNeighbourOffsets)
    {
        const float3 c = colorYCgCo.load(x + o.x(), y + o.y()).xyz();
        mean += c;
        meanSquare += c * c;
    }
    mean *= 1.f / 9.f;
    meanSquare *= 1.f / 9.f;
    const float3 sigma = map(meanSquare - mean * mean, [](float v) { return std::sqrt(std::fmax(0.f, v)); });
    const float3 boxMin = mean - controls.colorBoxSigma * sigma, boxMax = mean + controls.colorBoxSigma * sigma;

    // History along the longest motion vector of the neighbourhood.
    float2 motion(motionVecs.load(x, y).x(), motionVecs.load(x, y).y());
    for (const int2& o : kNeighbourOffsets)
    {
        const float4 m = motionVecs.load(x + o.x(), y + o.y());
        const float2 candidate(m.x(), m.y());
        motion = dot(candidate, candidate) > dot(motion, motion) ? candidate : motion;
    }
    const float2 dims(float(colorYCgCo.width), float(colorYCgCo.height));
    const float2 texC = (float2(float(x), float(y)) + 0.5f) / dims;
    float3 past = rgbToYCgCo(sampleCatmullRom(history, (texC + motion) * dims));

    float alpha = controls.alpha;
    if (controls.antiFlicker) // Trust the current frame less when the history sits near the box's edge (Karis 2014).
    {
        const float distToClamp = std::min(std::abs(boxMin.x() - past.x()), std::abs(boxMax.x() - past.x()));
        alpha = gpuClamp((controls.alpha * distToClamp) / (distToClamp + boxMax.x() - boxMin.x()), 0.f, 1.f);
    }
    for (int c = 0; c < 3; ++c)
        past[c] = gpuClamp(past[c], boxMin[c], boxMax[c]);
    return yCgCoToRgb(lerp(past, center, alpha));
}
} // namespace

TAA::TAA(const Properties& props)
{
    for (const auto& [key, value] : props)
    {
        if (key == kAlpha)
            mControls.alpha = value.as<float>(key);
        else if (key == kColorBoxSigma)
            mControls.colorBoxSigma = value.as<float>(key);
        else if (key == kAntiFlicker)
            mControls.antiFlicker = value.as<bool>(key);
        else
            warnUnknownProperty(key);
    }
    scriptProperty<float>("alpha", [this] { return mControls.alpha; }, [this](float a) { mControls.alpha = a; });
    scriptProperty<float>("sigma", [this] { return mControls.colorBoxSigma; }, [this](float s) { mControls.colorBoxSigma = s; });
    scriptProperty<bool>("antiFlicker", [this] { return mControls.antiFlicker; }, [this](bool a) { mControls.antiFlicker = a; });
}

Properties TAA::getProperties() const
{
    Properties props;
    props.set(kAlpha, mControls.alpha);
    props.set(kColorBoxSigma, mControls.colorBoxSigma);
    props.set(kAntiFlicker, mControls.antiFlicker);
    return props;
}

RenderPassReflection TAA::reflect(const CompileData& compileData)
{
    RenderPassReflection r;
    r.addInput(kMotionVec, "Screen-space motion vectors");
    r.addInput(kColorIn, "Color-buffer of the current frame");
    r.addOutput(kColorOut, "Anti-aliased color buffer");
    return r;
}

void TAA::matchHistoryTo(const Texture& colorOut)
{
    if (colorOut.getDims() == mHistoryDims && colorOut.getFormat() == mHistoryFormat)
        return;
    mHistoryDims = colorOut.getDims();
    mHistoryFormat = colorOut.getFormat();
    mHistory.assign(size_t(mHistoryDims.x()) * mHistoryDims.y(), float4(0.f));
}

void TAA::execute(RenderContext*, const RenderData& renderData)
{
    const Texture& colorIn = *renderData[kColorIn];
    const Texture& motionVecs = *renderData[kMotionVec];
    Texture& colorOut = *renderData[kColorOut];
    checkFieldDims(getType(), colorOut.getDims(), {{kColorIn, &colorIn}, {kMotionVec, &motionVecs}});
    matchHistoryTo(colorOut);

    const uint32_t width = colorOut.getWidth(), height = colorOut.getHeight();
    decodeImage(colorIn, mColorYCgCo, [](const float4& c) {
        const float3 converted = rgbToYCgCo(c.xyz());
        return float4(converted.x(), converted.y(), converted.z(), 0.f);
    });
    decodeImage(motionVecs, mMotion, [](const float4& m) { return m; });
    const ImageView colorView{mColorYCgCo.data(), width, height}, motionView{mMotion.data(), width, height};
    const ImageView historyView{mHistory.data(), width, height};
    mNextHistory.resize(mHistory.size());
    parallelForRows(height, [&](uint32_t y) {
        float4* row = mNextHistory.data() + size_t(y) * width;
        for (uint32_t x = 0; x < width; ++x)
        {
            const float3 c = resolvePixel(mControls, colorView, motionView, historyView, int(x), int(y));
            row[x] = float4(c.x(), c.y(), c.z(), 1.f);
        }
        colorOut.storeRow(y, row);
        colorOut.loadRow(y, row); // The history holds what the output format kept.
    });
    mHistory.swap(mNextHistory);
}

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(PluginRegistry& registry)
{
    registry.registerRenderPass<TAA>();
}
