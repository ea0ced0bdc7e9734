#include "OIDNFilter.h"
#include "Core/Error.h"
#include "Core/ThreadPool.h"
#include <pybind11/pybind11.h>
#include <atomic>
#include <dlfcn.h>
#include <filesystem>
#include <mutex>

namespace falcor::oidn
{
namespace
{
// The few declarations of OIDN's public C API (OpenImageDenoise/oidn.h, 2.x) this file calls.
using Handle = void*;
constexpr int kDeviceTypeCPU = 1;
constexpr int kFormatFloat3 = 3;
constexpr int kErrorNone = 0;

struct Api
{
    Handle (*newDevice)(int type);
    void (*setDeviceInt)(Handle device, const char* name, int value);
    void (*setDeviceBool)(Handle device, const char* name, bool value);
    void (*commitDevice)(Handle device);
    void (*releaseDevice)(Handle device);
    int (*getDeviceError)(Handle device, const char** message);
    Handle (*newFilter)(Handle device, const char* type);
    void (*setSharedFilterImage)(Handle filter, const char* name, void* ptr, int format, size_t width, size_t height,
                                 size_t byteOffset, size_t pixelByteStride, size_t rowByteStride);
    void (*unsetFilterImage)(Handle filter, const char* name);
    void (*setFilterBool)(Handle filter, const char* name, bool value);
    void (*commitFilter)(Handle filter);
    void (*executeFilter)(Handle filter);
    void (*releaseFilter)(Handle filter);
};

std::string missingExtraMessage(const std::string& passType, const std::string& detail)
{
    return passType + ": this CPU replacement of a vendor denoiser runs Intel Open Image Denoise from the 'pyoidn' package (" +
           detail + "); install it with: pip install \"falcor[denoise]\"";
}

/// The wheel's library, found where Python would import `pyoidn` from (venv, conda, user site,
/// PYTHONPATH alike). Only the lookup needs the interpreter; the package itself is not imported.
std::filesystem::path locateLibrary(const std::string& passType)
{
    namespace py = pybind11;
    FALCOR_CHECK(Py_IsInitialized(), missingExtraMessage(passType, "no Python interpreter to find it with"));
    py::gil_scoped_acquire gil;
    py::object spec = py::module_::import("importlib.util").attr("find_spec")("pyoidn");
    if (spec.is_none() || spec.attr("submodule_search_locations").is_none())
        throwError(missingExtraMessage(passType, "not installed"));
    py::iterator locations = py::iter(spec.attr("submodule_search_locations"));
    const std::filesystem::path packageDir = py::str(*locations).cast<std::string>();
    return packageDir / "oidn" / "lib" / "libOpenImageDenoise.so.2";
}

template<typename F>
void bind(void* library, F& fn, const char* name, const std::filesystem::path& path)
{
    fn = reinterpret_cast<F>(dlsym(library, name));
    FALCOR_CHECK(fn, "Open Image Denoise library '", path.string(), "' lacks '", name, "' (need OIDN 2.x).");
}

/// Loaded once per process and never unloaded (filters of any pass may still use it).
const Api& api(const std::string& passType)
{
    static std::atomic<const Api*> loaded = nullptr;
    static std::mutex mutex;
    if (const Api* a = loaded.load(std::memory_order_acquire))
        return *a;
    // Found before taking the lock: the lookup takes the GIL, and a thread holding the GIL may be
    // waiting for this lock.
    const std::filesystem::path path = locateLibrary(passType);
    std::lock_guard lock(mutex);
    if (const Api* a = loaded.load(std::memory_order_acquire))
        return *a;
    void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library)
        throwError(missingExtraMessage(passType, std::string("its library failed to load: ") + dlerror()));
    auto a = std::make_unique<Api>();
    bind(library, a->newDevice, "oidnNewDevice", path);
    bind(library, a->setDeviceInt, "oidnSetDeviceInt", path);
    bind(library, a->setDeviceBool, "oidnSetDeviceBool", path);
    bind(library, a->commitDevice, "oidnCommitDevice", path);
    bind(library, a->releaseDevice, "oidnReleaseDevice", path);
    bind(library, a->getDeviceError, "oidnGetDeviceError", path);
    bind(library, a->newFilter, "oidnNewFilter", path);
    bind(library, a->setSharedFilterImage, "oidnSetSharedFilterImage", path);
    bind(library, a->unsetFilterImage, "oidnUnsetFilterImage", path);
    bind(library, a->setFilterBool, "oidnSetFilterBool", path);
    bind(library, a->commitFilter, "oidnCommitFilter", path);
    bind(library, a->executeFilter, "oidnExecuteFilter", path);
    bind(library, a->releaseFilter, "oidnReleaseFilter", path);
    loaded.store(a.release(), std::memory_order_release); // Kept for the process's lifetime, like the library.
    return *loaded.load(std::memory_order_acquire);
}
} // namespace

RTFilter::RTFilter(std::string passType) : mPassType(std::move(passType))
{
    api(mPassType); // Fail at creation, not at the first frame, when the extra is missing.
}

RTFilter::~RTFilter() { release(); }

void RTFilter::release()
{
    const Api& a = api(mPassType);
    if (mFilter)
        a.releaseFilter(mFilter);
    if (mDevice)
        a.releaseDevice(mDevice);
    mFilter = mDevice = nullptr;
}

void RTFilter::checkError(const char* what) const
{
    const char* message = nullptr;
    if (mDevice && api(mPassType).getDeviceError(mDevice, &message) != kErrorNone)
        throwError(mPassType, ": Open Image Denoise failed to ", what, ": ", message ? message : "unknown error");
}

void RTFilter::configure(uint2 size, bool useAlbedo, bool useNormal, bool hdr)
{
    FALCOR_CHECK(!useNormal || useAlbedo, mPassType, ": Open Image Denoise needs an albedo guide to use a normal guide.");
    const Settings settings{size, useAlbedo, useNormal, hdr, ThreadPool::get().getThreadCount()};
    if (mFilter && settings == mSettings)
        return;
    recreate(settings);
}

void RTFilter::recreate(const Settings& settings)
{
    const Api& a = api(mPassType);
    const size_t pixels = size_t(settings.size.x()) * settings.size.y();
    mSize = settings.size;
    for (auto* plane : {&mColor, &mOutput})
        plane->assign(pixels, float3(0.f));
    mAlbedo.assign(settings.useAlbedo ? pixels : 0, float3(0.f));
    mNormal.assign(settings.useNormal ? pixels : 0, float3(0.f));

    // A new device when the thread count changes: OIDN fixes it when the device is committed.
    if (!mDevice || settings.threadCount != mSettings.threadCount)
    {
        release();
        mDevice = a.newDevice(kDeviceTypeCPU);
        a.setDeviceInt(mDevice, "numThreads", int(settings.threadCount));
        // No pinning of OIDN's threads to cores: they share the machine with the engine's pool.
        a.setDeviceBool(mDevice, "setAffinity", false);
        a.commitDevice(mDevice);
        checkError("create a CPU device");
    }
    if (!mFilter)
        mFilter = a.newFilter(mDevice, "RT");
    auto setImage = [&](const char* name, std::vector<float3>& plane) {
        if (plane.empty())
            return a.unsetFilterImage(mFilter, name);
        a.setSharedFilterImage(mFilter, name, plane.data(), kFormatFloat3, mSize.x(), mSize.y(), 0, sizeof(float3),
                               sizeof(float3) * mSize.x());
    };
    setImage("color", mColor);
    setImage("albedo", mAlbedo);
    setImage("normal", mNormal);
    setImage("output", mOutput);
    a.setFilterBool(mFilter, "hdr", settings.hdr);
    a.commitFilter(mFilter);
    checkError("set up its RT filter");
    mSettings = settings;
}

void RTFilter::execute()
{
    FALCOR_CHECK(mFilter, mPassType, ": the denoiser was executed before it was configured.");
    api(mPassType).executeFilter(mFilter);
    checkError("denoise");
}
} // namespace falcor::oidn
