#pragma once
#include "Core/Macros.h"
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace falcor
{
/// Finds asset files: a path that exists as given (absolute or relative to the working
/// directory) wins; otherwise it is looked up in the search paths of its category, then in
/// those of `Any`. Default search paths: the folders of FALCOR_MEDIA_FOLDERS (';'-separated).
/// A thread can also search folders of its own (a pyscene's folder while it runs): they come
/// before the `Any` search paths and only that thread sees them.
class FALCOR_API AssetResolver
{
public:
    enum class Category { Any, Scene, Texture, Count };
    enum class SearchPathPriority { First, Last };

    /// The resolver used when no scene-building context provides its own.
    static AssetResolver& getDefaultResolver();

    /// Canonical path of the asset, or an empty path if it can't be found.
    std::filesystem::path resolvePath(const std::filesystem::path& path, Category category = Category::Any) const;
    void addSearchPath(const std::filesystem::path& path, SearchPathPriority priority = SearchPathPriority::Last,
                       Category category = Category::Any);
    void setSearchPaths(std::vector<std::filesystem::path> paths, Category category = Category::Any)
    {
        mSearchPaths[size_t(category)] = std::move(paths);
    }
    const std::vector<std::filesystem::path>& getSearchPaths(Category category = Category::Any) const
    {
        return mSearchPaths[size_t(category)];
    }
    /// Searched locations as text, for error messages.
    std::string describeSearch(const std::filesystem::path& path, Category category = Category::Any) const;

    /// Searches `folder` before the `Any` search paths, on the calling thread only, until the
    /// matching pop (nested pushes: the innermost first). Imports running on other threads
    /// neither see the folder nor can undo it.
    void pushThreadSearchPath(const std::filesystem::path& folder);
    void popThreadSearchPath();

    /// C++ code that reads an asset file (an image, a measured BRDF) reports it here: the files a
    /// scene import reads are its inputs (the scene cache and batch fingerprints hash them). The
    /// Python bindings install the observer.
    static void reportRead(const std::filesystem::path& path);
    static void setReadObserver(std::function<void(const std::filesystem::path&)> observer);

private:
    /// The `Any` search paths as the calling thread sees them: its own folders, then the shared ones.
    std::vector<std::filesystem::path> anySearchPaths() const;
    std::vector<std::filesystem::path> mSearchPaths[size_t(Category::Count)];
};
} // namespace falcor
