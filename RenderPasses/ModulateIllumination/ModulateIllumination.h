#pragma once
#include "RenderGraph/RenderPass.h"
#include <array>

/// ModulateIllumination: recombines demodulated lighting buffers into one color image.
///
/// | Property                          | Type   | Default   | Meaning                                   |
/// |-----------------------------------|--------|-----------|-------------------------------------------|
/// | useEmission                       | bool   | True      | Add `emission`.                           |
/// | useDiffuseReflectance             | bool   | True      | Multiply `diffuseRadiance` by it.         |
/// | useDiffuseRadiance                | bool   | True      | Add `diffuseRadiance` (x reflectance).    |
/// | useSpecularReflectance            | bool   | True      | Multiply `specularRadiance` by it.        |
/// | useSpecularRadiance               | bool   | True      | Add `specularRadiance` (x reflectance).   |
/// | useDeltaReflectionEmission        | bool   | True      | Add `deltaReflectionEmission`.            |
/// | useDeltaReflectionReflectance     | bool   | True      | Multiply the delta-reflection radiance.   |
/// | useDeltaReflectionRadiance        | bool   | True      | Add `deltaReflectionRadiance` (x refl.).  |
/// | useDeltaTransmissionEmission      | bool   | True      | Add `deltaTransmissionEmission`.          |
/// | useDeltaTransmissionReflectance   | bool   | True      | Multiply the delta-transmission radiance. |
/// | useDeltaTransmissionRadiance      | bool   | True      | Add `deltaTransmissionRadiance` (x refl.).|
/// | useResidualRadiance               | bool   | True      | Add `residualRadiance`.                   |
/// | outputSize                        | IOSize | 'Default' | Size of `output`.                         |
///
/// output.rgb = sum of the connected and enabled emission/residual inputs plus, for each connected
/// and enabled radiance input, radiance * reflectance (the factor is dropped when the reflectance
/// is absent or disabled); output.a = 0. Inputs smaller than the output read as 0 outside their
/// extent, like an out-of-range texture load on the GPU.
///
/// Like Falcor, `outputSize = 'Fixed'` uses the size of the previous frame's output (there is no
/// `fixedOutputSize` option), so before the first frame it leaves the size to the graph.
class ModulateIllumination : public falcor::RenderPass
{
    FALCOR_PLUGIN_CLASS(ModulateIllumination, "ModulateIllumination", "Modulate illumination pass.");

public:
    /// The optional inputs, in Falcor's declaration order.
    enum Channel : size_t
    {
        Emission,
        DiffuseReflectance,
        DiffuseRadiance,
        SpecularReflectance,
        SpecularRadiance,
        DeltaReflectionEmission,
        DeltaReflectionReflectance,
        DeltaReflectionRadiance,
        DeltaTransmissionEmission,
        DeltaTransmissionReflectance,
        DeltaTransmissionRadiance,
        ResidualRadiance,
        kChannelCount
    };

    explicit ModulateIllumination(const falcor::Properties& props);

    falcor::Properties getProperties() const override;
    falcor::RenderPassReflection reflect(const CompileData& compileData) override;
    void execute(falcor::RenderContext* pRenderContext, const falcor::RenderData& renderData) override;

private:
    using InputSet = std::array<const falcor::Texture*, kChannelCount>;
    /// The inputs that contribute this frame: connected and enabled (others are nullptr).
    InputSet activeInputs(const falcor::RenderData& renderData) const;

    std::array<bool, kChannelCount> mUse;
    falcor::IOSize mOutputSize = falcor::IOSize::Default;
    falcor::uint2 mFrameDim = {0, 0}; ///< Size of the last output; Falcor's "fixed" size.
};
