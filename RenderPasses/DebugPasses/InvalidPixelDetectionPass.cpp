#include "InvalidPixelDetectionPass.h"
#include "Core/Logger.h"
#include "Core/ThreadPool.h"
#include <algorithm>

using namespace falcor;

namespace
{
const std::string kSrc = "src";
const std::string kDst = "dst";
const std::string kSrcDesc = "Input image to be checked";
const std::string kDstDesc = "Output where pixels are red if NaN, green if Inf, and black otherwise";

const float4 kNanColor(1.f, 0.f, 0.f, 1.f);
const float4 kInfColor(0.f, 1.f, 0.f, 1.f);
const float4 kValidColor(0.f, 0.f, 0.f, 1.f);

float4 classify(const float4& texel)
{
    auto any = [&](auto predicate) { return std::any_of(texel.data, texel.data + 4, predicate); };
    if (any([](float v) { return std::isnan(v); }))
        return kNanColor;
    if (any([](float v) { return std::isinf(v); }))
        return kInfColor;
    return kValidColor;
}

/// The source texel the shader reads for output column (or row) `i`: it scales the output's
/// texture coordinate by the source size, which is the identity when the sizes match.
uint32_t sourceIndex(uint32_t i, uint32_t dstSize, uint32_t srcSize)
{
    return std::min(uint32_t(float(srcSize) * ((float(i) + 0.5f) / float(dstSize))), srcSize - 1);
}
} // namespace

RenderPassReflection InvalidPixelDetectionPass::reflect(const CompileData& compileData)
{
    RenderPassReflection r;
    const RenderPassReflection::Field* connected = compileData.connectedResources.getField(kSrc);
    if (!connected)
    {
        r.addInput(kSrc, kSrcDesc);
        r.addOutput(kDst, kDstDesc);
        return r;
    }
    // Mirror the connected resource: src takes its size and format, dst its size (default format).
    auto mirrorSize = [&](RenderPassReflection::Field& f) -> RenderPassReflection::Field& {
        return f.texture2D(connected->getWidth(), connected->getHeight(), connected->getArraySize(), connected->getMipCount());
    };
    mirrorSize(r.addInput(kSrc, kSrcDesc)).format(connected->getFormat());
    mirrorSize(r.addOutput(kDst, kDstDesc));
    return r;
}

void InvalidPixelDetectionPass::compile(RenderContext*, const CompileData& compileData)
{
    FALCOR_CHECK(compileData.connectedResources.getField(kSrc), "Input '", kSrc, "' is not connected; the pass needs it to size its output.");
}

void InvalidPixelDetectionPass::execute(RenderContext*, const RenderData& renderData)
{
    const Texture& src = *renderData[kSrc];
    Texture& dst = *renderData[kDst];
    if (!isFloatFormat(src.getFormat()))
        logWarningOnce("InvalidPixelDetectionPass: input format ", to_string(src.getFormat()),
                       " can't hold NaN or Inf values; the output will be black.");

    parallelForRows(dst.getHeight(), [&](uint32_t y) {
        std::vector<float4> in(src.getWidth()), out(dst.getWidth());
        src.loadRow(sourceIndex(y, dst.getHeight(), src.getHeight()), in.data());
        for (uint32_t x = 0; x < out.size(); ++x)
            out[x] = classify(in[sourceIndex(x, dst.getWidth(), src.getWidth())]);
        dst.storeRow(y, out.data());
    });
}
