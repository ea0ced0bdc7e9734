#include "Rendering/Materials/MERLBRDF.h"
#include "Rendering/Materials/MeasuredBRDFHelpers.h"
#include "Core/Error.h"
#include "Core/Logger.h"
#include "Utils/Math/MathHelpers.h"
#include <algorithm>
#include <cmath>
#include <fstream>

namespace falcor
{
namespace
{
// The database's per-channel scale of the stored values.
constexpr double kRedScale = 1.0 / 1500.0, kGreenScale = 1.15 / 1500.0, kBlueScale = 1.66 / 1500.0;

/// v rotated by `angle` about the unit `axis` (Rodrigues).
float3 rotate(const float3& v, const float3& axis, float angle)
{
    const float c = std::cos(angle), s = std::sin(angle);
    return v * c + axis * (dot(v, axis) * (1.f - c)) + cross(axis, v) * s;
}

/// Index of the table entry nearest (below) the half/difference angles of (wi, wo).
size_t tableIndex(const float3& wi, const float3& wo)
{
    const float3 h = normalize(wi + wo);
    const float thetaH = std::acos(std::clamp(h.z(), -1.f, 1.f));
    const float phiH = std::atan2(h.y(), h.x());
    const float3 diff = rotate(rotate(wi, float3(0.f, 0.f, 1.f), -phiH), float3(0.f, 1.f, 0.f), -thetaH);
    const float thetaD = std::acos(std::clamp(diff.z(), -1.f, 1.f));
    float phiD = std::atan2(diff.y(), diff.x());
    if (phiD < 0.f)
        phiD += kPi; // Reciprocity: φd and φd + π are the same sample.
    auto clampIndex = [](float x, uint32_t n) { return uint32_t(std::clamp(int(x), 0, int(n) - 1)); };
    const uint32_t iH = thetaH <= 0.f ? 0 : clampIndex(std::sqrt(thetaH * 2.f / kPi) * MERLBRDF::kResThetaH, MERLBRDF::kResThetaH);
    const uint32_t iD = clampIndex(thetaD * 2.f / kPi * MERLBRDF::kResThetaD, MERLBRDF::kResThetaD);
    const uint32_t iP = clampIndex(phiD / kPi * (MERLBRDF::kResPhiD / 2), MERLBRDF::kResPhiD / 2);
    return (size_t(iD) + size_t(iH) * MERLBRDF::kResThetaD) * (MERLBRDF::kResPhiD / 2) + iP;
}

std::vector<float3> readSamples(const std::filesystem::path& path)
{
    std::ifstream file(path, std::ios::binary);
    FALCOR_CHECK(file.good(), "MERL BRDF '", path.string(), "': cannot open the file.");
    int32_t dims[3] = {};
    file.read(reinterpret_cast<char*>(dims), sizeof(dims));
    const size_t expected = size_t(MERLBRDF::kResThetaH) * MERLBRDF::kResThetaD * (MERLBRDF::kResPhiD / 2);
    FALCOR_CHECK(file.good() && dims[0] > 0 && dims[1] > 0 && dims[2] > 0 && size_t(dims[0]) * dims[1] * dims[2] == expected, "MERL BRDF '",
                 path.string(), "': not a MERL table (header dimensions ", dims[0], " x ", dims[1], " x ", dims[2], ", expected ", expected,
                 " samples).");
    std::vector<double> data(3 * expected);
    file.read(reinterpret_cast<char*>(data.data()), std::streamsize(data.size() * sizeof(double)));
    FALCOR_CHECK(file.gcount() == std::streamsize(data.size() * sizeof(double)), "MERL BRDF '", path.string(), "': the file ends after ",
                 file.gcount() / std::streamsize(sizeof(double)), " of ", data.size(), " values.");
    std::vector<float3> samples(expected);
    size_t invalid = 0;
    for (size_t i = 0; i < expected; ++i)
    {
        float3 v(float(data[i] * kRedScale), float(data[i + expected] * kGreenScale), float(data[i + 2 * expected] * kBlueScale));
        const bool finite = std::isfinite(v.x()) && std::isfinite(v.y()) && std::isfinite(v.z());
        invalid += !finite || v.x() < 0.f || v.y() < 0.f || v.z() < 0.f;
        samples[i] = finite ? max(v, float3(0.f)) : float3(0.f); // The database marks missing samples negative.
    }
    if (invalid > 0)
        logWarning("MERL BRDF '", path.string(), "': ", invalid, " samples are negative or not finite; they are taken as 0.");
    return samples;
}
} // namespace

std::shared_ptr<const MERLBRDF> MERLBRDF::load(const std::filesystem::path& path)
{
    return loadShared<MERLBRDF>(path, [](const std::filesystem::path& p) { return std::shared_ptr<const MERLBRDF>(new MERLBRDF(readSamples(p))); });
}

MERLBRDF::MERLBRDF(std::vector<float3> samples) : mSamples(std::move(samples))
{
    computeAlbedoLUT();
}

float3 MERLBRDF::eval(const float3& wi, const float3& wo) const
{
    if (std::min(wi.z(), wo.z()) <= 0.f)
        return float3(0.f);
    return mSamples[tableIndex(wi, wo)] * wo.z();
}

void MERLBRDF::computeAlbedoLUT()
{
    mAlbedoLUT = integrateAlbedoLUT(kAlbedoLUTSize, [this](const float3& wi, const float3& wo) { return eval(wi, wo); });
}

float3 MERLBRDF::albedo(float cosTheta) const
{
    return lookupAlbedo(mAlbedoLUT, cosTheta);
}
} // namespace falcor
