#include "Core/AssetResolver.h"
#include "Core/Error.h"
#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <sstream>

namespace falcor
{
namespace
{
/// Each thread's own search folders, innermost last, with the resolver they were pushed on.
thread_local std::vector<std::pair<const AssetResolver*, std::filesystem::path>> tThreadSearchPaths;

std::mutex gReadObserverMutex;
std::function<void(const std::filesystem::path&)> gReadObserver;
} // namespace

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
        for (const auto& dir : c == Category::Any ? anySearchPaths() : mSearchPaths[size_t(c)])
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
            for (const auto& dir : c == Category::Any ? anySearchPaths() : mSearchPaths[size_t(c)])
                s += ", " + (dir / path).string();
            if (c == Category::Any)
                break;
        }
    return s;
}

void AssetResolver::pushThreadSearchPath(const std::filesystem::path& folder)
{
    tThreadSearchPaths.emplace_back(this, std::filesystem::absolute(folder));
}

void AssetResolver::popThreadSearchPath()
{
    auto last = std::find_if(tThreadSearchPaths.rbegin(), tThreadSearchPaths.rend(), [this](const auto& e) { return e.first == this; });
    FALCOR_CHECK(last != tThreadSearchPaths.rend(), "AssetResolver::popThreadSearchPath: this thread pushed no search path.");
    tThreadSearchPaths.erase(std::next(last).base());
}

std::vector<std::filesystem::path> AssetResolver::anySearchPaths() const
{
    std::vector<std::filesystem::path> paths;
    for (auto it = tThreadSearchPaths.rbegin(); it != tThreadSearchPaths.rend(); ++it)
        if (it->first == this)
            paths.push_back(it->second);
    const auto& shared = mSearchPaths[size_t(Category::Any)];
    paths.insert(paths.end(), shared.begin(), shared.end());
    return paths;
}

void AssetResolver::reportRead(const std::filesystem::path& path)
{
    std::function<void(const std::filesystem::path&)> observer;
    {
        std::lock_guard lock(gReadObserverMutex);
        observer = gReadObserver;
    }
    if (observer)
        observer(path);
}

void AssetResolver::setReadObserver(std::function<void(const std::filesystem::path&)> observer)
{
    std::lock_guard lock(gReadObserverMutex);
    gReadObserver = std::move(observer);
}
} // namespace falcor
