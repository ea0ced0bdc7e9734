// The traversal kernels built for AVX-512 (F, BW, DQ, VL; no contraction, so the bits are the baseline's):
// the AVX2 kernels' code, with EVEX encodings, mask registers and 32 vector registers. Everything
// defined between push_options and pop_options is AVX-512 code in namespace falcor::accel::avx512;
// the dispatcher in RayTracing.cpp calls it only when activeIsa() allows AVX-512.
#include "Scene/Acceleration/Kernels.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,no-fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,no-fma")
// AVX-512F has fused multiply-adds of its own (no-fma does not remove them) and GCC contracts C++
// by default: without this, a * b - c * d would round once where the baseline rounds twice.
#pragma GCC optimize("fp-contract=off")
#endif
#define FALCOR_ACCEL_ISA avx512
#define FALCOR_ACCEL_AVX2 1 // 8-wide node rows (kNodeWidth), as in the AVX2 build
#include "Scene/Acceleration/Traversal.h"
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace falcor::accel
{
const TraversalKernels& avx512Kernels()
{
    static constexpr TraversalKernels kernels{&avx512::traceScene, &avx512::traceStream};
    return kernels;
}
} // namespace falcor::accel
