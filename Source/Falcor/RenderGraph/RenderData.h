#pragma once
#include "Utils/Image/Texture.h"
#include <any>
#include <map>
#include <string>

namespace falcor
{
/// Values passes share within a graph across frames (Falcor's InternalDictionary), e.g. the
/// G-buffer's sample pattern for downstream passes.
class InternalDictionary
{
public:
    template<typename T>
    void set(const std::string& key, T value) { mValues[key] = std::move(value); }
    template<typename T>
    T get(const std::string& key, T defaultValue = T{}) const
    {
        auto it = mValues.find(key);
        return it == mValues.end() ? defaultValue : std::any_cast<T>(it->second);
    }
    bool has(const std::string& key) const { return mValues.count(key) != 0; }
    const std::any& getAny(const std::string& key) const { return mValues.at(key); }

private:
    std::map<std::string, std::any> mValues;
};

/// The resources bound to one pass for one execution.
class FALCOR_API RenderData
{
public:
    RenderData(std::map<std::string, Texture*> resources, InternalDictionary& dictionary, uint2 defaultDims, ResourceFormat defaultFormat)
        : mResources(std::move(resources)), mDictionary(dictionary), mDefaultDims(defaultDims), mDefaultFormat(defaultFormat)
    {}

    /// The texture bound to a field, or nullptr if an optional field is not connected.
    Texture* getTexture(const std::string& name) const
    {
        auto it = mResources.find(name);
        return it == mResources.end() ? nullptr : it->second;
    }
    Texture* operator[](const std::string& name) const { return getTexture(name); }

    InternalDictionary& getDictionary() const { return mDictionary; }
    uint2 getDefaultTextureDims() const { return mDefaultDims; }
    ResourceFormat getDefaultTextureFormat() const { return mDefaultFormat; }

private:
    std::map<std::string, Texture*> mResources;
    InternalDictionary& mDictionary;
    uint2 mDefaultDims;
    ResourceFormat mDefaultFormat;
};
} // namespace falcor
