#include "VBufferRaster.h"

namespace falcor
{
namespace
{
enum Channel : size_t
{
    kVBuffer,
    kMVec,
    kMask,
};

const ChannelDesc kVBufferChannel = {"vbuffer", "V-buffer in packed format (indices + barycentrics)", ResourceFormat::RGBA32Uint};
const ChannelDesc kExtraChannels[] = {
    {"mvec", "Motion vector", ResourceFormat::RG32Float},
    {"mask", "Mask", ResourceFormat::R32Float},
};
} // namespace

RenderPassReflection VBufferRaster::reflect(const CompileData& compileData)
{
    RenderPassReflection reflector;
    const uint2 size = getOutputSize(compileData);
    addDepthOutput(reflector, size);
    addOutputs(reflector, {&kVBufferChannel, 1}, size, false);
    addOutputs(reflector, kExtraChannels, size, true);
    return reflector;
}

void VBufferRaster::execute(RenderContext*, const RenderData& renderData)
{
    std::vector<Texture*> outputs = getOutputs(renderData, {&kVBufferChannel, 1});
    const std::vector<Texture*> extra = getOutputs(renderData, kExtraChannels);
    outputs.insert(outputs.end(), extra.begin(), extra.end());
    if (!rasterizeFrame(renderData, outputs, renderData.getTexture("depth")))
        return;
    mComputeDOF = false;
    shadeFrame(
        outputs, {kNoChannel, kNoChannel}, [&](uint2 pixel, const Ray&) { return rasterHit(pixel); },
        [&](uint2 pixel, const Ray&, const TriangleHit& hit, OutputRow& row) { writeHit(pixel, hit, row); },
        [&](uint2 pixel, const Ray&, OutputRow& row) { row.set(kVBuffer, pixel.x(), uint4(0u)); }, false);
}

void VBufferRaster::writeHit(uint2 pixel, const TriangleHit& hit, OutputRow& out) const
{
    const uint32_t x = pixel.x();
    out.set(kVBuffer, x, mHitInfo.pack(hit));
    out.set(kMask, x, float4(1.f));
    if (!out.has(kMVec))
        return;
    const float2 mvec = motionVector(pixel, prevClipPosNoJitter(mpScene->getPrevPosW(hit)));
    out.set(kMVec, x, float4(mvec.x(), mvec.y(), 0.f, 0.f));
}
} // namespace falcor
