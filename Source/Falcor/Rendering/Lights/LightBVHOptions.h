#pragma once
#include "Core/Macros.h"
#include "Core/Properties.h"
#include "Rendering/Lights/LightBVH.h"
#include "Rendering/Lights/LightBVHSampler.h"
#include <string>

namespace falcor
{
/// Falcor's `lightBVHOptions` dict: the sampler's switches at the top level, the builder's in
/// `buildOptions`. Bad values raise naming the key (e.g. "lightBVHOptions.buildOptions.binCount");
/// unknown keys are warned about once and ignored, as Falcor does.
struct FALCOR_API LightBVHOptions
{
    LightBVH::BuildOptions build;
    LightBVHSamplerOptions sampler;

    static LightBVHOptions fromDict(const PropertyValue& dict, const std::string& name = "lightBVHOptions");
};
} // namespace falcor
