#include "GBufferRT.h"
#include "Rendering/Materials/TexLODHelpers.h"
#include <cmath>

namespace falcor
{
namespace
{
const std::string kLODMode = "texLOD";
} // namespace

using namespace gbuffer;

GBufferRT::GBufferRT(const Properties& props) : GBufferBase(props)
{
    for (const auto& [key, value] : props)
        if (key == kLODMode)
            mLODMode = value.as<TexLODMode>(key);
}

void GBufferRT::addPassProperties(Properties& props) const
{
    props.set(kLODMode, mLODMode);
}

RenderPassReflection GBufferRT::reflect(const CompileData& compileData)
{
    RenderPassReflection reflector;
    addOutputs(reflector, kGBufferChannels, getOutputSize(compileData), true);
    return reflector;
}

void GBufferRT::execute(RenderContext*, const RenderData& renderData)
{
    const std::vector<Texture*> outputs = getOutputs(renderData, kGBufferChannels);
    traceFrame(
        renderData, outputs, {kViewW, kTime},
        [&](uint2 pixel, const Ray& ray, const TriangleHit& hit, OutputRow& row) { writeHit(pixel, ray, hit, row); },
        [&](uint2 pixel, const Ray& ray, OutputRow& row) { writeMiss(pixel, ray, row); });
}

TextureLod GBufferRT::computeTextureLod(const TriangleHit& hit, const Scene::VertexData& v, const float3& rayDir, float4& texGrads) const
{
    if (mLODMode != TexLODMode::RayCones && mLODMode != TexLODMode::RayDiffs)
        return TextureLod{};
    const TriangleCorners corners = getTriangleCorners(*mpScene, hit);
    const CameraData& cd = mpScene->getCamera().getData();
    TextureLod lod = TextureLod::gradients(float2(0.f), float2(0.f));
    if (mLODMode == TexLODMode::RayCones)
    {
        // Cone width at the hit ~ hitT · tan(spread angle) (tan x ≈ 2 tan(x/2) for small x).
        const float coneWidth = hit.t * std::tan(pixelSpreadAngle(cd, mFrameDim.y()));
        rayConeGradients(corners, v, rayDir, coneWidth, lod.ddx, lod.ddy);
    }
    else
        rayDifferentialGradients(corners, cd, rayDir, hit.t, float2(1.f) / float2(mFrameDim), lod.ddx, lod.ddy);
    texGrads = float4(lod.ddx.x(), lod.ddx.y(), lod.ddy.x(), lod.ddy.y());
    return lod;
}

void GBufferRT::writeHit(uint2 pixel, const Ray& ray, const TriangleHit& hit, OutputRow& out) const
{
    float4 texGrads(0.f);
    const Scene::VertexData v = mpScene->getVertexData(hit);
    const TextureLod lod = computeTextureLod(hit, v, ray.dir, texGrads);
    const Surface s = evalSurface(hit, v, ray.dir, lod);
    writeSurface(pixel, hit, s, out);
    const float linearZ = clipPosNoJitter(s.sd.posW).w();
    out.set(kTexGrads, pixel.x(), texGrads);
    out.set(kLinearZ, pixel.x(), float4(linearZ, linearZSlope(s.sd.posW, s.sd.faceN, linearZ), 0.f, 0.f));
}

float GBufferRT::linearZSlope(const float3& posW, const float3& faceN, float linearZ) const
{
    // World offsets on the surface plane that move one pixel right / down on screen.
    const CameraData& cd = mpScene->getCamera().getData();
    const float distanceToHit = length(posW - cd.posW);
    auto onePixelAlong = [&](const float3& cameraAxis, float ndcStep) {
        const float3 projected = normalize(cross(faceN, cross(faceN, cameraAxis)));
        return projected * (distanceToHit * ndcStep / dot(normalize(cameraAxis), projected));
    };
    const float3 ddxPosW = onePixelAlong(cd.cameraU, 2.f / float(mFrameDim.x()));
    const float3 ddyPosW = onePixelAlong(cd.cameraV, -2.f / float(mFrameDim.y()));
    const float ddxLinearZ = std::fabs(clipPosNoJitter(posW + ddxPosW).w() - linearZ);
    const float ddyLinearZ = std::fabs(clipPosNoJitter(posW + ddyPosW).w() - linearZ);
    // GPU max: a NaN operand (an offset undefined on planes parallel to a camera axis) is ignored.
    return std::fmax(ddxLinearZ, ddyLinearZ);
}

void GBufferRT::writeMiss(uint2 pixel, const Ray& ray, OutputRow& out) const
{
    // Rows start at zero: set the channels whose background value is not, and the raw ones.
    const uint32_t x = pixel.x();
    const float2 mvec = backgroundMotionVector(pixel, ray);
    out.set(kMVec, x, float4(mvec.x(), mvec.y(), 0.f, 0.f));
    out.set(kMtlData, x, uint4(0u));
    out.set(kVBuffer, x, uint4(0u));
    out.set(kDepth, x, float4(1.f));
    out.set(kLinearZ, x, float4(kEnvMapDepth, 0.f, 0.f, 0.f));
    // The guide normal denoisers expect at misses (Unreal's default), roughness 0, material 0.
    const float2 oct = octahedralUnorm(float3(0.2215f));
    out.set(kNormWRoughnessMaterialID, x, float4(oct.x(), oct.y(), 0.f, 0.f));
}
} // namespace falcor
