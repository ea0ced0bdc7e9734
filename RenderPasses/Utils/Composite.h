#pragma once
#include "RenderGraph/RenderPass.h"

/// How Composite combines its scaled inputs.
enum class CompositeMode
{
    Add,
    Multiply,
};
FALCOR_ENUM_INFO(CompositeMode, {{CompositeMode::Add, "Add"}, {CompositeMode::Multiply, "Multiply"}});

/// Composite: out = (scaleA·A) <mode> (scaleB·B) per pixel of the default frame.
///
/// | Property     | Type              | Default       | Meaning                                        |
/// |--------------|-------------------|---------------|------------------------------------------------|
/// | mode         | 'Add'/'Multiply'  | 'Add'         | Operation joining the scaled inputs.           |
/// | scaleA       | float             | 1             | Factor applied to `A`.                         |
/// | scaleB       | float             | 1             | Factor applied to `B`.                         |
/// | outputFormat | ResourceFormat    | 'RGBA32Float' | Format of `out`; 'Unknown' lets the graph pick.|
///
/// Inputs `A` and `B` are optional (missing ones read as 0). Integer output formats receive the
/// result rounded to the nearest integer (ties to even), as Falcor's shader does.
class Composite : public falcor::RenderPass
{
    FALCOR_PLUGIN_CLASS(Composite, "Composite", "Composite pass.");

public:
    explicit Composite(const falcor::Properties& props);

    falcor::Properties getProperties() const override;
    falcor::RenderPassReflection reflect(const CompileData& compileData) override;
    void compile(falcor::RenderContext* pRenderContext, const CompileData& compileData) override;
    void execute(falcor::RenderContext* pRenderContext, const falcor::RenderData& renderData) override;

private:
    falcor::uint2 mFrameDim = {0, 0};
    CompositeMode mMode = CompositeMode::Add;
    float mScaleA = 1.f;
    float mScaleB = 1.f;
    falcor::ResourceFormat mOutputFormat = falcor::ResourceFormat::RGBA32Float;
};
