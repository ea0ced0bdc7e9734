/// ErrorMeasurePass: per-pixel error of `Source` against a reference image, reduced to one L1 or
/// L2 (mean squared) error per RGB channel, with an exponential running average and a CSV log.
///
/// | Property                 | Type    | Default  | Meaning                                                   |
/// |--------------------------|---------|----------|-----------------------------------------------------------|
/// | ReferenceImagePath       | path    | ''       | Image loaded at construction as the reference (linear).   |
/// | MeasurementsFilePath     | path    | ''       | CSV file receiving one line of errors per frame.          |
/// | IgnoreBackground         | bool    | True     | Pixels with WorldPosition.w == 0 count as zero error.     |
/// | ComputeSquaredDifference | bool    | True     | L2 (squared) instead of L1 (absolute) differences.        |
/// | ComputeAverage           | bool    | False    | Difference image holds the RGB mean in all three channels.|
/// | UseLoadedReference       | bool    | False    | Reference = loaded image instead of the `Reference` input.|
/// | ReportRunningError       | bool    | True     | Reported error (`error`, `avgError`) is the running one.  |
/// | RunningErrorSigma        | float   | 0.995    | Running error weight: e = sigma * e + (1 - sigma) * frame.|
/// | SelectedOutputId         | 'Source'/'Reference'/'Difference' | 'Source' | What `Output` shows. |
///
/// Python (read-only, what Falcor's UI prints): `error` (RGB) and `avgError` of the last frame,
/// or their running averages when ReportRunningError is set; None when the last frame had no reference.
#include "Core/AssetResolver.h"
#include "Core/Logger.h"
#include "Core/PluginRegistry.h"
#include "Core/ThreadPool.h"
#include "RenderGraph/RenderPass.h"
#include "Utils/Image/ImageIO.h"
#include <cmath>
#include <fstream>
#include <vector>

using namespace falcor;

namespace
{
const std::string kSource = "Source";
const std::string kReference = "Reference";
const std::string kWorldPosition = "WorldPosition";
const std::string kOutput = "Output";

const std::string kReferenceImagePath = "ReferenceImagePath";
const std::string kMeasurementsFilePath = "MeasurementsFilePath";
const std::string kIgnoreBackground = "IgnoreBackground";
const std::string kComputeSquaredDifference = "ComputeSquaredDifference";
const std::string kComputeAverage = "ComputeAverage";
const std::string kUseLoadedReference = "UseLoadedReference";
const std::string kReportRunningError = "ReportRunningError";
const std::string kRunningErrorSigma = "RunningErrorSigma";
const std::string kSelectedOutputId = "SelectedOutputId";

enum class OutputId
{
    Source,
    Reference,
    Difference,
};
FALCOR_ENUM_INFO(OutputId, {{OutputId::Source, "Source"}, {OutputId::Reference, "Reference"}, {OutputId::Difference, "Difference"}});

} // namespace

class ErrorMeasurePass : public RenderPass
{
    FALCOR_PLUGIN_CLASS(ErrorMeasurePass, "ErrorMeasurePass", "Measures error with respect to a reference image.");

public:
    explicit ErrorMeasurePass(const Properties& props)
    {
        for (const auto& [key, value] : props)
        {
            if (key == kReferenceImagePath)
                mReferenceImagePath = value.as<std::filesystem::path>(key);
            else if (key == kMeasurementsFilePath)
                mMeasurementsFilePath = value.as<std::filesystem::path>(key);
            else if (key == kIgnoreBackground)
                mIgnoreBackground = value.as<bool>(key);
            else if (key == kComputeSquaredDifference)
                mComputeSquaredDifference = value.as<bool>(key);
            else if (key == kComputeAverage)
                mComputeAverage = value.as<bool>(key);
            else if (key == kUseLoadedReference)
                mUseLoadedReference = value.as<bool>(key);
            else if (key == kReportRunningError)
                mReportRunningError = value.as<bool>(key);
            else if (key == kRunningErrorSigma)
                mRunningErrorSigma = value.as<float>(key);
            else if (key == kSelectedOutputId)
                mSelectedOutputId = value.as<OutputId>(key);
            else
                warnUnknownProperty(key);
        }
        loadReference();
        openMeasurementsFile();

        scriptReadOnlyProperty<PropertyValue>("error", [this] { return reportedValue(mReportRunningError ? mRunningError : mFrameError); });
        scriptReadOnlyProperty<PropertyValue>("avgError",
                                              [this] { return reportedValue(mReportRunningError ? mRunningAvgError : mFrameAvgError); });
    }

    Properties getProperties() const override
    {
        Properties props;
        props.set(kReferenceImagePath, mReferenceImagePath);
        props.set(kMeasurementsFilePath, mMeasurementsFilePath);
        props.set(kIgnoreBackground, mIgnoreBackground);
        props.set(kComputeSquaredDifference, mComputeSquaredDifference);
        props.set(kComputeAverage, mComputeAverage);
        props.set(kUseLoadedReference, mUseLoadedReference);
        props.set(kReportRunningError, mReportRunningError);
        props.set(kRunningErrorSigma, mRunningErrorSigma);
        props.set(kSelectedOutputId, mSelectedOutputId);
        return props;
    }

    RenderPassReflection reflect(const CompileData&) override
    {
        using Flags = RenderPassReflection::Field::Flags;
        RenderPassReflection r;
        r.addInput(kSource, "Source image");
        r.addInput(kReference, "Reference image (optional)").flags(Flags::Optional);
        r.addInput(kWorldPosition, "World-space position; w == 0 marks background (optional)").flags(Flags::Optional);
        r.addOutput(kOutput, "Output image").format(ResourceFormat::RGBA32Float);
        return r;
    }

    void execute(RenderContext* pRenderContext, const RenderData& renderData) override
    {
        const Texture& source = *renderData[kSource];
        Texture& output = *renderData[kOutput];
        mMeasurementValid = false;

        const Texture* pReference = mUseLoadedReference ? mpLoadedReference.get() : renderData[kReference];
        if (!pReference)
        {
            pRenderContext->blit(source, output);
            return;
        }

        computeDifference(source, *pReference, renderData[kWorldPosition]);
        measureError();

        const Texture* shown[] = {&source, pReference, mpDifference.get()};
        pRenderContext->blit(*shown[size_t(mSelectedOutputId)], output);
        writeMeasurement();
    }

private:
    void loadReference()
    {
        if (mReferenceImagePath.empty())
            return;
        const AssetResolver& resolver = AssetResolver::getDefaultResolver();
        std::filesystem::path resolved = resolver.resolvePath(mReferenceImagePath);
        FALCOR_CHECK(!resolved.empty(), "ErrorMeasurePass: can't find reference image '", mReferenceImagePath.string(), "' (",
                     resolver.describeSearch(mReferenceImagePath), ").");
        try
        {
            mpLoadedReference = createTextureFromImage(readImage(resolved));
        }
        catch (const RuntimeError& e)
        {
            throwError("ErrorMeasurePass: failed to load reference image '", mReferenceImagePath.string(), "': ", e.what());
        }
        // As in Falcor, a successfully loaded reference is used right away and restarts the running error.
        mUseLoadedReference = true;
        mRunningAvgError = -1.f;
    }

    void openMeasurementsFile()
    {
        if (mMeasurementsFilePath.empty())
            return;
        mMeasurementsFile.open(mMeasurementsFilePath, std::ios::trunc);
        if (!mMeasurementsFile)
        {
            // Falcor treats an unwritable log as a warning and carries on without it.
            logWarning("ErrorMeasurePass: failed to open measurements file '", mMeasurementsFilePath.string(), "'.");
            mMeasurementsFilePath.clear();
            return;
        }
        const char* norm = mComputeSquaredDifference ? "L2" : "L1";
        mMeasurementsFile << "avg_" << norm << "_error,red_" << norm << "_error,green_" << norm << "_error,blue_" << norm << "_error"
                          << std::endl;
        mMeasurementsFile << std::scientific;
    }

    /// Fills mpDifference with |source - reference| (squared for L2, RGB-averaged on request);
    /// background pixels are zero when they are ignored.
    void computeDifference(const Texture& source, const Texture& reference, const Texture* pWorldPosition)
    {
        const uint32_t width = source.getWidth(), height = source.getHeight();
        FALCOR_CHECK(reference.getWidth() == width && reference.getHeight() == height, "ErrorMeasurePass: reference image is ",
                     reference.getWidth(), "x", reference.getHeight(), " but the source is ", width, "x", height, ".");
        const bool ignoreBackground = mIgnoreBackground && pWorldPosition;
        FALCOR_CHECK(!ignoreBackground || (pWorldPosition->getWidth() == width && pWorldPosition->getHeight() == height),
                     "ErrorMeasurePass: '", kWorldPosition, "' must have the size of the source image.");
        if (!mpDifference || mpDifference->getWidth() != width || mpDifference->getHeight() != height)
            mpDifference = Texture::create2D(width, height, ResourceFormat::RGBA32Float);

        parallelForRows(height, [&](uint32_t y) {
            std::vector<float4> src(width), ref(width), pos(width, float4(1.f)), diff(width);
            source.loadRow(y, src.data());
            reference.loadRow(y, ref.data());
            if (ignoreBackground)
                pWorldPosition->loadRow(y, pos.data());
            for (uint32_t x = 0; x < width; ++x)
                diff[x] = pos[x].w() != 0.f ? pixelError(src[x].xyz(), ref[x].xyz()) : float4(0.f);
            mpDifference->storeRow(y, diff.data());
        });
    }

    float4 pixelError(const float3& source, const float3& reference) const
    {
        float3 d = map(source - reference, [](float v) { return std::abs(v); });
        if (mComputeSquaredDifference)
            d = d * d;
        if (mComputeAverage)
            d = float3((d.x() + d.y() + d.z()) / 3.f);
        return float4(d.x(), d.y(), d.z(), 0.f);
    }

    /// Averages the difference image over all pixels (background included, as Falcor does) and
    /// updates the running error.
    void measureError()
    {
        const uint32_t width = mpDifference->getWidth(), height = mpDifference->getHeight();
        // One partial sum per row, added up in row order: the result is independent of the thread count.
        std::vector<double> rowSums(size_t(height) * 3, 0.0);
        parallelForRows(height, [&](uint32_t y) {
            std::vector<float4> diff(width);
            mpDifference->loadRow(y, diff.data());
            for (const float4& d : diff)
                for (int c = 0; c < 3; ++c)
                    rowSums[size_t(y) * 3 + c] += d[c];
        });
        double sum[3] = {};
        for (uint32_t y = 0; y < height; ++y)
            for (int c = 0; c < 3; ++c)
                sum[c] += rowSums[size_t(y) * 3 + c];

        const double pixelCount = double(width) * double(height);
        mFrameError = float3(float(sum[0] / pixelCount), float(sum[1] / pixelCount), float(sum[2] / pixelCount));
        mFrameAvgError = (mFrameError.x() + mFrameError.y() + mFrameError.z()) / 3.f;
        mMeasurementValid = true;

        if (mRunningAvgError < 0.f) // No running error yet: start from this frame.
        {
            mRunningError = mFrameError;
            mRunningAvgError = mFrameAvgError;
        }
        else
        {
            mRunningError = mRunningErrorSigma * mRunningError + (1.f - mRunningErrorSigma) * mFrameError;
            mRunningAvgError = mRunningErrorSigma * mRunningAvgError + (1.f - mRunningErrorSigma) * mFrameAvgError;
        }
    }

    void writeMeasurement()
    {
        if (!mMeasurementsFile.is_open())
            return;
        mMeasurementsFile << mFrameAvgError << ',' << mFrameError.x() << ',' << mFrameError.y() << ',' << mFrameError.z() << std::endl;
    }

    /// The reported value for Python, or None when the last frame had no reference (Falcor's UI then shows "N/A").
    template<typename T>
    PropertyValue reportedValue(const T& value) const
    {
        return mMeasurementValid ? PropertyValue(value) : PropertyValue();
    }

    // Options.
    std::filesystem::path mReferenceImagePath;
    std::filesystem::path mMeasurementsFilePath;
    bool mIgnoreBackground = true;
    bool mComputeSquaredDifference = true;
    bool mComputeAverage = false;
    bool mUseLoadedReference = false;
    bool mReportRunningError = true;
    float mRunningErrorSigma = 0.995f;
    OutputId mSelectedOutputId = OutputId::Source;

    // State.
    TexturePtr mpLoadedReference;
    TexturePtr mpDifference;
    std::ofstream mMeasurementsFile;
    float3 mFrameError{0.f};
    float mFrameAvgError = 0.f;
    bool mMeasurementValid = false;
    float3 mRunningError{0.f};
    float mRunningAvgError = -1.f; ///< Negative: no running error yet.
};

extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(PluginRegistry& registry)
{
    registry.registerRenderPass<ErrorMeasurePass>();
}
