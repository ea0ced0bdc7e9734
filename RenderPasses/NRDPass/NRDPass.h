#pragma once
#include "Denoising/OIDNFilter.h"
#include "NRDSettings.h"
#include "RenderGraph/RenderPass.h"
#include <memory>
#include <optional>

/// NRD (plugin NRDPass): a CPU replacement of Falcor's pass over NVIDIA's Real-time Denoisers,
/// with its name, channels, `method` values and properties.
///
/// | Property              | Type   | Default                | Meaning                                        |
/// |-----------------------|--------|------------------------|------------------------------------------------|
/// | enabled               | bool   | True                   | False copies the radiance inputs (or motion).  |
/// | method                | string | 'RelaxDiffuseSpecular' | 'RelaxDiffuse', 'ReblurDiffuseSpecular', 'SpecularReflectionMv', 'SpecularDeltaMv'. |
/// | outputSize            | IOSize | 'Default'              | Size of the outputs.                           |
/// | worldSpaceMotion      | bool   | True                   | `mvec` is world-space (as Falcor's).           |
/// | disocclusionThreshold | float  | 2                      | Kept for scripts (NRD's temporal test).        |
/// | maxIntensity          | float  | 1000                   | Radiance luminance clamp before denoising.     |
/// | ReLAX tuning keys     |        | NRD 3.1 / Falcor's     | Kept for scripts (NRDSettings).                |
///
/// Keys are read in the dictionary's order and tuning keys go to the settings of the method read
/// so far, as in Falcor: put `method` first. Tuning keys of another method warn as unknown.
///
/// The diffuse/specular methods denoise each demodulated radiance signal (`*RadianceHitDist`,
/// radiance in rgb, hit distance in alpha) with Open Image Denoise's HDR RT filter, guided by the
/// normal in `normWRoughnessMaterialID` (and a white albedo: the signal is already demodulated),
/// after clamping luminance to `maxIntensity` like Falcor's radiance packing. (Declaring these
/// noise-free guides clean, OIDN's `cleanAux`, lowered the Cornell box's error by 9% but made the
/// filter 1.7x slower.) The outputs stay demodulated, as Falcor's (ModulateIllumination
/// remodulates); alpha carries the input hit distance. There is no temporal accumulation: every frame is denoised on its own, so `viewZ`
/// and `mvec` are accepted but unused. 'SpecularReflectionMv' and 'SpecularDeltaMv' compute the
/// screen motion of the virtual reflected point and of the delta-transmitted surface from the
/// camera's motion (object motion of those surfaces is not followed). Without a scene the outputs
/// are cleared to 0.
class NRDPass : public falcor::RenderPass
{
    FALCOR_PLUGIN_CLASS(NRDPass, "NRD", "NRD denoiser (CPU replacement: Intel Open Image Denoise).");

public:
    enum class Method
    {
        RelaxDiffuseSpecular,
        RelaxDiffuse,
        ReblurDiffuseSpecular,
        SpecularReflectionMv,
        SpecularDeltaMv,
    };

    explicit NRDPass(const falcor::Properties& props);

    falcor::Properties getProperties() const override;
    falcor::RenderPassReflection reflect(const CompileData& compileData) override;
    void execute(falcor::RenderContext* pRenderContext, const falcor::RenderData& renderData) override;
    void setScene(falcor::RenderContext* pRenderContext, const std::shared_ptr<falcor::Scene>& pScene) override { mpScene = pScene; }

private:
    bool hasSpecularRadiance() const { return mMethod == Method::RelaxDiffuseSpecular || mMethod == Method::ReblurDiffuseSpecular; }
    /// The settings the method read so far takes tuning keys into (none for the motion methods).
    std::optional<NRDSettings::Group> tuningGroup() const;
    std::vector<std::string> outputNames() const;
    void copyInputs(falcor::RenderContext* pRenderContext, const falcor::RenderData& renderData);
    void denoiseSignal(const falcor::Texture& input, const falcor::Texture& normalRoughness, falcor::Texture& output,
                       falcor::oidn::RTFilter& filter);
    void computeReflectionMotion(const falcor::RenderData& renderData);
    void computeDeltaMotion(const falcor::RenderData& renderData);

    bool mEnabled = true;
    Method mMethod = Method::RelaxDiffuseSpecular;
    falcor::IOSize mOutputSize = falcor::IOSize::Default;
    bool mWorldSpaceMotion = true;
    float mDisocclusionThreshold = 2.f;
    float mMaxIntensity = 1000.f;
    NRDSettings mSettings;
    falcor::uint2 mScreenSize{0, 0};

    std::shared_ptr<falcor::Scene> mpScene;
    falcor::oidn::RTFilter mDiffuseFilter;
    falcor::oidn::RTFilter mSpecularFilter;
};

FALCOR_ENUM_INFO(NRDPass::Method, {{NRDPass::Method::RelaxDiffuseSpecular, "RelaxDiffuseSpecular"},
                                   {NRDPass::Method::RelaxDiffuse, "RelaxDiffuse"},
                                   {NRDPass::Method::ReblurDiffuseSpecular, "ReblurDiffuseSpecular"},
                                   {NRDPass::Method::SpecularReflectionMv, "SpecularReflectionMv"},
                                   {NRDPass::Method::SpecularDeltaMv, "SpecularDeltaMv"}});
