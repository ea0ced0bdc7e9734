#include "SimplePostFX.h"
#include "Bloom.h"
#include "Core/Logger.h"
#include "Core/PluginRegistry.h"
#include <optional>
#include <variant>

using namespace falcor;
using postfx::FloatImage;
using Settings = SimplePostFX::Settings;

namespace
{
const std::string kSrc = "src";
const std::string kDst = "dst";
const std::string kEnabled = "enabled";
const std::string kOutputSize = "outputSize";
const std::string kFixedOutputSize = "fixedOutputSize";

/// An effect option: its key and the Settings field it sets.
struct EffectOption
{
    const char* key;
    std::variant<float Settings::*, float3 Settings::*> field;
};

// In Falcor's getProperties order (after enabled/outputSize/fixedOutputSize).
const EffectOption kEffectOptions[] = {
    {"wipe", &Settings::wipe},
    {"bloomAmount", &Settings::bloomAmount},
    {"starAmount", &Settings::starAmount},
    {"starAngle", &Settings::starAngle},
    {"vignetteAmount", &Settings::vignetteAmount},
    {"chromaticAberrationAmount", &Settings::chromaticAberrationAmount},
    {"barrelDistortAmount", &Settings::barrelDistortAmount},
    {"saturationCurve", &Settings::saturationCurve},
    {"colorOffset", &Settings::colorOffset},
    {"colorScale", &Settings::colorScale},
    {"colorPower", &Settings::colorPower},
    {"colorOffsetScalar", &Settings::colorOffsetScalar},
    {"colorScaleScalar", &Settings::colorScaleScalar},
    {"colorPowerScalar", &Settings::colorPowerScalar},
};

const EffectOption* findEffectOption(const std::string& key)
{
    for (const EffectOption& option : kEffectOptions)
        if (key == option.key)
            return &option;
    return nullptr;
}

/// Everything after the bloom, per pixel: barrel distortion, chromatic aberration, vignette,
/// saturation curve, offset/scale/power grading. Constants are derived from the settings with
/// Falcor's formulas.
class PixelEffects
{
public:
    PixelEffects(const Settings& s, uint2 resolution)
        : mResolution(float(resolution.x()), float(resolution.y())), mInvRes(1.f / resolution.x(), 1.f / resolution.y())
    {
        // Radius scale (1 + r^2 k) / (1 + 4k): the 1 + 4k keeps the corners of a 16:9 frame in place.
        const float k = s.barrelDistortAmount * 0.125f;
        mBarrel = float2(1.f / (1.f + 4.f * k), k);
        mAberration = 1.f + s.chromaticAberrationAmount * (1.f / 64.f);
        mVignette = s.vignetteAmount;
        mSaturationQuadratic = fitSaturationQuadratic(s.saturationCurve);
        mOffset = s.colorOffset + s.colorOffsetScalar - 0.5f;
        mScale = s.colorScale * std::exp2(1.f + 2.f * s.colorScaleScalar);
        mPower = map(0.5f - s.colorPower - s.colorPowerScalar, [](float e) { return std::exp2(3.f * e); });
    }

    float3 operator()(const FloatImage& img, uint32_t x, uint32_t y) const { return grade(lens(img, x, y)); }

private:
    /// Coefficients (a, b, c) of saturation(t) = c + b t + a t^2 through the curve's shadow (t = 0),
    /// midtone (t = 1/2) and highlight (t = 1) values.
    static float3 fitSaturationQuadratic(float3 curve)
    {
        const float mid = curve.y() - curve.x(), high = curve.z() - curve.x();
        const float a = 2.f * high - 4.f * mid;
        return float3(a, high - a, curve.x());
    }

    float3 lens(const FloatImage& img, uint32_t x, uint32_t y) const
    {
        // -1..1 vertically, the same scale horizontally.
        float2 centered = (float2(float(x) + 0.5f, float(y) + 0.5f) * 2.f - mResolution) * mInvRes.y();
        const float r2 = dot(centered, centered);
        centered *= float2((1.f + r2 * mBarrel.y()) * mBarrel.x());
        const float2 offset = centered * float2(mResolution.y() * mInvRes.x() * 0.5f, 0.5f);

        float3 color;
        if (mAberration != 1.f)
        {
            color = float3(img.sample(offset / mAberration + 0.5f).x(), img.sample(offset + 0.5f).y(),
                           img.sample(offset * mAberration + 0.5f).z());
        }
        else
            color = img.sample(offset + 0.5f).xyz();
        return color * std::max(0.f, 1.f - r2 * mVignette);
    }

    float3 grade(float3 color) const
    {
        const float luma = dot(color, float3(0.2126f, 0.7152f, 0.0722f));
        // Maps luma to [0, 1): 0 = shadows, 1/2 = midtones (luma 0.5), 1 = highlights.
        const float t = saturate(luma / (luma + 0.5f));
        const float3& q = mSaturationQuadratic;
        const float saturation = std::max(0.f, q.z() + t * q.y() + t * t * q.x());
        color = lerp(float3(luma), color, saturation);
        return pow(max(float3(0.f), color * mScale + mOffset), mPower);
    }

    float2 mResolution, mInvRes;
    float2 mBarrel;
    float mAberration, mVignette;
    float3 mSaturationQuadratic, mOffset, mScale, mPower;
};

void applyEffects(const Texture& src, Texture& dst, const Settings& s)
{
    const FloatImage source = FloatImage::fromTexture(src);
    std::optional<FloatImage> bloomed;
    if (s.bloomAmount > 0.f)
        bloomed = postfx::computeBloom(source, {s.bloomAmount, s.starAmount, s.starAngle});
    const FloatImage& lensInput = bloomed ? *bloomed : source;

    const PixelEffects effects(s, src.getDims());
    const float wipeEnd = s.wipe * float(source.width);
    parallelForRows(source.height, [&](uint32_t y) {
        std::vector<float4> row(source.width);
        for (uint32_t x = 0; x < source.width; ++x)
        {
            const float3 c = effects(lensInput, x, y);
            row[x] = float(x) < wipeEnd ? source.at(x, y) : float4(c.x(), c.y(), c.z(), 1.f);
        }
        dst.storeRow(y, row.data());
    });
}
} // namespace

bool Settings::leavesImageUnchanged() const
{
    // Falcor leaves vignetteAmount and starAmount out of this test.
    return wipe >= 1.f || (bloomAmount == 0.f && chromaticAberrationAmount == 0.f && barrelDistortAmount == 0.f &&
                           saturationCurve == float3(1.f) && colorOffset == float3(0.5f) && colorScale == float3(0.5f) &&
                           colorPower == float3(0.5f) && colorOffsetScalar == 0.f && colorScaleScalar == 0.f && colorPowerScalar == 0.f);
}

SimplePostFX::SimplePostFX(const Properties& props)
{
    for (const auto& [key, value] : props)
    {
        if (key == kEnabled)
            mEnabled = value.as<bool>(key);
        else if (key == kOutputSize)
            mOutputSize = value.as<IOSize>(key);
        else if (key == kFixedOutputSize)
            mFixedOutputSize = value.as<uint2>(key);
        else if (const EffectOption* option = findEffectOption(key))
            std::visit([&]<typename T>(T Settings::*field) { mSettings.*field = value.as<T>(key); }, option->field);
        else
            warnUnknownProperty(key);
    }
    publishScriptProperties();
}

void SimplePostFX::publishScriptProperties()
{
    scriptProperty<bool>(kEnabled, [this] { return mEnabled; }, [this](bool e) { mEnabled = e; });
    for (const EffectOption& option : kEffectOptions)
    {
        std::visit(
            [&]<typename T>(T Settings::*field) {
                scriptProperty<T>(option.key, [this, field] { return mSettings.*field; }, [this, field](T v) { mSettings.*field = v; });
            },
            option.field);
    }
}

Properties SimplePostFX::getProperties() const
{
    Properties props;
    props.set(kEnabled, mEnabled);
    props.set(kOutputSize, mOutputSize);
    if (mOutputSize == IOSize::Fixed)
        props.set(kFixedOutputSize, mFixedOutputSize);
    for (const EffectOption& option : kEffectOptions)
        std::visit([&](auto field) { props.set(option.key, mSettings.*field); }, option.field);
    return props;
}

RenderPassReflection SimplePostFX::reflect(const CompileData& compileData)
{
    RenderPassReflection r;
    r.addInput(kSrc, "Source texture");
    const uint2 size = calculateIOSize(mOutputSize, mFixedOutputSize, compileData.defaultTexDims);
    r.addOutput(kDst, "post-effected output texture").format(ResourceFormat::RGBA32Float).texture2D(size);
    return r;
}

void SimplePostFX::execute(RenderContext* pRenderContext, const RenderData& renderData)
{
    const Texture& src = *renderData[kSrc];
    Texture& dst = *renderData[kDst];
    if (mEnabled && src.getDims() != dst.getDims())
    {
        // Falcor's reaction: report once and switch the effects off until re-enabled.
        logError("SimplePostFX I/O sizes don't match. The pass will be disabled.");
        mEnabled = false;
    }
    if (!mEnabled || mSettings.leavesImageUnchanged())
        pRenderContext->blit(src, dst);
    else
        applyEffects(src, dst, mSettings);
}

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(PluginRegistry& registry)
{
    registry.registerRenderPass<SimplePostFX>();
}
