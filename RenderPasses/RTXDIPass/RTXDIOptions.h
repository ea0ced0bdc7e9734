#pragma once
#include "Core/Enum.h"
#include "Core/Properties.h"
#include <cstdint>
#include <string>

namespace falcor
{
/// Falcor's RTXDI sampling modes (RTXDI::Mode).
enum class RTXDIMode : uint32_t
{
    NoResampling = 1,             ///< Initial candidates only (RIS per pixel and frame).
    SpatialResampling = 2,        ///< Initial candidates, then `spatialIterations` spatial passes.
    TemporalResampling = 3,       ///< Initial candidates merged with the reprojected previous reservoir.
    SpatiotemporalResampling = 4, ///< Temporal, then one spatial pass.
};
FALCOR_ENUM_INFO(RTXDIMode, {{RTXDIMode::NoResampling, "NoResampling"},
                             {RTXDIMode::SpatialResampling, "SpatialResampling"},
                             {RTXDIMode::TemporalResampling, "TemporalResampling"},
                             {RTXDIMode::SpatiotemporalResampling, "SpatiotemporalResampling"}});

/// Falcor's RTXDI bias-correction modes: how reused reservoirs are weighted.
enum class RTXDIBiasCorrection : uint32_t
{
    Off = 0,       ///< 1/M weights: biased wherever neighbours' targets differ.
    Basic = 1,     ///< 1/Z over reservoirs whose target is positive at the sample; ignores occlusion (biased in shadows).
    Pairwise = 2,  ///< Pairwise MIS against the centre pixel; ignores occlusion (biased in shadows).
    RayTraced = 3, ///< 1/Z with a visibility ray from every contributing surface: unbiased.
};
FALCOR_ENUM_INFO(RTXDIBiasCorrection, {{RTXDIBiasCorrection::Off, "Off"},
                                       {RTXDIBiasCorrection::Basic, "Basic"},
                                       {RTXDIBiasCorrection::Pairwise, "Pairwise"},
                                       {RTXDIBiasCorrection::RayTraced, "RayTraced"}});

/// The `options` dictionary of Falcor's RTXDIPass, with Falcor's keys and defaults. Keys the CPU
/// pass accepts without using (GPU memory layout, presampling tiles) are kept so that they round-trip.
struct RTXDIOptions
{
    RTXDIMode mode = RTXDIMode::SpatiotemporalResampling;

    uint32_t presampledTileCount = 128;
    uint32_t presampledTileSize = 1024;
    bool storeCompactLightInfo = true;

    uint32_t localLightCandidateCount = 24;
    uint32_t infiniteLightCandidateCount = 8;
    uint32_t envLightCandidateCount = 8;
    uint32_t brdfCandidateCount = 1;
    float brdfCutoff = 0.f;
    bool testCandidateVisibility = true;

    RTXDIBiasCorrection biasCorrection = RTXDIBiasCorrection::Basic;
    float depthThreshold = 0.1f;
    float normalThreshold = 0.5f;

    float samplingRadius = 30.f;
    uint32_t spatialSampleCount = 1;
    uint32_t spatialIterations = 5;

    uint32_t maxHistoryLength = 20;
    float boilingFilterStrength = 0.f;

    float rayEpsilon = 1e-3f;
    bool useEmissiveTextures = false;
    bool enableVisibilityShortcut = false;
    bool enablePermutationSampling = false;

    /// Parses a dict; errors name `passType`, `name` and the key. Unknown keys warn.
    static RTXDIOptions fromDict(const PropertyValue& dict, const std::string& passType, const std::string& name);
    PropertyValue toDict() const;
};
} // namespace falcor
