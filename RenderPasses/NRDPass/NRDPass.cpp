#include "NRDPass.h"
#include "Core/Error.h"
#include "Core/Logger.h"
#include "Core/PluginRegistry.h"
#include "Core/ThreadPool.h"
#include "Scene/Scene.h"
#include "Utils/Color/ColorHelpers.h"
#include "Utils/Math/Matrix.h"
#include <cmath>

using namespace falcor;

namespace
{
const std::string kDiffuseRadianceHitDist = "diffuseRadianceHitDist";
const std::string kSpecularRadianceHitDist = "specularRadianceHitDist";
const std::string kSpecularHitDist = "specularHitDist";
const std::string kMotionVectors = "mvec";
const std::string kNormalRoughnessMaterialID = "normWRoughnessMaterialID";
const std::string kViewZ = "viewZ";
const std::string kDeltaPrimaryPosW = "deltaPrimaryPosW";
const std::string kDeltaSecondaryPosW = "deltaSecondaryPosW";

const std::string kFilteredDiffuse = "filteredDiffuseRadianceHitDist";
const std::string kFilteredSpecular = "filteredSpecularRadianceHitDist";
const std::string kReflectionMotion = "reflectionMvec";
const std::string kDeltaMotion = "deltaMvec";

const std::string kEnabled = "enabled";
const std::string kMethod = "method";
const std::string kOutputSize = "outputSize";
const std::string kWorldSpaceMotion = "worldSpaceMotion";
const std::string kDisocclusionThreshold = "disocclusionThreshold";
const std::string kMaxIntensity = "maxIntensity";

/// Inverse of the [0,1]² octahedral map GBufferRT writes into normWRoughnessMaterialID.rg.
float3 octUnormToDirection(float u, float v)
{
    const float px = u * 2.f - 1.f, py = v * 2.f - 1.f;
    const float z = 1.f - std::fabs(px) - std::fabs(py);
    float x = px, y = py;
    if (z < 0.f)
    {
        x = (1.f - std::fabs(py)) * (px >= 0.f ? 1.f : -1.f);
        y = (1.f - std::fabs(px)) * (py >= 0.f ? 1.f : -1.f);
    }
    return normalize(float3(x, y, z));
}

/// A texel, or `fallback` outside the texture: inputs smaller than the output read as an
/// out-of-range GPU load does.
float4 loadOr(const Texture& tex, uint32_t x, uint32_t y, float4 fallback = float4(0.f))
{
    return x < tex.getWidth() && y < tex.getHeight() ? tex.loadTexel(x, y) : fallback;
}

/// Scales rgb so its luminance is at most `maxIntensity` (Falcor's PackRadiance clamp).
float3 clampRadiance(const float3& radiance, float maxIntensity)
{
    const float l = luminance(radiance);
    return l > 1e-6f ? radiance * std::min(maxIntensity / l, 1.f) : radiance;
}

/// Screen-space motion of a point from the camera's motion alone: where it was seen last frame
/// minus where it is seen now, in Falcor's [0,1]² units with y down (both without jitter).
float2 screenMotion(const CameraData& camera, const float3& posW)
{
    auto toScreen = [&](const float4x4& viewProj) {
        const float4 h = mul(viewProj, float4(posW.x(), posW.y(), posW.z(), 1.f));
        return float2(h.x(), h.y()) / h.w() * float2(0.5f, -0.5f) + float2(0.5f);
    };
    return toScreen(camera.prevViewProjMatNoJitter) - toScreen(camera.viewProjMatNoJitter);
}

/// The unnormalized pinhole ray direction through a pixel's center; its component along the
/// view axis has the length of cameraW.
float3 pixelRayDir(const CameraData& camera, uint2 pixel, uint2 frameDim)
{
    const float2 ndc = (float2(pixel) + float2(0.5f)) / float2(frameDim) * float2(2.f, -2.f) + float2(-1.f, 1.f);
    return camera.cameraU * ndc.x() + camera.cameraV * ndc.y() + camera.cameraW;
}
} // namespace

NRDPass::NRDPass(const Properties& props) : mDiffuseFilter(kPluginType), mSpecularFilter(kPluginType)
{
    for (const auto& [key, value] : props)
    {
        if (key == kEnabled)
            mEnabled = value.as<bool>(key);
        else if (key == kMethod)
            mMethod = value.as<Method>(key);
        else if (key == kOutputSize)
            mOutputSize = value.as<IOSize>(key);
        else if (key == kWorldSpaceMotion)
            mWorldSpaceMotion = value.as<bool>(key);
        else if (key == kDisocclusionThreshold)
            mDisocclusionThreshold = value.as<float>(key);
        else if (key == kMaxIntensity)
            mMaxIntensity = value.as<float>(key);
        else if (const auto group = tuningGroup(); !group || !mSettings.set(*group, key, value))
            warnUnknownProperty(key);
    }
    FALCOR_CHECK(mMaxIntensity > 0.f, "'", kMaxIntensity, "' must be positive, got ", mMaxIntensity, ".");
    logWarningOnce("NRD: this is a CPU replacement denoising each frame with Intel Open Image Denoise, not NVIDIA's NRD.");
}

Properties NRDPass::getProperties() const
{
    Properties props;
    props.set(kEnabled, mEnabled);
    props.set(kMethod, mMethod);
    props.set(kOutputSize, mOutputSize);
    props.set(kWorldSpaceMotion, mWorldSpaceMotion);
    props.set(kDisocclusionThreshold, mDisocclusionThreshold);
    props.set(kMaxIntensity, mMaxIntensity);
    if (const auto group = tuningGroup())
        mSettings.write(*group, props);
    return props;
}

std::optional<NRDSettings::Group> NRDPass::tuningGroup() const
{
    if (mMethod == Method::RelaxDiffuse)
        return NRDSettings::Group::Diffuse;
    if (hasSpecularRadiance())
        return NRDSettings::Group::DiffuseSpecular;
    return std::nullopt;
}

RenderPassReflection NRDPass::reflect(const CompileData& compileData)
{
    RenderPassReflection r;
    const uint2 size = calculateIOSize(mOutputSize, mScreenSize, compileData.defaultTexDims);
    auto output = [&](const std::string& name, const char* desc, ResourceFormat format) { r.addOutput(name, desc).format(format).texture2D(size); };
    switch (mMethod)
    {
    case Method::RelaxDiffuseSpecular:
    case Method::ReblurDiffuseSpecular:
    case Method::RelaxDiffuse:
        r.addInput(kDiffuseRadianceHitDist, "Diffuse radiance and hit distance");
        if (hasSpecularRadiance())
            r.addInput(kSpecularRadianceHitDist, "Specular radiance and hit distance");
        r.addInput(kViewZ, "View Z");
        r.addInput(kNormalRoughnessMaterialID, "World normal, roughness, and material ID");
        r.addInput(kMotionVectors, "Motion vectors");
        output(kFilteredDiffuse, "Filtered diffuse radiance and hit distance", ResourceFormat::RGBA16Float);
        if (hasSpecularRadiance())
            output(kFilteredSpecular, "Filtered specular radiance and hit distance", ResourceFormat::RGBA16Float);
        break;
    case Method::SpecularReflectionMv:
        r.addInput(kSpecularHitDist, "Specular hit distance");
        r.addInput(kViewZ, "View Z");
        r.addInput(kNormalRoughnessMaterialID, "World normal, roughness, and material ID");
        r.addInput(kMotionVectors, "Motion vectors");
        output(kReflectionMotion, "Reflection motion vectors in screen space", ResourceFormat::RG16Float);
        break;
    case Method::SpecularDeltaMv:
        r.addInput(kDeltaPrimaryPosW, "Delta primary world position");
        r.addInput(kDeltaSecondaryPosW, "Delta secondary world position");
        r.addInput(kMotionVectors, "Motion vectors");
        output(kDeltaMotion, "Delta motion vectors in screen space", ResourceFormat::RG16Float);
        break;
    }
    return r;
}

std::vector<std::string> NRDPass::outputNames() const
{
    switch (mMethod)
    {
    case Method::SpecularReflectionMv:
        return {kReflectionMotion};
    case Method::SpecularDeltaMv:
        return {kDeltaMotion};
    default:
        return hasSpecularRadiance() ? std::vector{kFilteredDiffuse, kFilteredSpecular} : std::vector{kFilteredDiffuse};
    }
}

void NRDPass::execute(RenderContext* pRenderContext, const RenderData& renderData)
{
    mScreenSize = renderData[outputNames().front()]->getDims();
    if (!mpScene)
    {
        for (const std::string& name : outputNames())
            pRenderContext->clearTexture(*renderData[name]);
        return;
    }
    if (!mEnabled)
        return copyInputs(pRenderContext, renderData);

    switch (mMethod)
    {
    case Method::SpecularReflectionMv:
        return computeReflectionMotion(renderData);
    case Method::SpecularDeltaMv:
        return computeDeltaMotion(renderData); // (it has no normal/roughness input)
    default:
    {
        const Texture& normalRoughness = *renderData[kNormalRoughnessMaterialID];
        denoiseSignal(*renderData[kDiffuseRadianceHitDist], normalRoughness, *renderData[kFilteredDiffuse], mDiffuseFilter);
        if (hasSpecularRadiance())
            denoiseSignal(*renderData[kSpecularRadianceHitDist], normalRoughness, *renderData[kFilteredSpecular], mSpecularFilter);
    }
    }
}

void NRDPass::copyInputs(RenderContext* pRenderContext, const RenderData& renderData)
{
    // Falcor's disabled pass: radiance passes through; motion outputs are the input's screen
    // motion, or 0 when that input is world-space.
    switch (mMethod)
    {
    case Method::SpecularReflectionMv:
    case Method::SpecularDeltaMv:
    {
        Texture& output = *renderData[outputNames().front()];
        if (mWorldSpaceMotion)
            pRenderContext->clearTexture(output);
        else
            pRenderContext->blit(*renderData[kMotionVectors], output);
        break;
    }
    default:
        pRenderContext->blit(*renderData[kDiffuseRadianceHitDist], *renderData[kFilteredDiffuse]);
        if (hasSpecularRadiance())
            pRenderContext->blit(*renderData[kSpecularRadianceHitDist], *renderData[kFilteredSpecular]);
    }
}

void NRDPass::denoiseSignal(const Texture& input, const Texture& normalRoughness, Texture& output, oidn::RTFilter& filter)
{
    const uint2 size = output.getDims();
    filter.configure(size, true, true, true);
    parallelForRows(size.y(), [&](uint32_t y) {
        for (uint32_t x = 0; x < size.x(); ++x)
        {
            const size_t i = size_t(y) * size.x() + x;
            const float4 radiance = loadOr(input, x, y);
            const float4 packedNormal = loadOr(normalRoughness, x, y, float4(0.5f));
            filter.color()[i] = clampRadiance(radiance.xyz(), mMaxIntensity);
            filter.albedo()[i] = float3(1.f);
            filter.normal()[i] = octUnormToDirection(packedNormal.x(), packedNormal.y());
        }
    });
    filter.execute();
    parallelForRows(size.y(), [&](uint32_t y) {
        std::vector<float4> row(size.x());
        for (uint32_t x = 0; x < size.x(); ++x)
        {
            const float3 c = filter.output()[size_t(y) * size.x() + x];
            row[x] = float4(c.x(), c.y(), c.z(), loadOr(input, x, y).w());
        }
        output.storeRow(y, row.data());
    });
}

void NRDPass::computeReflectionMotion(const RenderData& renderData)
{
    // The mirror image of what a pixel reflects lies along its view ray, `specularHitDist`
    // beyond the primary hit (at view depth viewZ).
    const CameraData& camera = mpScene->getCamera().getData();
    const Texture& hitDist = *renderData[kSpecularHitDist];
    const Texture& viewZ = *renderData[kViewZ];
    Texture& output = *renderData[kReflectionMotion];
    const uint2 size = output.getDims();
    const float axisLength = length(camera.cameraW);
    parallelForRows(size.y(), [&](uint32_t y) {
        std::vector<float4> row(size.x());
        for (uint32_t x = 0; x < size.x(); ++x)
        {
            const float3 dir = pixelRayDir(camera, uint2(x, y), size);
            const float primaryDistance = loadOr(viewZ, x, y).x() / axisLength * length(dir);
            const float3 virtualPosW = camera.posW + normalize(dir) * (primaryDistance + loadOr(hitDist, x, y).x());
            const float2 motion = screenMotion(camera, virtualPosW);
            row[x] = float4(motion.x(), motion.y(), 0.f, 0.f);
        }
        output.storeRow(y, row.data());
    });
}

void NRDPass::computeDeltaMotion(const RenderData& renderData)
{
    const CameraData& camera = mpScene->getCamera().getData();
    const Texture& secondaryPosW = *renderData[kDeltaSecondaryPosW];
    Texture& output = *renderData[kDeltaMotion];
    const uint2 size = output.getDims();
    parallelForRows(size.y(), [&](uint32_t y) {
        std::vector<float4> row(size.x());
        for (uint32_t x = 0; x < size.x(); ++x)
        {
            const float2 motion = screenMotion(camera, loadOr(secondaryPosW, x, y).xyz());
            row[x] = float4(motion.x(), motion.y(), 0.f, 0.f);
        }
        output.storeRow(y, row.data());
    });
}

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(PluginRegistry& registry)
{
    registry.registerRenderPass<NRDPass>();
}
