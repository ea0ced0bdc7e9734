#include "GaussianBlur.h"
#include "Core/ThreadPool.h"
#include <cmath>
#include <numbers>

using namespace falcor;

namespace
{
const std::string kSrc = "src";
const std::string kDst = "dst";

const std::string kKernelWidth = "kernelWidth";
/// Taps per direction; Falcor bounds it only by what its shader compiler accepts.
constexpr uint32_t kMaxKernelWidth = 255;
const std::string kSigma = "sigma";

/// Falcor's tap weights: the 2D Gaussian density at distance i from the center, divided by
/// the sum over all taps. The density's constant factor cancels in the division, but we keep
/// it so the float weights round exactly as Falcor's do.
std::vector<float> gaussianWeights(uint32_t kernelWidth, float sigma)
{
    const uint32_t center = kernelWidth / 2;
    const float sigmaSquared = sigma * sigma;
    std::vector<float> density(center + 1);
    float sum = 0.f;
    for (uint32_t i = 0; i <= center; ++i)
    {
        const float x = float(i);
        density[i] = std::exp(-(x * x) / (2 * sigmaSquared)) / (2 * std::numbers::pi_v<float> * sigmaSquared);
        sum += i == 0 ? density[i] : 2 * density[i]; // taps at +i and -i
    }
    FALCOR_CHECK(std::isfinite(sum) && sum > 0.f, "GaussianBlur: sigma = ", sigma, " gives a degenerate kernel; use a non-zero sigma.");

    std::vector<float> weights(kernelWidth);
    for (uint32_t i = 0; i <= center; ++i)
        weights[center + i] = weights[center - i] = density[i] / sum;
    return weights;
}

/// Sums weights[i] · texel(clamp(p - center + i)) over the taps in order, as Falcor's shader does.
template<typename Texel>
float4 convolve(const std::vector<float>& weights, int32_t p, int32_t last, Texel texel)
{
    const int32_t center = int32_t(weights.size() / 2);
    float4 c(0.f);
    for (int32_t i = 0; i < int32_t(weights.size()); ++i)
        c += texel(std::clamp(p - center + i, 0, last)) * weights[i];
    return c;
}
} // namespace

GaussianBlur::GaussianBlur(const Properties& props)
{
    uint32_t kernelWidth = mKernelWidth;
    float sigma = mSigma;
    for (const auto& [key, value] : props)
    {
        if (key == kKernelWidth)
            kernelWidth = value.as<uint32_t>(key);
        else if (key == kSigma)
            sigma = value.as<float>(key);
        else
            warnUnknownProperty(key);
    }
    setKernel(kernelWidth, sigma);

    scriptProperty<uint32_t>(kKernelWidth, [this] { return mKernelWidth; }, [this](uint32_t newWidth) { setKernel(newWidth, mSigma); });
    scriptProperty<float>(kSigma, [this] { return mSigma; }, [this](float newSigma) { setKernel(mKernelWidth, newSigma); });
}

void GaussianBlur::setKernel(uint32_t kernelWidth, float sigma)
{
    FALCOR_CHECK(kernelWidth >= 1 && kernelWidth <= kMaxKernelWidth, "GaussianBlur: 'kernelWidth' = ", kernelWidth,
                 " is out of range [1, ", kMaxKernelWidth, "].");
    kernelWidth |= 1; // A symmetric kernel needs an odd number of taps.
    mWeights = gaussianWeights(kernelWidth, sigma); // Throws before anything changes.
    mKernelWidth = kernelWidth;
    mSigma = sigma;
}

Properties GaussianBlur::getProperties() const
{
    Properties props;
    props.set(kKernelWidth, mKernelWidth);
    props.set(kSigma, mSigma);
    return props;
}

RenderPassReflection GaussianBlur::reflect(const CompileData& compileData)
{
    RenderPassReflection r;
    auto& src = r.addInput(kSrc, "input image to be blurred");
    auto& dst = r.addOutput(kDst, "output blurred image");
    // Before the graph knows what feeds `src` (e.g. while edges are added) the fields stay open.
    if (const auto* connected = compileData.connectedResources.getField(kSrc))
    {
        for (auto* field : {&src, &dst})
            field->format(connected->getFormat())
                .texture2D(connected->getWidth(), connected->getHeight(), connected->getArraySize(), connected->getMipCount());
    }
    return r;
}

void GaussianBlur::execute(RenderContext*, const RenderData& renderData)
{
    const Texture& src = *renderData[kSrc];
    Texture& dst = *renderData[kDst];
    FALCOR_CHECK(src.getDims() == dst.getDims() && src.getFormat() == dst.getFormat() && src.getArraySize() == dst.getArraySize(),
                 "GaussianBlur: '", kDst, "' must have the size, format and array size of '", kSrc, "'.");

    for (uint32_t slice = 0; slice < src.getArraySize(); ++slice)
    {
        blurHorizontally(src, dst, slice);
        blurVertically(dst, slice);
    }
}

void GaussianBlur::blurHorizontally(const Texture& src, Texture& dst, uint32_t slice)
{
    const uint32_t width = src.getWidth(), height = src.getHeight();
    mHorizontal.resize(size_t(width) * height);
    parallelFor(height, 4, [&](size_t y0, size_t y1) {
        std::vector<float4> in(width);
        for (uint32_t y = uint32_t(y0); y < y1; ++y)
        {
            src.loadRow(y, in.data(), 0, slice);
            float4* out = &mHorizontal[size_t(y) * width];
            for (int32_t x = 0; x < int32_t(width); ++x)
                out[x] = convolve(mWeights, x, int32_t(width) - 1, [&](int32_t i) { return in[i]; });
            // Falcor renders this pass into a texture of the source format: quantize the same way.
            dst.encode(out, dst.row(y, 0, slice), width);
            dst.decode(dst.row(y, 0, slice), out, width);
        }
    });
}

void GaussianBlur::blurVertically(Texture& dst, uint32_t slice) const
{
    const uint32_t width = dst.getWidth(), height = dst.getHeight();
    parallelFor(height, 4, [&](size_t y0, size_t y1) {
        std::vector<float4> out(width);
        for (uint32_t y = uint32_t(y0); y < y1; ++y)
        {
            for (uint32_t x = 0; x < width; ++x)
                out[x] = convolve(mWeights, int32_t(y), int32_t(height) - 1, [&](int32_t i) { return mHorizontal[size_t(i) * width + x]; });
            dst.storeRow(y, out.data(), 0, slice);
        }
    });
}
