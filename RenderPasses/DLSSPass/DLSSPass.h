#pragma once
#include "RenderGraph/RenderPass.h"
#include "Temporal/TemporalColor.h"
#include <vector>

/// Falcor's DLSS quality profiles (render resolution per output resolution).
enum class DLSSProfile
{
    MaxPerf,
    Balanced,
    MaxQuality,
};
FALCOR_ENUM_INFO(DLSSProfile, {{DLSSProfile::MaxPerf, "MaxPerf"}, {DLSSProfile::Balanced, "Balanced"}, {DLSSProfile::MaxQuality, "MaxQuality"}});

/// Units of the `mvec` input: pixels (Absolute) or fractions of the frame (Relative, Falcor's G-buffers).
enum class DLSSMotionVectorScale
{
    Absolute,
    Relative,
};
FALCOR_ENUM_INFO(DLSSMotionVectorScale, {{DLSSMotionVectorScale::Absolute, "Absolute"}, {DLSSMotionVectorScale::Relative, "Relative"}});

/// DLSSPass: a CPU replacement of Falcor's DLSS pass with its name, channels and properties, as a
/// temporal anti-aliasing upscaler (no NVIDIA NGX; a one-time warning says so).
///
/// | Property          | Type   | Default    | Meaning                                                        |
/// |-------------------|--------|------------|----------------------------------------------------------------|
/// | enabled           | bool   | True       | False (or no scene) blits `color` to `output`, bilinearly.     |
/// | outputSize        | IOSize | 'Default'  | 'Fixed': the DLSS output size of the input for the profile.    |
/// | profile           | string | 'Balanced' | 'MaxPerf', 'Balanced', 'MaxQuality'.                          |
/// | motionVectorScale | string | 'Absolute' | `mvec` in pixels ('Absolute') or frame fractions ('Relative'). |
/// | isHDR             | bool   | True       | Accumulate HDR color tone-mapped (c / (1 + max(c))), inverted at the end. |
/// | sharpness         | float  | 0          | -1..1: > 0 sharpens the output, < 0 softens it.               |
/// | exposure          | float  | 0          | log2 scale applied before the HDR tone map (only with isHDR). |
///
/// Inputs `color`, `depth` (any depth growing with distance: NDC depth or linear Z), `mvec`, all
/// the render size; output `output` (RGBA32Float) at the pass's output size, which the
/// reconstruction targets directly (Falcor's DLSS renders at its own size and blits).
///
/// Per output pixel: the current frame's samples of the 3x3 input pixels around it, placed where
/// the camera's jitter put them, are weighted by a Gaussian of their distance in output pixels;
/// the history (previous output, tone-mapped YCgCo, with its accumulated weight) is read with
/// Catmull-Rom (clamp-to-edge; a still pixel reads its texel) along the motion vector of the
/// closest-depth sample and clamped to the YCgCo box of
/// the input neighbourhood (TAA's clamp) as strongly as this frame has samples near the pixel;
/// the two are averaged by weight. The history's weight is capped at 16 samples for still pixels
/// and 0.5 for moving ones (each move resamples, so blurs, the history). The history restarts on a
/// camera switch, a new scene, a new input or output size, and after the pass was disabled.
/// Sharpening filters the output, never the history. Every pixel is computed independently:
/// bit-identical for any number of threads.
class DLSSPass : public falcor::RenderPass
{
    FALCOR_PLUGIN_CLASS(DLSSPass, "DLSSPass", "DL antialiasing/upscaling (CPU replacement: temporal anti-aliasing upscaler).");

public:
    explicit DLSSPass(const falcor::Properties& props);

    falcor::Properties getProperties() const override;
    falcor::RenderPassReflection reflect(const CompileData& compileData) override;
    void execute(falcor::RenderContext* pRenderContext, const falcor::RenderData& renderData) override;
    void setScene(falcor::RenderContext* pRenderContext, const std::shared_ptr<falcor::Scene>& pScene) override;
    void onSceneUpdates(falcor::RenderContext* pRenderContext, falcor::SceneUpdateFlags sceneUpdates) override;

    /// The output size DLSS gives an input of `inputSize` with `profile` (the render size for an
    /// output of `inputSize` is NGX's ratio of it; the output grows by the inverse ratio).
    static falcor::uint2 outputSizeFor(falcor::uint2 inputSize, DLSSProfile profile);

private:
    struct Frame; // The decoded inputs of one frame.

    void upscale(const falcor::RenderData& renderData);
    void resolve(const Frame& frame, falcor::uint2 outputDims);
    void storeOutput(falcor::Texture& output);
    void resetHistory() { mHistoryDims = {0, 0}; }

    bool mEnabled = true;
    falcor::IOSize mOutputSizeSelection = falcor::IOSize::Default;
    DLSSProfile mProfile = DLSSProfile::Balanced;
    DLSSMotionVectorScale mMotionVectorScale = DLSSMotionVectorScale::Absolute;
    bool mIsHDR = true;
    float mSharpness = 0.f;
    float mExposure = 0.f;

    std::shared_ptr<falcor::Scene> mpScene;
    falcor::uint2 mInputSize = {0, 0};      ///< Size of the last frame's inputs.
    falcor::uint2 mDLSSOutputSize = {0, 0}; ///< outputSizeFor(mInputSize): the 'Fixed' output size.
    falcor::uint2 mHistoryDims = {0, 0};    ///< {0, 0}: no history (the next frame restarts).
    /// Tone-mapped YCgCo color (xyz) and accumulated sample weight (w) per output pixel.
    std::vector<falcor::float4> mHistory, mNextHistory;
    // Per-frame images, kept so that their memory is reused.
    std::vector<falcor::float4> mColor, mDepth, mMotion, mOutputRows;
    std::vector<falcor::temporal::ColorBox> mBoxes;
};
