#include "Rendering/Lights/LightBVHOptions.h"
#include "Core/Error.h"
#include "Core/Logger.h"
#include <algorithm>

namespace falcor
{
namespace
{
const PropertyValue::Object& asDict(const PropertyValue& value, const std::string& name)
{
    FALCOR_CHECK(value.type() == PropertyValue::Type::Object, "Property '", name, "' must be a dict.");
    return value.getObject();
}

void parseBuildOptions(const PropertyValue& dict, const std::string& name, LightBVH::BuildOptions& b)
{
    for (const auto& [key, value] : asDict(dict, name))
    {
        const std::string k = name + "." + key;
        if (key == "splitHeuristicSelection") b.splitHeuristicSelection = value.as<LightBVHSplitHeuristic>(k);
        else if (key == "maxTriangleCountPerLeaf") b.maxTriangleCountPerLeaf = std::max(1u, value.as<uint32_t>(k));
        else if (key == "binCount") b.binCount = std::max(2u, value.as<uint32_t>(k));
        else if (key == "volumeEpsilon") b.volumeEpsilon = value.as<float>(k);
        else if (key == "splitAlongLargest") b.splitAlongLargest = value.as<bool>(k);
        else if (key == "useVolumeOverSA") b.useVolumeOverSA = value.as<bool>(k);
        else if (key == "useLeafCreationCost") b.useLeafCreationCost = value.as<bool>(k);
        else if (key == "createLeavesASAP") b.createLeavesASAP = value.as<bool>(k);
        else if (key == "allowRefitting") b.allowRefitting = value.as<bool>(k);
        else if (key == "usePreintegration") b.usePreintegration = value.as<bool>(k);
        else if (key == "useLightingCones") b.useLightingCones = value.as<bool>(k);
        else logWarningOnce("Unknown light BVH option '", k, "' (ignored).");
    }
}
} // namespace

LightBVHOptions LightBVHOptions::fromDict(const PropertyValue& dict, const std::string& name)
{
    LightBVHOptions o;
    for (const auto& [key, value] : asDict(dict, name))
    {
        const std::string k = name + "." + key;
        if (key == "buildOptions") parseBuildOptions(value, k, o.build);
        else if (key == "useBoundingCone") o.sampler.useBoundingCone = value.as<bool>(k);
        else if (key == "useLightingCone") o.sampler.useLightingCone = value.as<bool>(k);
        else if (key == "disableNodeFlux") o.sampler.disableNodeFlux = value.as<bool>(k);
        else if (key == "useUniformTriangleSampling") o.sampler.useUniformTriangleSampling = value.as<bool>(k);
        else if (key == "solidAngleBoundMethod") o.sampler.solidAngleBoundMethod = value.as<SolidAngleBoundMethod>(k);
        else logWarningOnce("Unknown light BVH option '", k, "' (ignored).");
    }
    return o;
}
} // namespace falcor
