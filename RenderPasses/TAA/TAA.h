#pragma once
#include "RenderGraph/RenderPass.h"
#include <vector>

/// TAA: temporal anti-aliasing of a jittered color image using motion vectors.
///
/// | Property      | Type  | Default | Python (`TAA` attribute) | Meaning                                     |
/// |---------------|-------|---------|--------------------------|---------------------------------------------|
/// | alpha         | float | 0.1     | alpha                    | Weight of the current frame in the blend.   |
/// | colorBoxSigma | float | 1.0     | sigma                    | Half-width of the color box, in std devs.   |
/// | antiFlicker   | bool  | True    | antiFlicker              | Lower alpha when history is near the clamp. |
///
/// Per pixel, as Falcor's TAA.ps.slang: the 3x3 neighbourhood of `colorIn` in YCgCo gives a box
/// mean +- colorBoxSigma * stddev; the history (the previous `colorOut`) is read with Catmull-Rom
/// filtering (nine bilinear taps, wrap addressing) at the pixel moved by the longest motion vector
/// of the neighbourhood, clamped to the box and blended: lerp(history, color, alpha); alpha 1.
/// Neighbours outside the image read as 0, as a GPU's out-of-range Load does.
///
/// The history is the previous output after the output format's rounding (Falcor blits colorOut
/// into its history texture). Like Falcor, it restarts from black only when the output's size or
/// format changes, not on scene changes.
class TAA : public falcor::RenderPass
{
    FALCOR_PLUGIN_CLASS(TAA, "TAA", "Temporal Anti-Aliasing.");

public:
    struct Controls
    {
        float alpha = 0.1f;
        float colorBoxSigma = 1.f;
        bool antiFlicker = true;
    };

    explicit TAA(const falcor::Properties& props);

    falcor::Properties getProperties() const override;
    falcor::RenderPassReflection reflect(const CompileData& compileData) override;
    void execute(falcor::RenderContext* pRenderContext, const falcor::RenderData& renderData) override;

private:
    /// Zeroes the history when the output's size or format differs from it (Falcor reallocates).
    void matchHistoryTo(const falcor::Texture& colorOut);

    Controls mControls;
    std::vector<falcor::float4> mHistory; ///< Previous colorOut, decoded; rows top to bottom.
    falcor::uint2 mHistoryDims = {0, 0};
    falcor::ResourceFormat mHistoryFormat = falcor::ResourceFormat::Unknown;
    // Per-frame images, kept so that their memory is reused.
    std::vector<falcor::float4> mColorYCgCo, mMotion, mNextHistory;
};
