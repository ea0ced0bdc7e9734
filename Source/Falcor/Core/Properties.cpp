#include "Core/Properties.h"
#include <cmath>
#include <iomanip>
#include <limits>

namespace falcor
{
PropertyValue::PropertyValue(uint64_t v)
{
    if (v <= uint64_t(std::numeric_limits<int64_t>::max()))
        mValue = int64_t(v);
    else
        mValue = v;
}

const char* PropertyValue::typeName(Type type)
{
    static const char* names[] = {"null", "boolean", "integer", "unsigned integer", "float", "string", "array", "object"};
    return names[int(type)];
}

double PropertyValue::toDouble() const
{
    switch (type())
    {
    case Type::Int: return double(getInt());
    case Type::UInt: return double(getUInt());
    case Type::Float: return getFloat();
    default: throwError("Value is not a number.");
    }
}

void PropertyValue::expect(Type t, const std::string& key, const char* what) const
{
    FALCOR_CHECK(type() == t, "Property '", key, "' is not ", what, " (got ", typeName(type()), ").");
}

namespace
{
void quote(std::ostringstream& ss, const std::string& s)
{
    ss << '\'';
    for (char c : s)
    {
        if (c == '\'' || c == '\\')
            ss << '\\';
        ss << c;
    }
    ss << '\'';
}

void write(std::ostringstream& ss, const PropertyValue& v)
{
    using T = PropertyValue::Type;
    switch (v.type())
    {
    case T::Null: ss << "None"; break;
    case T::Bool: ss << (v.getBool() ? "True" : "False"); break;
    case T::Int: ss << v.getInt(); break;
    case T::UInt: ss << v.getUInt(); break;
    case T::Float:
    {
        double d = v.getFloat();
        if (std::isfinite(d) && d == std::floor(d) && std::abs(d) < 1e15)
            ss << std::fixed << std::setprecision(1) << d << std::defaultfloat;
        else
            ss << std::setprecision(17) << d << std::setprecision(6);
        break;
    }
    case T::String: quote(ss, v.getString()); break;
    case T::Array:
    {
        ss << '[';
        bool first = true;
        for (const auto& e : v.getArray())
        {
            ss << (first ? "" : ", ");
            write(ss, e);
            first = false;
        }
        ss << ']';
        break;
    }
    case T::Object:
    {
        ss << '{';
        bool first = true;
        for (const auto& [k, e] : v.getObject())
        {
            ss << (first ? "" : ", ");
            quote(ss, k);
            ss << ": ";
            write(ss, e);
            first = false;
        }
        ss << '}';
        break;
    }
    }
}
} // namespace

std::string PropertyValue::toString() const
{
    std::ostringstream ss;
    write(ss, *this);
    return ss.str();
}

bool operator==(const PropertyValue& a, const PropertyValue& b)
{
    using T = PropertyValue::Type;
    if (a.type() != b.type())
        return false;
    switch (a.type())
    {
    case T::Array: return a.getArray() == b.getArray();
    case T::Object: return a.getObject() == b.getObject();
    default: return a.mValue == b.mValue;
    }
}

void Properties::setValue(const std::string& key, PropertyValue value)
{
    for (auto& [k, v] : mEntries)
    {
        if (k == key)
        {
            v = std::move(value);
            return;
        }
    }
    mEntries.emplace_back(key, std::move(value));
}

const PropertyValue* Properties::find(const std::string& key) const
{
    for (const auto& [k, v] : mEntries)
        if (k == key)
            return &v;
    return nullptr;
}
} // namespace falcor
