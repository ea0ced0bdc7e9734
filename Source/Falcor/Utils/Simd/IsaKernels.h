#pragma once
// Lane kernels: code compiled once per instruction set.
//
// A source named `*.lanes.cpp` in libfalcor or a plugin (listed in `falcor_add_isa_variants`,
// cmake/FalcorIsa.cmake) is compiled for the baseline and, on x86-64, for AVX2 and AVX-512. It
// includes this header and puts its kernels in `namespace falcor::FALCOR_ISA_NS`, where
// `kLanes` is the lane width of that compile: 4 (baseline: SSE2, or NEON on arm64), 8 (AVX2) or
// 16 (AVX-512). Lane-generic templates are instantiated there with `FloatLanes<kLanes>`, so each
// width only exists in the object compiled for it.
//
// Callers declare a kernel for every compiled ISA with FALCOR_DECLARE_ISA_KERNEL and take the
// active one with FALCOR_PICK_ISA_KERNEL (by `activeIsa()`, Core/Isa.h). Kernel parameters are
// scalars, pointers and references: lanes never cross an ISA boundary by value.
#include "Core/Isa.h"
#include "Utils/Simd/Lane.h"

#if defined(FALCOR_ISA_avx512)
#define FALCOR_ISA_NS avx512
#define FALCOR_ISA_LANES 16
#elif defined(FALCOR_ISA_avx2)
#define FALCOR_ISA_NS avx2
#define FALCOR_ISA_LANES 8
#else
#define FALCOR_ISA_NS baseline
#define FALCOR_ISA_LANES 4
#endif

namespace falcor::FALCOR_ISA_NS
{
inline constexpr int kLanes = FALCOR_ISA_LANES;
}

#if FALCOR_HAS_WIDE_ISAS
#define FALCOR_DECLARE_ISA_KERNEL(ret, name, params)  \
    namespace falcor::baseline { ret name params; }    \
    namespace falcor::avx2 { ret name params; }        \
    namespace falcor::avx512 { ret name params; }
#define FALCOR_PICK_ISA_KERNEL(name) \
    ::falcor::pickIsaKernel(&::falcor::baseline::name, &::falcor::avx2::name, &::falcor::avx512::name)
#else
#define FALCOR_DECLARE_ISA_KERNEL(ret, name, params) \
    namespace falcor::baseline { ret name params; }
#define FALCOR_PICK_ISA_KERNEL(name) \
    ::falcor::pickIsaKernel(&::falcor::baseline::name, decltype(&::falcor::baseline::name)(nullptr), decltype(&::falcor::baseline::name)(nullptr))
#endif

namespace falcor
{
/// The kernel of the active instruction set (a missing wide build falls back to the next narrower).
template<typename Fn>
Fn pickIsaKernel(Fn baseline, Fn avx2, Fn avx512)
{
    const Isa isa = activeIsa();
    if (isa >= Isa::AVX512 && avx512)
        return avx512;
    if (isa >= Isa::AVX2 && avx2)
        return avx2;
    return baseline;
}

/// Lanes of the active instruction set's kernels.
inline int activeLaneWidth()
{
#if FALCOR_HAS_WIDE_ISAS
    const Isa isa = activeIsa();
    return isa >= Isa::AVX512 ? 16 : isa >= Isa::AVX2 ? 8 : 4;
#else
    return 4;
#endif
}
} // namespace falcor
