#pragma once
// Test support: the sample generators, the PBRT and standard materials over lanes against their one-lane
// instantiations, bit for bit. The Python hooks `_lanes_bsdf_*` (RenderingBindings.cpp) run the
// lane kernels at the active ISA's width (MaterialLanesCheck.lanes.cpp), or the scalar code as
// its callers use it, on the same rows.
#include "Core/Macros.h"
#include <cstddef>
#include <cstdint>

namespace falcor
{
/// Row k's generator is the one of pixel (k, 0) at sample number `seed`, made by createRow. At
/// each step, the rows whose `active[step * count + k]` is set draw sampleNext2D into
/// `numbers[(step * count + k) * 2]` (the other rows' numbers are unspecified). Then each row's
/// generator gives one more next() into `finalNext[k]`: it continues where its row's draws left it.
struct SampleGeneratorLanesCheck
{
    bool uniform = false; ///< UniformSampleGenerator, else TinyUniformSampleGenerator.
    size_t count = 0, steps = 0;
    uint32_t seed = 0;
    const uint8_t* active = nullptr;
    float* numbers = nullptr;
    uint32_t* finalNext = nullptr;
};

/// A material instance (PBRTDiffuse: params = albedo; PBRTConductor: eta, k, alpha_x, alpha_y;
/// Standard: diffuse, specular, roughness, metallic, eta, transmission, diffuseTransmission,
/// specularTransmission, thinSurface (> 0.5), activeLobes (an integer)) in the shading frame (T, B, N) at a hit seen from V (face normal faceN, frontFacing), queried
/// with wo: eval, evalPdf, and (where `active`) sample with row k's TinyUniform generator (pixel
/// (k, 0) at `seed`), and its getLobeTypes. All vectors are rows of 3 floats. finalNext as above.
struct MaterialLanesCheck
{
    enum class Kind : uint32_t
    {
        PBRTDiffuse,
        PBRTConductor,
        Standard,
    };
    static constexpr size_t kParams = 16;

    Kind kind = Kind::PBRTDiffuse;
    size_t count = 0;
    uint32_t seed = 0;
    bool importanceSampling = true; ///< sample's and evalPdf's flag (the standard material's reference sampling when false).
    const float *V = nullptr, *wo = nullptr, *T = nullptr, *B = nullptr, *N = nullptr, *faceN = nullptr;
    const uint8_t *frontFacing = nullptr, *active = nullptr;
    const float* params = nullptr; ///< kParams per row.

    float *eval = nullptr, *pdf = nullptr;
    float *sampleWo = nullptr, *sampleWeight = nullptr, *samplePdf = nullptr;
    uint32_t* sampleLobe = nullptr;
    uint8_t* sampleValid = nullptr;
    uint32_t* lobeTypes = nullptr; ///< getLobeTypes().
    uint32_t* finalNext = nullptr;
};

/// At the active ISA's width.
FALCOR_API void sampleGeneratorLanesCheck(const SampleGeneratorLanesCheck& io);
FALCOR_API void materialLanesCheck(const MaterialLanesCheck& io);

/// The scalar code, one row at a time.
FALCOR_API void sampleGeneratorScalarCheck(const SampleGeneratorLanesCheck& io);
FALCOR_API void materialScalarCheck(const MaterialLanesCheck& io);
} // namespace falcor
