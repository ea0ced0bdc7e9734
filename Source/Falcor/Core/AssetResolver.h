#pragma once
#include "Core/Macros.h"
#include <filesystem>
#include <string>
#include <vector>

namespace falcor
{
/// Finds asset files: a path that exists as given (absolute or relative to the working
/// directory) wins; otherwise it is looked up in the search paths of its category, then in
/// those of `Any`. Default search paths: the folders of FALCOR_MEDIA_FOLDERS (';'-separated).
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

private:
    std::vector<std::filesystem::path> mSearchPaths[size_t(Category::Count)];
};
} // namespace falcor
