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
    shadeFrame(
        outputs, {kNoChannel, kNoChannel}, [&](uint2 pixel, const Ray&) { return rasterHit(pixel); },
        [&](uint2 pixel, const Ray& ray, const TriangleHit& hit, OutputRow& row) { writeHit(pixel, ray, hit, row); },
        [&](uint2 pixel, const Ray&, OutputRow& row) {
            // Float channels start at 0; the raw ones are written.
            row.set(kVBuffer, pixel.x(), uint4(0u));
            row.set(kMtlData, pixel.x(), uint4(0u));
        });
}

TriangleHit GBufferRaster::extrapolate(const TriangleHit& hit, uint2 pixel) const
{
    TriangleHit other = hit;
    other.barycentrics = mRasterizer.barycentricsAt(hit.instanceID, hit.primitiveIndex, int2(pixel));
    return other;
}

void GBufferRaster::writeHit(uint2 pixel, const Ray& ray, const TriangleHit& hit, OutputRow& out) const
{
    const Scene& scene = *mpScene;
    const uint32_t x = pixel.x(), y = pixel.y();
    // The quad neighbours exist even past the frame's edge (GPUs rasterize whole quads).
    const uint2 pixelX(x ^ 1u, y), pixelY(x, y ^ 1u);
    const TriangleHit hitX = extrapolate(hit, pixelX), hitY = extrapolate(hit, pixelY);
    // Positions and texture coordinates are linear in the barycentrics: their quad differences
    // are the barycentrics' differences along the triangle's edges.
    const TriangleCorners c = getTriangleCorners(scene, hit);
    const float2 dbx = quadDifference(hit.barycentrics, hitX.barycentrics, x), dby = quadDifference(hit.barycentrics, hitY.barycentrics, y);
    auto alongEdges = [](const auto* corner, const float2& db) { return (corner[1] - corner[0]) * db.x() + (corner[2] - corner[0]) * db.y(); };
    const float2 ddxUV = alongEdges(c.texC, dbx), ddyUV = alongEdges(c.texC, dby);
    const float3 ddxPos = alongEdges(c.posW, dbx), ddyPos = alongEdges(c.posW, dby);

    const Scene::VertexData v = scene.getVertexData(hit);
    const TextureLod lod = TextureLod::gradients(ddxUV, ddyUV);
    const Surface s = evalSurface(hit, v, ray.dir, lod);
    writeSurface(pixel, hit, s, out);
    out.set(kViewW, x, toFloat4(-ray.dir, 0.f));
    out.set(kTexGrads, x, float4(ddxUV.x(), ddxUV.y(), ddyUV.x(), ddyUV.y()));

    // Falcor's linear z is SV_Position.z · SV_Position.w: the clip-space z of the point, affine in posW.
    const float4 zRow = mpScene->getCamera().getData().viewProjMatNoJitter[2];
    const float3 zAxis(zRow.x(), zRow.y(), zRow.z());
    const float slope = std::fmax(std::fabs(dot(zAxis, ddxPos)), std::fabs(dot(zAxis, ddyPos)));
    out.set(kLinearZ, x, float4(clipPosNoJitter(v.posW).z(), slope, 0.f, 0.f));

    if (!out.has(kPnFwidth))
        return; // The guide normals of the neighbours cost two more material evaluations.
    const Camera& camera = scene.getCamera();
    auto guideNormalAt = [&](const TriangleHit& h, uint2 p) {
        return evalSurface(h, scene.getVertexData(h), camera.computeRayPinhole(p, mFrameDim).dir, lod).bsdf.guideNormal;
    };
    const float3 guideX = guideNormalAt(hitX, pixelX), guideY = guideNormalAt(hitY, pixelY);
    const float3 posFwidth = abs3(ddxPos) + abs3(ddyPos);
    const float3 normalFwidth = abs3(quadDifference(s.bsdf.guideNormal, guideX, x)) + abs3(quadDifference(s.bsdf.guideNormal, guideY, y));
    out.set(kPnFwidth, x, float4(length(posFwidth), length(normalFwidth), 0.f, 0.f));
}
} // namespace falcor
