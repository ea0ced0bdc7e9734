#pragma once
#include "RenderGraph/RenderPass.h"

/// SimplePostFX: bloom with an optional star, vignette, chromatic aberration, barrel distortion
/// and color grading (saturation by brightness, ASC-CDL style offset/scale/power).
///
/// | Property                  | Type   | Default         | Meaning                                          |
/// |---------------------------|--------|-----------------|--------------------------------------------------|
/// | enabled                   | bool   | True            | False: `dst` is a copy of `src`.                 |
/// | outputSize                | IOSize | 'Default'       | Size of `dst` (must equal the size of `src`).    |
/// | fixedOutputSize           | uint2  | [512, 512]      | Size used when outputSize is 'Fixed'.            |
/// | wipe                      | float  | 0               | Pixels with x < wipe * width show `src`.         |
/// | bloomAmount               | float  | 0               | Blend weight of each coarser bloom level.        |
/// | starAmount                | float  | 0               | Blend weight of the star streaks (with bloom).   |
/// | starAngle                 | float  | 0.1             | Star rotation, radians.                          |
/// | vignetteAmount            | float  | 0               | Darkening: max(0, 1 - r^2 * amount).             |
/// | chromaticAberrationAmount | float  | 0               | Red/blue radial scale difference (x 1/64).       |
/// | barrelDistortAmount       | float  | 0               | Radial distortion strength (x 1/8).              |
/// | saturationCurve           | float3 | [1, 1, 1]       | Saturation of shadows, midtones, highlights.     |
/// | colorOffset               | float3 | [0.5, 0.5, 0.5] | Shadow tint (0.5 = none).                        |
/// | colorScale                | float3 | [0.5, 0.5, 0.5] | Highlight tint (0.5 = none).                     |
/// | colorPower                | float3 | [0.5, 0.5, 0.5] | Midtone tint (0.5 = none).                       |
/// | colorOffsetScalar         | float  | 0               | Luma offset added to colorOffset.                |
/// | colorScaleScalar          | float  | 0               | Luma scale, log2 steps of 2.                     |
/// | colorPowerScalar          | float  | 0               | Luma power, subtracted from colorPower.          |
///
/// As in Falcor, when bloom, aberration, distortion and grading are all at identity, or wipe >= 1,
/// the pass copies `src`; vignetteAmount and starAmount alone do not count as an effect. The
/// processed image has alpha 1.
class SimplePostFX : public falcor::RenderPass
{
    FALCOR_PLUGIN_CLASS(SimplePostFX, "SimplePostFX", "Simple set of post effects.");

public:
    /// The effect options (everything but enabled and the output size).
    struct Settings
    {
        float wipe = 0.f;
        float bloomAmount = 0.f;
        float starAmount = 0.f;
        float starAngle = 0.1f;
        float vignetteAmount = 0.f;
        float chromaticAberrationAmount = 0.f;
        float barrelDistortAmount = 0.f;
        falcor::float3 saturationCurve = falcor::float3(1.f);
        falcor::float3 colorOffset = falcor::float3(0.5f);
        falcor::float3 colorScale = falcor::float3(0.5f);
        falcor::float3 colorPower = falcor::float3(0.5f);
        float colorOffsetScalar = 0.f;
        float colorScaleScalar = 0.f;
        float colorPowerScalar = 0.f;

        /// Falcor's test for skipping the effects and copying the source.
        bool leavesImageUnchanged() const;
    };

    explicit SimplePostFX(const falcor::Properties& props);

    falcor::Properties getProperties() const override;
    falcor::RenderPassReflection reflect(const CompileData& compileData) override;
    void execute(falcor::RenderContext* pRenderContext, const falcor::RenderData& renderData) override;

private:
    void publishScriptProperties();

    bool mEnabled = true;
    falcor::IOSize mOutputSize = falcor::IOSize::Default;
    falcor::uint2 mFixedOutputSize = {512, 512};
    Settings mSettings;
};
