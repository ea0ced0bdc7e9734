#include "SVGFPass.h"
#include "Core/Error.h"
#include "Core/PluginRegistry.h"
#include "Core/ThreadPool.h"
#include <variant>

using namespace falcor;
using svgf::Image;

namespace
{
const std::string kAlbedo = "Albedo";
const std::string kColor = "Color";
const std::string kEmission = "Emission";
const std::string kWorldPosition = "WorldPosition";
const std::string kWorldNormal = "WorldNormal";
const std::string kPosNormalFwidth = "PositionNormalFwidth";
const std::string kLinearZ = "LinearZ";
const std::string kMotionVec = "MotionVec";

const std::string kPrevLinearZAndNormal = "Previous Linear Z and Packed Normal";
const std::string kPrevLighting = "Previous Lighting";
const std::string kPrevMoments = "Previous Moments";

const std::string kFilteredImage = "Filtered image";

constexpr int32_t kMaxIterations = 30; // Step size 1 << i must stay an int.

/// A property: its key and the Settings field it sets.
struct Option
{
    const char* key;
    std::variant<bool svgf::Settings::*, int32_t svgf::Settings::*, float svgf::Settings::*> field;
};

// In Falcor's getProperties order.
const Option kOptions[] = {
    {"Enabled", &svgf::Settings::enabled},
    {"Iterations", &svgf::Settings::iterations},
    {"FeedbackTap", &svgf::Settings::feedbackTap},
    {"VarianceEpsilon", &svgf::Settings::varianceEpsilon},
    {"PhiColor", &svgf::Settings::phiColor},
    {"PhiNormal", &svgf::Settings::phiNormal},
    {"Alpha", &svgf::Settings::alpha},
    {"MomentsAlpha", &svgf::Settings::momentsAlpha},
};

void decode(const Texture& tex, Image<float4>& img)
{
    img.resize(tex.getWidth(), tex.getHeight());
    parallelForRows(img.height, [&](uint32_t y) { tex.loadRow(y, &img.at(0, y)); });
}

/// Stores an image of float, float2 or float4 texels into `tex` (same size).
template<typename T>
void encode(const Image<T>& img, Texture& tex)
{
    parallelForRows(img.height, [&](uint32_t y) {
        std::vector<float4> row(img.width, float4(0.f));
        for (uint32_t x = 0; x < img.width; ++x)
        {
            if constexpr (std::is_same_v<T, float>)
                row[x].x() = img.at(x, y);
            else
                for (int c = 0; c < int(sizeof(T) / sizeof(float)); ++c)
                    row[x][c] = img.at(x, y)[c];
        }
        tex.storeRow(y, row.data());
    });
}
} // namespace

SVGFPass::SVGFPass(const Properties& props)
{
    for (const auto& [key, value] : props)
    {
        auto it = std::find_if(std::begin(kOptions), std::end(kOptions), [&](const Option& o) { return key == o.key; });
        if (it == std::end(kOptions))
        {
            warnUnknownProperty(key);
            continue;
        }
        std::visit([&]<typename T>(T svgf::Settings::*field) { mSettings.*field = value.as<T>(key); }, it->field);
    }
    FALCOR_CHECK(mSettings.iterations >= 0 && mSettings.iterations <= kMaxIterations, "SVGFPass: property 'Iterations' = ",
                 mSettings.iterations, " is out of range [0, ", kMaxIterations, "].");
}

Properties SVGFPass::getProperties() const
{
    Properties props;
    for (const Option& option : kOptions)
        std::visit([&](auto field) { props.set(option.key, mSettings.*field); }, option.field);
    return props;
}

RenderPassReflection SVGFPass::reflect(const CompileData& compileData)
{
    RenderPassReflection r;
    r.addInput(kAlbedo, "Albedo");
    r.addInput(kColor, "Color");
    r.addInput(kEmission, "Emission");
    r.addInput(kWorldPosition, "World Position");
    r.addInput(kWorldNormal, "World Normal");
    r.addInput(kPosNormalFwidth, "PositionNormalFwidth");
    r.addInput(kLinearZ, "LinearZ");
    r.addInput(kMotionVec, "Motion vectors");
    r.addInternal(kPrevLinearZAndNormal, "Previous Linear Z and Packed Normal").format(ResourceFormat::RGBA32Float);
    r.addInternal(kPrevLighting, "Previous Filtered Lighting").format(ResourceFormat::RGBA32Float);
    r.addInternal(kPrevMoments, "Previous Moments").format(ResourceFormat::RG32Float);
    r.addOutput(kFilteredImage, "Filtered image").format(ResourceFormat::RGBA16Float);
    return r;
}

void SVGFPass::compile(RenderContext*, const CompileData&)
{
    mHistoryNeedsClear = true;
}

void SVGFPass::readInputs(const RenderData& renderData, uint2 dims)
{
    const Texture* albedo = renderData[kAlbedo];
    const Texture* color = renderData[kColor];
    const Texture* emission = renderData[kEmission];
    const Texture* normal = renderData[kWorldNormal];
    const Texture* fwidth = renderData[kPosNormalFwidth];
    const Texture* linearZ = renderData[kLinearZ];
    const Texture* motion = renderData[kMotionVec];
    checkFieldDims(getType(), dims,
                   {{kAlbedo, albedo}, {kColor, color}, {kEmission, emission}, {kWorldPosition, renderData[kWorldPosition]},
                    {kWorldNormal, normal}, {kPosNormalFwidth, fwidth}, {kLinearZ, linearZ}, {kMotionVec, motion}});
    decode(*albedo, mInputs.albedo);
    decode(*color, mInputs.color);
    decode(*emission, mInputs.emission);
    decode(*normal, mInputs.worldNormal);
    decode(*fwidth, mInputs.posNormalFwidth);
    decode(*linearZ, mInputs.linearZ);
    decode(*motion, mInputs.motion);
}

void SVGFPass::clearHistory(const RenderData& renderData, uint2 dims)
{
    mHistory.reset(dims.x(), dims.y());
    for (const std::string& name : {kPrevLinearZAndNormal, kPrevLighting, kPrevMoments})
        if (Texture* tex = renderData[name])
            tex->clear();
    mHistoryNeedsClear = false;
}

void SVGFPass::writeHistoryTextures(const RenderData& renderData) const
{
    const std::pair<const std::string&, Texture*> targets[] = {
        {kPrevLinearZAndNormal, renderData[kPrevLinearZAndNormal]},
        {kPrevLighting, renderData[kPrevLighting]},
        {kPrevMoments, renderData[kPrevMoments]},
    };
    for (const auto& [name, tex] : targets)
        if (tex && tex->getDims() != uint2(mHistory.length.width, mHistory.length.height))
            return; // Internal fields sized for another frame: the history lives on in the pass alone.
    encode(mHistory.linearZAndNormal, *targets[0].second);
    encode(mHistory.lighting, *targets[1].second);
    encode(mHistory.moments, *targets[2].second);
}

void SVGFPass::execute(RenderContext* pRenderContext, const RenderData& renderData)
{
    Texture& output = *renderData[kFilteredImage];
    const uint2 dims = output.getDims();
    if (mHistoryNeedsClear || mHistory.length.width != dims.x() || mHistory.length.height != dims.y())
        clearHistory(renderData, dims);
    if (!mSettings.enabled)
    {
        pRenderContext->blit(*renderData[kColor], output);
        return;
    }
    readInputs(renderData, dims);
    mFiltered.resize(dims.x(), dims.y());
    svgf::denoise(mInputs, mSettings, mHistory, mWorkspace, mFiltered);
    encode(mFiltered, output);
    writeHistoryTextures(renderData);
}

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(PluginRegistry& registry)
{
    registry.registerRenderPass<SVGFPass>();
}
