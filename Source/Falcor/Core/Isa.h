#pragma once
// The instruction set the engine's kernels run with. Kernels are compiled once per ISA (see
// Utils/Simd/IsaKernels.h and Scene/Acceleration/Kernels.h); dispatchers pick one by activeIsa(),
// which is the best the CPU supports, capped by a limit (env FALCOR_ISA, or setIsaLimit) so tests
// can run every compiled width in one process. Every width computes the same bits.
#include "Core/Macros.h"
#include <cstdint>
#include <optional>
#include <string_view>

namespace falcor
{
/// Instruction sets, ordered: a higher value is wider and implies the lower ones.
enum class Isa : uint32_t
{
    SSE2 = 0,
    AVX2 = 1,
    AVX512 = 2,
};

/// The best instruction set the CPU (and OS) supports; AVX512 needs F, BW, DQ and VL.
FALCOR_API Isa hostIsa();

/// min(hostIsa(), limit). The first call reads env FALCOR_ISA and throws RuntimeError naming the
/// variable and the accepted values when it is not one of them; later calls are an atomic load.
FALCOR_API Isa activeIsa();

/// Caps activeIsa() at `limit` (a limit above the host just means the host); nullopt removes the cap.
FALCOR_API void setIsaLimit(std::optional<Isa> limit);

/// "sse2", "avx2" or "avx512".
FALCOR_API std::string_view isaName(Isa isa);

/// The ISA named `name` (as isaName spells it), nullopt when unknown.
FALCOR_API std::optional<Isa> parseIsa(std::string_view name);

/// The accepted names, comma-separated, for error messages.
FALCOR_API std::string_view isaNameList();
} // namespace falcor
