#pragma once
// What the measured BRDFs (MERL, RGL) share: one table in memory per file, and a directional
// albedo table for the denoiser guides.
#include "Core/AssetResolver.h"
#include "Utils/Math/MathHelpers.h"
#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

namespace falcor
{
/// The table loaded from `path`, shared while anyone holds it (materials naming the same file
/// load it once; a file rewritten since is read again); `load(path)` reads it otherwise.
template<typename T, typename Load>
std::shared_ptr<const T> loadShared(const std::filesystem::path& path, Load&& load)
{
    using Key = std::tuple<std::filesystem::path, std::filesystem::file_time_type, std::uintmax_t>;
    static std::mutex mutex;
    static std::map<Key, std::weak_ptr<const T>> cache;
    AssetResolver::reportRead(path); // read now or earlier: the table is an input either way
    std::lock_guard lock(mutex);
    std::error_code ec; // A missing file is reported by `load`, naming it.
    const Key key{std::filesystem::absolute(path), std::filesystem::last_write_time(path, ec), std::filesystem::file_size(path, ec)};
    if (auto cached = cache[key].lock())
        return cached;
    std::shared_ptr<const T> table = load(path);
    cache[key] = table;
    return table;
}

/// Directional albedo at `size` view angles (cos θ at bin centers): ∫ evalCos(wi, wo) dωo by the
/// midpoint rule over (cos θ, φ) of the upper hemisphere.
template<typename EvalCos>
std::vector<float3> integrateAlbedoLUT(uint32_t size, EvalCos&& evalCos)
{
    constexpr int kTheta = 32, kPhi = 64;
    std::vector<float3> lut(size, float3(0.f));
    for (uint32_t i = 0; i < size; ++i)
    {
        const float cosI = (i + 0.5f) / size;
        const float3 wi(std::sqrt(1.f - cosI * cosI), 0.f, cosI);
        float3 sum(0.f);
        for (int t = 0; t < kTheta; ++t)
            for (int p = 0; p < kPhi; ++p)
            {
                const float z = (t + 0.5f) / kTheta, phi = 2.f * kPi * (p + 0.5f) / kPhi, r = std::sqrt(1.f - z * z);
                sum += evalCos(wi, float3(r * std::cos(phi), r * std::sin(phi), z));
            }
        lut[i] = sum * (2.f * kPi / (kTheta * kPhi));
    }
    return lut;
}

/// The albedo table's entry for a view at cos θ.
inline float3 lookupAlbedo(const std::vector<float3>& lut, float cosTheta)
{
    const uint32_t size = uint32_t(lut.size());
    return lut[std::min(uint32_t(std::max(cosTheta, 0.f) * size), size - 1)];
}
} // namespace falcor
