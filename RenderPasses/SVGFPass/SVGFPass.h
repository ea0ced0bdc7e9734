#pragma once
#include "SVGFFilter.h"
#include "RenderGraph/RenderPass.h"

/// SVGFPass: spatiotemporal variance-guided filtering (Schied et al. 2017) of a 1-spp path-traced
/// image, as Falcor's SVGFPass computes it.
///
/// | Property        | Type  | Default | Meaning                                                          |
/// |-----------------|-------|---------|------------------------------------------------------------------|
/// | Enabled         | bool  | True    | False: `Filtered image` is a copy of `Color`.                    |
/// | Iterations      | int   | 4       | A-trous iterations, 0 to 30 (step sizes 1, 2, 4, ...).           |
/// | FeedbackTap     | int   | 1       | Iteration whose output is the next frame's history (< 0: none).  |
/// | VarianceEpsilon | float | 1e-4    | Stored and returned only: Falcor's shaders use 1e-10.            |
/// | PhiColor        | float | 10      | Luminance edge-stopping, in standard deviations.                 |
/// | PhiNormal       | float | 128     | Normal edge-stopping exponent.                                   |
/// | Alpha           | float | 0.05    | Weight of the new frame in the illumination history.             |
/// | MomentsAlpha    | float | 0.2     | Weight of the new frame in the moments history.                  |
///
/// Per frame: illumination = (Color - Emission) / max(Albedo, 0.001) is blended with the previous
/// frame's filtered illumination reprojected along `MotionVec` (bilinear taps whose depth and
/// normal match, else a 3x3 search); luminance moments are blended likewise and give the variance,
/// estimated spatially (7x7 cross-bilateral) while fewer than 4 frames are accumulated; then
/// `Iterations` a-trous steps filter illumination and variance, and the output is
/// Albedo * illumination + Emission. Reads outside the image count as 0, as GPU loads do.
///
/// The history restarts whenever the graph recompiles (new size, scene or edit), as in Falcor.
/// No Python members (Falcor has none).
class SVGFPass : public falcor::RenderPass
{
    FALCOR_PLUGIN_CLASS(SVGFPass, "SVGFPass", "SVGF denoising pass.");

public:
    explicit SVGFPass(const falcor::Properties& props);

    falcor::Properties getProperties() const override;
    falcor::RenderPassReflection reflect(const CompileData& compileData) override;
    void compile(falcor::RenderContext* pRenderContext, const CompileData& compileData) override;
    void execute(falcor::RenderContext* pRenderContext, const falcor::RenderData& renderData) override;

private:
    /// Decodes the inputs into mInputs, after checking they all have the output's size.
    void readInputs(const falcor::RenderData& renderData, falcor::uint2 dims);
    /// Starts the history over (zeros), in this pass and in its internal textures.
    void clearHistory(const falcor::RenderData& renderData, falcor::uint2 dims);
    /// Copies the history into the internal textures that Falcor keeps it in.
    void writeHistoryTextures(const falcor::RenderData& renderData) const;

    svgf::Settings mSettings;
    svgf::History mHistory;
    // Per-frame images, kept so that their memory is reused.
    svgf::FrameInputs mInputs;
    svgf::Workspace mWorkspace;
    svgf::Image<falcor::float4> mFiltered;
    bool mHistoryNeedsClear = true;
};
