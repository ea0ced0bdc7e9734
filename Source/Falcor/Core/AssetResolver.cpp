#include "Core/AssetResolver.h"
#include <cstdlib>
#include <sstream>

namespace falcor
{
AssetResolver& AssetResolver::getDefaultResolver()
{
    static AssetResolver resolver = []
    {
        AssetResolver r;
        if (const char* env = std::getenv("FALCOR_MEDIA_FOLDERS"))
        {
            std::stringstream ss(env);
            for (std::string item; std::getline(ss, item, ';');)
                if (!item.empty())
                    r.addSearchPath(item);
        }
        return r;
    }();
    return resolver;
}

std::filesystem::path AssetResolver::resolvePath(const std::filesystem::path& path, Category category) const
{
    std::error_code ec;
    if (path.empty())
        return {};
    if (std::filesystem::exists(path, ec))
        return std::filesystem::weakly_canonical(std::filesystem::absolute(path), ec);
    if (path.is_absolute())
        return {};
    for (Category c : {category, Category::Any})
    {
        for (const auto& dir : mSearchPaths[size_t(c)])
            if (std::filesystem::exists(dir / path, ec))
                return std::filesystem::weakly_canonical(std::filesystem::absolute(dir / path), ec);
        if (c == Category::Any)
            break;
    }
    return {};
}

void AssetResolver::addSearchPath(const std::filesystem::path& path, SearchPathPriority priority, Category category)
{
    auto& paths = mSearchPaths[size_t(category)];
    auto abs = std::filesystem::absolute(path);
    std::erase(paths, abs);
    if (priority == SearchPathPriority::First)
        paths.insert(paths.begin(), abs);
    else
        paths.push_back(abs);
}

std::string AssetResolver::describeSearch(const std::filesystem::path& path, Category category) const
{
    std::string s = std::filesystem::absolute(path).string();
    if (!path.is_absolute())
        for (Category c : {category, Category::Any})
        {
            for (const auto& dir : mSearchPaths[size_t(c)])
                s += ", " + (dir / path).string();
            if (c == Category::Any)
                break;
        }
    return s;
}
} // namespace falcor
