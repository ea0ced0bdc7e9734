#pragma once
#include "RenderGraph/RenderPass.h"

/// InvalidPixelDetectionPass: marks the pixels of `src` that hold a NaN (red) or an infinity (green)
/// in any channel; all other pixels are black, alpha is always 1. `dst` mirrors the size of the
/// resource connected to `src` and uses the default format. No properties (keys are ignored).
class InvalidPixelDetectionPass : public falcor::RenderPass
{
    FALCOR_PLUGIN_CLASS(InvalidPixelDetectionPass, "InvalidPixelDetectionPass",
                        "Pass that marks all NaN pixels red and Inf pixels green in an image.");

public:
    /// Falcor's pass takes no options and ignores every key without a warning; so do we.
    explicit InvalidPixelDetectionPass(const falcor::Properties&) {}

    falcor::RenderPassReflection reflect(const CompileData& compileData) override;
    void compile(falcor::RenderContext* pRenderContext, const CompileData& compileData) override;
    void execute(falcor::RenderContext* pRenderContext, const falcor::RenderData& renderData) override;
};
