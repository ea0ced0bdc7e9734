#include "RTXDIOptions.h"
#include "Core/Error.h"
#include "Core/Logger.h"
#include <algorithm>

namespace falcor
{
namespace
{
/// Visits every option with its key and, for numbers, Falcor's valid range (values outside are
/// clamped with a warning, as Falcor's RTXDI::setOptions does). One list serves parsing and writing.
template<typename Options, typename F>
void forEachOption(Options& o, F&& f)
{
    f("mode", o.mode);
    f("presampledTileCount", o.presampledTileCount, 1u, 1024u);
    f("presampledTileSize", o.presampledTileSize, 256u, 8192u);
    f("storeCompactLightInfo", o.storeCompactLightInfo);
    f("localLightCandidateCount", o.localLightCandidateCount, 0u, 256u);
    f("infiniteLightCandidateCount", o.infiniteLightCandidateCount, 0u, 256u);
    f("envLightCandidateCount", o.envLightCandidateCount, 0u, 256u);
    f("brdfCandidateCount", o.brdfCandidateCount, 0u, 256u);
    f("brdfCutoff", o.brdfCutoff, 0.f, 1.f);
    f("testCandidateVisibility", o.testCandidateVisibility);
    f("biasCorrection", o.biasCorrection);
    f("depthThreshold", o.depthThreshold, 0.f, 1.f);
    f("normalThreshold", o.normalThreshold, 0.f, 1.f);
    f("samplingRadius", o.samplingRadius, 0.f, 50.f);
    f("spatialSampleCount", o.spatialSampleCount, 0u, 25u);
    f("spatialIterations", o.spatialIterations, 0u, 10u);
    f("maxHistoryLength", o.maxHistoryLength, 0u, 50u);
    f("boilingFilterStrength", o.boilingFilterStrength, 0.f, 1.f);
    f("rayEpsilon", o.rayEpsilon, 0.f, 1e30f);
    f("useEmissiveTextures", o.useEmissiveTextures);
    f("enableVisibilityShortcut", o.enableVisibilityShortcut);
    f("enablePermutationSampling", o.enablePermutationSampling);
}
} // namespace

RTXDIOptions RTXDIOptions::fromDict(const PropertyValue& dict, const std::string& passType, const std::string& name)
{
    FALCOR_CHECK(dict.type() == PropertyValue::Type::Object, passType, ": property '", name, "' must be a dict, not ",
                 PropertyValue::typeName(dict.type()), ".");
    RTXDIOptions o;
    for (const auto& [key, value] : dict.getObject())
    {
        const std::string fullKey = passType + " " + name + "." + key;
        bool known = false;
        forEachOption(o, [&](const char* optionKey, auto& field, auto... range) {
            if (key != optionKey)
                return;
            known = true;
            field = value.as<std::decay_t<decltype(field)>>(fullKey);
            if constexpr (sizeof...(range) == 2)
            {
                const auto [lo, hi] = std::make_pair(range...);
                if (field < lo || field > hi)
                {
                    logWarning(passType, ": '", name, ".", key, "' is ", field, ", clamped to [", lo, ", ", hi, "].");
                    field = std::clamp(field, lo, hi);
                }
            }
        });
        if (!known)
            logWarningOnce(passType, ": unknown option '", name, ".", key, "' (ignored).");
    }
    return o;
}

PropertyValue RTXDIOptions::toDict() const
{
    PropertyValue::Object dict;
    forEachOption(*this, [&](const char* key, const auto& field, auto...) { dict.emplace_back(key, PropertyValue(field)); });
    return PropertyValue(std::move(dict));
}
} // namespace falcor
