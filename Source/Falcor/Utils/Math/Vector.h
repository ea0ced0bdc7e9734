#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

// Vector arithmetic sits in every inner loop of the renderers: GCC's size heuristics otherwise
// leave these one-line templates out of line (measured: ~10% of path-tracing time in calls).
#define FALCOR_VECTOR_INLINE [[gnu::always_inline]] inline

namespace falcor
{
/// Small fixed-size vector with HLSL-style component-wise arithmetic (float3, uint2, ...).
template<typename T, int N>
struct vector
{
    static_assert(N >= 1 && N <= 4);
    T data[N]{};

    constexpr vector() = default;
    constexpr explicit vector(T s)
    {
        for (int i = 0; i < N; ++i)
            data[i] = s;
    }
    template<typename... Args>
        requires(sizeof...(Args) == N && N > 1)
    constexpr vector(Args... args) : data{T(args)...}
    {}
    template<typename U>
    constexpr explicit vector(const vector<U, N>& o)
    {
        for (int i = 0; i < N; ++i)
            data[i] = T(o.data[i]);
    }

    constexpr T& operator[](int i) { return data[i]; }
    constexpr const T& operator[](int i) const { return data[i]; }

    constexpr T& x() { return data[0]; }
    constexpr T x() const { return data[0]; }
    constexpr T& y() requires(N >= 2) { return data[1]; }
    constexpr T y() const requires(N >= 2) { return data[1]; }
    constexpr T& z() requires(N >= 3) { return data[2]; }
    constexpr T z() const requires(N >= 3) { return data[2]; }
    constexpr T& w() requires(N >= 4) { return data[3]; }
    constexpr T w() const requires(N >= 4) { return data[3]; }

    constexpr vector<T, 3> xyz() const requires(N >= 3) { return {data[0], data[1], data[2]}; }

    friend constexpr bool operator==(const vector& a, const vector& b)
    {
        for (int i = 0; i < N; ++i)
            if (a.data[i] != b.data[i])
                return false;
        return true;
    }
};

#define FALCOR_VECTOR_BINARY_OP(op)                                                   \
    template<typename T, int N>                                                       \
    FALCOR_VECTOR_INLINE constexpr vector<T, N> operator op(const vector<T, N>& a, const vector<T, N>& b)  \
    {                                                                                 \
        vector<T, N> r;                                                               \
        for (int i = 0; i < N; ++i)                                                   \
            r.data[i] = a.data[i] op b.data[i];                                       \
        return r;                                                                     \
    }                                                                                 \
    template<typename T, int N>                                                       \
    FALCOR_VECTOR_INLINE constexpr vector<T, N> operator op(const vector<T, N>& a, std::type_identity_t<T> s) \
    {                                                                                 \
        return a op vector<T, N>(s);                                                  \
    }                                                                                 \
    template<typename T, int N>                                                       \
    FALCOR_VECTOR_INLINE constexpr vector<T, N> operator op(std::type_identity_t<T> s, const vector<T, N>& a) \
    {                                                                                 \
        return vector<T, N>(s) op a;                                                  \
    }                                                                                 \
    template<typename T, int N>                                                       \
    FALCOR_VECTOR_INLINE constexpr vector<T, N>& operator op##=(vector<T, N>& a, const vector<T, N>& b)    \
    {                                                                                 \
        return a = a op b;                                                            \
    }                                                                                 \
    template<typename T, int N>                                                       \
    FALCOR_VECTOR_INLINE constexpr vector<T, N>& operator op##=(vector<T, N>& a, std::type_identity_t<T> s) \
    {                                                                                 \
        return a = a op vector<T, N>(s);                                              \
    }
FALCOR_VECTOR_BINARY_OP(+)
FALCOR_VECTOR_BINARY_OP(-)
FALCOR_VECTOR_BINARY_OP(*)
FALCOR_VECTOR_BINARY_OP(/)
#undef FALCOR_VECTOR_BINARY_OP

template<typename T, int N>
FALCOR_VECTOR_INLINE constexpr vector<T, N> operator-(const vector<T, N>& a)
{
    return vector<T, N>(T(0)) - a;
}

/// Applies `f` to every component.
template<typename T, int N, typename F>
FALCOR_VECTOR_INLINE constexpr auto map(const vector<T, N>& a, F&& f)
{
    vector<std::invoke_result_t<F, T>, N> r;
    for (int i = 0; i < N; ++i)
        r.data[i] = f(a.data[i]);
    return r;
}

template<typename T, int N>
FALCOR_VECTOR_INLINE constexpr T dot(const vector<T, N>& a, const vector<T, N>& b)
{
    T s = 0;
    for (int i = 0; i < N; ++i)
        s += a.data[i] * b.data[i];
    return s;
}

template<typename T, int N>
FALCOR_VECTOR_INLINE constexpr vector<T, N> min(const vector<T, N>& a, const vector<T, N>& b)
{
    using std::min; // Lanes (Utils/Simd/Lane.h) bring their own, found by argument-dependent lookup.
    vector<T, N> r;
    for (int i = 0; i < N; ++i)
        r.data[i] = min(a.data[i], b.data[i]);
    return r;
}

template<typename T, int N>
FALCOR_VECTOR_INLINE constexpr vector<T, N> max(const vector<T, N>& a, const vector<T, N>& b)
{
    using std::max;
    vector<T, N> r;
    for (int i = 0; i < N; ++i)
        r.data[i] = max(a.data[i], b.data[i]);
    return r;
}

template<typename T, int N>
FALCOR_VECTOR_INLINE constexpr vector<T, N> clamp(const vector<T, N>& a, T lo, T hi)
{
    using std::clamp;
    return map(a, [=](T v) { return clamp(v, lo, hi); });
}

template<typename T, int N>
FALCOR_VECTOR_INLINE constexpr vector<T, N> lerp(const vector<T, N>& a, const vector<T, N>& b, T t)
{
    return a + (b - a) * t;
}

template<typename T, int N>
FALCOR_VECTOR_INLINE vector<T, N> pow(const vector<T, N>& a, const vector<T, N>& b)
{
    vector<T, N> r;
    for (int i = 0; i < N; ++i)
        r.data[i] = std::pow(a.data[i], b.data[i]);
    return r;
}

template<typename T, int N>
FALCOR_VECTOR_INLINE vector<T, N> abs(const vector<T, N>& a)
{
    using std::abs;
    return map(a, [](T v) { return abs(v); });
}

template<typename T, int N>
FALCOR_VECTOR_INLINE T length(const vector<T, N>& a)
{
    using std::sqrt;
    return sqrt(dot(a, a));
}

template<typename T, int N>
FALCOR_VECTOR_INLINE vector<T, N> normalize(const vector<T, N>& a)
{
    return a / length(a);
}

template<typename T>
FALCOR_VECTOR_INLINE constexpr vector<T, 3> cross(const vector<T, 3>& a, const vector<T, 3>& b)
{
    return {a.y() * b.z() - a.z() * b.y(), a.z() * b.x() - a.x() * b.z(), a.x() * b.y() - a.y() * b.x()};
}

inline float saturate(float v) { return std::clamp(v, 0.f, 1.f); }
template<int N>
vector<float, N> saturate(const vector<float, N>& a) { return clamp(a, 0.f, 1.f); }

using float2 = vector<float, 2>;
using float3 = vector<float, 3>;
using float4 = vector<float, 4>;
using int2 = vector<int32_t, 2>;
using int3 = vector<int32_t, 3>;
using int4 = vector<int32_t, 4>;
using uint2 = vector<uint32_t, 2>;
using uint3 = vector<uint32_t, 3>;
using uint4 = vector<uint32_t, 4>;
using bool2 = vector<bool, 2>;
using bool3 = vector<bool, 3>;
using bool4 = vector<bool, 4>;
} // namespace falcor
