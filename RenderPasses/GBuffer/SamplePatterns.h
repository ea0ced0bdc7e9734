#pragma once
#include "Core/Enum.h"
#include "Utils/Math/Vector.h"
#include <memory>
#include <random>
#include <vector>

namespace falcor
{
/// Camera jitter pattern of the G-buffer passes (Falcor's GBufferBase::SamplePattern).
enum class SamplePattern : uint32_t
{
    Center,     ///< No jitter: every frame samples the pixel center.
    DirectX,    ///< The 8 positions of the Direct3D 8x MSAA pattern.
    Halton,     ///< Halton sequence in bases 2 and 3.
    Stratified, ///< One random point per cell of a near-square grid, cells in shuffled order.
};
FALCOR_ENUM_INFO(SamplePattern, {{SamplePattern::Center, "Center"},
                                 {SamplePattern::DirectX, "DirectX"},
                                 {SamplePattern::Halton, "Halton"},
                                 {SamplePattern::Stratified, "Stratified"}});

/// A CPU sequence of sub-pixel offsets (Falcor's CPUSampleGenerator). `next()` returns an offset
/// in [-0.5, 0.5)² pixels from the pixel center; the camera turns it into its per-frame jitter.
class JitterPattern
{
public:
    virtual ~JitterPattern() = default;
    /// Samples per period of the pattern.
    virtual uint32_t getSampleCount() const = 0;
    virtual float2 next() = 0;
};

/// Direct3D's standard 8-sample pattern; other sample counts are replaced by 8 (with a warning).
class DxSamplePattern final : public JitterPattern
{
public:
    explicit DxSamplePattern(uint32_t sampleCount);
    uint32_t getSampleCount() const override { return kSampleCount; }
    float2 next() override;

private:
    static constexpr uint32_t kSampleCount = 8;
    uint32_t mCurSample = 0;
};

/// Halton points (bases 2 and 3) shifted so that the first one is the pixel center; the index
/// wraps after `sampleCount` samples (0 = never).
class HaltonSamplePattern final : public JitterPattern
{
public:
    explicit HaltonSamplePattern(uint32_t sampleCount) : mSampleCount(sampleCount) {}
    uint32_t getSampleCount() const override { return mSampleCount; }
    float2 next() override;

private:
    uint32_t mSampleCount;
    uint32_t mCurSample = 0;
};

/// Stratified random points: `sampleCount` (clamped to [1, 1024]) cells of a binsX × binsY grid
/// as close to square as the count's factors allow, each period visiting every cell once in a
/// freshly shuffled order. The randomness is the C++ standard library's (default-seeded
/// mt19937, std::shuffle, uniform_real_distribution<float>), as in Falcor, so the sequence is
/// the one Falcor produces with the same standard library.
class StratifiedSamplePattern final : public JitterPattern
{
public:
    explicit StratifiedSamplePattern(uint32_t sampleCount);
    uint32_t getSampleCount() const override { return mBinsX * mBinsY; }
    float2 next() override;

private:
    uint32_t mBinsX = 0, mBinsY = 0;
    uint32_t mCurSample = 0;
    std::mt19937 mRng;
    std::vector<uint32_t> mPermutation;
};

/// The generator of a pattern; nullptr for Center.
std::shared_ptr<JitterPattern> createJitterPattern(SamplePattern pattern, uint32_t sampleCount);
} // namespace falcor
