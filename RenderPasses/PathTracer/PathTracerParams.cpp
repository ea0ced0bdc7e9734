#include "PathTracerParams.h"
#include "Core/Logger.h"
#include "Rendering/Materials/InteriorList.h"
#include <algorithm>

namespace falcor
{
namespace
{
/// Reads an unsigned bounce count, clamped to Falcor's limit with a warning.
uint32_t parseBounces(const PropertyValue& value, const std::string& key)
{
    const uint32_t n = value.as<uint32_t>(key);
    if (n > PathTracerParams::kMaxBounces)
    {
        logWarning("PathTracer: '", key, "' exceeds the maximum supported bounces; clamping to ", PathTracerParams::kMaxBounces);
        return PathTracerParams::kMaxBounces;
    }
    return n;
}

const PropertyValue& parseDict(const PropertyValue& value, const std::string& key)
{
    FALCOR_CHECK(value.type() == PropertyValue::Type::Object, "Property '", key, "' must be a dict.");
    return value;
}

} // namespace

void PathTracerParams::parse(const Properties& props, const std::function<void(const std::string&)>& warnUnknown)
{
    PathTracerParams p = *this; // Parse into a copy: a bad value leaves the pass unchanged.
    bool surfaceSet = false, diffuseSet = false, specularSet = false, transmissionSet = false;
    for (const auto& [key, value] : props)
    {
        if (key == "samplesPerPixel") p.samplesPerPixel = value.as<uint32_t>(key);
        else if (key == "maxSurfaceBounces") p.maxSurfaceBounces = parseBounces(value, key), surfaceSet = true;
        else if (key == "maxDiffuseBounces") p.maxDiffuseBounces = parseBounces(value, key), diffuseSet = true;
        else if (key == "maxSpecularBounces") p.maxSpecularBounces = parseBounces(value, key), specularSet = true;
        else if (key == "maxTransmissionBounces") p.maxTransmissionBounces = parseBounces(value, key), transmissionSet = true;
        else if (key == "sampleGenerator") p.sampleGenerator = value.as<uint32_t>(key);
        else if (key == "fixedSeed") p.fixedSeed = value.as<uint32_t>(key), p.useFixedSeed = true;
        else if (key == "useBSDFSampling") p.useBSDFSampling = value.as<bool>(key);
        else if (key == "useRussianRoulette") p.useRussianRoulette = value.as<bool>(key);
        else if (key == "useNEE") p.useNEE = value.as<bool>(key);
        else if (key == "useMIS") p.useMIS = value.as<bool>(key);
        else if (key == "misHeuristic") p.misHeuristic = value.as<MISHeuristic>(key);
        else if (key == "misPowerExponent") p.misPowerExponent = value.as<float>(key);
        else if (key == "emissiveSampler") p.emissiveSampler = value.as<EmissiveLightSamplerType>(key);
        else if (key == "lightBVHOptions") p.lightBVHOptions = parseDict(value, key), p.bvhOptions = LightBVHOptions::fromDict(value, key);
        else if (key == "useRTXDI") p.useRTXDI = value.as<bool>(key);
        else if (key == "RTXDIOptions") p.RTXDIOptions = parseDict(value, key);
        else if (key == "useAlphaTest") p.useAlphaTest = value.as<bool>(key);
        else if (key == "adjustShadingNormals") p.adjustShadingNormals = value.as<bool>(key);
        else if (key == "maxNestedMaterials") p.maxNestedMaterials = value.as<uint32_t>(key);
        else if (key == "useLightsInDielectricVolumes") p.useLightsInDielectricVolumes = value.as<bool>(key);
        else if (key == "disableCaustics") p.disableCaustics = value.as<bool>(key);
        else if (key == "specularRoughnessThreshold") p.specularRoughnessThreshold = value.as<float>(key);
        else if (key == "primaryLodMode") p.primaryLodMode = value.as<TexLODMode>(key);
        else if (key == "lodBias") p.lodBias = value.as<float>(key);
        else if (key == "useNRDDemodulation") p.useNRDDemodulation = value.as<bool>(key);
        else if (key == "useSER") p.useSER = value.as<bool>(key);
        else if (key == "outputSize") p.outputSize = value.as<IOSize>(key);
        else if (key == "fixedOutputSize") p.fixedOutputSize = value.as<uint2>(key);
        else if (key == "colorFormat") p.colorFormat = value.as<ColorFormat>(key);
        else warnUnknown(key);
    }

    // Falcor: an explicit surface count is the default of the per-type counts not given; the
    // surface count is at least each per-type count.
    if (surfaceSet)
    {
        if (!diffuseSet) p.maxDiffuseBounces = p.maxSurfaceBounces;
        if (!specularSet) p.maxSpecularBounces = p.maxSurfaceBounces;
        if (!transmissionSet) p.maxTransmissionBounces = p.maxSurfaceBounces;
    }
    const uint32_t maxTyped = std::max({p.maxDiffuseBounces, p.maxSpecularBounces, p.maxTransmissionBounces});
    if (!surfaceSet)
        p.maxSurfaceBounces = maxTyped;
    else if (p.maxSurfaceBounces < maxTyped)
    {
        logWarning("PathTracer: 'maxSurfaceBounces' is less than a per-type bounce count; raising it to ", maxTyped);
        p.maxSurfaceBounces = maxTyped;
    }
    if (p.samplesPerPixel < 1 || p.samplesPerPixel > kMaxSamplesPerPixel)
    {
        logWarning("PathTracer: unsupported samplesPerPixel ", p.samplesPerPixel, "; clamping to [1, ", kMaxSamplesPerPixel, "]");
        p.samplesPerPixel = std::clamp(p.samplesPerPixel, 1u, kMaxSamplesPerPixel);
    }
    FALCOR_CHECK(p.sampleGenerator <= 1, "PathTracer: 'sampleGenerator' = ", p.sampleGenerator,
                 " is not a sample generator (0 = TinyUniform, 1 = Uniform).");
    FALCOR_CHECK(p.maxNestedMaterials >= 2 && p.maxNestedMaterials <= InteriorList::kMaxSlots, "PathTracer: 'maxNestedMaterials' = ",
                 p.maxNestedMaterials, " is not supported (2 to ", InteriorList::kMaxSlots, ").");
    if (p.specularRoughnessThreshold < 0.f || p.specularRoughnessThreshold > 1.f)
    {
        logWarning("PathTracer: 'specularRoughnessThreshold' has invalid value; clamping to [0, 1]");
        p.specularRoughnessThreshold = std::clamp(p.specularRoughnessThreshold, 0.f, 1.f);
    }
    if (p.primaryLodMode == TexLODMode::RayCones)
    {
        logWarning("PathTracer: texLODMode 'RayCones' is not supported for primary hits; using 'Mip0' instead");
        p.primaryLodMode = TexLODMode::Mip0;
    }
    *this = p;
}

Properties PathTracerParams::toProperties() const
{
    Properties props;
    props.set("samplesPerPixel", samplesPerPixel);
    props.set("maxSurfaceBounces", maxSurfaceBounces);
    props.set("maxDiffuseBounces", maxDiffuseBounces);
    props.set("maxSpecularBounces", maxSpecularBounces);
    props.set("maxTransmissionBounces", maxTransmissionBounces);
    props.set("sampleGenerator", sampleGenerator);
    if (useFixedSeed)
        props.set("fixedSeed", fixedSeed);
    props.set("useBSDFSampling", useBSDFSampling);
    props.set("useRussianRoulette", useRussianRoulette);
    props.set("useNEE", useNEE);
    props.set("useMIS", useMIS);
    props.set("misHeuristic", misHeuristic);
    props.set("misPowerExponent", misPowerExponent);
    props.set("emissiveSampler", emissiveSampler);
    if (emissiveSampler == EmissiveLightSamplerType::LightBVH)
        props.set("lightBVHOptions", lightBVHOptions);
    props.set("useRTXDI", useRTXDI);
    props.set("RTXDIOptions", RTXDIOptions);
    props.set("useAlphaTest", useAlphaTest);
    props.set("adjustShadingNormals", adjustShadingNormals);
    props.set("maxNestedMaterials", maxNestedMaterials);
    props.set("useLightsInDielectricVolumes", useLightsInDielectricVolumes);
    props.set("disableCaustics", disableCaustics);
    props.set("specularRoughnessThreshold", specularRoughnessThreshold);
    props.set("primaryLodMode", primaryLodMode);
    props.set("lodBias", lodBias);
    props.set("useNRDDemodulation", useNRDDemodulation);
    props.set("useSER", useSER);
    props.set("outputSize", outputSize);
    if (outputSize == IOSize::Fixed)
        props.set("fixedOutputSize", fixedOutputSize);
    props.set("colorFormat", colorFormat);
    return props;
}
} // namespace falcor
