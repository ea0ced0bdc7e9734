#pragma once
#include "GBufferBase.h"

namespace falcor
{
/// VBufferRT: traces one primary ray per pixel and writes the packed hit (`vbuffer`, required;
/// layout in HitInfo.h) plus optional `depth` (NDC), `mvec`, `viewW`, `time` (always 0, see
/// GBufferRT) and `mask`. Options: GBufferBase's.
class VBufferRT : public GBufferBase
{
    FALCOR_PLUGIN_CLASS(VBufferRT, "VBufferRT", "Ray traced V-buffer generation pass.");

public:
    explicit VBufferRT(const Properties& props) : GBufferBase(props) {}

    RenderPassReflection reflect(const CompileData& compileData) override;
    void execute(RenderContext* pRenderContext, const RenderData& renderData) override;

private:
    void writeHit(uint2 pixel, const TriangleHit& hit, bool needsPosition, OutputRow& out) const;
    void writeMiss(uint2 pixel, OutputRow& out) const;
};
} // namespace falcor
