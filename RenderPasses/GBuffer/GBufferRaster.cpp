#include "GBufferRaster.h"
#include "Rendering/Materials/TexLODHelpers.h"
#include "Rendering/Materials/TextureLod.h"
#include <cmath>

namespace falcor
{
namespace
{
using namespace gbuffer;

/// Slot of the raster-only channel, after GBufferRT's.
constexpr size_t kPnFwidth = kChannelCount;
constexpr size_t kSlotCount = kChannelCount + 1;

/// GBufferRT's channels GBufferRaster also has, in Falcor's order.
const size_t kSharedSlots[] = {kPosW,         kNormW,          kTangentW, kFaceNormalW, kTexC,     kTexGrads, kMVec,    kMtlData,
                               kVBuffer,      kGuideNormalW,   kDiffuseOpacity, kSpecRough, kEmissive, kViewW};
const ChannelDesc kPnFwidthChannel = {"pnFwidth", "Position and guide normal filter width", ResourceFormat::RG32Float};
const ChannelDesc kLinearZChannel = {"linearZ", "Linear z (and derivative)", ResourceFormat::RG32Float};
const ChannelDesc kMaskChannel = {"mask", "Mask", ResourceFormat::R32Float};

std::vector<ChannelDesc> rasterChannels()
{
    std::vector<ChannelDesc> channels;
    for (size_t slot : kSharedSlots)
        channels.push_back(kGBufferChannels[slot]);
    channels.insert(channels.end(), {kPnFwidthChannel, kLinearZChannel, kMaskChannel});
    return channels;
}

/// A GPU's fine derivative along one axis: the difference across the quad, odd minus even pixel.
template<typename T>
T quadDifference(const T& here, const T& neighbour, uint32_t coordinate)
{
    return (coordinate & 1) ? here - neighbour : neighbour - here;
}

float3 abs3(const float3& v)
{
    return float3(std::fabs(v.x()), std::fabs(v.y()), std::fabs(v.z()));
}
} // namespace

RenderPassReflection GBufferRaster::reflect(const CompileData& compileData)
{
    RenderPassReflection reflector;
    const uint2 size = getOutputSize(compileData);
    addDepthOutput(reflector, size);
    addOutputs(reflector, rasterChannels(), size, true);
    return reflector;
}

void GBufferRaster::execute(RenderContext*, const RenderData& renderData)
{
    std::vector<Texture*> outputs(kSlotCount, nullptr);
    for (size_t slot : kSharedSlots)
        outputs[slot] = renderData.getTexture(kGBufferChannels[slot].name);
    outputs[kPnFwidth] = renderData.getTexture(kPnFwidthChannel.name);
    outputs[kLinearZ] = renderData.getTexture(kLinearZChannel.name);
    outputs[kMask] = renderData.getTexture(kMaskChannel.name);
    if (!rasterizeFrame(renderData, outputs, renderData.getTexture("depth")))
        return;
    mComputeDOF = false;
    // Pairs of rows: a task's pixel buffer serves all its quad rows.
    const uint32_t quadRows = (mFrameDim.y() + 1) / 2;
    parallelFor(quadRows, 2, [&](size_t begin, size_t end) {
        std::vector<QuadPixel> pixels;
        for (size_t quadY = begin; quadY < end; ++quadY)
            shadeQuadRow(outputs, uint32_t(quadY), pixels);
    });
    ++mFrameCount;
}

void GBufferRaster::shadeQuadRow(std::span<Texture* const> outputs, uint32_t quadY, std::vector<QuadPixel>& pixels) const
{
    const uint32_t width = mFrameDim.x(), rows = std::min(2u, mFrameDim.y() - 2 * quadY);
    pixels.resize(2 * size_t(width));
    std::vector<Ray> rays(width);
    for (uint32_t r = 0; r < 2; ++r)
    {
        // A frame of odd height still has whole quads: the row below the last is a helper row.
        const uint32_t y = 2 * quadY + r;
        generateRays(uint2(0, y), width, rays.data());
        for (uint32_t x = 0; x < width; ++x)
            preparePixel(uint2(x, y), rays[x], pixels[r * size_t(width) + x]);
    }
    for (uint32_t r = 0; r < rows; ++r)
    {
        const uint32_t y = 2 * quadY + r;
        OutputRow row(outputs, y);
        for (uint32_t x = 0; x < width; ++x)
        {
            const QuadPixel& p = pixels[r * size_t(width) + x];
            if (!p.hit.isValid())
            {
                // Float channels start at 0; the raw ones are written.
                row.set(kVBuffer, x, uint4(0u));
                row.set(kMtlData, x, uint4(0u));
                continue;
            }
            // A frame of odd width: the column right of the last is a helper column.
            const QuadPixel& neighbourX = (x ^ 1u) < width ? pixels[r * size_t(width) + (x ^ 1u)] : p;
            const QuadPixel& neighbourY = pixels[(r ^ 1u) * size_t(width) + x];
            writeHit(uint2(x, y), p, neighbourX, neighbourY, row);
        }
        row.store();
    }
}

void GBufferRaster::preparePixel(uint2 pixel, const Ray& ray, QuadPixel& out) const
{
    const uint32_t x = pixel.x(), y = pixel.y();
    out.ray = ray;
    out.hit = pixel.y() < mFrameDim.y() ? rasterHit(pixel) : TriangleHit{};
    out.surface.reset();
    if (!out.hit.isValid())
        return;
    // Positions and texture coordinates are linear in the barycentrics: their quad differences
    // are the barycentrics' differences (the triangle extrapolated to the neighbours) along the
    // triangle's edges.
    const TriangleHit hitX = extrapolate(out.hit, uint2(x ^ 1u, y)), hitY = extrapolate(out.hit, uint2(x, y ^ 1u));
    const float2 dbx = quadDifference(out.hit.barycentrics, hitX.barycentrics, x);
    const float2 dby = quadDifference(out.hit.barycentrics, hitY.barycentrics, y);
    const TriangleCorners c = getTriangleCorners(*mpScene, out.hit);
    auto alongEdges = [](const auto* corner, const float2& db) { return (corner[1] - corner[0]) * db.x() + (corner[2] - corner[0]) * db.y(); };
    out.ddxUV = alongEdges(c.texC, dbx), out.ddyUV = alongEdges(c.texC, dby);
    out.ddxPos = alongEdges(c.posW, dbx), out.ddyPos = alongEdges(c.posW, dby);
    out.surface.emplace(evalSurface(out.hit, mpScene->getVertexData(out.hit), ray.dir, TextureLod::gradients(out.ddxUV, out.ddyUV)));
}

TriangleHit GBufferRaster::extrapolate(const TriangleHit& hit, uint2 pixel) const
{
    TriangleHit other = hit;
    other.barycentrics = mRasterizer.barycentricsAt(hit.instanceID, hit.primitiveIndex, int2(pixel));
    return other;
}

void GBufferRaster::writeHit(uint2 pixel, const QuadPixel& p, const QuadPixel& neighbourX, const QuadPixel& neighbourY, OutputRow& out) const
{
    const uint32_t x = pixel.x(), y = pixel.y();
    const Surface& s = *p.surface;
    writeSurface(pixel, p.hit, s, out);
    out.set(kViewW, x, toFloat4(-p.ray.dir, 0.f));
    out.set(kTexGrads, x, float4(p.ddxUV.x(), p.ddxUV.y(), p.ddyUV.x(), p.ddyUV.y()));

    // Falcor's linear z is SV_Position.z · SV_Position.w: the clip-space z of the point, affine in posW.
    const float4 zRow = mpScene->getCamera().getData().viewProjMatNoJitter[2];
    const float3 zAxis(zRow.x(), zRow.y(), zRow.z());
    const float slope = std::fmax(std::fabs(dot(zAxis, p.ddxPos)), std::fabs(dot(zAxis, p.ddyPos)));
    out.set(kLinearZ, x, float4(clipPosNoJitter(s.v.posW).z(), slope, 0.f, 0.f));

    if (!out.has(kPnFwidth))
        return;
    const float3 guideX = neighbourGuideNormal(p, neighbourX, uint2(x ^ 1u, y));
    const float3 guideY = neighbourGuideNormal(p, neighbourY, uint2(x, y ^ 1u));
    const float3 posFwidth = abs3(p.ddxPos) + abs3(p.ddyPos);
    const float3 normalFwidth = abs3(quadDifference(s.bsdf.guideNormal, guideX, x)) + abs3(quadDifference(s.bsdf.guideNormal, guideY, y));
    out.set(kPnFwidth, x, float4(length(posFwidth), length(normalFwidth), 0.f, 0.f));
}

float3 GBufferRaster::neighbourGuideNormal(const QuadPixel& p, const QuadPixel& neighbour, uint2 neighbourPixel) const
{
    const TriangleHit& h = neighbour.hit;
    if (&neighbour != &p && h.instanceID == p.hit.instanceID && h.primitiveIndex == p.hit.primitiveIndex)
        return neighbour.surface->bsdf.guideNormal;
    const TriangleHit helper = extrapolate(p.hit, neighbourPixel);
    const Ray ray = mpScene->getCamera().computeRayPinhole(neighbourPixel, mFrameDim);
    return evalSurface(helper, mpScene->getVertexData(helper), ray.dir, TextureLod::gradients(p.ddxUV, p.ddyUV)).bsdf.guideNormal;
}
} // namespace falcor
