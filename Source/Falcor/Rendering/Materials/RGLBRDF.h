#pragma once
#include "Core/Macros.h"
#include "Rendering/Materials/BSDFSample.h"
#include "Utils/Math/Vector.h"
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace falcor
{
/// A measured BRDF of the RGL database (Dupuy and Jakob 2018, "An adaptive parameterization for
/// efficient material acquisition and rendering"), as Falcor's RGLMaterial reads and evaluates
/// it: a `tensor_file` with the view angles it was measured at (theta_i, phi_i), the projected
/// microfacet area sigma, the NDF, and per view the visible-normal distribution (vndf), the
/// luminance and the RGB reflectance over the warped half-vector domain.
///
/// f(wi, wo) = rgb(view, unwarped h) · ndf(h) / (4 sigma(wi)); sampling warps uniform numbers
/// through the luminance and vndf tables (piecewise-bilinear distributions, interpolated
/// between measured views).
class FALCOR_API RGLBRDF
{
public:
    static constexpr uint32_t kAlbedoLUTSize = 32;

    /// Loads an RGL .bsdf file (shared by every material naming it). Raises naming the file and
    /// the field when it cannot be read, is not a tensor file, or lacks a field or its shape.
    static std::shared_ptr<const RGLBRDF> load(const std::filesystem::path& path);

    /// What a view direction (local, z up) selects in the tables: the measured view it falls
    /// between (fractional indices) and the projected microfacet area.
    struct View
    {
        float2 slice{0.f, 0.f};
        float sigma = 0.f;
    };
    View view(const float3& wi) const;

    /// f(wi, wo) · cos θo (Falcor's measured form already includes the cosine) for local directions.
    float3 eval(const float3& wi, const float3& wo, const View& v) const;
    /// Solid-angle density of sample().
    float evalPdf(const float3& wi, const float3& wo, const View& v) const;
    /// Warps u through the luminance and vndf distributions of the view; false below the horizon.
    bool sample(const float3& wi, float2 u, const View& v, BSDFSample& s) const;

    /// Directional albedo for a view at cos θ (integrated at load, interpolated).
    float3 albedo(float cosTheta) const;
    const std::string& getDescription() const { return mDescription; }
    bool isIsotropic() const { return mPhi.size() == 1; }

    class Distribution; ///< A 2D distribution per measured view, interpolated between views.

private:
    RGLBRDF() = default;
    /// The half vector of (wi, wo), and where it lies in the tables' unit square.
    float2 unitHalfVector(const float3& wi, const float3& wo, float3& h) const;
    void computeAlbedoLUT();

    std::vector<float> mTheta, mPhi;
    uint2 mSigmaSize{0, 0}, mNdfSize{0, 0};
    std::vector<float> mSigma, mNdf, mRgb;
    uint4 mRgbSize{0, 0, 0, 0};
    std::shared_ptr<const Distribution> mVndf, mLuminance;
    std::vector<float3> mAlbedoLUT;
    std::string mDescription;
};
} // namespace falcor
