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

    // Density over (u, v) of cell (x, y): its share of the total weight times the cell count.
    double total = 0.0;
    for (double w : weights)
        total += w;
    mCellPdf.resize(weights.size());
    for (size_t i = 0; i < weights.size(); ++i)
        mCellPdf[i] = float(weights[i] / total * double(weights.size()));
    std::vector<double> rowWeights(mHeight, 0.0);
    mColumnBins.resize(weights.size());
    for (uint32_t y = 0; y < mHeight; ++y)
    {
        const auto row = std::span(weights).subspan(size_t(y) * mWidth, mWidth);
        for (double w : row)
            rowWeights[y] += w;
        buildAliasBins(row, std::span(mColumnBins).subspan(size_t(y) * mWidth, mWidth));
    }
    mRowBins.resize(mHeight);
    buildAliasBins(rowWeights, mRowBins);
}

} // namespace falcor
