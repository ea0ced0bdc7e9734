#include "ModulateIllumination.h"
#include "Core/Logger.h"
#include "Core/PluginRegistry.h"
#include "Core/ThreadPool.h"
#include <optional>
#include <vector>

using namespace falcor;

namespace
{
using Channel = ModulateIllumination::Channel;

struct ChannelInfo
{
    const char* name;   ///< Input field.
    const char* useKey; ///< Property enabling it.
    const char* desc;
};

const std::array<ChannelInfo, Channel::kChannelCount> kChannels = {{
    {"emission", "useEmission", "Emission"},
    {"diffuseReflectance", "useDiffuseReflectance", "Diffuse Reflectance"},
    {"diffuseRadiance", "useDiffuseRadiance", "Diffuse Radiance"},
    {"specularReflectance", "useSpecularReflectance", "Specular Reflectance"},
    {"specularRadiance", "useSpecularRadiance", "Specular Radiance"},
    {"deltaReflectionEmission", "useDeltaReflectionEmission", "Delta Reflection Emission"},
    {"deltaReflectionReflectance", "useDeltaReflectionReflectance", "Delta Reflection Reflectance"},
    {"deltaReflectionRadiance", "useDeltaReflectionRadiance", "Delta Reflection Radiance"},
    {"deltaTransmissionEmission", "useDeltaTransmissionEmission", "Delta Transmission Emission"},
    {"deltaTransmissionReflectance", "useDeltaTransmissionReflectance", "Delta Transmission Reflectance"},
    {"deltaTransmissionRadiance", "useDeltaTransmissionRadiance", "Delta Transmission Radiance"},
    {"residualRadiance", "useResidualRadiance", "Residual Radiance"},
}};

/// One summand of the output: a light buffer, optionally modulated by a reflectance buffer.
struct Term
{
    Channel light;
    std::optional<Channel> reflectance;
};

// Falcor's shader order; keeping it keeps the float sums identical.
const Term kTerms[] = {
    {Channel::Emission, std::nullopt},
    {Channel::DiffuseRadiance, Channel::DiffuseReflectance},
    {Channel::SpecularRadiance, Channel::SpecularReflectance},
    {Channel::DeltaReflectionEmission, std::nullopt},
    {Channel::DeltaReflectionRadiance, Channel::DeltaReflectionReflectance},
    {Channel::DeltaTransmissionEmission, std::nullopt},
    {Channel::DeltaTransmissionRadiance, Channel::DeltaTransmissionReflectance},
    {Channel::ResidualRadiance, std::nullopt},
};

const std::string kOutput = "output";
const std::string kOutputSize = "outputSize";

/// Row `y` of `tex`, `width` texels long; texels outside the texture read as 0.
void loadRowZeroPadded(const Texture& tex, uint32_t y, std::vector<float4>& row)
{
    std::fill(row.begin(), row.end(), float4(0.f));
    if (y < tex.getHeight())
        tex.decode(tex.row(y), row.data(), std::min<uint32_t>(uint32_t(row.size()), tex.getWidth()));
}
} // namespace

ModulateIllumination::ModulateIllumination(const Properties& props)
{
    mUse.fill(true);
    for (const auto& [key, value] : props)
    {
        auto it = std::find_if(kChannels.begin(), kChannels.end(), [&](const ChannelInfo& c) { return key == c.useKey; });
        if (it != kChannels.end())
            mUse[it - kChannels.begin()] = value.as<bool>(key);
        else if (key == kOutputSize)
            mOutputSize = value.as<IOSize>(key);
        else
            warnUnknownProperty(key);
    }
}

Properties ModulateIllumination::getProperties() const
{
    Properties props;
    for (size_t c = 0; c < kChannelCount; ++c)
        props.set(kChannels[c].useKey, mUse[c]);
    props.set(kOutputSize, mOutputSize);
    return props;
}

RenderPassReflection ModulateIllumination::reflect(const CompileData& compileData)
{
    RenderPassReflection r;
    for (const ChannelInfo& c : kChannels)
        r.addInput(c.name, c.desc).flags(RenderPassReflection::Field::Flags::Optional);
    uint2 size = calculateIOSize(mOutputSize, mFrameDim, compileData.defaultTexDims);
    r.addOutput(kOutput, "output").format(ResourceFormat::RGBA32Float).texture2D(size);
    return r;
}

ModulateIllumination::InputSet ModulateIllumination::activeInputs(const RenderData& renderData) const
{
    InputSet inputs{};
    for (size_t c = 0; c < kChannelCount; ++c)
    {
        const Texture* tex = mUse[c] ? renderData[kChannels[c].name] : nullptr;
        if (tex && tex->getDims() != mFrameDim)
            logError("Texture ", tex->getName(), " has dim ", tex->getWidth(), "x", tex->getHeight(),
                     ", not compatible with the FrameDim ", mFrameDim.x(), "x", mFrameDim.y(), ".");
        inputs[c] = tex;
    }
    return inputs;
}

void ModulateIllumination::execute(RenderContext*, const RenderData& renderData)
{
    Texture& output = *renderData[kOutput];
    mFrameDim = output.getDims();
    const InputSet inputs = activeInputs(renderData);
    const uint32_t width = mFrameDim.x();

    parallelForRows(mFrameDim.y(), [&](uint32_t y) {
        std::array<std::vector<float4>, kChannelCount> rows;
        for (size_t c = 0; c < kChannelCount; ++c)
        {
            if (!inputs[c])
                continue;
            rows[c].resize(width);
            loadRowZeroPadded(*inputs[c], y, rows[c]);
        }

        std::vector<float4> result(width, float4(0.f));
        for (const Term& term : kTerms)
        {
            if (!inputs[term.light])
                continue;
            const bool modulated = term.reflectance && inputs[*term.reflectance];
            for (uint32_t x = 0; x < width; ++x)
            {
                float3 color = rows[term.light][x].xyz();
                if (modulated)
                    color = color * rows[*term.reflectance][x].xyz();
                result[x] += float4(color.x(), color.y(), color.z(), 0.f);
            }
        }
        output.storeRow(y, result.data());
    });
}

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(PluginRegistry& registry)
{
    registry.registerRenderPass<ModulateIllumination>();
}
