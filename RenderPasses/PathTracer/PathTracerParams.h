#pragma once
#include "Core/Enum.h"
#include "Core/Properties.h"
#include "RenderGraph/RenderPass.h"
#include "Rendering/Lights/EmissiveLightSampler.h"
#include "Rendering/Lights/LightBVHOptions.h"
#include "Rendering/Materials/TexLODHelpers.h"
#include <cstdint>

namespace falcor
{
/// How MIS weighs light sampling against BSDF sampling (Falcor's MISHeuristic).
enum class MISHeuristic : uint32_t
{
    Balance = 0,  ///< w = p0 / (p0 + p1)
    PowerTwo = 1, ///< w = p0² / (p0² + p1²)
    PowerExp = 2, ///< w = p0^β / (p0^β + p1^β), β = misPowerExponent
};
FALCOR_ENUM_INFO(MISHeuristic, {{MISHeuristic::Balance, "Balance"}, {MISHeuristic::PowerTwo, "PowerTwo"}, {MISHeuristic::PowerExp, "PowerExp"}});

/// How Falcor stores per-sample colors between tracing and resolve.
enum class ColorFormat : uint32_t
{
    RGBA32F = 0,
    LogLuvHDR = 1,
};
FALCOR_ENUM_INFO(ColorFormat, {{ColorFormat::RGBA32F, "RGBA32F"}, {ColorFormat::LogLuvHDR, "LogLuvHDR"}});

/// Everything the PathTracer's properties set, with Falcor's names and defaults, and their
/// parsing and validation (Falcor's PathTracer::parseProperties / getProperties).
struct PathTracerParams
{
    static constexpr uint32_t kMaxSamplesPerPixel = 16;
    static constexpr uint32_t kMaxBounces = 254;

    // Rendering
    uint32_t samplesPerPixel = 1;
    uint32_t maxSurfaceBounces = 0; ///< Derived: at least each of the three below.
    uint32_t maxDiffuseBounces = 3;
    uint32_t maxSpecularBounces = 3;
    uint32_t maxTransmissionBounces = 10;
    // Sampling
    uint32_t sampleGenerator = 0; ///< 0 = TinyUniform, 1 = Uniform.
    bool useFixedSeed = false;
    bool pixelStatsEnabled = false; ///< Python only (pixelStats.enabled), not a property.
    uint32_t fixedSeed = 1;
    bool useBSDFSampling = true;
    bool useRussianRoulette = false;
    bool useNEE = true;
    bool useMIS = true;
    MISHeuristic misHeuristic = MISHeuristic::Balance;
    float misPowerExponent = 2.f;
    EmissiveLightSamplerType emissiveSampler = EmissiveLightSamplerType::LightBVH;
    PropertyValue lightBVHOptions = PropertyValue::Object{}; ///< As given (returned as is); parsed into bvhOptions.
    LightBVHOptions bvhOptions;
    bool useRTXDI = false;
    PropertyValue RTXDIOptions = PropertyValue::Object{};
    // Material
    bool useAlphaTest = true;
    bool adjustShadingNormals = false;
    uint32_t maxNestedMaterials = 2;
    bool useLightsInDielectricVolumes = false;
    bool disableCaustics = false;
    float specularRoughnessThreshold = 0.25f;
    TexLODMode primaryLodMode = TexLODMode::Mip0;
    float lodBias = 0.f;
    // Denoising, scheduling, output
    bool useNRDDemodulation = true;
    bool useSER = true;
    IOSize outputSize = IOSize::Default;
    uint2 fixedOutputSize{512, 512};
    ColorFormat colorFormat = ColorFormat::LogLuvHDR;

    /// Parses `props` over the current values; raises on bad values (naming the property) before
    /// changing anything. `warnUnknown` reports keys that are not properties.
    void parse(const Properties& props, const std::function<void(const std::string&)>& warnUnknown);
    Properties toProperties() const;
};
} // namespace falcor
