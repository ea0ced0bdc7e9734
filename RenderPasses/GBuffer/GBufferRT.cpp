#include "GBufferRT.h"
#include "Core/Logger.h"
#include "Rendering/Materials/MaterialInstance.h"
#include "Rendering/Materials/TexLODHelpers.h"
#include "Scene/MaterialHeader.h"
#include "Scene/SceneMath.h"
#include <algorithm>
#include <cmath>

namespace falcor
{
namespace
{
const std::string kLODMode = "texLOD";

enum Channel : size_t
{
    kPosW,
    kNormW,
    kTangentW,
    kFaceNormalW,
    kTexC,
    kTexGrads,
    kMVec,
    kMtlData,
    kVBuffer,
    kDepth,
    kLinearZ,
    kMVecW,
    kNormWRoughnessMaterialID,
    kGuideNormalW,
    kDiffuseOpacity,
    kSpecRough,
    kEmissive,
    kViewW,
    kTime,
    kDisocclusion,
    kMask,
};

const ChannelDesc kChannels[] = {
    {"posW", "Position in world space", ResourceFormat::RGBA32Float},
    {"normW", "Shading normal in world space", ResourceFormat::RGBA32Float},
    {"tangentW", "Shading tangent in world space (xyz) and sign (w)", ResourceFormat::RGBA32Float},
    {"faceNormalW", "Face normal in world space", ResourceFormat::RGBA32Float},
    {"texC", "Texture coordinate", ResourceFormat::RG32Float},
    {"texGrads", "Texture gradients (ddx, ddy)", ResourceFormat::RGBA16Float},
    {"mvec", "Motion vector", ResourceFormat::RG32Float},
    {"mtlData", "Material data (ID, header.x, header.y, lobes)", ResourceFormat::RGBA32Uint},
    {"vbuffer", "Visibility buffer", ResourceFormat::RGBA32Uint},
    {"depth", "Depth buffer (NDC)", ResourceFormat::R32Float},
    {"linearZ", "Linear Z and slope", ResourceFormat::RG32Float},
    {"mvecW", "Motion vector in world space", ResourceFormat::RGBA16Float},
    {"normWRoughnessMaterialID", "Guide normal in world space, roughness, and material ID", ResourceFormat::RGB10A2Unorm},
    {"guideNormalW", "Guide normal in world space", ResourceFormat::RGBA32Float},
    {"diffuseOpacity", "Diffuse reflection albedo and opacity", ResourceFormat::RGBA32Float},
    {"specRough", "Specular reflectance and roughness", ResourceFormat::RGBA32Float},
    {"emissive", "Emissive color", ResourceFormat::RGBA32Float},
    {"viewW", "View direction in world space", ResourceFormat::RGBA32Float},
    {"time", "Per-pixel execution time", ResourceFormat::R32Uint},
    {"disocclusion", "Disocclusion mask", ResourceFormat::R32Float},
    {"mask", "Mask", ResourceFormat::R32Float},
};

/// Unit direction to the [0,1]² octahedral map (Falcor's ndir_to_oct_unorm).
float2 octahedralUnorm(const float3& n)
{
    float2 p = float2(n.x(), n.y()) * (1.f / (std::fabs(n.x()) + std::fabs(n.y()) + std::fabs(n.z())));
    if (n.z() < 0.f)
        p = float2((1.f - std::fabs(p.y())) * (p.x() >= 0.f ? 1.f : -1.f), (1.f - std::fabs(p.x())) * (p.y() >= 0.f ? 1.f : -1.f));
    return p * 0.5f + float2(0.5f);
}

} // namespace

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
    addOutputs(reflector, kChannels, getOutputSize(compileData), true);
    return reflector;
}

void GBufferRT::execute(RenderContext*, const RenderData& renderData)
{
    const std::vector<Texture*> outputs = getOutputs(renderData, kChannels);
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
    const Scene& scene = *mpScene;
    const uint32_t x = pixel.x();
    const uint32_t materialID = scene.getInstance(hit.instanceID).materialID;
    const MaterialData& material = scene.getMaterial(materialID);
    const Scene::VertexData v = scene.getVertexData(hit);
    const float3 prevPosW = scene.getPrevPosW(hit);
    float4 texGrads(0.f);
    const TextureLod lod = computeTextureLod(hit, v, ray.dir, texGrads);

    const ShadingData sd = prepareShadingData(v, materialID, material, -ray.dir);
    const uint32_t hints = mAdjustShadingNormals ? kHintAdjustShadingNormal : kHintNone;
    const MaterialInstance mi = createMaterialInstance(sd, lod, hints, scene.getRenderSettings().diffuseAlbedoMultiplier);
    const BSDFProperties bsdf = mi.getProperties();
    const uint2 header = packMaterialHeader(material);

    const float4 curPosH = clipPosNoJitter(sd.posW);
    const float4 prevPosH = prevClipPosNoJitter(prevPosW);
    const float2 mvec = motionVector(pixel, prevPosH);

    out.set(kPosW, x, toFloat4(sd.posW, 1.f));
    out.set(kNormW, x, toFloat4(sd.frame.N, 0.f));
    out.set(kTangentW, x, v.tangentW);
    out.set(kFaceNormalW, x, toFloat4(sd.faceN, 0.f));
    out.set(kTexC, x, float4(sd.uv.x(), sd.uv.y(), 0.f, 0.f));
    out.set(kTexGrads, x, texGrads);
    out.set(kMVec, x, float4(mvec.x(), mvec.y(), 0.f, 0.f));
    out.set(kMtlData, x, uint4(materialID, header.x(), header.y(), mi.getLobeTypes()));
    out.set(kVBuffer, x, mHitInfo.pack(hit));
    out.set(kDepth, x, float4(curPosH.z() / curPosH.w()));
    out.set(kLinearZ, x, float4(curPosH.w(), linearZSlope(sd.posW, sd.faceN, curPosH.w()), 0.f, 0.f));
    out.set(kMVecW, x, toFloat4(prevPosW - sd.posW, 0.f));
    // Hair's guide direction is its tangent; the material ID slot holds 0, as in Falcor.
    const float2 oct = octahedralUnorm(material.type == MaterialType::Hair ? sd.frame.T : bsdf.guideNormal);
    out.set(kNormWRoughnessMaterialID, x, float4(oct.x(), oct.y(), bsdf.roughness, 0.f));
    out.set(kGuideNormalW, x, toFloat4(bsdf.guideNormal, 0.f));
    out.set(kDiffuseOpacity, x, toFloat4(bsdf.diffuseReflectionAlbedo, 1.f));
    out.set(kSpecRough, x, toFloat4(bsdf.specularReflectance, bsdf.roughness));
    out.set(kEmissive, x, toFloat4(bsdf.emission, 0.f));
    out.set(kDisocclusion, x, float4(prevPosH.w() - curPosH.w()));
    out.set(kMask, x, float4(1.f));
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
