#pragma once
#include "RenderGraph/RenderPass.h"
#include "ToneMapCurves.h"
#include "Utils/Math/Matrix.h"

namespace tonemapping
{
/// Which camera setting follows when the exposure value is set.
enum class ExposureMode
{
    AperturePriority, ///< Keep the f-number, change the shutter.
    ShutterPriority,  ///< Keep the shutter, change the f-number.
};
FALCOR_ENUM_INFO(ExposureMode, {{ExposureMode::AperturePriority, "AperturePriority"}, {ExposureMode::ShutterPriority, "ShutterPriority"}});
} // namespace tonemapping

/// ToneMapper: maps an HDR `src` to `dst` in [0, 1] with a photographic exposure model, optional
/// white balance and one of six tone-mapping curves. Alpha is passed through.
///
/// | Property             | Type             | Default            | Meaning                                            |
/// |----------------------|------------------|--------------------|----------------------------------------------------|
/// | outputSize           | IOSize           | 'Default'          | Size rule of `dst`.                                |
/// | fixedOutputSize      | uint2            | [512, 512]         | `dst` size when outputSize is 'Fixed'.             |
/// | outputFormat         | ResourceFormat   | 'Unknown'          | Format of `dst`; Unknown = graph default.          |
/// | useSceneMetadata     | bool             | True               | Take camera settings from the scene (none yet).    |
/// | exposureCompensation | float            | 0                  | Extra exposure in stops, [-12, 12].                |
/// | autoExposure         | bool             | False              | Expose to key 0.042 over the log-average luminance.|
/// | filmSpeed            | float            | 100                | ISO, [1, 6400] (manual exposure only).             |
/// | fNumber              | float            | 1                  | Aperture f-number, [0.1, 100].                     |
/// | shutter              | float            | 1                  | Reciprocal shutter time (1/s), [0.1, 10000].       |
/// | exposureMode         | ExposureMode     | 'AperturePriority' | What setting exposureValue changes.                |
/// | whiteBalance         | bool             | False              | Enable white balance.                              |
/// | whitePoint           | float            | 6500               | Scene white temperature in K, [1905, 25000].       |
/// | operator             | Operator         | 'Aces'             | Tone-mapping curve (see ToneMapCurves.h).          |
/// | clamp                | bool             | True               | Saturate the result to [0, 1].                     |
/// | whiteMaxLuminance    | float            | 1                  | White luminance of ReinhardModified.               |
/// | whiteScale           | float            | 11.2               | Linear white of HableUc2, >= 0.001.                |
///
/// `exposureValue` = log2(shutter * fNumber^2) is a Python attribute only, not a property.
class ToneMapper : public falcor::RenderPass
{
    FALCOR_PLUGIN_CLASS(ToneMapper, "ToneMapper",
                        "Tone-map a color-buffer. The resulting buffer is always in the [0, 1] range. The pass supports auto-exposure and "
                        "eye-adaptation.");

public:
    using Operator = tonemapping::ToneMapperOperator;
    using ExposureMode = tonemapping::ExposureMode;

    explicit ToneMapper(const falcor::Properties& props);

    falcor::Properties getProperties() const override;
    falcor::RenderPassReflection reflect(const CompileData& compileData) override;
    void execute(falcor::RenderContext* pRenderContext, const falcor::RenderData& renderData) override;
    void setScene(falcor::RenderContext* pRenderContext, const std::shared_ptr<falcor::Scene>& pScene) override;

    // Setters clamp to Falcor's ranges.
    void setExposureCompensation(float stops);
    void setExposureValue(float ev);
    void setFilmSpeed(float iso);
    void setFNumber(float fNumber);
    void setShutter(float shutter);
    void setWhitePoint(float kelvin);
    void setWhiteScale(float whiteScale);
    float getExposureValue() const { return std::log2(mShutter * mFNumber * mFNumber); }

private:
    void parseProperties(const falcor::Properties& props);
    void registerScriptProperties();
    /// White balance, exposure compensation and manual exposure as one RGB matrix.
    falcor::float3x3 colorTransform() const;
    /// Falcor's auto-exposure factor for `src`: key / exp2(mean log2 luminance).
    float autoExposureScale(const falcor::Texture& src) const;

    falcor::IOSize mOutputSizeSelection = falcor::IOSize::Default;
    falcor::uint2 mFixedOutputSize{512, 512};
    falcor::ResourceFormat mOutputFormat = falcor::ResourceFormat::Unknown;
    bool mUseSceneMetadata = true;

    float mExposureCompensation = 0.f;
    bool mAutoExposure = false;
    float mFilmSpeed = 100.f;
    float mFNumber = 1.f;
    float mShutter = 1.f;
    ExposureMode mExposureMode = ExposureMode::AperturePriority;

    bool mWhiteBalance = false;
    float mWhitePoint = 6500.f;

    Operator mOperator = Operator::Aces;
    bool mClamp = true;
    float mWhiteMaxLuminance = 1.f;
    float mWhiteScale = 11.2f;
};
