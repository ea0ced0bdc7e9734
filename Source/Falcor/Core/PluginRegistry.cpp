#include "Core/PluginRegistry.h"
#include "Core/Logger.h"
#include "RenderGraph/RenderPass.h"
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <dlfcn.h>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

namespace falcor
{
namespace
{
using RegisterPluginFn = void (*)(PluginRegistry&);
constexpr const char* kPluginExtension = ".so";

/// Folder of libfalcor itself; the package keeps plugins in `<that>/plugins`.
std::filesystem::path libraryFolder()
{
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&libraryFolder), &info) && info.dli_fname)
        return std::filesystem::absolute(info.dli_fname).parent_path();
    return {};
}

/// Seconds with 3 significant digits, as Falcor's `{:.3}` prints them (0.19, 1.23, 12.3).
std::string formatSeconds(double s)
{
    std::ostringstream ss;
    ss << std::setprecision(3) << s;
    return ss.str();
}

/// Falcor passes this engine does not offer, with why and what to use instead: creating one
/// raises this instead of "no such class".
const std::map<std::string, std::string> kUnavailableClasses = {
    {"SDFEditor", "Falcor's SDFEditor edits SDF grids interactively in Mogwai's window; this engine has neither SDF grid "
                  "primitives nor an interactive UI. The closest pass offered is 'SceneDebugger' (false-color views of the scene)."},
    {"WARDiffPathTracer", "Falcor's WARDiffPathTracer differentiates path tracing (warped-area reparameterization) with Slang's "
                          "automatic differentiation on the GPU; this engine renders forward only. The closest pass offered is "
                          "'PathTracer' (the same light transport, without gradients)."},
};
} // namespace

PluginRegistry& PluginRegistry::get()
{
    static PluginRegistry registry;
    return registry;
}

void PluginRegistry::registerClass(const std::string& type, const std::string& desc, Factory factory)
{
    FALCOR_CHECK(!type.empty(), "A render pass class needs a non-empty type name.");
    if (auto it = mClasses.find(type); it != mClasses.end() && !it->second.library.empty() && it->second.library != mLoadingLibrary)
        throwError("Render pass class '", type, "' is already registered by plugin '", it->second.library, "'.");
    mClasses[type] = ClassInfo{type, desc, std::move(factory), mLoadingLibrary};
}

bool PluginRegistry::unregisterClass(const std::string& type) { return mClasses.erase(type) != 0; }

const PluginRegistry::ClassInfo* PluginRegistry::getClassInfo(const std::string& type) const
{
    auto it = mClasses.find(type);
    return it == mClasses.end() ? nullptr : &it->second;
}

std::vector<PluginRegistry::ClassInfo> PluginRegistry::getClasses() const
{
    std::vector<ClassInfo> v;
    for (const auto& [_, info] : mClasses)
        v.push_back(info);
    return v;
}

std::shared_ptr<RenderPass> PluginRegistry::createRenderPass(const std::string& type, const Properties& props)
{
    if (!hasClass(type))
    {
        try
        {
            loadPlugin(type);
        }
        catch (const RuntimeError&)
        {
        }
    }
    const ClassInfo* info = getClassInfo(type);
    if (auto unavailable = kUnavailableClasses.find(type); !info && unavailable != kUnavailableClasses.end())
        throwError("Can't create a render pass of type '", type, "': ", unavailable->second);
    FALCOR_CHECK(info, "Can't create a render pass of type '", type, "': no such class is registered (loaded plugin libraries: ",
                 mLibraries.size(), ").");
    try
    {
        auto pass = info->factory(props);
        FALCOR_CHECK(pass, "Factory returned no pass.");
        return pass;
    }
    catch (const RuntimeError& e)
    {
        // Name the type once, whether or not the pass's message already starts with it.
        const std::string message = e.what();
        if (message.rfind(type + ":", 0) == 0)
            throw;
        throwError(type, ": ", message);
    }
}

std::vector<std::filesystem::path> PluginRegistry::getSearchPaths() const
{
    std::vector<std::filesystem::path> paths;
    if (auto dir = libraryFolder(); !dir.empty())
        paths.push_back(dir / "plugins");
    if (const char* env = std::getenv("FALCOR_PLUGIN_PATH"))
    {
        std::stringstream ss(env);
        for (std::string item; std::getline(ss, item, ':');)
            if (!item.empty())
                paths.emplace_back(item);
    }
    return paths;
}

bool PluginRegistry::isLoaded(const std::string& name) const { return mLibraries.count(name) != 0; }

void PluginRegistry::loadPlugin(const std::string& name)
{
    if (isLoaded(name))
        return;
    std::string tried;
    for (const auto& dir : getSearchPaths())
    {
        auto path = dir / (name + kPluginExtension);
        if (std::filesystem::exists(path))
            return loadPluginLibrary(path);
        tried += "\n  " + path.string();
    }
    throwError("Can't find plugin library '", name, "'. Tried:", tried);
}

void PluginRegistry::loadPluginLibrary(const std::filesystem::path& path)
{
    std::string name = path.stem().string();
    if (isLoaded(name))
        return;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    FALCOR_CHECK(handle, "Failed to load plugin library '", path.string(), "': ", dlerror());
    auto registerPlugin = reinterpret_cast<RegisterPluginFn>(dlsym(handle, "registerPlugin"));
    if (!registerPlugin)
    {
        dlclose(handle);
        throwError("Plugin library '", path.string(), "' does not export 'registerPlugin'.");
    }
    mLoadingLibrary = name;
    try
    {
        registerPlugin(*this);
    }
    catch (...)
    {
        mLoadingLibrary.clear();
        throw;
    }
    mLoadingLibrary.clear();
    mLibraries[name] = handle; // Never unloaded: passes created from it may still be alive.
}

size_t PluginRegistry::loadAllPlugins()
{
    auto start = std::chrono::steady_clock::now();
    size_t loaded = 0;
    std::set<std::filesystem::path> files;
    for (const auto& dir : getSearchPaths())
    {
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
            if (entry.path().extension() == kPluginExtension)
                files.insert(entry.path());
    }
    for (const auto& file : files)
    {
        if (isLoaded(file.stem().string()))
            continue;
        try
        {
            loadPluginLibrary(file);
            ++loaded;
        }
        catch (const RuntimeError& e)
        {
            logError(e.what());
        }
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (loaded > 0)
        logInfo("Loaded ", loaded, " plugin(s) in ", formatSeconds(seconds), "s");
    return loaded;
}
} // namespace falcor
