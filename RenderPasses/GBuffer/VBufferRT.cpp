#include "VBufferRT.h"

namespace falcor
{
namespace
{
enum Channel : size_t
{
    kVBuffer,
    kDepth,
    kMVec,
    kViewW,
    kTime,
    kMask,
};

const ChannelDesc kVBufferChannel = {"vbuffer", "V-buffer in packed format (indices + barycentrics)", ResourceFormat::RGBA32Uint};
const ChannelDesc kExtraChannels[] = {
    {"depth", "Depth buffer (NDC)", ResourceFormat::R32Float},
    {"mvec", "Motion vector", ResourceFormat::RG32Float},
    {"viewW", "View direction in world space", ResourceFormat::RGBA32Float},
    {"time", "Per-pixel execution time", ResourceFormat::R32Uint},
    {"mask", "Mask", ResourceFormat::R32Float},
};
} // namespace

RenderPassReflection VBufferRT::reflect(const CompileData& compileData)
{
    RenderPassReflection reflector;
    const uint2 size = getOutputSize(compileData);
    addOutputs(reflector, {&kVBufferChannel, 1}, size, false);
    addOutputs(reflector, kExtraChannels, size, true);
    return reflector;
}

void VBufferRT::execute(RenderContext*, const RenderData& renderData)
{
    std::vector<Texture*> outputs = getOutputs(renderData, {&kVBufferChannel, 1});
    const std::vector<Texture*> extra = getOutputs(renderData, kExtraChannels);
    outputs.insert(outputs.end(), extra.begin(), extra.end());
    const bool needsPosition = outputs[kDepth] || outputs[kMVec];
    traceFrame(
        renderData, outputs, {kViewW, kTime},
        [&](uint2 pixel, const Ray&, const TriangleHit& hit, OutputRow& row) { writeHit(pixel, hit, needsPosition, row); },
        [&](uint2 pixel, const Ray&, OutputRow& row) { writeMiss(pixel, row); });
}

void VBufferRT::writeHit(uint2 pixel, const TriangleHit& hit, bool needsPosition, OutputRow& out) const
{
    const uint32_t x = pixel.x();
    out.set(kVBuffer, x, mHitInfo.pack(hit));
    out.set(kMask, x, float4(1.f));
    if (!needsPosition) // Depth and motion need the hit's position: skipped when neither is connected.
        return;
    const float4 curPosH = clipPosNoJitter(mpScene->getVertexData(hit).posW);
    const float2 mvec = motionVector(pixel, prevClipPosNoJitter(mpScene->getPrevPosW(hit)));
    out.set(kDepth, x, float4(curPosH.z() / curPosH.w()));
    out.set(kMVec, x, float4(mvec.x(), mvec.y(), 0.f, 0.f));
}

void VBufferRT::writeMiss(uint2 pixel, OutputRow& out) const
{
    // Unlike GBufferRT, misses get no background motion.
    out.set(kVBuffer, pixel.x(), uint4(0u));
    out.set(kDepth, pixel.x(), float4(1.f));
}
} // namespace falcor
