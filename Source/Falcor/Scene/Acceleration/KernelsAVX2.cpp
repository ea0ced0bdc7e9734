// The traversal kernels built for AVX2 (8-wide box tests in one instruction). Everything defined
// between push_options and pop_options is AVX2 code in namespace falcor::accel::avx2; the
// dispatcher in RayTracing.cpp calls it only when activeIsa() allows AVX2.
#include "Scene/Acceleration/Kernels.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
#define FALCOR_ACCEL_ISA avx2
#define FALCOR_ACCEL_AVX2 1
#include "Scene/Acceleration/Traversal.h"
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace falcor::accel
{
const TraversalKernels& avx2Kernels()
{
    static constexpr TraversalKernels kernels{&avx2::traceScene, &avx2::traceStream};
    return kernels;
}
} // namespace falcor::accel
