#include "Composite.h"
#include "CombineInputs.h"

using namespace falcor;

namespace
{
const std::string kInputA = "A";
const std::string kInputB = "B";
const std::string kOutput = "out";

const std::string kMode = "mode";
const std::string kScaleA = "scaleA";
const std::string kScaleB = "scaleB";
const std::string kOutputFormat = "outputFormat";
} // namespace

Composite::Composite(const Properties& props)
{
    for (const auto& [key, value] : props)
    {
        if (key == kMode)
            mMode = value.as<CompositeMode>(key);
        else if (key == kScaleA)
            mScaleA = value.as<float>(key);
        else if (key == kScaleB)
            mScaleB = value.as<float>(key);
        else if (key == kOutputFormat)
            mOutputFormat = value.as<ResourceFormat>(key);
        else
            warnUnknownProperty(key);
    }
}

Properties Composite::getProperties() const
{
    Properties props;
    props.set(kMode, mMode);
    props.set(kScaleA, mScaleA);
    props.set(kScaleB, mScaleB);
    if (mOutputFormat != ResourceFormat::Unknown)
        props.set(kOutputFormat, mOutputFormat);
    return props;
}

RenderPassReflection Composite::reflect(const CompileData&)
{
    RenderPassReflection r;
    r.addInput(kInputA, "Input A").flags(RenderPassReflection::Field::Flags::Optional);
    r.addInput(kInputB, "Input B").flags(RenderPassReflection::Field::Flags::Optional);
    r.addOutput(kOutput, "Output").format(mOutputFormat);
    return r;
}

void Composite::compile(RenderContext*, const CompileData& compileData)
{
    mFrameDim = compileData.defaultTexDims;
}

void Composite::execute(RenderContext*, const RenderData& renderData)
{
    Texture& out = *renderData[kOutput];
    const bool roundToInteger = isIntegerFormat(out.getFormat());
    const float scaleA = mScaleA, scaleB = mScaleB;
    const CompositeMode mode = mMode;

    combineInputs(renderData[kInputA], renderData[kInputB], out, mFrameDim, [=](const float4& a, const float4& b) {
        float4 result = mode == CompositeMode::Add ? (scaleA * a) + (scaleB * b) : (scaleA * a) * (scaleB * b);
        // nearbyint rounds ties to even in the default rounding mode, like HLSL round() on GPUs.
        return roundToInteger ? map(result, [](float v) { return std::nearbyint(v); }) : result;
    });
}
