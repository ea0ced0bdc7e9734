#include "RasterGBufferBase.h"
#include <cstring>

namespace falcor
{
namespace
{
const ChannelDesc kDepthChannel = {"depth", "Depth buffer", ResourceFormat::D32Float};

RayCullMode toRayCullMode(CullMode mode)
{
    return mode == CullMode::Front ? RayCullMode::Front : mode == CullMode::Back ? RayCullMode::Back : RayCullMode::None;
}

/// Copies depths (rows top to bottom) into a D32Float texture, whose texels are the floats' bits.
void storeDepth(Texture& texture, std::span<const float> depths)
{
    const uint32_t width = texture.getWidth();
    for (uint32_t y = 0; y < texture.getHeight(); ++y)
        std::memcpy(texture.row(y), depths.data() + size_t(y) * width, width * sizeof(float));
}
} // namespace

void RasterGBufferBase::addDepthOutput(RenderPassReflection& reflector, uint2 size)
{
    addOutputs(reflector, {&kDepthChannel, 1}, size, false);
}

bool RasterGBufferBase::rasterizeFrame(const RenderData& renderData, std::span<Texture* const> outputs, Texture* depth)
{
    FALCOR_CHECK(depth, getType(), ": the required output 'depth' is missing.");
    std::vector<Texture*> all(outputs.begin(), outputs.end());
    all.push_back(depth);
    if (!beginFrame(renderData, all))
        return false;
    if (!mpScene)
    {
        clearOutputs(outputs);
        depth->clear(float4(1.f));
        return false;
    }
    const CullMode cull = mForceCullMode ? mCullMode : CullMode::Back;
    mRasterizer.rasterize(*mpScene, mFrameDim, {toRayCullMode(cull), mUseAlphaTest});
    storeDepth(*depth, mRasterizer.depths());
    return true;
}
} // namespace falcor
