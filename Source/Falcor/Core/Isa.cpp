#include "Core/Isa.h"
#include "Core/Error.h"
#include <array>
#include <atomic>
#include <cstdlib>

namespace falcor
{
namespace
{
constexpr std::array<std::string_view, 3> kIsaNames = {"sse2", "avx2", "avx512"};

// The limit as a number: an Isa value, kNoLimit, or kUnread before FALCOR_ISA was read.
constexpr uint32_t kNoLimit = 0xfffffffeu;
constexpr uint32_t kUnread = 0xffffffffu;
std::atomic<uint32_t> gLimit{kUnread};

Isa detectHostIsa()
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return Isa::AVX512;
    if (__builtin_cpu_supports("avx2"))
        return Isa::AVX2;
#endif
    return Isa::SSE2;
}

uint32_t limitFromEnvironment()
{
    const char* env = std::getenv("FALCOR_ISA");
    if (!env || !*env)
        return kNoLimit;
    std::optional<Isa> isa = parseIsa(env);
    FALCOR_CHECK(isa, "Environment variable FALCOR_ISA='", env, "' is not an instruction set; accepted values: ",
                 isaNameList(), " (or unset for the best the CPU supports).");
    return uint32_t(*isa);
}
} // namespace

Isa hostIsa()
{
    static const Isa host = detectHostIsa();
    return host;
}

Isa activeIsa()
{
    uint32_t limit = gLimit.load(std::memory_order_relaxed);
    if (limit == kUnread)
    {
        // Concurrent first calls read the same variable, so whichever store wins is the same value.
        limit = limitFromEnvironment();
        gLimit.store(limit, std::memory_order_relaxed);
    }
    const Isa host = hostIsa();
    return limit == kNoLimit || uint32_t(host) <= limit ? host : Isa(limit);
}

void setIsaLimit(std::optional<Isa> limit)
{
    gLimit.store(limit ? uint32_t(*limit) : kNoLimit, std::memory_order_relaxed);
}

std::string_view isaName(Isa isa)
{
    const auto index = size_t(isa);
    FALCOR_CHECK(index < kIsaNames.size(), "isaName: invalid Isa value ", index, ".");
    return kIsaNames[index];
}

std::optional<Isa> parseIsa(std::string_view name)
{
    for (size_t i = 0; i < kIsaNames.size(); ++i)
        if (kIsaNames[i] == name)
            return Isa(i);
    return std::nullopt;
}

std::string_view isaNameList() { return "sse2, avx2, avx512"; }
} // namespace falcor
