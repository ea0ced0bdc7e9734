#pragma once
#include "Core/Macros.h"
#include <sstream>
#include <stdexcept>
#include <string>

namespace falcor
{
/// Concatenates the streamable arguments into one string (our small stand-in for std::format,
/// which GCC 12 lacks).
template<typename... Args>
std::string concat(Args&&... args)
{
    std::ostringstream ss;
    (ss << ... << std::forward<Args>(args));
    return ss.str();
}

/// Every error the engine raises; surfaces in Python as `falcor.RuntimeError`.
class FALCOR_API RuntimeError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

/// Failure to import a scene or asset file; surfaces in Python as `falcor.ImporterError`.
class FALCOR_API ImporterError : public RuntimeError
{
public:
    using RuntimeError::RuntimeError;
};

/// A refused or failed allocation (a texture over the size limit or the memory budget, or the
/// system out of memory); surfaces in Python as `falcor.OutOfMemoryError`, which is both a
/// `falcor.RuntimeError` and a `MemoryError`.
class FALCOR_API OutOfMemoryError : public RuntimeError
{
public:
    using RuntimeError::RuntimeError;
};

template<typename... Args>
[[noreturn]] void throwError(Args&&... args)
{
    throw RuntimeError(concat(std::forward<Args>(args)...));
}

/// Throws a RuntimeError built from the message parts unless `cond` holds.
#define FALCOR_CHECK(cond, ...)                      \
    do                                               \
    {                                                \
        if (!(cond))                                 \
            ::falcor::throwError(__VA_ARGS__);       \
    } while (0)
} // namespace falcor
