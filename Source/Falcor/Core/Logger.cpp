#include "Core/Logger.h"
#include <cstdio>
#include <fstream>
#include <mutex>
#include <set>

namespace falcor
{
namespace
{
struct LoggerState
{
    std::mutex mutex;
    Logger::Level verbosity = Logger::Level::Info;
    Logger::OutputFlags outputs = Logger::OutputFlags::Console;
    std::filesystem::path logFilePath;
    std::ofstream logFile;
    std::set<std::pair<Logger::Level, std::string>> seen;
};

LoggerState& state()
{
    static LoggerState s;
    return s;
}

const char* prefix(Logger::Level level)
{
    switch (level)
    {
    case Logger::Level::Fatal: return "(Fatal) ";
    case Logger::Level::Error: return "(Error) ";
    case Logger::Level::Warning: return "(Warning) ";
    case Logger::Level::Info: return "(Info) ";
    case Logger::Level::Debug: return "(Debug) ";
    default: return "";
    }
}

bool has(Logger::OutputFlags flags, Logger::OutputFlags bit) { return (int(flags) & int(bit)) != 0; }

void write(LoggerState& s, Logger::Level level, const std::string& msg)
{
    if (level == Logger::Level::Disabled || int(level) > int(s.verbosity))
        return;
    std::string line = prefix(level) + msg + "\n";
    if (has(s.outputs, Logger::OutputFlags::Console))
    {
        std::fputs(line.c_str(), stdout);
        std::fflush(stdout);
    }
    if (has(s.outputs, Logger::OutputFlags::File) && !s.logFilePath.empty())
    {
        if (!s.logFile.is_open())
            s.logFile.open(s.logFilePath, std::ios::out | std::ios::trunc);
        s.logFile << line << std::flush;
    }
}
} // namespace

void Logger::setVerbosity(Level level) { std::lock_guard l(state().mutex); state().verbosity = level; }
Logger::Level Logger::getVerbosity() { return state().verbosity; }
void Logger::setOutputs(OutputFlags outputs) { std::lock_guard l(state().mutex); state().outputs = outputs; }
Logger::OutputFlags Logger::getOutputs() { return state().outputs; }
std::filesystem::path Logger::getLogFilePath() { return state().logFilePath; }

void Logger::setLogFilePath(const std::filesystem::path& path)
{
    auto& s = state();
    std::lock_guard l(s.mutex);
    if (s.logFile.is_open())
        s.logFile.close();
    s.logFilePath = path;
}

void Logger::log(Level level, const std::string& msg)
{
    auto& s = state();
    std::lock_guard l(s.mutex);
    write(s, level, msg);
}

void Logger::logOnce(Level level, const std::string& msg)
{
    auto& s = state();
    std::lock_guard l(s.mutex);
    if (s.seen.emplace(level, msg).second)
        write(s, level, msg);
}
} // namespace falcor
