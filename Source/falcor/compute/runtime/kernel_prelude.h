// Included before Slang's C++ output (g++ -include): how a kernel behaves where Slang's CPU target
// leaves it to the host. Kept free of engine headers; see kernel_runtime.h for the rest.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <type_traits>

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

// Integer division, remainder and shifts as a GPU does them, never a trap or undefined behaviour.
// The host rewrites Slang's `a / b` and `a % b` to `a / falcor_kernel::divisor(b)` (and shifts to
// `a << falcor_kernel::shiftCount(b)`, kernel_source.py); these operators then apply, per element
// of vectors and matrices, D3D's rules (docs/compute.md):
// - x / 0 and x % 0 give all bits set (D3D's udiv gives 0xFFFFFFFF; a signed type reads -1),
// - INT_MIN / -1 gives INT_MIN (the quotient wraps) and INT_MIN % -1 gives 0,
// - a shift uses the low bits of its count only (x << 33 is x << 1 for 32-bit x),
// and leave floats to C++'s operators.
namespace falcor_kernel
{
template<typename T>
struct Divisor
{
    T value;
};
template<typename T>
struct ShiftCount
{
    T value;
};
template<typename T>
SLANG_FORCE_INLINE Divisor<T> divisor(const T& value)
{
    return {value};
}
template<typename T>
SLANG_FORCE_INLINE ShiftCount<T> shiftCount(const T& value)
{
    return {value};
}

/// The scalar operations, on C++'s promoted operand types.
struct Quotient
{
    template<typename A, typename B>
    SLANG_FORCE_INLINE auto operator()(A a, B b) const
    {
        if constexpr (std::is_integral_v<A> && std::is_integral_v<B>)
        {
            using R = decltype(a / b);
            using U = std::make_unsigned_t<R>;
            if (b == 0)
                return R(~U(0));
            if (std::is_signed_v<R> && R(b) == R(-1))
                return R(U(0) - U(a)); // -a, wrapping for INT_MIN
            return R(R(a) / R(b));
        }
        else
            return a / b;
    }
};

struct Remainder
{
    template<typename A, typename B>
    SLANG_FORCE_INLINE auto operator()(A a, B b) const
    {
        if constexpr (std::is_integral_v<A> && std::is_integral_v<B>)
        {
            using R = decltype(a % b);
            using U = std::make_unsigned_t<R>;
            if (b == 0)
                return R(~U(0));
            if (std::is_signed_v<R> && R(b) == R(-1))
                return R(0);
            return R(R(a) % R(b));
        }
        else
            return decltype(a + b)(std::fmod(a, b)); // Slang's float vectors use % for fmod
    }
};

struct ShiftLeft
{
    template<typename A, typename B>
    SLANG_FORCE_INLINE auto operator()(A a, B count) const
    {
        using R = decltype(a << count);
        using U = std::make_unsigned_t<R>;
        return R(U(a) << (U(count) & (sizeof(R) * 8 - 1))); // unsigned: negative values shift too
    }
};

struct ShiftRight
{
    template<typename A, typename B>
    SLANG_FORCE_INLINE auto operator()(A a, B count) const
    {
        using R = decltype(a >> count);
        using U = std::make_unsigned_t<R>;
        return R(R(a) >> (U(count) & (sizeof(R) * 8 - 1))); // arithmetic for signed types, as on GPUs
    }
};

template<typename T, typename = void>
struct IsIndexable : std::false_type
{};
template<typename T>
struct IsIndexable<T, std::void_t<decltype(std::declval<T&>()[0])>> : std::true_type
{};

template<typename T>
SLANG_FORCE_INLINE auto element(const T& value, size_t i)
{
    if constexpr (IsIndexable<const T>::value)
        return value[i];
    else
        return value; // a scalar operand applies to every element
}

/// `op` per element of vectors and matrices (Slang's Vector and Matrix index their elements and
/// rows), on two scalars otherwise; the result has the type of the left vector operand.
template<typename A, typename B, typename Op>
SLANG_FORCE_INLINE auto elementwise(const A& a, const B& b, Op op)
{
    if constexpr (IsIndexable<const A>::value || IsIndexable<const B>::value)
    {
        using V = std::conditional_t<IsIndexable<const A>::value, A, B>;
        V result;
        for (size_t i = 0; i < sizeof(V) / sizeof(result[0]); ++i)
            result[i] = elementwise(element(a, i), element(b, i), op);
        return result;
    }
    else
        return op(a, b);
}

template<typename A, typename B>
SLANG_FORCE_INLINE auto operator/(const A& a, Divisor<B> b)
{
    return elementwise(a, b.value, Quotient{});
}
template<typename A, typename B>
SLANG_FORCE_INLINE auto operator%(const A& a, Divisor<B> b)
{
    return elementwise(a, b.value, Remainder{});
}
template<typename A, typename B>
SLANG_FORCE_INLINE auto operator<<(const A& a, ShiftCount<B> b)
{
    return elementwise(a, b.value, ShiftLeft{});
}
template<typename A, typename B>
SLANG_FORCE_INLINE auto operator>>(const A& a, ShiftCount<B> b)
{
    return elementwise(a, b.value, ShiftRight{});
}
} // namespace falcor_kernel
