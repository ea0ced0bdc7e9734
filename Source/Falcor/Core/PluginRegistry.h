#pragma once
#include "Core/Properties.h"
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace falcor
{
class RenderPass;

/// Registry of render pass classes: a type name, a description and a factory each.
///
/// Plugin libraries are shared libraries exporting
///     extern "C" FALCOR_PLUGIN_EXPORT void registerPlugin(falcor::PluginRegistry& registry);
/// which calls `registry.registerRenderPass<MyPass>()` for each class. Libraries are looked up in
/// the package's `plugins` folder and in the folders of FALCOR_PLUGIN_PATH (':'-separated).
/// Python classes register through the same `registerClass` with a factory of their own.
class FALCOR_API PluginRegistry
{
public:
    using Factory = std::function<std::shared_ptr<RenderPass>(const Properties&)>;
    struct ClassInfo
    {
        std::string type;
        std::string desc;
        Factory factory;
        std::string library; ///< Plugin library name; empty for classes registered from Python.
    };

    static PluginRegistry& get();

    void registerClass(const std::string& type, const std::string& desc, Factory factory);
    template<typename T>
    void registerRenderPass()
    {
        registerClass(T::kPluginType, T::kPluginDesc, [](const Properties& props) { return std::make_shared<T>(props); });
    }
    bool unregisterClass(const std::string& type);

    bool hasClass(const std::string& type) const { return mClasses.count(type) != 0; }
    const ClassInfo* getClassInfo(const std::string& type) const;
    std::vector<ClassInfo> getClasses() const;

    /// Creates a pass. If the type is unknown, first tries to load a plugin library of that name.
    /// Errors in the options are reported with the type name.
    std::shared_ptr<RenderPass> createRenderPass(const std::string& type, const Properties& props);

    /// Folders searched for plugin libraries, in order.
    std::vector<std::filesystem::path> getSearchPaths() const;
    /// Loads `<name>.so` from the search paths (no-op if loaded). Throws if not found.
    void loadPlugin(const std::string& name);
    /// Loads a plugin library from a path.
    void loadPluginLibrary(const std::filesystem::path& path);
    /// Loads every plugin library in the search paths; returns how many were newly loaded and
    /// logs Falcor's `Loaded N plugin(s) in Ts` when that is more than zero.
    size_t loadAllPlugins();
    bool isLoaded(const std::string& name) const;

private:
    PluginRegistry() = default;
    std::map<std::string, ClassInfo> mClasses;
    std::map<std::string, void*> mLibraries; ///< name -> dlopen handle
    std::string mLoadingLibrary;
};
} // namespace falcor

#define FALCOR_PLUGIN_EXPORT __attribute__((visibility("default")))
