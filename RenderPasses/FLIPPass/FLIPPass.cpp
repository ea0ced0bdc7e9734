/// FLIPPass: NVIDIA's FLIP perceptual error between `testImage` and `referenceImage`; LDR-FLIP for
/// display-referred inputs, HDR-FLIP (the per-pixel maximum of LDR-FLIP over a range of exposures
/// of the tone-mapped images; Andersson et al., EGSR 2021) for linear HDR inputs.
///
/// | Property                    | Type    | Default | Meaning                                              |
/// |-----------------------------|---------|---------|------------------------------------------------------|
/// | enabled                     | bool    | True    | When off, the outputs are left untouched.            |
/// | useMagma                    | bool    | True    | Error colors from the magma map, else gray.          |
/// | clampInput                  | bool    | False   | Clamp inputs to [0,1] (LDR) or [0,inf) (HDR).        |
/// | isHDR                       | bool    | False   | Compute HDR-FLIP instead of LDR-FLIP.                |
/// | toneMapper                  | 'ACES'/'Hable'/'Reinhard' | 'ACES' | Tone mapper HDR-FLIP assumes.   |
/// | useCustomExposureParameters | bool    | False   | Use the exposures below instead of deriving them     |
/// |                             |         |         | from the reference (they are then overwritten).      |
/// | startExposure               | float   | 0       | First HDR-FLIP exposure (stops).                     |
/// | stopExposure                | float   | 0       | Last HDR-FLIP exposure (stops).                      |
/// | numExposures                | uint    | 2       | Number of exposures, evenly spaced.                  |
/// | monitorWidthPixels          | uint    | 3840    | Viewing conditions, which set the pixels per degree  |
/// | monitorWidthMeters          | float   | 0.7     | and so the size of FLIP's filters.                   |
/// | monitorDistanceMeters       | float   | 0.7     |                                                      |
/// | computePooledFLIPValues     | bool    | False   | Compute the frame's mean, min and max FLIP.          |
/// | useRealMonitorInfo          | bool    | False   | Accepted; there is no monitor to query on the CPU.   |
///
/// Outputs: `errorMap` = (color of the error, error); `errorMapDisplay` shows that color;
/// `exposureMapDisplay` shows, with the viridis map, which exposure gave the HDR-FLIP maximum.
/// Python (read-only, what Falcor's UI prints): `averageFLIP`, `minFLIP`, `maxFLIP`, None until
/// pooled values were computed.
#include "Colormaps.h"
#include "ColorSpaces.h"
#include "Core/Logger.h"
#include "Core/PluginRegistry.h"
#include "Core/ThreadPool.h"
#include "FLIP.h"
#include "RenderGraph/RenderPass.h"
#include "ToneMappers.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

using namespace falcor;
using flip::Plane;
using flip::ToneMapperType;

namespace
{
const std::string kTestImage = "testImage";
const std::string kReferenceImage = "referenceImage";
const std::string kErrorMap = "errorMap";
const std::string kErrorMapDisplay = "errorMapDisplay";
const std::string kExposureMapDisplay = "exposureMapDisplay";

const std::string kEnabled = "enabled";
const std::string kUseMagma = "useMagma";
const std::string kClampInput = "clampInput";
const std::string kIsHDR = "isHDR";
const std::string kToneMapper = "toneMapper";
const std::string kUseCustomExposureParameters = "useCustomExposureParameters";
const std::string kStartExposure = "startExposure";
const std::string kStopExposure = "stopExposure";
const std::string kNumExposures = "numExposures";
const std::string kMonitorWidthPixels = "monitorWidthPixels";
const std::string kMonitorWidthMeters = "monitorWidthMeters";
const std::string kMonitorDistanceMeters = "monitorDistanceMeters";
/// HDR-FLIP evaluates one LDR-FLIP per exposure; Falcor's default picks a handful.
constexpr uint32_t kMaxExposures = 256;
const std::string kComputePooledFLIPValues = "computePooledFLIPValues";
const std::string kUseRealMonitorInfo = "useRealMonitorInfo";

/// Output value with which the tone curve reaches 85 % of white; HDR-FLIP's exposures run from
/// putting the reference's maximum luminance there to putting its median there.
constexpr float kExposureTarget = 0.85f;

/// Larger root of a x^2 + b x + c = 0 (the only root when a == 0).
float largerRoot(float a, float b, float c)
{
    if (a == 0.f)
        return -c / b;
    const float mid = -0.5f * b / a;
    return mid + std::sqrt(mid * mid - c / a);
}

/// Median and maximum of the reference's luminance.
std::pair<float, float> luminanceMedianMax(const Texture& image)
{
    const uint32_t width = image.getWidth(), height = image.getHeight();
    std::vector<float> values(size_t(width) * height);
    parallelForRows(height, [&](uint32_t y) {
        std::vector<float4> row(width);
        image.loadRow(y, row.data());
        for (uint32_t x = 0; x < width; ++x)
            values[size_t(y) * width + x] = flip::luminance(row[x].xyz());
    });
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    const float median = n % 2 ? values[n / 2] : 0.5f * (values[n / 2 - 1] + values[n / 2]);
    return {median, values.back()};
}

bool isValidError(float e)
{
    return e >= 0.f && e <= 1.f; // False for NaN too.
}

/// Mean, minimum and maximum of the errors, summed per row then in row order (thread-count independent).
struct PooledValues
{
    float mean, min, max;
};
PooledValues poolErrors(const Plane<float>& errorValues)
{
    const uint32_t width = errorValues.width, height = errorValues.height;
    std::vector<double> rowSum(height, 0.0);
    std::vector<float> rowMin(height, std::numeric_limits<float>::infinity()), rowMax(height, -std::numeric_limits<float>::infinity());
    parallelForRows(height, [&](uint32_t y) {
        for (uint32_t x = 0; x < width; ++x)
        {
            const float e = errorValues.at(x, y);
            rowSum[y] += e, rowMin[y] = std::min(rowMin[y], e), rowMax[y] = std::max(rowMax[y], e);
        }
    });
    double total = 0.0;
    for (double s : rowSum)
        total += s;
    return {float(total / (double(width) * height)), *std::min_element(rowMin.begin(), rowMin.end()),
            *std::max_element(rowMax.begin(), rowMax.end())};
}
} // namespace

class FLIPPass : public RenderPass
{
    FALCOR_PLUGIN_CLASS(FLIPPass, "FLIPPass", "FLIP Metric Pass.");

public:
    explicit FLIPPass(const Properties& props)
    {
        for (const auto& [key, value] : props)
        {
            if (key == kEnabled)
                mEnabled = value.as<bool>(key);
            else if (key == kUseMagma)
                mUseMagma = value.as<bool>(key);
            else if (key == kClampInput)
                mClampInput = value.as<bool>(key);
            else if (key == kIsHDR)
                mIsHDR = value.as<bool>(key);
            else if (key == kToneMapper)
                mToneMapper = value.as<ToneMapperType>(key);
            else if (key == kUseCustomExposureParameters)
                mUseCustomExposureParameters = value.as<bool>(key);
            else if (key == kStartExposure)
                mStartExposure = value.as<float>(key);
            else if (key == kStopExposure)
                mStopExposure = value.as<float>(key);
            else if (key == kNumExposures)
                mNumExposures = value.as<uint32_t>(key);
            else if (key == kMonitorWidthPixels)
                mMonitorWidthPixels = value.as<uint32_t>(key);
            else if (key == kMonitorWidthMeters)
                mMonitorWidthMeters = value.as<float>(key);
            else if (key == kMonitorDistanceMeters)
                mMonitorDistanceMeters = value.as<float>(key);
            else if (key == kComputePooledFLIPValues)
                mComputePooledFLIPValues = value.as<bool>(key);
            else if (key == kUseRealMonitorInfo)
                mUseRealMonitorInfo = value.as<bool>(key);
            else
                warnUnknownProperty(key);
        }
        flip::pixelsPerDegree(mMonitorWidthPixels, mMonitorWidthMeters, mMonitorDistanceMeters); // Validates them.
        FALCOR_CHECK(mNumExposures <= kMaxExposures, "FLIPPass: '", kNumExposures, "' = ", mNumExposures, " is out of range [2, ",
                     kMaxExposures, "].");
        if (mUseRealMonitorInfo)
            logWarningOnce("FLIPPass: 'useRealMonitorInfo' is ignored: there is no display to query on this headless CPU renderer. "
                           "FLIP uses 'monitorWidthPixels', 'monitorWidthMeters' and 'monitorDistanceMeters' instead.");

        scriptReadOnlyProperty<PropertyValue>("averageFLIP", [this] { return pooledValue(&PooledValues::mean); });
        scriptReadOnlyProperty<PropertyValue>("minFLIP", [this] { return pooledValue(&PooledValues::min); });
        scriptReadOnlyProperty<PropertyValue>("maxFLIP", [this] { return pooledValue(&PooledValues::max); });
    }

    Properties getProperties() const override
    {
        Properties props;
        props.set(kEnabled, mEnabled);
        props.set(kUseMagma, mUseMagma);
        props.set(kClampInput, mClampInput);
        props.set(kIsHDR, mIsHDR);
        props.set(kToneMapper, mToneMapper);
        props.set(kUseCustomExposureParameters, mUseCustomExposureParameters);
        props.set(kStartExposure, mStartExposure);
        props.set(kStopExposure, mStopExposure);
        props.set(kNumExposures, mNumExposures);
        props.set(kMonitorWidthPixels, mMonitorWidthPixels);
        props.set(kMonitorWidthMeters, mMonitorWidthMeters);
        props.set(kMonitorDistanceMeters, mMonitorDistanceMeters);
        props.set(kComputePooledFLIPValues, mComputePooledFLIPValues);
        props.set(kUseRealMonitorInfo, mUseRealMonitorInfo);
        return props;
    }

    RenderPassReflection reflect(const CompileData&) override
    {
        RenderPassReflection r;
        r.addInput(kTestImage, "Test image");
        r.addInput(kReferenceImage, "Reference image");
        // Persistent: a disabled pass keeps showing its last result without writing.
        const auto persistent = RenderPassReflection::Field::Flags::Persistent;
        r.addOutput(kErrorMap, "FLIP error map for computations: RGB = color of the error, A = error")
            .format(ResourceFormat::RGBA32Float)
            .flags(persistent);
        r.addOutput(kErrorMapDisplay, "FLIP error map for display").format(ResourceFormat::RGBA8UnormSrgb).flags(persistent);
        r.addOutput(kExposureMapDisplay, "HDR-FLIP exposure map for display").format(ResourceFormat::RGBA8UnormSrgb).flags(persistent);
        return r;
    }

    void execute(RenderContext* pRenderContext, const RenderData& renderData) override
    {
        if (!mEnabled)
            return;
        const Texture& test = *renderData[kTestImage];
        const Texture& reference = *renderData[kReferenceImage];
        Texture& errorMap = *renderData[kErrorMap];
        const uint2 dims = reference.getDims();
        FALCOR_CHECK(test.getDims() == dims && errorMap.getDims() == dims, "FLIPPass: '", kTestImage, "' (", test.getWidth(), "x",
                     test.getHeight(), ") and '", kErrorMap, "' (", errorMap.getWidth(), "x", errorMap.getHeight(),
                     ") must have the size of '", kReferenceImage, "' (", dims.x(), "x", dims.y(), ").");

        const flip::LDRFLIP metric(flip::pixelsPerDegree(mMonitorWidthPixels, mMonitorWidthMeters, mMonitorDistanceMeters));
        Plane<float> error;
        if (mIsHDR)
        {
            if (!mUseCustomExposureParameters)
                deriveExposureRange(reference);
            Plane<uint32_t> bestExposure;
            error = evaluateHDR(metric, reference, test, bestExposure);
            writeExposureMap(pRenderContext, bestExposure, *renderData[kExposureMapDisplay]);
        }
        else
        {
            error = metric.evaluate(displayColors(reference, 0.f), displayColors(test, 0.f));
            // Only HDR-FLIP has an exposure map.
            renderData[kExposureMapDisplay]->clear();
        }
        writeErrorMaps(pRenderContext, error, errorMap, *renderData[kErrorMapDisplay]);

        if (mComputePooledFLIPValues)
            mPooled = poolErrors(errorAlpha(errorMap));
    }

private:
    /// The colors FLIP compares: LDR inputs as they are (clamped on request), HDR inputs scaled
    /// by 2^exposure and tone mapped.
    Plane<float3> displayColors(const Texture& image, float exposure) const
    {
        const uint32_t width = image.getWidth(), height = image.getHeight();
        const float scale = std::exp2(exposure);
        Plane<float3> colors(width, height);
        parallelForRows(height, [&](uint32_t y) {
            std::vector<float4> row(width);
            image.loadRow(y, row.data());
            for (uint32_t x = 0; x < width; ++x)
            {
                float3 c = row[x].xyz();
                if (mIsHDR)
                    c = flip::toneMap(scale * (mClampInput ? max(c, float3(0.f)) : c), mToneMapper);
                else if (mClampInput)
                    c = saturate(c);
                colors.at(x, y) = c;
            }
        });
        return colors;
    }

    /// Exposures from the one that maps the reference's maximum luminance to kExposureTarget to the
    /// one that maps its median there, about one stop apart (at least two).
    void deriveExposureRange(const Texture& reference)
    {
        const auto [median, maximum] = luminanceMedianMax(reference);
        FALCOR_CHECK(median > 0.f && std::isfinite(maximum), "FLIPPass: can't derive HDR-FLIP exposures from a reference whose median luminance is ",
                     median, " and maximum is ", maximum, "; set '", kUseCustomExposureParameters, "' and the exposures instead.");
        const flip::RationalCurve curve = flip::toneCurve(mToneMapper);
        const float t = kExposureTarget;
        const float x = largerRoot(curve.k[0] - t * curve.k[3], curve.k[1] - t * curve.k[4], curve.k[2] - t * curve.k[5]);
        mStartExposure = std::log2(x / maximum);
        mStopExposure = std::log2(x / median);
        mNumExposures = uint32_t(std::max(2.f, std::ceil(mStopExposure - mStartExposure)));
    }

    /// Per-pixel maximum of LDR-FLIP over the exposures; `bestExposure` receives the index of the
    /// first exposure reaching it.
    Plane<float> evaluateHDR(const flip::LDRFLIP& metric, const Texture& reference, const Texture& test, Plane<uint32_t>& bestExposure) const
    {
        FALCOR_CHECK(mNumExposures >= 2, "FLIPPass: '", kNumExposures, "' must be at least 2 (is ", mNumExposures, ").");
        const float delta = (mStopExposure - mStartExposure) / float(mNumExposures - 1);
        Plane<float> hdrError(reference.getWidth(), reference.getHeight());
        bestExposure = Plane<uint32_t>(hdrError.width, hdrError.height);
        for (uint32_t i = 0; i < mNumExposures; ++i)
        {
            const float exposure = mStartExposure + float(i) * delta;
            const Plane<float> ldrError = metric.evaluate(displayColors(reference, exposure), displayColors(test, exposure));
            for (size_t p = 0; p < ldrError.data.size(); ++p)
                if (ldrError.data[p] > hdrError.data[p])
                    hdrError.data[p] = ldrError.data[p], bestExposure.data[p] = i;
        }
        return hdrError;
    }

    /// errorMap gets (color, error); the display gets the color, pre-linearized so that the sRGB
    /// encoding of the blit into the 8-bit display output gives back the colormap's values.
    /// Errors outside [0, 1] (NaN, inf) are flagged in pure red with error 1.
    void writeErrorMaps(RenderContext* pRenderContext, const Plane<float>& error, Texture& errorMap, Texture& display)
    {
        Texture& linearDisplay = scratchTexture(mpErrorMapLinear, errorMap.getDims());
        parallelForRows(error.height, [&](uint32_t y) {
            std::vector<float4> values(error.width), shown(error.width);
            for (uint32_t x = 0; x < error.width; ++x)
            {
                const float e = error.at(x, y);
                if (!isValidError(e))
                {
                    values[x] = shown[x] = float4(1.f, 0.f, 0.f, 1.f);
                    continue;
                }
                const float3 color = mUseMagma ? flip::lookup(flip::kMagma, e) : float3(e);
                values[x] = float4(color.x(), color.y(), color.z(), e);
                shown[x] = float4(srgbToLinear(color.x()), srgbToLinear(color.y()), srgbToLinear(color.z()), 1.f);
            }
            errorMap.storeRow(y, values.data());
            linearDisplay.storeRow(y, shown.data());
        });
        pRenderContext->blit(linearDisplay, display);
    }

    void writeExposureMap(RenderContext* pRenderContext, const Plane<uint32_t>& bestExposure, Texture& display)
    {
        Texture& linearDisplay = scratchTexture(mpExposureMapLinear, {bestExposure.width, bestExposure.height});
        parallelForRows(bestExposure.height, [&](uint32_t y) {
            std::vector<float4> shown(bestExposure.width);
            for (uint32_t x = 0; x < bestExposure.width; ++x)
            {
                const float3 c = flip::lookup(flip::kViridis, float(bestExposure.at(x, y)) / float(mNumExposures - 1));
                shown[x] = float4(srgbToLinear(c.x()), srgbToLinear(c.y()), srgbToLinear(c.z()), 1.f);
            }
            linearDisplay.storeRow(y, shown.data());
        });
        pRenderContext->blit(linearDisplay, display);
    }

    /// The error channel of the error map as stored (1 for flagged pixels), as Falcor pools it.
    static Plane<float> errorAlpha(const Texture& errorMap)
    {
        Plane<float> alpha(errorMap.getWidth(), errorMap.getHeight());
        parallelForRows(alpha.height, [&](uint32_t y) {
            std::vector<float4> row(alpha.width);
            errorMap.loadRow(y, row.data());
            for (uint32_t x = 0; x < alpha.width; ++x)
                alpha.at(x, y) = row[x].w();
        });
        return alpha;
    }

    static Texture& scratchTexture(TexturePtr& texture, uint2 dims)
    {
        if (!texture || texture->getDims() != dims)
            texture = Texture::create2D(dims.x(), dims.y(), ResourceFormat::RGBA32Float);
        return *texture;
    }

    PropertyValue pooledValue(float PooledValues::*member) const
    {
        return mComputePooledFLIPValues && mPooled ? PropertyValue((*mPooled).*member) : PropertyValue();
    }

    // Options.
    bool mEnabled = true;
    bool mUseMagma = true;
    bool mClampInput = false;
    bool mIsHDR = false;
    ToneMapperType mToneMapper = ToneMapperType::ACES;
    bool mUseCustomExposureParameters = false;
    float mStartExposure = 0.f; ///< Overwritten by the derived range unless custom exposures are used.
    float mStopExposure = 0.f;
    uint32_t mNumExposures = 2;
    uint32_t mMonitorWidthPixels = 3840;
    float mMonitorWidthMeters = 0.7f;
    float mMonitorDistanceMeters = 0.7f;
    bool mComputePooledFLIPValues = false;
    bool mUseRealMonitorInfo = false;

    // State.
    TexturePtr mpErrorMapLinear;
    TexturePtr mpExposureMapLinear;
    std::optional<PooledValues> mPooled;
};

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(PluginRegistry& registry)
{
    registry.registerRenderPass<FLIPPass>();
}
