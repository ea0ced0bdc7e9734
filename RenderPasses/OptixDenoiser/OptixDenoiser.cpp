#include "OptixDenoiser.h"
#include "Core/Error.h"
#include "Core/Logger.h"
#include "Core/PluginRegistry.h"
#include "Core/ThreadPool.h"
#include <algorithm>
#include <vector>

using namespace falcor;

namespace
{
const std::string kColorInput = "color";
const std::string kAlbedoInput = "albedo";
const std::string kNormalInput = "normal";
const std::string kMotionInput = "mvec";
const std::string kOutput = "output";

const std::string kEnabled = "enabled";
const std::string kBlend = "blend";
const std::string kModel = "model";
const std::string kDenoiseAlpha = "denoiseAlpha";

/// Row `y` of `tex` as float4 into `row` (the color's width); texels outside `tex` read as 0,
/// like an out-of-range GPU load (guides smaller than the color).
void loadRowZeroPadded(const Texture& tex, uint32_t y, std::vector<float4>& row, std::vector<float4>& scratch)
{
    std::fill(row.begin(), row.end(), float4(0.f));
    if (y >= tex.getHeight())
        return;
    scratch.resize(tex.getWidth());
    tex.loadRow(y, scratch.data());
    std::copy_n(scratch.begin(), std::min(scratch.size(), row.size()), row.begin());
}
} // namespace

OptixDenoiser::OptixDenoiser(const Properties& props) : mFilter(kPluginType)
{
    for (const auto& [key, value] : props)
    {
        if (key == kEnabled)
            mEnabled = value.as<bool>(key);
        else if (key == kModel)
        {
            mModel = value.as<OptixDenoiserModel>(key);
            mSelectBestModel = false;
        }
        else if (key == kBlend)
        {
            mBlend = value.as<float>(key);
            FALCOR_CHECK(mBlend >= 0.f && mBlend <= 1.f, "'", kBlend, "' must be in [0, 1] (0: denoised only, 1: noisy only), got ", mBlend,
                         ".");
        }
        else if (key == kDenoiseAlpha)
            mDenoiseAlpha = value.as<bool>(key);
        else
            warnUnknownProperty(key);
    }
    logWarningOnce("OptixDenoiser: this is a CPU replacement running Intel Open Image Denoise, not NVIDIA's OptiX denoiser.");
    scriptProperty<bool>(kEnabled, [this] { return mEnabled; }, [this](bool enabled) { mEnabled = enabled; });
}

Properties OptixDenoiser::getProperties() const
{
    Properties props;
    props.set(kEnabled, mEnabled);
    props.set(kBlend, mBlend);
    props.set(kModel, mModel);
    props.set(kDenoiseAlpha, mDenoiseAlpha);
    return props;
}

RenderPassReflection OptixDenoiser::reflect(const CompileData&)
{
    using Flags = RenderPassReflection::Field::Flags;
    RenderPassReflection r;
    r.addInput(kColorInput, "Color input");
    r.addInput(kAlbedoInput, "Albedo input").flags(Flags::Optional);
    r.addInput(kNormalInput, "Normal input").flags(Flags::Optional);
    r.addInput(kMotionInput, "Motion vector input").flags(Flags::Optional);
    r.addOutput(kOutput, "Denoised output").format(ResourceFormat::RGBA32Float);
    return r;
}

void OptixDenoiser::compile(RenderContext*, const CompileData& compileData)
{
    mHasAlbedo = compileData.connectedResources.getField(kAlbedoInput) != nullptr;
    mHasNormal = compileData.connectedResources.getField(kNormalInput) != nullptr;
    mHasMotion = compileData.connectedResources.getField(kMotionInput) != nullptr;
    if (mHasNormal && !mHasAlbedo)
        logWarningOnce("OptixDenoiser: '", kNormalInput, "' is unused without '", kAlbedoInput,
                       "' (Open Image Denoise takes a normal guide only with an albedo guide).");
    if (mSelectBestModel)
        mModel = mHasMotion ? OptixDenoiserModel::Temporal : OptixDenoiserModel::HDR;
}

void OptixDenoiser::execute(RenderContext* pRenderContext, const RenderData& renderData)
{
    const Texture& color = *renderData[kColorInput];
    Texture& output = *renderData[kOutput];
    if (!mEnabled || !mpScene || color.getDims() != output.getDims() || output.getWidth() == 0)
    {
        if (mEnabled && mpScene)
            logWarningOnce("OptixDenoiser: '", kColorInput, "' and '", kOutput, "' differ in size; the input is copied unfiltered.");
        pRenderContext->blit(color, output);
        return;
    }
    denoise(renderData);
}

void OptixDenoiser::denoise(const RenderData& renderData)
{
    if (mModel == OptixDenoiserModel::Temporal || mModel == OptixDenoiserModel::AOV)
        logWarningOnce("OptixDenoiser: Open Image Denoise has no '", mModel == OptixDenoiserModel::Temporal ? "Temporal" : "AOV",
                       "' model; each frame is denoised with the 'HDR' model.");
    const Texture& color = *renderData[kColorInput];
    const bool useNormal = mHasAlbedo && mHasNormal;
    mFilter.configure(color.getDims(), mHasAlbedo, useNormal, mModel != OptixDenoiserModel::LDR);

    std::vector<float> alpha(size_t(color.getWidth()) * color.getHeight());
    loadInputs(renderData, mHasAlbedo, useNormal, alpha);
    mFilter.execute();
    if (mDenoiseAlpha)
        denoiseAlphaPlane(alpha);
    storeOutput(color, *renderData[kOutput], alpha);
}

void OptixDenoiser::loadInputs(const RenderData& renderData, bool useAlbedo, bool useNormal, std::vector<float>& alpha)
{
    const Texture& color = *renderData[kColorInput];
    const uint32_t width = color.getWidth();
    parallelForRows(color.getHeight(), [&](uint32_t y) {
        std::vector<float4> row(width), scratch;
        const size_t base = size_t(y) * width;
        color.loadRow(y, row.data());
        for (uint32_t x = 0; x < width; ++x)
        {
            mFilter.color()[base + x] = row[x].xyz();
            alpha[base + x] = row[x].w();
        }
        auto loadGuide = [&](const std::string& name, float3* plane) {
            loadRowZeroPadded(*renderData[name], y, row, scratch);
            for (uint32_t x = 0; x < width; ++x)
                plane[base + x] = row[x].xyz();
        };
        if (useAlbedo)
            loadGuide(kAlbedoInput, mFilter.albedo());
        if (useNormal)
            loadGuide(kNormalInput, mFilter.normal());
    });
}

void OptixDenoiser::denoiseAlphaPlane(std::vector<float>& alpha)
{
    if (!mpAlphaFilter)
        mpAlphaFilter = std::make_unique<oidn::RTFilter>(kPluginType);
    mpAlphaFilter->configure(mFilter.size(), false, false, false);
    for (size_t i = 0; i < alpha.size(); ++i)
        mpAlphaFilter->color()[i] = float3(alpha[i]);
    mpAlphaFilter->execute();
    for (size_t i = 0; i < alpha.size(); ++i)
        alpha[i] = mpAlphaFilter->output()[i].x();
}

void OptixDenoiser::storeOutput(const Texture& color, Texture& output, const std::vector<float>& alpha)
{
    const uint32_t width = color.getWidth();
    parallelForRows(color.getHeight(), [&](uint32_t y) {
        std::vector<float4> row(width);
        const size_t base = size_t(y) * width;
        for (uint32_t x = 0; x < width; ++x)
        {
            const float3 noisy = mFilter.color()[base + x];
            const float3 result = mFilter.output()[base + x] + (noisy - mFilter.output()[base + x]) * mBlend;
            row[x] = float4(result.x(), result.y(), result.z(), alpha[base + x]);
        }
        output.storeRow(y, row.data());
    });
}

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(PluginRegistry& registry)
{
    registry.registerRenderPass<OptixDenoiser>();
}
