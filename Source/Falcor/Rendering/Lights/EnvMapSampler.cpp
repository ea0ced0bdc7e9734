#include "Rendering/Lights/EnvMapSampler.h"
#include "Utils/Color/ColorHelpers.h"
#include <algorithm>
#include <cmath>

namespace falcor
{
namespace
{
constexpr uint32_t kMaxGridWidth = 1024;
/// Every cell keeps at least this fraction of the mean cell weight.
constexpr double kWeightFloor = 1e-3;

/// Turns weights into a normalized CDF with n + 1 entries.
void buildCdf(const double* weights, uint32_t n, float* cdf)
{
    double total = 0.0;
    for (uint32_t i = 0; i < n; ++i)
        total += weights[i];
    double acc = 0.0;
    cdf[0] = 0.f;
    for (uint32_t i = 0; i < n; ++i)
        cdf[i + 1] = float((acc += weights[i]) / total);
    cdf[n] = 1.f;
}
} // namespace

EnvMapSampler::EnvMapSampler(const EnvMap& envMap) : mEnvMap(envMap), mValid(true)
{
    const uint32_t texWidth = envMap.texture ? envMap.texture->getWidth() : 1;
    mWidth = std::min(kMaxGridWidth, std::max(2u, texWidth));
    mHeight = std::max(1u, mWidth / 2);
    const float lod = std::max(0.f, std::log2(float(texWidth) / float(mWidth)));

    std::vector<double> weights(size_t(mWidth) * mHeight);
    double sum = 0.0;
    for (uint32_t y = 0; y < mHeight; ++y)
    {
        const float v = (y + 0.5f) / float(mHeight);
        const double sinTheta = std::sin(kPi * v);
        for (uint32_t x = 0; x < mWidth; ++x)
            sum += weights[size_t(y) * mWidth + x] = std::max(0.f, luminance(envMap.evalUv(float2((x + 0.5f) / float(mWidth), v), lod))) * sinTheta;
    }
    const double floor = std::max(kWeightFloor * sum / double(weights.size()), 1e-30);
    for (double& w : weights)
        w = std::max(w, floor);

    mConditionalCdf.resize(size_t(mHeight) * (mWidth + 1));
    std::vector<double> rowWeights(mHeight);
    for (uint32_t y = 0; y < mHeight; ++y)
    {
        const double* row = &weights[size_t(y) * mWidth];
        for (uint32_t x = 0; x < mWidth; ++x)
            rowWeights[y] += row[x];
        buildCdf(row, mWidth, &mConditionalCdf[size_t(y) * (mWidth + 1)]);
    }
    mMarginalCdf.resize(mHeight + 1);
    buildCdf(rowWeights.data(), mHeight, mMarginalCdf.data());
}

float EnvMapSampler::sampleCdf(const float* cdf, uint32_t n, float u, float& pdf)
{
    // The last cell whose start is <= u (cells of zero width are never chosen).
    const uint32_t i = std::min(uint32_t(std::upper_bound(cdf, cdf + n + 1, u) - cdf), n) - 1;
    const float width = cdf[i + 1] - cdf[i];
    pdf = width * float(n);
    const float t = width > 0.f ? (u - cdf[i]) / width : 0.5f;
    return std::min((float(i) + t) / float(n), std::nextafter(1.f, 0.f));
}

float EnvMapSampler::toSolidAngle(float uvPdf, float v)
{
    const float sinTheta = std::sin(kPi * v);
    return sinTheta > 0.f ? uvPdf / (2.f * kPi * kPi * sinTheta) : 0.f;
}

float EnvMapSampler::evalPdfUv(float2 uv) const
{
    if (!mValid)
        return 0.f;
    const uint32_t y = std::min(uint32_t(uv.y() * float(mHeight)), mHeight - 1);
    const uint32_t x = std::min(uint32_t(uv.x() * float(mWidth)), mWidth - 1);
    const float* row = &mConditionalCdf[size_t(y) * (mWidth + 1)];
    const float uvPdf = (mMarginalCdf[y + 1] - mMarginalCdf[y]) * float(mHeight) * (row[x + 1] - row[x]) * float(mWidth);
    return toSolidAngle(uvPdf, uv.y());
}
} // namespace falcor
