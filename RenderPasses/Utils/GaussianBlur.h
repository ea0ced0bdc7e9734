#pragma once
#include "RenderGraph/RenderPass.h"
#include <vector>

/// GaussianBlur: separable Gaussian blur of `src` into `dst` (same format, size, mips, array).
///
/// | Property    | Type  | Default | Meaning                                                   |
/// |-------------|-------|---------|-----------------------------------------------------------|
/// | kernelWidth | uint  | 5       | Taps per direction; even values are made odd (width | 1). |
/// | sigma       | float | 2.0     | Standard deviation of the Gaussian, in pixels.            |
///
/// Like Falcor: a horizontal then a vertical 1D pass, each tap an exact texel (clamped at the
/// borders) weighted by exp(-i²/2σ²) normalized over the kernel's taps; the intermediate image
/// is stored in the source format. Every array slice of mip 0 is blurred; lower mips of `dst`
/// are not written. `src` is a required input, so the graph refuses to run with it unconnected.
/// Python attributes: rw `kernelWidth`, rw `sigma` (the next execution uses the new kernel).
class GaussianBlur : public falcor::RenderPass
{
    FALCOR_PLUGIN_CLASS(GaussianBlur, "GaussianBlur", "Gaussian blur.");

public:
    explicit GaussianBlur(const falcor::Properties& props);

    falcor::Properties getProperties() const override;
    falcor::RenderPassReflection reflect(const CompileData& compileData) override;
    void execute(falcor::RenderContext* pRenderContext, const falcor::RenderData& renderData) override;

private:
    /// Validates and applies both parameters together (they define one kernel).
    void setKernel(uint32_t kernelWidth, float sigma);
    void blurHorizontally(const falcor::Texture& src, falcor::Texture& dst, uint32_t slice);
    void blurVertically(falcor::Texture& dst, uint32_t slice) const;

    uint32_t mKernelWidth = 5;
    float mSigma = 2.f;
    std::vector<float> mWeights; ///< kernelWidth taps, tap i at offset i - kernelWidth / 2.
    std::vector<falcor::float4> mHorizontal; ///< Result of the horizontal pass, width·height texels.
};
