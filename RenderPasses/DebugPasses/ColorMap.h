#pragma once
#include "Core/Enum.h"
#include "Utils/Math/Vector.h"
#include <cmath>

/// The color maps of Falcor's Utils/Color/ColorMap.slang, named as ColorMapPass's `colorMap` option.
enum class ColorMap : uint32_t
{
    Grey,
    Jet,
    Viridis,
    Plasma,
    Magma,
    Inferno,
};
FALCOR_ENUM_INFO(ColorMap, {{ColorMap::Grey, "Grey"},
                            {ColorMap::Jet, "Jet"},
                            {ColorMap::Viridis, "Viridis"},
                            {ColorMap::Plasma, "Plasma"},
                            {ColorMap::Magma, "Magma"},
                            {ColorMap::Inferno, "Inferno"}});

/// HLSL saturate: clamps to [0, 1] and maps NaN to 0, as GPUs do.
inline float gpuSaturate(float v)
{
    return std::fmin(std::fmax(v, 0.f), 1.f);
}

/// The color of `x` (clamped to [0, 1]) in `map`, in float precision like the shader.
falcor::float3 applyColorMap(ColorMap map, float x);
