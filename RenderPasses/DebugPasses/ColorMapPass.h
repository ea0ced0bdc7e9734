#pragma once
#include "ColorMap.h"
#include "RenderGraph/RenderPass.h"
#include <optional>

/// ColorMapPass: shows one channel of `input` (float, uint or sint) through a color map on `output`.
///
/// | Property  | Type                 | Default | Meaning                                              |
/// |-----------|----------------------|---------|------------------------------------------------------|
/// | colorMap  | 'Grey'/'Jet'/'Viridis'/'Plasma'/'Magma'/'Inferno' | 'Jet' | Map applied to the normalized value. |
/// | channel   | uint, 0..3           | 0       | Channel shown: R, G, B or A.                          |
/// | autoRange | bool                 | True    | Track the channel's range over frames; the tracked range replaces minValue/maxValue. |
/// | minValue  | float                | 0       | Value shown with the start of the map.                |
/// | maxValue  | float                | 1       | Value shown with the end of the map.                  |
///
/// A value v is shown as map(saturate((v - minValue) / (maxValue - minValue))), or map(0) when the
/// range is empty.
class ColorMapPass : public falcor::RenderPass
{
    FALCOR_PLUGIN_CLASS(ColorMapPass, "ColorMapPass", "Pass that applies a color map to the input.");

public:
    explicit ColorMapPass(const falcor::Properties& props);

    falcor::Properties getProperties() const override;
    falcor::RenderPassReflection reflect(const CompileData& compileData) override;
    void execute(falcor::RenderContext* pRenderContext, const falcor::RenderData& renderData) override;

private:
    struct Range
    {
        double min, max;
    };

    /// Min and max of the selected channel over the whole texture.
    Range reduceChannel(const falcor::Texture& input) const;
    void updateAutoRange(const falcor::Texture& input);
    float normalize(float value) const;

    ColorMap mColorMap = ColorMap::Jet;
    uint32_t mChannel = 0;
    bool mAutoRange = true;
    float mMinValue = 0.f;
    float mMaxValue = 1.f;

    Range mTrackedRange{0.0, 1.0}; ///< The auto range, kept in double precision between frames.
    /// Range of the previous frame's input. Falcor reads its GPU reduction back one frame late, so
    /// frame N is normalized with the range of frame N-1; we keep that latency so frame sequences match.
    std::optional<Range> mPreviousInputRange;
};
