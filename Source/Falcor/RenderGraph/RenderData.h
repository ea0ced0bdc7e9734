#pragma once
#include "Utils/Image/Texture.h"
#include "Core/Error.h"
#include <any>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <initializer_list>
#include <string_view>
#include <typeinfo>

namespace falcor
{
/// Values passes share within a graph across frames (Falcor's InternalDictionary), e.g. the
/// G-buffer's sample pattern for downstream passes.
class InternalDictionary
{
public:
    template<typename T>
    void set(const std::string& key, T value) { mValues[key] = std::move(value); }
    /// The value under `key`, or `defaultValue` if there is none. A value of another type (a
    /// Python pass may write anything) raises naming the key and both types.
    template<typename T>
    T get(const std::string& key, T defaultValue = T{}) const
    {
        auto it = mValues.find(key);
        if (it == mValues.end())
            return defaultValue;
        if (const T* value = std::any_cast<T>(&it->second))
            return *value;
        throwError("The graph dictionary value '", key, "' is ", typeName(it->second.type()), "; ", typeName(typeid(T)), " was expected.");
    }
    bool has(const std::string& key) const { return mValues.count(key) != 0; }
    const std::any& getAny(const std::string& key) const { return mValues.at(key); }

private:
    static std::string typeName(const std::type_info& type)
    {
        if (type == typeid(uint32_t)) return "an unsigned 32-bit integer";
        if (type == typeid(int64_t)) return "a signed 64-bit integer";
        if (type == typeid(bool)) return "a bool";
        if (type == typeid(float)) return "a float";
        if (type == typeid(std::string)) return "a string";
        return concat("of C++ type '", type.name(), "'");
    }

    std::map<std::string, std::any> mValues;
};

/// The resources bound to one pass for one execution. It shares ownership of its textures and
/// of the graph's dictionary, so a copy kept past the execution (a Python pass may keep its
/// `render_data`) never reads freed memory, whatever happens to the graph meanwhile.
class FALCOR_API RenderData
{
public:
    using Resources = std::map<std::string, std::shared_ptr<Texture>>;

    RenderData(Resources resources, std::shared_ptr<InternalDictionary> dictionary, uint2 defaultDims, ResourceFormat defaultFormat)
        : mResources(std::move(resources)), mpDictionary(std::move(dictionary)), mDefaultDims(defaultDims), mDefaultFormat(defaultFormat)
    {}

    /// The texture bound to a field, or nullptr if an optional field is not connected.
    Texture* getTexture(const std::string& name) const
    {
        auto it = mResources.find(name);
        return it == mResources.end() ? nullptr : it->second.get();
    }
    Texture* operator[](const std::string& name) const { return getTexture(name); }

    InternalDictionary& getDictionary() const { return *mpDictionary; }
    uint2 getDefaultTextureDims() const { return mDefaultDims; }
    ResourceFormat getDefaultTextureFormat() const { return mDefaultFormat; }

private:
    Resources mResources;
    std::shared_ptr<InternalDictionary> mpDictionary;
    uint2 mDefaultDims;
    ResourceFormat mDefaultFormat;
};
/// Raises unless every connected field (texture not null) has size `dims`, naming the pass and
/// field: passes that index several textures by the same pixel must never read out of bounds.
inline void checkFieldDims(const std::string& passType, uint2 dims, std::initializer_list<std::pair<std::string_view, const Texture*>> fields)
{
    for (const auto& [name, texture] : fields)
        FALCOR_CHECK(!texture || texture->getDims() == dims, passType, ": field '", name, "' is ", texture->getWidth(), "x",
                     texture->getHeight(), " but the frame is ", dims.x(), "x", dims.y(), "; all its fields must be that size.");
}
} // namespace falcor
