#include "GBufferBase.h"
#include "Core/Logger.h"
#include "Scene/MaterialHeader.h"
#include "Utils/SampleGenerators/DxSamplePattern.h"
#include "Utils/SampleGenerators/HaltonSamplePattern.h"
#include "Utils/SampleGenerators/StratifiedSamplePattern.h"
#include "Utils/Sampling/UniformSampleGenerator.h"
#include <cmath>
#include <cstring>

namespace falcor
{
namespace
{
const std::string kOutputSize = "outputSize";
const std::string kFixedOutputSize = "fixedOutputSize";
const std::string kSamplePattern = "samplePattern";
const std::string kSampleCount = "sampleCount";
const std::string kUseAlphaTest = "useAlphaTest";
const std::string kDisableAlphaTest = "disableAlphaTest";
const std::string kAdjustShadingNormals = "adjustShadingNormals";
const std::string kForceCullMode = "forceCullMode";
const std::string kCullMode = "cull";
const std::string kUseTraceRayInline = "useTraceRayInline";
const std::string kUseDOF = "useDOF";

/// The camera jitter source of a sample pattern; nullptr for Center.
std::shared_ptr<CPUSampleGenerator> createSamplePattern(SamplePattern pattern, uint32_t sampleCount)
{
    switch (pattern)
    {
    case SamplePattern::DirectX:
        return std::make_shared<DxSamplePattern>(sampleCount);
    case SamplePattern::Halton:
        return std::make_shared<HaltonSamplePattern>(sampleCount);
    case SamplePattern::Stratified:
        return std::make_shared<StratifiedSamplePattern>(sampleCount);
    default:
        return nullptr;
    }
}

bool isRawChannel(const Texture& texture)
{
    return getFormatType(texture.getFormat()) == FormatType::Uint || getFormatType(texture.getFormat()) == FormatType::Sint;
}
} // namespace

const ChannelDesc kGBufferChannels[gbuffer::kChannelCount] = {
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

float2 octahedralUnorm(const float3& n)
{
    float2 p = float2(n.x(), n.y()) * (1.f / (std::fabs(n.x()) + std::fabs(n.y()) + std::fabs(n.z())));
    if (n.z() < 0.f)
        p = float2((1.f - std::fabs(p.y())) * (p.x() >= 0.f ? 1.f : -1.f), (1.f - std::fabs(p.x())) * (p.y() >= 0.f ? 1.f : -1.f));
    return p * 0.5f + float2(0.5f);
}

// ---- OutputRow ----------------------------------------------------------------------------------

OutputRow::OutputRow(std::span<Texture* const> outputs, uint32_t y) : mOutputs(outputs), mY(y), mFloatRows(outputs.size())
{
    for (size_t c = 0; c < outputs.size(); ++c)
        if (outputs[c] && !isRawChannel(*outputs[c]))
            mFloatRows[c].resize(outputs[c]->getWidth());
}

void OutputRow::set(size_t channel, uint32_t x, const uint4& value)
{
    Texture* texture = mOutputs[channel];
    if (!texture)
        return;
    // 32-bit integer formats only: one word per channel.
    const uint32_t words = texture->getBytesPerTexel() / 4;
    std::memcpy(texture->row(mY) + size_t(x) * texture->getBytesPerTexel(), value.data, words * 4);
}

void OutputRow::store()
{
    for (size_t c = 0; c < mOutputs.size(); ++c)
        if (!mFloatRows[c].empty())
            mOutputs[c]->storeRow(mY, mFloatRows[c].data());
}

// ---- GBufferBase ------------------------------------------------------------------------------

GBufferBase::GBufferBase(const Properties& props)
{
    for (const auto& [key, value] : props)
    {
        if (key == kOutputSize)
            mOutputSizeSelection = value.as<IOSize>(key);
        else if (key == kFixedOutputSize)
            mFixedOutputSize = value.as<uint2>(key);
        else if (key == kSamplePattern)
            mSamplePattern = value.as<SamplePattern>(key);
        else if (key == kSampleCount)
            mSampleCount = value.as<uint32_t>(key);
        else if (key == kUseAlphaTest)
            mUseAlphaTest = value.as<bool>(key);
        else if (key == kAdjustShadingNormals)
            mAdjustShadingNormals = value.as<bool>(key);
        else if (key == kForceCullMode)
            mForceCullMode = value.as<bool>(key);
        else if (key == kCullMode)
            mCullMode = value.as<CullMode>(key);
        else if (key == kUseTraceRayInline)
            mUseTraceRayInline = value.as<bool>(key);
        else if (key == kUseDOF)
            mUseDOF = value.as<bool>(key);
        // Other keys (the derived pass's, or unknown ones) are not reported, as in Falcor.
    }
    if (props.has(kDisableAlphaTest) && !props.has(kUseAlphaTest))
        mUseAlphaTest = !props.get<bool>(kDisableAlphaTest);
}

Properties GBufferBase::getProperties() const
{
    Properties props;
    props.set(kOutputSize, mOutputSizeSelection);
    if (mOutputSizeSelection == IOSize::Fixed)
        props.set(kFixedOutputSize, mFixedOutputSize);
    props.set(kSamplePattern, mSamplePattern);
    props.set(kSampleCount, mSampleCount);
    props.set(kUseAlphaTest, mUseAlphaTest);
    props.set(kAdjustShadingNormals, mAdjustShadingNormals);
    props.set(kForceCullMode, mForceCullMode);
    props.set(kCullMode, mCullMode);
    addPassProperties(props);
    if (!hasRayTracingOptions())
        return props;
    props.set(kUseTraceRayInline, mUseTraceRayInline);
    props.set(kUseDOF, mUseDOF);
    return props;
}

void GBufferBase::setScene(RenderContext*, const std::shared_ptr<Scene>& pScene)
{
    mpScene = pScene;
    mFrameCount = 0;
    mpSampleGenerator = createSamplePattern(mSamplePattern, mSampleCount);
    if (mpSampleGenerator)
        mSampleCount = mpSampleGenerator->getSampleCount();
    if (pScene)
        mHitInfo = HitInfoLayout(*pScene);
}

uint2 GBufferBase::getOutputSize(const CompileData& compileData) const
{
    return calculateIOSize(mOutputSizeSelection, mFixedOutputSize, compileData.defaultTexDims);
}

bool GBufferBase::beginFrame(const RenderData& renderData, std::span<Texture* const> outputs)
{
    renderData.getDictionary().set(kRenderPassGBufferAdjustShadingNormals, mAdjustShadingNormals);

    mFrameDim = uint2(0u);
    for (const Texture* texture : outputs)
    {
        if (!texture)
            continue;
        if (mFrameDim == uint2(0u))
            mFrameDim = texture->getDims();
        FALCOR_CHECK(texture->getDims() == mFrameDim, getType(), ": pass output '", texture->getName(),
                     "' has mismatching size. All outputs must be of the same size.");
    }
    if (mFrameDim == uint2(0u))
    {
        logWarning(getType(), "::execute() - Render pass has no connected outputs. Is this intended?");
        return false;
    }
    if (!mpScene)
        return true;
    // The camera draws the next frame's jitter from our pattern (none: jitter 0), in pixels of this size.
    Camera& camera = mpScene->getCamera();
    if (mpSampleGenerator)
        camera.setPatternGenerator([generator = mpSampleGenerator] { return generator->next(); }, float2(1.f) / float2(mFrameDim));
    else
        camera.setPatternGenerator(nullptr, float2(0.f));
    return true;
}

void GBufferBase::clearOutputs(std::span<Texture* const> outputs)
{
    for (Texture* texture : outputs)
        if (texture)
            texture->clear();
}

void GBufferBase::configureDepthOfField(const RenderData& renderData)
{
    mComputeDOF = mUseDOF && mpScene->getCamera().getData().apertureRadius > 0.f;
    mLensSeed = frameSeed(renderData.getDictionary(), mFrameCount);
    if (mUseDOF)
        renderData.getDictionary().set(kRenderPassPRNGDimension, mComputeDOF ? 2u : 0u);
}

Ray GBufferBase::generateRay(uint2 pixel) const
{
    const Camera& camera = mpScene->getCamera();
    if (!mComputeDOF)
        return camera.computeRayPinhole(pixel, mFrameDim);
    UniformSampleGenerator sg(pixel, mLensSeed);
    return camera.computeRayThinlens(pixel, mFrameDim, sg.next2D());
}

void GBufferBase::generateRays(uint2 first, uint32_t count, Ray* rays) const
{
    if (!mComputeDOF)
        return mpScene->getCamera().computeRowPinhole(first, count, mFrameDim, rays);
    for (uint32_t i = 0; i < count; ++i)
        rays[i] = generateRay(uint2(first.x() + i, first.y()));
}

TriangleHit GBufferBase::tracePrimary(const Ray& ray) const
{
    RayCullMode cull = RayCullMode::None;
    if (mForceCullMode && mCullMode == CullMode::Front)
        cull = RayCullMode::Front;
    else if (mForceCullMode && mCullMode == CullMode::Back)
        cull = RayCullMode::Back;
    return mpScene->closestHit(ray, cull, mUseAlphaTest);
}

float4 GBufferBase::clipPosNoJitter(const float3& posW) const
{
    return mul(mpScene->getCamera().getData().viewProjMatNoJitter, toFloat4(posW, 1.f));
}

float4 GBufferBase::prevClipPosNoJitter(const float3& prevPosW) const
{
    return mul(mpScene->getCamera().getData().prevViewProjMatNoJitter, toFloat4(prevPosW, 1.f));
}

float2 GBufferBase::motionVector(uint2 pixel, const float4& prevPosH) const
{
    const CameraData& cd = mpScene->getCamera().getData();
    // Previous position in [0,1]² screen space (y down), minus this pixel's center.
    const float2 prevNdc = float2(prevPosH.x(), prevPosH.y()) / prevPosH.w();
    const float2 prevScreen = prevNdc * float2(0.5f, -0.5f) + float2(0.5f);
    const float2 pixelCenter = (float2(pixel) + float2(0.5f)) / float2(mFrameDim);
    return prevScreen - pixelCenter + float2(cd.jitterX, -cd.jitterY);
}

float2 GBufferBase::backgroundMotionVector(uint2 pixel, const Ray& ray) const
{
    return motionVector(pixel, prevClipPosNoJitter(ray.origin + normalize(ray.dir) * kEnvMapDepth));
}

GBufferBase::Surface GBufferBase::evalSurface(const TriangleHit& hit, const Scene::VertexData& v, const float3& rayDir, const TextureLod& lod) const
{
    const Scene& scene = *mpScene;
    const uint32_t materialID = scene.getInstance(hit.instanceID).materialID;
    const ShadingData sd = prepareShadingData(v, materialID, scene.getMaterial(materialID), -rayDir);
    const uint32_t hints = mAdjustShadingNormals ? kHintAdjustShadingNormal : kHintNone;
    Surface s{materialID, v, sd, createMaterialInstance(sd, lod, hints, scene.getRenderSettings().diffuseAlbedoMultiplier), {}};
    s.bsdf = s.mi.getProperties();
    return s;
}

void GBufferBase::writeSurface(uint2 pixel, const TriangleHit& hit, const Surface& s, OutputRow& out) const
{
    using namespace gbuffer;
    const uint32_t x = pixel.x();
    const MaterialData& material = mpScene->getMaterial(s.materialID);
    const ShadingData& sd = s.sd;
    const float3 prevPosW = mpScene->getPrevPosW(hit);
    const uint2 header = packMaterialHeader(material);
    const float4 curPosH = clipPosNoJitter(sd.posW);
    const float4 prevPosH = prevClipPosNoJitter(prevPosW);
    const float2 mvec = motionVector(pixel, prevPosH);

    out.set(kPosW, x, toFloat4(sd.posW, 1.f));
    out.set(kNormW, x, toFloat4(sd.frame.N, 0.f));
    out.set(kTangentW, x, s.v.tangentW);
    out.set(kFaceNormalW, x, toFloat4(sd.faceN, 0.f));
    out.set(kTexC, x, float4(sd.uv.x(), sd.uv.y(), 0.f, 0.f));
    out.set(kMVec, x, float4(mvec.x(), mvec.y(), 0.f, 0.f));
    out.set(kMtlData, x, uint4(s.materialID, header.x(), header.y(), s.mi.getLobeTypes()));
    out.set(kVBuffer, x, mHitInfo.pack(hit));
    out.set(kDepth, x, float4(curPosH.z() / curPosH.w()));
    out.set(kMVecW, x, toFloat4(prevPosW - sd.posW, 0.f));
    // Hair's guide direction is its tangent; the material ID slot holds 0, as in Falcor.
    const float2 oct = octahedralUnorm(material.type == MaterialType::Hair ? sd.frame.T : s.bsdf.guideNormal);
    out.set(kNormWRoughnessMaterialID, x, float4(oct.x(), oct.y(), s.bsdf.roughness, 0.f));
    out.set(kGuideNormalW, x, toFloat4(s.bsdf.guideNormal, 0.f));
    out.set(kDiffuseOpacity, x, toFloat4(s.bsdf.diffuseReflectionAlbedo, 1.f));
    out.set(kSpecRough, x, toFloat4(s.bsdf.specularReflectance, s.bsdf.roughness));
    out.set(kEmissive, x, toFloat4(s.bsdf.emission, 0.f));
    out.set(kDisocclusion, x, float4(prevPosH.w() - curPosH.w()));
    out.set(kMask, x, float4(1.f));
}

std::vector<Texture*> GBufferBase::getOutputs(const RenderData& renderData, std::span<const ChannelDesc> channels)
{
    std::vector<Texture*> outputs;
    for (const ChannelDesc& channel : channels)
        outputs.push_back(renderData.getTexture(channel.name));
    return outputs;
}

void GBufferBase::addOutputs(RenderPassReflection& reflector, std::span<const ChannelDesc> channels, uint2 size, bool optional)
{
    for (const ChannelDesc& channel : channels)
    {
        auto& field = reflector.addOutput(channel.name, channel.desc).format(channel.format).texture2D(size);
        if (optional)
            field.flags(RenderPassReflection::Field::Flags::Optional);
    }
}
} // namespace falcor
