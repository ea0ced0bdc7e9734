#pragma once
#include "Core/Macros.h"
#include "Utils/Math/Vector.h"
#include <filesystem>
#include <memory>
#include <vector>

namespace falcor
{
/// A measured isotropic BRDF of the MERL database (Matusik et al. 2003): 90 x 90 x 180 RGB
/// samples over half-angle θh (square-root spaced), difference angle θd and φd, looked up at the
/// nearest sample as Falcor's MERLCommon does.
class FALCOR_API MERLBRDF
{
public:
    static constexpr uint32_t kResThetaH = 90, kResThetaD = 90, kResPhiD = 360;
    static constexpr uint32_t kAlbedoLUTSize = 32;

    /// Loads a MERL .binary file (shared by every material naming the same file). Raises naming
    /// the file when it cannot be read or is not a MERL table of the expected size.
    static std::shared_ptr<const MERLBRDF> load(const std::filesystem::path& path);

    /// f(wi, wo) · cos θo for local directions in the upper hemisphere.
    float3 eval(const float3& wi, const float3& wo) const;
    /// Directional albedo for a view at cos θ (from a table precomputed at load).
    float3 albedo(float cosTheta) const;

private:
    explicit MERLBRDF(std::vector<float3> samples);
    void computeAlbedoLUT();

    std::vector<float3> mSamples;
    std::vector<float3> mAlbedoLUT;
};
} // namespace falcor
