#include "CrossFade.h"
#include "CombineInputs.h"
#include "RenderGraph/RenderPassStandardFlags.h"

using namespace falcor;

namespace
{
const std::string kInputA = "A";
const std::string kInputB = "B";
const std::string kOutput = "out";

const std::string kOutputFormat = "outputFormat";
const std::string kEnableAutoFade = "enableAutoFade";
const std::string kWaitFrameCount = "waitFrameCount";
const std::string kFadeFrameCount = "fadeFrameCount";
const std::string kFadeFactor = "fadeFactor";

/// Graph dictionary entry through which passes and the application request a reset.
} // namespace

CrossFade::CrossFade(const Properties& props)
{
    for (const auto& [key, value] : props)
    {
        if (key == kOutputFormat)
            mOutputFormat = value.as<ResourceFormat>(key);
        else if (key == kEnableAutoFade)
            mEnableAutoFade = value.as<bool>(key);
        else if (key == kWaitFrameCount)
            mWaitFrameCount = value.as<uint32_t>(key);
        else if (key == kFadeFrameCount)
            mFadeFrameCount = value.as<uint32_t>(key);
        else if (key == kFadeFactor)
            mFadeFactor = value.as<float>(key);
        else
            warnUnknownProperty(key);
    }
}

Properties CrossFade::getProperties() const
{
    Properties props;
    if (mOutputFormat != ResourceFormat::Unknown)
        props.set(kOutputFormat, mOutputFormat);
    props.set(kEnableAutoFade, mEnableAutoFade);
    props.set(kWaitFrameCount, mWaitFrameCount);
    props.set(kFadeFrameCount, mFadeFrameCount);
    props.set(kFadeFactor, mFadeFactor);
    return props;
}

RenderPassReflection CrossFade::reflect(const CompileData&)
{
    RenderPassReflection r;
    r.addInput(kInputA, "Input A").flags(RenderPassReflection::Field::Flags::Optional);
    r.addInput(kInputB, "Input B").flags(RenderPassReflection::Field::Flags::Optional);
    r.addOutput(kOutput, "Output").format(mOutputFormat);
    return r;
}

void CrossFade::compile(RenderContext*, const CompileData& compileData)
{
    // A new frame size starts the fade over, as if the pass had just been created.
    if (compileData.defaultTexDims != mFrameDim)
        mMixFrame = 0;
    mFrameDim = compileData.defaultTexDims;
}

float CrossFade::nextMix(const RenderData& renderData)
{
    const bool refresh = renderData.getDictionary().get<uint32_t>(kRenderPassRefreshFlags, 0) != 0;
    mMixFrame = refresh ? 0 : mMixFrame + 1;

    // std::clamp passes NaN through, like Falcor's math::clamp (only reachable with fadeFrameCount 0).
    if (mEnableAutoFade)
        return std::clamp((float(mMixFrame) - float(mWaitFrameCount)) / float(mFadeFrameCount), 0.f, 1.f);
    return std::clamp(mFadeFactor, 0.f, 1.f);
}

void CrossFade::execute(RenderContext*, const RenderData& renderData)
{
    Texture& out = *renderData[kOutput];
    FALCOR_CHECK(!isIntegerFormat(out.getFormat()), "CrossFade: output '", kOutput, "' has integer format '", to_string(out.getFormat()),
                 "'; CrossFade only writes float/normalized formats (set 'outputFormat').");

    const float mix = nextMix(renderData);
    const float scaleA = 1.f - mix, scaleB = mix;
    combineInputs(renderData[kInputA], renderData[kInputB], out, mFrameDim,
                  [=](const float4& a, const float4& b) { return (scaleA * a) + (scaleB * b); });
}
