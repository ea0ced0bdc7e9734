#include "DLSSPass.h"
#include "Utils/Math/MathHelpers.h"
#include "Core/Logger.h"
#include "Core/PluginRegistry.h"
#include "Core/ThreadPool.h"
#include "Scene/Scene.h"
#include "Temporal/TemporalColor.h"
#include <cmath>
#include <limits>

using namespace falcor;
using namespace falcor::temporal;

namespace
{
const std::string kColorInput = "color";
const std::string kDepthInput = "depth";
const std::string kMotionVectorsInput = "mvec";
const std::string kOutput = "output";

const std::string kEnabled = "enabled";
const std::string kOutputSize = "outputSize";
const std::string kProfile = "profile";
const std::string kMotionVectorScale = "motionVectorScale";
const std::string kIsHDR = "isHDR";
const std::string kSharpness = "sharpness";
const std::string kExposure = "exposure";

/// Standard deviation of the Gaussian weighting a sample by its distance to the output pixel's
/// center, in output pixels: narrow enough that the accumulation converges close to the pixel's
/// box-filtered mean, wide enough that every output pixel gets weight from its nearest samples.
constexpr float kSampleSigma = 0.4f;
/// Cap of a still pixel's accumulated sample weight (in full-weight samples): the longest memory,
/// so that lighting changes fade in rather than waiting on an ever-growing average.
constexpr float kMaxHistoryWeight = 16.f;
/// Cap for a pixel whose surface moved: every move resamples (and so blurs) the history, which a
/// long memory would compound; measured on a panning camera, 0.5 halved the error of 16.
constexpr float kMovingHistoryWeight = 0.5f;
/// Motion (output pixels) below which a pixel counts as still (G-buffers leave rounding residues).
constexpr float kStillMotion = 0.01f;
/// Offset from a texel center (output pixels) below which the history is read without filtering.
constexpr float kTexelSnap = 1e-3f;
/// Half-width of the history clamp's YCgCo box, in standard deviations of the input neighbourhood.
constexpr float kColorBoxSigma = 1.f;
/// The largest tone-mapped channel the inverse tone map accepts (1 would map to infinity).
constexpr float kMaxToneMapped = 1.f - 1.f / (1 << 20);

/// NGX's render-size ratios of the profiles (render size / output size per axis).
float renderRatio(DLSSProfile profile)
{
    switch (profile)
    {
    case DLSSProfile::MaxPerf:
        return 0.5f;
    case DLSSProfile::MaxQuality:
        return 2.f / 3.f;
    default:
        return 0.58f;
    }
}

/// Input color in the accumulation's space: finite, non-negative, exposed and tone-mapped (HDR).
float3 toAccumulationSpace(float3 rgb, bool isHDR, float exposureScale)
{
    rgb = map(rgb, [](float v) { return std::isfinite(v) ? std::max(v, 0.f) : 0.f; });
    if (!isHDR)
        return rgb;
    rgb *= exposureScale;
    return rgb * (1.f / (1.f + maxComponent(rgb)));
}

float3 fromAccumulationSpace(float3 rgb, bool isHDR, float exposureScale)
{
    // Catmull-Rom and sharpening may overshoot; color is non-negative (and the tone map's below 1).
    rgb = map(rgb, [](float v) { return std::fmax(v, 0.f); });
    if (!isHDR)
        return rgb;
    rgb = map(rgb, [](float v) { return std::fmin(v, kMaxToneMapped); });
    return rgb * (1.f / ((1.f - maxComponent(rgb)) * exposureScale));
}

bool inUnitSquare(const float2& uv)
{
    return uv.x() >= 0.f && uv.x() <= 1.f && uv.y() >= 0.f && uv.y() <= 1.f;
}
} // namespace

/// The decoded inputs of one frame, in the input's pixels.
struct DLSSPass::Frame
{
    ImageView color;  ///< Accumulation-space YCgCo.
    ImageView depth;  ///< x: depth.
    ImageView motion; ///< xy: motion to the previous frame, in frame fractions (UV).
    const ColorBox* boxes; ///< The history clamp's box of each input pixel's neighbourhood.
    float2 jitter;    ///< Offset of every sample from its pixel's center, in pixels (x right, y down).
};

DLSSPass::DLSSPass(const Properties& props)
{
    logWarningOnce("DLSSPass: this is a CPU replacement, a temporal anti-aliasing upscaler, not NVIDIA DLSS.");
    for (const auto& [key, value] : props)
    {
        if (key == kEnabled)
            mEnabled = value.as<bool>(key);
        else if (key == kOutputSize)
            mOutputSizeSelection = value.as<IOSize>(key);
        else if (key == kProfile)
            mProfile = value.as<DLSSProfile>(key);
        else if (key == kMotionVectorScale)
            mMotionVectorScale = value.as<DLSSMotionVectorScale>(key);
        else if (key == kIsHDR)
            mIsHDR = value.as<bool>(key);
        else if (key == kSharpness)
            mSharpness = value.as<float>(key);
        else if (key == kExposure)
            mExposure = value.as<float>(key);
        else
            warnUnknownProperty(key);
    }
    FALCOR_CHECK(mSharpness >= -1.f && mSharpness <= 1.f, "DLSSPass: property '", kSharpness, "' must be in [-1, 1], got ", mSharpness, ".");
    FALCOR_CHECK(std::isfinite(mExposure) && std::abs(mExposure) <= 100.f, "DLSSPass: property '", kExposure,
                 "' must be a finite log2 scale in [-100, 100], got ", mExposure, ".");
}

Properties DLSSPass::getProperties() const
{
    Properties props;
    props.set(kEnabled, mEnabled);
    props.set(kOutputSize, mOutputSizeSelection);
    props.set(kProfile, mProfile);
    props.set(kMotionVectorScale, mMotionVectorScale);
    props.set(kIsHDR, mIsHDR);
    props.set(kSharpness, mSharpness);
    props.set(kExposure, mExposure);
    return props;
}

uint2 DLSSPass::outputSizeFor(uint2 inputSize, DLSSProfile profile)
{
    const float ratio = renderRatio(profile);
    uint2 size;
    for (int i = 0; i < 2; ++i)
    {
        const float in = float(inputSize[i]);
        const float renderSize = std::max(1.f, std::round(in * ratio));
        size[i] = uint32_t(in * in / renderSize);
    }
    return size;
}

RenderPassReflection DLSSPass::reflect(const CompileData& compileData)
{
    // 'Fixed' is the DLSS output size of the input; known from the connected color before the first frame.
    uint2 fixedSize = mDLSSOutputSize;
    if (const RenderPassReflection::Field* color = compileData.connectedResources.getField(kColorInput);
        color && color->getWidth() > 0 && color->getHeight() > 0)
        fixedSize = outputSizeFor({color->getWidth(), color->getHeight()}, mProfile);
    const uint2 size = calculateIOSize(mOutputSizeSelection, fixedSize, compileData.defaultTexDims);

    RenderPassReflection r;
    r.addInput(kColorInput, "Color input");
    r.addInput(kDepthInput, "Depth input");
    r.addInput(kMotionVectorsInput, "Motion vectors input");
    r.addOutput(kOutput, "Color output").format(ResourceFormat::RGBA32Float).texture2D(size);
    return r;
}

void DLSSPass::setScene(RenderContext*, const std::shared_ptr<Scene>& pScene)
{
    mpScene = pScene;
    resetHistory();
}

void DLSSPass::onSceneUpdates(RenderContext*, SceneUpdateFlags sceneUpdates)
{
    if (isSet(sceneUpdates, SceneUpdateFlags::CameraSwitched))
        resetHistory();
}

void DLSSPass::execute(RenderContext* pRenderContext, const RenderData& renderData)
{
    const Texture& color = *renderData[kColorInput];
    Texture& output = *renderData[kOutput];
    checkFieldDims(getType(), color.getDims(), {{kDepthInput, renderData[kDepthInput]}, {kMotionVectorsInput, renderData[kMotionVectorsInput]}});
    if (!mEnabled || !mpScene)
    {
        pRenderContext->blit(color, output);
        resetHistory();
        return;
    }
    if (color.getDims() != mInputSize)
    {
        mInputSize = color.getDims();
        mDLSSOutputSize = outputSizeFor(mInputSize, mProfile);
        resetHistory();
    }
    // As Falcor: a 'Fixed' output of the wrong size is resized by a recompile before the next frame.
    if (mOutputSizeSelection == IOSize::Fixed && output.getDims() != mDLSSOutputSize)
        requestRecompile();
    upscale(renderData);
    storeOutput(output);
}

void DLSSPass::upscale(const RenderData& renderData)
{
    const float exposureScale = std::exp2(mExposure);
    const bool isHDR = mIsHDR;
    decodeImage(*renderData[kColorInput], mColor, [=](const float4& c) {
        const float3 ycgco = rgbToYCgCo(toAccumulationSpace(c.xyz(), isHDR, exposureScale));
        return float4(ycgco.x(), ycgco.y(), ycgco.z(), 0.f);
    });
    decodeImage(*renderData[kDepthInput], mDepth, [](const float4& d) { return d; });
    const float2 motionToUV = mMotionVectorScale == DLSSMotionVectorScale::Relative ? float2(1.f) : 1.f / float2(mInputSize);
    decodeImage(*renderData[kMotionVectorsInput], mMotion, [=](const float4& m) {
        const float2 uv = float2(m.x(), m.y()) * motionToUV;
        return float4(uv.x(), uv.y(), 0.f, 0.f);
    });

    // The camera's jitter is a fraction of the frame, x positive moving the image right and y up
    // (Camera::computeRayPinhole), so the sample of a pixel sits at its center minus x, plus y.
    const CameraData& camera = mpScene->getCamera().getData();
    const uint32_t w = mInputSize.x(), h = mInputSize.y();
    const ImageView color{mColor.data(), w, h};
    // The history clamp's box depends only on the input pixel: computed once per input pixel.
    mBoxes.resize(mColor.size());
    parallelForRows(h, [&](uint32_t y) {
        for (uint32_t x = 0; x < w; ++x)
            mBoxes[size_t(y) * w + x] = neighbourhoodBox<true>(color, int(x), int(y), kColorBoxSigma);
    });
    Frame frame{color, {mDepth.data(), w, h}, {mMotion.data(), w, h}, mBoxes.data(), float2(-camera.jitterX * float(w), camera.jitterY * float(h))};
    resolve(frame, renderData[kOutput]->getDims());
}

namespace
{
/// The three input samples along one axis around an output pixel's center and their Gaussian
/// weights (the 2D weight is the product of the two axes'), so that no pixel computes an exp.
struct AxisTaps
{
    int first;          ///< Input pixel of tap 0; taps first .. first + 2.
    int begin, end;     ///< The taps inside the image: [begin, end).
    float weight[3];    ///< Relative to the nearest tap's (1), 0 outside the image; relative, so that the mean survives when all are tiny.
    float weightSum;
    float nearestScale; ///< The nearest tap's absolute weight along this axis.
};

/// Taps of output pixel `i` of an axis: `toInput` input pixels per output pixel, samples offset by
/// `jitter` input pixels from their pixel's center, `inSize` input pixels.
AxisTaps axisTaps(uint32_t i, float toInput, float jitter, int inSize)
{
    const float posIn = (float(i) + 0.5f) * toInput;
    AxisTaps taps;
    taps.first = int(std::floor(posIn - jitter)) - 1; // The middle tap's sample cell holds the pixel center.
    taps.begin = std::max(0, -taps.first);
    taps.end = std::min(3, inSize - taps.first);
    float dist2[3], minDist2 = std::numeric_limits<float>::infinity();
    for (int t = taps.begin; t < taps.end; ++t)
    {
        const float d = (posIn - (float(taps.first + t) + 0.5f + jitter)) / toInput; // In output pixels.
        dist2[t] = d * d;
        minDist2 = std::min(minDist2, dist2[t]);
    }
    const float k = 1.f / (2.f * kSampleSigma * kSampleSigma);
    taps.weightSum = 0.f;
    for (int t = 0; t < 3; ++t)
    {
        taps.weight[t] = t >= taps.begin && t < taps.end ? std::exp(-(dist2[t] - minDist2) * k) : 0.f;
        taps.weightSum += taps.weight[t];
    }
    taps.nearestScale = std::exp(-minDist2 * k);
    return taps;
}

std::vector<AxisTaps> axisTapTable(uint32_t outSize, uint32_t inSize, float jitter)
{
    std::vector<AxisTaps> table(outSize);
    const float toInput = float(inSize) / float(outSize);
    for (uint32_t i = 0; i < outSize; ++i)
        table[i] = axisTaps(i, toInput, jitter, int(inSize));
    return table;
}

/// The history at `pos` (output pixels): Catmull-Rom, or the texel itself where `pos` is within
/// kTexelSnap of its center (still pixels): the filter would return it up to that offset, and
/// every resampling would blur the history a little more.
float3 readHistory(const ImageView& history, float2 pos)
{
    const float2 texel(std::floor(pos.x()), std::floor(pos.y()));
    const float2 offset = pos - texel - 0.5f;
    if (std::abs(offset.x()) <= kTexelSnap && std::abs(offset.y()) <= kTexelSnap)
        return history.loadClamped(int(texel.x()), int(texel.y())).xyz();
    return sampleCatmullRomClamped(history, pos);
}

/// The current frame's estimate at one output pixel: the Gaussian-weighted mean of the 3x3
/// samples around it, its total weight, and the motion of the closest-depth sample.
struct CurrentEstimate
{
    float3 color{0.f};
    float weight = 0.f;
    float2 motion{0.f};
};

template<typename Frame>
CurrentEstimate gatherSamples(const Frame& frame, const AxisTaps& column, const AxisTaps& row)
{
    CurrentEstimate estimate;
    float minDepth = std::numeric_limits<float>::infinity();
    for (int j = row.begin; j < row.end; ++j)
        for (int i = column.begin; i < column.end; ++i)
        {
            const int x = column.first + i, y = row.first + j;
            estimate.color += frame.color.load(x, y).xyz() * (column.weight[i] * row.weight[j]);
            const float depth = frame.depth.load(x, y).x();
            if (depth < minDepth) // Motion of the closest surface, so that the edges of objects in front follow them.
            {
                minDepth = depth;
                const float4 motion = frame.motion.load(x, y);
                estimate.motion = float2(motion.x(), motion.y());
            }
        }
    const float relativeWeight = column.weightSum * row.weightSum;
    estimate.color *= 1.f / relativeWeight;
    estimate.weight = relativeWeight * column.nearestScale * row.nearestScale;
    return estimate;
}
} // namespace

void DLSSPass::resolve(const Frame& frame, uint2 outputDims)
{
    const bool hasHistory = mHistoryDims == outputDims;
    const uint32_t width = outputDims.x();
    mNextHistory.resize(size_t(width) * outputDims.y());
    const float2 outDims(outputDims);
    const std::vector<AxisTaps> columns = axisTapTable(width, mInputSize.x(), frame.jitter.x());
    const std::vector<AxisTaps> rows = axisTapTable(outputDims.y(), mInputSize.y(), frame.jitter.y());
    const ImageView history{mHistory.data(), width, outputDims.y()};
    parallelForRows(outputDims.y(), [&](uint32_t y) {
        const AxisTaps& row = rows[y];
        for (uint32_t x = 0; x < width; ++x)
        {
            const AxisTaps& column = columns[x];
            const CurrentEstimate current = gatherSamples(frame, column, row);

            float3 past(0.f);
            float pastWeight = 0.f;
            const float2 prevUV = (float2(float(x), float(y)) + 0.5f) / outDims + current.motion;
            if (hasHistory && inUnitSquare(prevUV))
            {
                // The clamp trusts the neighbourhood as much as this frame has samples near the pixel: a
                // thin feature that this frame's samples missed stays in the history.
                const int boxX = std::clamp(column.first + 1, 0, int(mInputSize.x()) - 1);
                const int boxY = std::clamp(row.first + 1, 0, int(mInputSize.y()) - 1);
                const ColorBox& box = frame.boxes[size_t(boxY) * mInputSize.x() + boxX];
                const float3 reprojected = readHistory(history, prevUV * outDims);
                past = lerp(reprojected, box.clamp(reprojected), std::min(1.f, current.weight));
                pastWeight = history.loadClamped(int(prevUV.x() * outDims.x()), int(prevUV.y() * outDims.y())).w();
            }
            const float total = pastWeight + current.weight;
            const float3 color = total > 0.f ? (past * pastWeight + current.color * current.weight) * (1.f / total) : current.color;
            const float2 motionPixels = current.motion * outDims;
            const bool still = dot(motionPixels, motionPixels) <= kStillMotion * kStillMotion;
            const float weight = std::min(total, still ? kMaxHistoryWeight : kMovingHistoryWeight);
            mNextHistory[size_t(y) * width + x] = float4(color.x(), color.y(), color.z(), weight);
        }
    });
    mHistory.swap(mNextHistory);
    mHistoryDims = outputDims;
}

void DLSSPass::storeOutput(Texture& output)
{
    const uint32_t width = mHistoryDims.x(), height = mHistoryDims.y();
    const ImageView image{mHistory.data(), width, height};
    const float sharpness = mSharpness, exposureScale = std::exp2(mExposure);
    const bool isHDR = mIsHDR;
    mOutputRows.resize(size_t(width) * height);
    parallelForRows(height, [&](uint32_t y) {
        float4* row = mOutputRows.data() + size_t(y) * width;
        for (uint32_t x = 0; x < width; ++x)
        {
            float3 c = image.load(int(x), int(y)).xyz();
            if (sharpness != 0.f)
            {
                // Unsharp mask against the 4 neighbours; sharpening stays within their range (no halos),
                // -1 gives their mean.
                const int ix = int(x), iy = int(y);
                const float3 taps[4] = {image.loadClamped(ix - 1, iy).xyz(), image.loadClamped(ix + 1, iy).xyz(),
                                        image.loadClamped(ix, iy - 1).xyz(), image.loadClamped(ix, iy + 1).xyz()};
                ColorBox range{c, c};
                float3 mean(0.f);
                for (const float3& t : taps)
                {
                    mean += t * 0.25f;
                    range.min = min(range.min, t);
                    range.max = max(range.max, t);
                }
                c = range.clamp(c + (c - mean) * sharpness);
            }
            const float3 rgb = fromAccumulationSpace(yCgCoToRgb(c), isHDR, exposureScale);
            row[x] = float4(rgb.x(), rgb.y(), rgb.z(), 1.f);
        }
        output.storeRow(y, row);
    });
}

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(PluginRegistry& registry)
{
    registry.registerRenderPass<DLSSPass>();
}
