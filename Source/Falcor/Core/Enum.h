#pragma once
#include "Core/Error.h"
#include <string>
#include <utility>
#include <vector>

namespace falcor
{
/// Declares the string names of an enum's members, next to the enum:
///     FALCOR_ENUM_INFO(ToneMapOp, {{ToneMapOp::Linear, "Linear"}, ...});
/// Pass options are enums named by strings in Python, exactly as Falcor names them.
#define FALCOR_ENUM_INFO(Type, ...)                                                     \
    inline const std::vector<std::pair<Type, std::string>>& enumItems(Type)             \
    {                                                                                   \
        static const std::vector<std::pair<Type, std::string>> items = __VA_ARGS__;     \
        return items;                                                                   \
    }                                                                                   \
    inline const char* enumTypeName(Type) { return #Type; }

template<typename T>
concept HasEnumInfo = requires(T t) { enumItems(t); };

template<HasEnumInfo T>
const std::string& enumToString(T value)
{
    for (const auto& [v, name] : enumItems(T{}))
        if (v == value)
            return name;
    throwError("Invalid ", enumTypeName(T{}), " value ", int(value), ".");
}

/// Parses an exact, case-sensitive member name; throws `Invalid enum name '...'` otherwise.
template<HasEnumInfo T>
T stringToEnum(const std::string& name)
{
    for (const auto& [v, n] : enumItems(T{}))
        if (n == name)
            return v;
    std::string valid;
    for (const auto& [v, n] : enumItems(T{}))
        valid += (valid.empty() ? "'" : ", '") + n + "'";
    throwError("Invalid enum name '", name, "' for ", enumTypeName(T{}), " (valid names: ", valid, ").");
}
} // namespace falcor
