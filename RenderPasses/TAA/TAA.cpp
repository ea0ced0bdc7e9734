#include "TAA.h"
#include "Core/PluginRegistry.h"
#include "Core/ThreadPool.h"
#include "Temporal/TemporalColor.h"
#include <cmath>

using namespace falcor;
using namespace falcor::temporal;

namespace
{
const std::string kMotionVec = "motionVecs";
const std::string kColorIn = "colorIn";
const std::string kColorOut = "colorOut";

const std::string kAlpha = "alpha";
const std::string kColorBoxSigma = "colorBoxSigma";
const std::string kAntiFlicker = "antiFlicker";

/// One output pixel of Falcor's TAA.ps.slang; `colorYCgCo` is the color input converted to YCgCo.
float3 resolvePixel(const TAA::Controls& controls, const ImageView& colorYCgCo, const ImageView& motionVecs, const ImageView& history,
                    int x, int y)
{
    const float3 center = colorYCgCo.load(x, y).xyz();
    const ColorBox box = neighbourhoodBox(colorYCgCo, x, y, controls.colorBoxSigma);
    const float3 &boxMin = box.min, &boxMax = box.max;

    // History along the longest motion vector of the neighbourhood.
    float2 motion(motionVecs.load(x, y).x(), motionVecs.load(x, y).y());
    for (const auto& o : kNeighbourOffsets)
    {
        const float4 m = motionVecs.load(x + o[0], y + o[1]);
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
    return yCgCoToRgb(lerp(box.clamp(past), center, alpha));
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
