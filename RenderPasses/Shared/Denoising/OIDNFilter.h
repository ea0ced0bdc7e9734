#pragma once
#include "Utils/Math/Vector.h"
#include <memory>
#include <string>
#include <vector>

namespace falcor::oidn
{
/// Intel Open Image Denoise's "RT" filter on a CPU device, for the CPU replacements of Falcor's
/// vendor denoisers (OptixDenoiser, NRD).
///
/// OIDN comes from the `pyoidn` wheel (the `denoise` extra): the library is located through
/// Python's import system (the `pyoidn` package's `oidn/lib/libOpenImageDenoise.so.2`) and opened
/// with dlopen; only OIDN's public C API is used. Without the extra, constructing a filter throws
/// a RuntimeError naming the pass and `pip install "falcor[denoise]"`.
///
/// The device runs on as many threads as the engine's pool; OIDN's output is the same bits for
/// any thread count (tests/passes/test_oidn_denoisers.py checks it), so that keeps runs
/// deterministic while letting `falcor.set_thread_count` bound the CPU use.
///
/// Images are float3 planes owned by the filter, rows top to bottom: fill `color()` (and the
/// guides it was configured with), call `execute()`, read `output()`.
class RTFilter
{
public:
    /// Loads OIDN on first use; `passType` names the pass in errors.
    explicit RTFilter(std::string passType);
    ~RTFilter();
    RTFilter(const RTFilter&) = delete;
    RTFilter& operator=(const RTFilter&) = delete;

    /// Sizes the planes and sets the filter's images and options; OIDN recommits only on a change.
    /// `hdr` false means colors in [0, 1] (OIDN's LDR mode). A normal guide needs the albedo guide.
    void configure(uint2 size, bool useAlbedo, bool useNormal, bool hdr);

    float3* color() { return mColor.data(); }
    float3* albedo() { return mAlbedo.data(); }
    float3* normal() { return mNormal.data(); }
    const float3* output() const { return mOutput.data(); }
    uint2 size() const { return mSize; }

    /// Denoises `color()` into `output()`; OIDN's errors are thrown naming the pass.
    void execute();

private:
    struct Settings
    {
        uint2 size{0, 0};
        bool useAlbedo = false;
        bool useNormal = false;
        bool hdr = true;
        uint32_t threadCount = 0;
        bool operator==(const Settings&) const = default;
    };
    void recreate(const Settings& settings);
    void release();
    void checkError(const char* what) const;

    std::string mPassType;
    void* mDevice = nullptr;
    void* mFilter = nullptr;
    Settings mSettings;
    uint2 mSize{0, 0};
    std::vector<float3> mColor, mAlbedo, mNormal, mOutput;
};
} // namespace falcor::oidn
