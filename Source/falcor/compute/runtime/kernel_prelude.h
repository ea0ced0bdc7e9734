// Included before Slang's C++ output (g++ -include): how a kernel behaves where Slang's CPU target
// leaves it to the host. Kept free of engine headers; see kernel_runtime.h for the rest.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

extern "C" void falcorKernelOutOfBounds();

// Slang marks its small vector and resource helpers "force inline" but defines that as plain
// `inline` for GCC and Clang; inlining them is what lets a kernel's loops compile to tight code.
#define SLANG_FORCE_INLINE inline __attribute__((always_inline))

// An access outside a resource is counted (the host reports it after the dispatch) and redirected
// to element 0, which the host guarantees is addressable: empty resources are bound to a scratch
// block and buffers carry slack past their end. A GPU would drop the write or read zero.
#define SLANG_BOUND_CHECK(index, count)          \
    if (!((index) < (count)))                    \
    {                                            \
        falcorKernelOutOfBounds();               \
        index = 0;                               \
    }
#define SLANG_BOUND_CHECK_BYTE_ADDRESS(index, elemSize, sizeInBytes)          \
    if ((index) > (sizeInBytes) || (elemSize) > (sizeInBytes) - (index))     \
    {                                                                         \
        falcorKernelOutOfBounds();                                            \
        index = 0;                                                            \
    }
#define SLANG_BOUND_CHECK_FIXED_ARRAY(index, count) SLANG_BOUND_CHECK(index, count)

/// RWByteAddressBuffer.InterlockedAddF32 (Falcor's NVAPI extension): a compare-and-swap loop,
/// since C++17 has no atomic float add. Returns the previous value.
inline float falcorAtomicAddF32(uint32_t* data, size_t sizeInBytes, size_t byteAddress, float value)
{
    if (byteAddress % 4 != 0 || byteAddress + 4 > sizeInBytes)
    {
        falcorKernelOutOfBounds();
        return 0.f;
    }
    uint32_t* word = data + byteAddress / 4;
    uint32_t expected = __atomic_load_n(word, __ATOMIC_RELAXED);
    for (;;)
    {
        float old, sum;
        std::memcpy(&old, &expected, 4);
        sum = old + value;
        uint32_t desired;
        std::memcpy(&desired, &sum, 4);
        if (__atomic_compare_exchange_n(word, &expected, desired, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return old;
    }
}
