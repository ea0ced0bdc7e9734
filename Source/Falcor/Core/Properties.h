#pragma once
#include "Core/Enum.h"
#include "Utils/Math/Vector.h"
#include <cstdint>
#include <filesystem>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace falcor
{
/// A JSON-like value: what a Python dict entry of pass options becomes (see falcor-python-api §2).
class FALCOR_API PropertyValue
{
public:
    using Array = std::vector<PropertyValue>;
    using Object = std::vector<std::pair<std::string, PropertyValue>>; ///< Keeps insertion order.
    enum class Type { Null, Bool, Int, UInt, Float, String, Array, Object };

    PropertyValue() = default;
    PropertyValue(std::nullptr_t) {}
    PropertyValue(bool v) : mValue(v) {}
    PropertyValue(int32_t v) : mValue(int64_t(v)) {}
    PropertyValue(int64_t v) : mValue(v) {}
    PropertyValue(uint32_t v) : mValue(int64_t(v)) {}
    PropertyValue(uint64_t v);
    PropertyValue(float v) : mValue(double(v)) {}
    PropertyValue(double v) : mValue(v) {}
    PropertyValue(const char* v) : mValue(std::string(v)) {}
    PropertyValue(std::string v) : mValue(std::move(v)) {}
    PropertyValue(const std::filesystem::path& v) : mValue(v.string()) {}
    PropertyValue(Array v) : mValue(std::make_shared<Array>(std::move(v))) {}
    PropertyValue(Object v) : mValue(std::make_shared<Object>(std::move(v))) {}
    template<typename T, int N>
    PropertyValue(const vector<T, N>& v)
    {
        Array a;
        for (int i = 0; i < N; ++i)
            a.emplace_back(v[i]);
        *this = PropertyValue(std::move(a));
    }
    template<HasEnumInfo E>
    PropertyValue(E e) : mValue(enumToString(e))
    {}

    Type type() const { return Type(mValue.index()); }
    static const char* typeName(Type type);

    bool isNull() const { return type() == Type::Null; }
    bool isNumber() const { return type() == Type::Int || type() == Type::UInt || type() == Type::Float; }

    bool getBool() const { return std::get<bool>(mValue); }
    int64_t getInt() const { return std::get<int64_t>(mValue); }
    uint64_t getUInt() const { return std::get<uint64_t>(mValue); }
    double getFloat() const { return std::get<double>(mValue); }
    const std::string& getString() const { return std::get<std::string>(mValue); }
    const Array& getArray() const { return *std::get<std::shared_ptr<Array>>(mValue); }
    const Object& getObject() const { return *std::get<std::shared_ptr<Object>>(mValue); }
    /// Any number as double.
    double toDouble() const;

    /// Converts to a C++ option type with Falcor's rules; errors name `key`.
    template<typename T>
    T as(const std::string& key) const;

    /// Compact JSON-ish text (used by RenderGraph.print and error messages).
    std::string toString() const;

    friend bool operator==(const PropertyValue& a, const PropertyValue& b);

private:
    void expect(Type t, const std::string& key, const char* what) const;
    /// Throws unless `value` (finite) lies in the range of the integer type T.
    template<typename T>
    static void checkRange(const std::string& key, double value, const std::string& text)
    {
        constexpr double lo = double(std::numeric_limits<T>::min()), hi = double(std::numeric_limits<T>::max());
        FALCOR_CHECK(std::isfinite(value) && value >= lo && value <= hi, "Property '", key, "' = ", text, " is out of range [",
                     int64_t(std::numeric_limits<T>::min()), ", ", uint64_t(std::numeric_limits<T>::max()), "].");
    }
    std::variant<std::monostate, bool, int64_t, uint64_t, double, std::string, std::shared_ptr<Array>,
                 std::shared_ptr<Object>>
        mValue;
};

/// Ordered key/value options of a render pass (Falcor's `Properties`).
class FALCOR_API Properties
{
public:
    Properties() = default;
    Properties(PropertyValue::Object object) : mEntries(std::move(object)) {}

    bool has(const std::string& key) const { return find(key) != nullptr; }
    bool empty() const { return mEntries.empty(); }
    size_t size() const { return mEntries.size(); }

    /// Sets (or replaces, keeping its position) a value.
    template<typename T>
    void set(const std::string& key, const T& value) { setValue(key, PropertyValue(value)); }
    void setValue(const std::string& key, PropertyValue value);

    template<typename T>
    T get(const std::string& key) const
    {
        const PropertyValue* v = find(key);
        FALCOR_CHECK(v, "Property '", key, "' does not exist.");
        return v->as<T>(key);
    }
    template<typename T>
    T get(const std::string& key, const T& defaultValue) const
    {
        const PropertyValue* v = find(key);
        return v ? v->as<T>(key) : defaultValue;
    }

    const PropertyValue* find(const std::string& key) const;
    const PropertyValue::Object& entries() const { return mEntries; }
    auto begin() const { return mEntries.begin(); }
    auto end() const { return mEntries.end(); }

    std::string toString() const { return PropertyValue(mEntries).toString(); }
    friend bool operator==(const Properties& a, const Properties& b) { return PropertyValue(a.mEntries) == PropertyValue(b.mEntries); }

private:
    PropertyValue::Object mEntries;
};

namespace detail
{
template<typename T>
struct IsVector : std::false_type {};
template<typename T, int N>
struct IsVector<vector<T, N>> : std::true_type {};
} // namespace detail

template<typename T>
T PropertyValue::as(const std::string& key) const
{
    if constexpr (std::is_same_v<T, PropertyValue>)
        return *this;
    else if constexpr (std::is_same_v<T, bool>)
    {
        expect(Type::Bool, key, "a boolean");
        return getBool();
    }
    else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
    {
        FALCOR_CHECK(type() == Type::Int || type() == Type::UInt, "Property '", key, "' is not an integer.");
        if (type() == Type::UInt)
            checkRange<T>(key, double(getUInt()), toString());
        else
            checkRange<T>(key, double(getInt()), toString());
        return T(type() == Type::Int ? getInt() : int64_t(getUInt()));
    }
    else if constexpr (std::is_integral_v<T>)
    {
        // Falcor applies no type check for unsigned options, just a numeric conversion (which
        // must not wrap: a negative or huge value would become some unrelated size).
        FALCOR_CHECK(isNumber(), "Property '", key, "' is not a number.");
        if (type() == Type::Int && getInt() < 0)
            throwError("Property '", key, "' must not be negative.");
        if (type() == Type::UInt)
        {
            FALCOR_CHECK(getUInt() <= std::numeric_limits<T>::max(), "Property '", key, "' = ", toString(), " is out of range [0, ",
                         uint64_t(std::numeric_limits<T>::max()), "].");
            return T(getUInt());
        }
        checkRange<T>(key, toDouble(), toString());
        return T(uint64_t(toDouble()));
    }
    else if constexpr (std::is_floating_point_v<T>)
    {
        FALCOR_CHECK(isNumber(), "Property '", key, "' is not a number.");
        FALCOR_CHECK(std::isfinite(toDouble()), "Property '", key, "' must be a finite number, not ", toString(), ".");
        return T(toDouble());
    }
    else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::filesystem::path>)
    {
        expect(Type::String, key, "a string");
        return T(getString());
    }
    else if constexpr (HasEnumInfo<T>)
    {
        expect(Type::String, key, "a string");
        try
        {
            return stringToEnum<T>(getString());
        }
        catch (const RuntimeError& e)
        {
            throwError("Property '", key, "': ", e.what());
        }
    }
    else if constexpr (detail::IsVector<T>::value)
    {
        constexpr int N = sizeof(T::data) / sizeof(T::data[0]);
        using E = std::remove_cvref_t<decltype(T::data[0])>;
        FALCOR_CHECK(type() == Type::Array && getArray().size() == N, "Property '", key, "' is not an array of ", N, " numbers.");
        T r;
        for (int i = 0; i < N; ++i)
            r[i] = getArray()[i].template as<E>(key);
        return r;
    }
    else
        static_assert(sizeof(T) == 0, "Unsupported property type");
}
} // namespace falcor
