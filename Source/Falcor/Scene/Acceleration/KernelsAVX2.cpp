// The traversal kernels built for AVX2 (8-wide box tests in one instruction). Everything defined
// between push_options and pop_options is AVX2 code in namespace falcor::accel::avx2; the
// dispatcher in RayTracing.cpp calls it only on CPUs that report AVX2.
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
TraceSceneFn avx2TraceScene() { return &avx2::traceScene; }
} // namespace falcor::accel
