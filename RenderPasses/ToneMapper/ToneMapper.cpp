#include "ToneMapper.h"
#include "Core/Logger.h"
#include "Core/PluginRegistry.h"
#include "Core/ThreadPool.h"
#include "WhiteBalance.h"
#include <bit>
#include <vector>

using namespace falcor;
using namespace tonemapping;

namespace
{
const std::string kSrc = "src";
const std::string kDst = "dst";

const std::string kOutputSize = "outputSize";
const std::string kFixedOutputSize = "fixedOutputSize";
const std::string kOutputFormat = "outputFormat";
const std::string kUseSceneMetadata = "useSceneMetadata";
const std::string kExposureCompensation = "exposureCompensation";
const std::string kAutoExposure = "autoExposure";
const std::string kExposureValue = "exposureValue";
const std::string kFilmSpeed = "filmSpeed";
const std::string kFNumber = "fNumber";
const std::string kShutter = "shutter";
const std::string kExposureMode = "exposureMode";
const std::string kWhiteBalance = "whiteBalance";
const std::string kWhitePoint = "whitePoint";
const std::string kOperator = "operator";
const std::string kClamp = "clamp";
const std::string kWhiteMaxLuminance = "whiteMaxLuminance";
const std::string kWhiteScale = "whiteScale";

// Falcor's ranges for the camera model.
const float kExposureCompensationMin = -12.f, kExposureCompensationMax = 12.f;
const float kFilmSpeedMin = 1.f, kFilmSpeedMax = 6400.f;
const float kFNumberMin = 0.1f, kFNumberMax = 100.f;    // > 0 keeps the exposure finite.
const float kShutterMin = 0.1f, kShutterMax = 10000.f;  // Reciprocal seconds.
const float kWhitePointMin = 1905.f, kWhitePointMax = 25000.f; // Colder than ~1905 K leaves Rec.709.
const float kWhiteScaleMin = 0.001f;
// The exposure value is derived from shutter and f-number, so its range follows theirs.
const float kExposureValueMin = std::log2(kShutterMin * kFNumberMin * kFNumberMin);
const float kExposureValueMax = std::log2(kShutterMax * kFNumberMax * kFNumberMax);

// Auto exposure maps the log-average luminance to this middle-grey key.
const float kExposureKey = 0.042f;
// Rows per task of the log-luminance reduction; fixed so the sum order never depends on threads.
const size_t kReductionRows = 16;
} // namespace

ToneMapper::ToneMapper(const Properties& props)
{
    parseProperties(props);
    registerScriptProperties();
}

void ToneMapper::parseProperties(const Properties& props)
{
    for (const auto& [key, value] : props)
    {
        if (key == kOutputSize)
            mOutputSizeSelection = value.as<IOSize>(key);
        else if (key == kFixedOutputSize)
            mFixedOutputSize = value.as<uint2>(key);
        else if (key == kOutputFormat)
            mOutputFormat = value.as<ResourceFormat>(key);
        else if (key == kUseSceneMetadata)
            mUseSceneMetadata = value.as<bool>(key);
        else if (key == kExposureCompensation)
            setExposureCompensation(value.as<float>(key));
        else if (key == kAutoExposure)
            mAutoExposure = value.as<bool>(key);
        else if (key == kFilmSpeed)
            setFilmSpeed(value.as<float>(key));
        else if (key == kFNumber)
            setFNumber(value.as<float>(key));
        else if (key == kShutter)
            setShutter(value.as<float>(key));
        else if (key == kExposureMode)
            mExposureMode = value.as<ExposureMode>(key);
        else if (key == kWhiteBalance)
            mWhiteBalance = value.as<bool>(key);
        else if (key == kWhitePoint)
            setWhitePoint(value.as<float>(key));
        else if (key == kOperator)
            mOperator = value.as<Operator>(key);
        else if (key == kClamp)
            mClamp = value.as<bool>(key);
        else if (key == kWhiteMaxLuminance)
            mWhiteMaxLuminance = value.as<float>(key);
        else if (key == kWhiteScale)
            setWhiteScale(value.as<float>(key));
        else // Includes `exposureValue`, which Falcor only accepts as a Python attribute.
            warnUnknownProperty(key);
    }
}

void ToneMapper::registerScriptProperties()
{
    scriptProperty<float>(kExposureCompensation, [this] { return mExposureCompensation; }, [this](float v) { setExposureCompensation(v); });
    scriptProperty<bool>(kAutoExposure, [this] { return mAutoExposure; }, [this](bool v) { mAutoExposure = v; });
    scriptProperty<float>(kExposureValue, [this] { return getExposureValue(); }, [this](float v) { setExposureValue(v); });
    scriptProperty<float>(kFilmSpeed, [this] { return mFilmSpeed; }, [this](float v) { setFilmSpeed(v); });
    scriptProperty<bool>(kWhiteBalance, [this] { return mWhiteBalance; }, [this](bool v) { mWhiteBalance = v; });
    scriptProperty<float>(kWhitePoint, [this] { return mWhitePoint; }, [this](float v) { setWhitePoint(v); });
    scriptProperty<Operator>(kOperator, [this] { return mOperator; }, [this](Operator op) { mOperator = op; });
    scriptProperty<bool>(kClamp, [this] { return mClamp; }, [this](bool v) { mClamp = v; });
    scriptProperty<float>(kWhiteMaxLuminance, [this] { return mWhiteMaxLuminance; }, [this](float v) { mWhiteMaxLuminance = v; });
    scriptProperty<float>(kWhiteScale, [this] { return mWhiteScale; }, [this](float v) { setWhiteScale(v); });
    scriptProperty<float>(kFNumber, [this] { return mFNumber; }, [this](float v) { setFNumber(v); });
    scriptProperty<float>(kShutter, [this] { return mShutter; }, [this](float v) { setShutter(v); });
    scriptProperty<ExposureMode>(kExposureMode, [this] { return mExposureMode; }, [this](ExposureMode m) { mExposureMode = m; });
}

Properties ToneMapper::getProperties() const
{
    Properties props;
    props.set(kOutputSize, mOutputSizeSelection);
    if (mOutputSizeSelection == IOSize::Fixed)
        props.set(kFixedOutputSize, mFixedOutputSize);
    if (mOutputFormat != ResourceFormat::Unknown)
        props.set(kOutputFormat, mOutputFormat);
    props.set(kUseSceneMetadata, mUseSceneMetadata);
    props.set(kExposureCompensation, mExposureCompensation);
    props.set(kAutoExposure, mAutoExposure);
    props.set(kFilmSpeed, mFilmSpeed);
    props.set(kWhiteBalance, mWhiteBalance);
    props.set(kWhitePoint, mWhitePoint);
    props.set(kOperator, mOperator);
    props.set(kClamp, mClamp);
    props.set(kWhiteMaxLuminance, mWhiteMaxLuminance);
    props.set(kWhiteScale, mWhiteScale);
    props.set(kFNumber, mFNumber);
    props.set(kShutter, mShutter);
    props.set(kExposureMode, mExposureMode);
    return props;
}

RenderPassReflection ToneMapper::reflect(const CompileData& compileData)
{
    RenderPassReflection r;
    const uint2 size = calculateIOSize(mOutputSizeSelection, mFixedOutputSize, compileData.defaultTexDims);
    r.addInput(kSrc, "Source texture");
    r.addOutput(kDst, "Tone-mapped output texture").texture2D(size).format(mOutputFormat);
    return r;
}

void ToneMapper::execute(RenderContext*, const RenderData& renderData)
{
    const Texture& src = *renderData[kSrc];
    Texture& dst = *renderData[kDst];
    const uint2 dims = dst.getDims();
    if (src.getDims() != dims)
        logWarningOnce("ToneMapper pass I/O has different dimensions. The image will be resampled.");

    const float exposure = mAutoExposure ? autoExposureScale(src) : 1.f;
    const float3x3 transform = colorTransform();
    const ToneMapCurve curve(mOperator, mWhiteMaxLuminance, mWhiteScale);

    parallelForRows(dims.y(), [&](uint32_t y) {
        std::vector<float4> row(dims.x());
        // Falcor reads `src` with a point sampler when the sizes differ.
        loadResampledRow(src, y, dims, TextureFilteringMode::Point, row.data());
        curve.applyToRow(row.data(), row.size(), transform, exposure, mClamp);
        dst.storeRow(y, row.data());
    });
}

void ToneMapper::setScene(RenderContext*, const std::shared_ptr<Scene>& pScene)
{
    if (pScene && mUseSceneMetadata)
        logWarningOnce("ToneMapper: 'useSceneMetadata' is set, but scenes carry no camera metadata (film speed, f-number, shutter) "
                       "in this engine yet; the pass keeps its own exposure settings.");
}

float3x3 ToneMapper::colorTransform() const
{
    const float3x3 whiteBalance = mWhiteBalance ? whiteBalanceTransformRec709(mWhitePoint) : float3x3::identity();
    const float compensation = std::pow(2.f, mExposureCompensation);
    // Photographic exposure H ~ ISO / (shutter rate * N^2), normalized to 1 at ISO 100, 1 s, f/1.
    const float manual = mAutoExposure ? 1.f : (0.01f * mFilmSpeed) / (mShutter * mFNumber * mFNumber);
    float3x3 m;
    for (int i = 0; i < 3; ++i)
        m[i] = whiteBalance[i] * compensation * manual;
    return m;
}

float ToneMapper::autoExposureScale(const Texture& src) const
{
    // Falcor draws log2 luminance into a power-of-two texture (bilinear from `src`) and reads its
    // last mip level; for power-of-two sizes the box-filtered mip chain ends in the exact mean.
    const uint2 dims(std::bit_floor(src.getWidth()), std::bit_floor(src.getHeight()));
    std::vector<double> partialSums((dims.y() + kReductionRows - 1) / kReductionRows);
    parallelFor(dims.y(), kReductionRows, [&](size_t y0, size_t y1) {
        std::vector<float4> row(dims.x());
        double sum = 0.0;
        for (size_t y = y0; y < y1; ++y)
        {
            loadResampledRow(src, uint32_t(y), dims, TextureFilteringMode::Linear, row.data());
            for (const float4& pixel : row)
                sum += std::log2(std::max(1e-4f, toneMapLuminance(pixel.xyz())));
        }
        partialSums[y0 / kReductionRows] = sum;
    });
    double total = 0.0;
    for (double s : partialSums) // In task order: independent of the thread count.
        total += s;
    const float avgLuminance = std::exp2(float(total / (double(dims.x()) * dims.y())));
    return kExposureKey / avgLuminance;
}

void ToneMapper::setExposureCompensation(float stops)
{
    mExposureCompensation = std::clamp(stops, kExposureCompensationMin, kExposureCompensationMax);
}

void ToneMapper::setExposureValue(float ev)
{
    const float exposure = std::pow(2.f, std::clamp(ev, kExposureValueMin, kExposureValueMax));
    if (mExposureMode == ExposureMode::AperturePriority)
        mShutter = std::clamp(exposure / (mFNumber * mFNumber), kShutterMin, kShutterMax);
    else
        mFNumber = std::clamp(std::sqrt(exposure / mShutter), kFNumberMin, kFNumberMax);
}

void ToneMapper::setFilmSpeed(float iso)
{
    mFilmSpeed = std::clamp(iso, kFilmSpeedMin, kFilmSpeedMax);
}

void ToneMapper::setFNumber(float fNumber)
{
    mFNumber = std::clamp(fNumber, kFNumberMin, kFNumberMax);
}

void ToneMapper::setShutter(float shutter)
{
    mShutter = std::clamp(shutter, kShutterMin, kShutterMax);
}

void ToneMapper::setWhitePoint(float kelvin)
{
    mWhitePoint = std::clamp(kelvin, kWhitePointMin, kWhitePointMax);
}

void ToneMapper::setWhiteScale(float whiteScale)
{
    mWhiteScale = std::max(kWhiteScaleMin, whiteScale);
}

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(PluginRegistry& registry)
{
    registry.registerRenderPass<ToneMapper>();
}
