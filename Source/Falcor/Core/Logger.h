#pragma once
#include "Core/Error.h"
#include <filesystem>
#include <functional>
#include <string>

namespace falcor
{
/// Falcor's log levels and line format: `(Info) message`.
class FALCOR_API Logger
{
public:
    enum class Level
    {
        Disabled = 0,
        Fatal = 1,
        Error = 2,
        Warning = 3,
        Info = 4,
        Debug = 5,
    };
    enum class OutputFlags
    {
        None = 0,
        Console = 1,
        File = 2,
        DebugWindow = 4,
    };

    static void setVerbosity(Level level);
    static Level getVerbosity();
    static void setOutputs(OutputFlags outputs);
    static OutputFlags getOutputs();
    static void setLogFilePath(const std::filesystem::path& path);
    static std::filesystem::path getLogFilePath();

    static void log(Level level, const std::string& msg);
    /// Logs the message only the first time this exact (level, message) pair is seen.
    static void logOnce(Level level, const std::string& msg);
};

template<typename... Args>
void logDebug(Args&&... args) { Logger::log(Logger::Level::Debug, concat(std::forward<Args>(args)...)); }
template<typename... Args>
void logInfo(Args&&... args) { Logger::log(Logger::Level::Info, concat(std::forward<Args>(args)...)); }
template<typename... Args>
void logWarning(Args&&... args) { Logger::log(Logger::Level::Warning, concat(std::forward<Args>(args)...)); }
template<typename... Args>
void logError(Args&&... args) { Logger::log(Logger::Level::Error, concat(std::forward<Args>(args)...)); }
template<typename... Args>
void logWarningOnce(Args&&... args) { Logger::logOnce(Logger::Level::Warning, concat(std::forward<Args>(args)...)); }
} // namespace falcor
