#pragma once
#include "Denoising/OIDNFilter.h"
#include "RenderGraph/RenderPass.h"
#include <memory>

/// Falcor's OptiX denoiser models; OIDN's RT filter stands in for each (see OptixDenoiser).
enum class OptixDenoiserModel
{
    LDR,
    HDR,
    AOV,
    Temporal,
};
FALCOR_ENUM_INFO(OptixDenoiserModel, {{OptixDenoiserModel::LDR, "LDR"},
                                      {OptixDenoiserModel::HDR, "HDR"},
                                      {OptixDenoiserModel::AOV, "AOV"},
                                      {OptixDenoiserModel::Temporal, "Temporal"}});

/// OptixDenoiser: a CPU replacement of Falcor's OptiX AI denoiser with its name, channels,
/// properties and Python member, running Intel Open Image Denoise's RT filter (the `denoise`
/// extra, `pip install "falcor[denoise]"`).
///
/// | Property     | Type   | Default | Meaning                                                        |
/// |--------------|--------|---------|----------------------------------------------------------------|
/// | enabled      | bool   | True    | False copies `color` to `output`.                              |
/// | model        | string | auto    | 'LDR', 'HDR', 'AOV', 'Temporal'. Unset: 'Temporal' when `mvec` is connected, else 'HDR' (chosen at compile). |
/// | blend        | float  | 0       | output = lerp(denoised, noisy, blend).                         |
/// | denoiseAlpha | bool   | False   | Also denoise alpha (else it is copied from `color`).           |
///
/// Inputs `color` (required), `albedo`, `normal` (world or any fixed space), `mvec` (optional);
/// output `output` (RGBA32Float). Python: `enabled` (read/write).
///
/// 'LDR' runs the RT filter with hdr off, 'HDR' with hdr on; `albedo` and `normal` are its guide
/// images when connected (OIDN takes a normal only with an albedo, so a lone `normal` is unused).
/// OIDN has no temporal or AOV model: 'Temporal' and 'AOV' denoise each frame as 'HDR', with a
/// one-time warning. Like Falcor's pass, it denoises only when a scene is set and otherwise copies
/// `color`. Alpha is denoised by a second, LDR filter on (a, a, a).
class OptixDenoiser : public falcor::RenderPass
{
    FALCOR_PLUGIN_CLASS(OptixDenoiser, "OptixDenoiser", "Apply the OptiX AI Denoiser (CPU replacement: Intel Open Image Denoise).");

public:
    explicit OptixDenoiser(const falcor::Properties& props);

    falcor::Properties getProperties() const override;
    falcor::RenderPassReflection reflect(const CompileData& compileData) override;
    void compile(falcor::RenderContext* pRenderContext, const CompileData& compileData) override;
    void execute(falcor::RenderContext* pRenderContext, const falcor::RenderData& renderData) override;
    void setScene(falcor::RenderContext* pRenderContext, const std::shared_ptr<falcor::Scene>& pScene) override { mpScene = pScene; }

private:
    void denoise(const falcor::RenderData& renderData);
    void loadInputs(const falcor::RenderData& renderData, bool useAlbedo, bool useNormal, std::vector<float>& alpha);
    void storeOutput(const falcor::Texture& color, falcor::Texture& output, const std::vector<float>& alpha);
    void denoiseAlphaPlane(std::vector<float>& alpha);

    bool mEnabled = true;
    bool mSelectBestModel = true; ///< No `model` given: choose it from the connected inputs.
    OptixDenoiserModel mModel = OptixDenoiserModel::HDR;
    float mBlend = 0.f;
    bool mDenoiseAlpha = false;

    bool mHasAlbedo = false, mHasNormal = false, mHasMotion = false;
    std::shared_ptr<falcor::Scene> mpScene;
    falcor::oidn::RTFilter mFilter;
    std::unique_ptr<falcor::oidn::RTFilter> mpAlphaFilter;
};
