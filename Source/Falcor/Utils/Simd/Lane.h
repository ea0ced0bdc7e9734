#pragma once
// The lane type: W values of one scalar type, processed together in one SIMD register.
//
// Lane-generic code is written once over a float type `F`: plain `float` (one lane, the scalar
// path) or `Lanes<float, W>` (W paths at once). Everything a formula needs (arithmetic,
// comparisons into masks, `select`, `sqrt`, `min`/`max` with std::min's semantics, libm per lane
// through `mapLanes`) has both forms here, so the same template body compiles to scalar code and
// to SIMD code, and gives the same bits in every lane: + - * / and sqrt are IEEE in every lane,
// min/max/clamp choose exactly as std::min/std::max/std::clamp do (NaN and signed zeros
// included), and nothing is fused into an FMA (ISO C++ mode does not contract, and the ISA
// translation units also pass -ffp-contract=off).
//
// The lanes are GCC/Clang vector extensions, so one header serves every width; a width is only
// instantiated in the translation unit compiled for its instruction set (see Core/Isa.h and
// `falcor_add_isa_kernels` in cmake/FalcorIsa.cmake): 4 lanes for SSE2, 8 for AVX2, 16 for AVX-512.
// Lanes are passed by reference across non-inline calls: by value, their ABI would depend on the
// instruction set.
#include "Utils/Math/Vector.h"
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#define FALCOR_LANE_INLINE [[gnu::always_inline]] inline

namespace falcor
{
template<int W>
struct LaneMask;

/// The vector-extension type of W lanes of T (a separate template: GCC resolves a dependent
/// vector_size typedef inside a class template too early).
template<typename T, int W>
struct LaneVector
{
    typedef T type __attribute__((vector_size(W * sizeof(T))));
};

/// W lanes of T (float, int32_t or uint32_t).
template<typename T, int W>
struct Lanes
{
    static_assert(W >= 2 && (W & (W - 1)) == 0, "one lane is the plain scalar type");
    static_assert(sizeof(T) == 4);
    using Vec = typename LaneVector<T, W>::type;
    static constexpr int kWidth = W;
    using Scalar = T;

    Vec v;

    Lanes() = default;
    /// Broadcast (implicit, so `x * 2.f` and `T s = 0` read as they do on scalars).
    FALCOR_LANE_INLINE Lanes(T s) : v(Vec{} + s) {}
    FALCOR_LANE_INLINE explicit Lanes(Vec x) : v(x) {}

    FALCOR_LANE_INLINE T operator[](int i) const { return v[i]; }
    FALCOR_LANE_INLINE void set(int i, T x) { v[i] = x; }

    /// W consecutive values from p (any alignment).
    [[gnu::always_inline]] static Lanes load(const T* p)
    {
        Lanes r;
        std::memcpy(&r.v, p, sizeof(Vec));
        return r;
    }
    FALCOR_LANE_INLINE void store(T* p) const { std::memcpy(p, &v, sizeof(Vec)); }
};

/// The result of comparing lanes: every bit of a lane set (true) or clear (false).
template<int W>
struct LaneMask
{
    using Vec = typename LaneVector<int32_t, W>::type;
    Vec m;

    LaneMask() = default;
    FALCOR_LANE_INLINE explicit LaneMask(Vec x) : m(x) {}
    FALCOR_LANE_INLINE LaneMask(bool b) : m(Vec{} + (b ? -1 : 0)) {}
    FALCOR_LANE_INLINE bool operator[](int i) const { return m[i] != 0; }
    FALCOR_LANE_INLINE void set(int i, bool b) { m[i] = b ? -1 : 0; }
};

template<int W>
using FloatLanes = Lanes<float, W>;
template<int W>
using UintLanes = Lanes<uint32_t, W>;
template<int W>
using IntLanes = Lanes<int32_t, W>;

// ---- Traits: what lane-generic code names through its float type F ----------------------------

template<typename F>
struct LaneTraits
{
    static constexpr int kWidth = 1;
    using Mask = bool;
    using Uint = uint32_t;
    using Int = int32_t;
};
template<int W>
struct LaneTraits<Lanes<float, W>>
{
    static constexpr int kWidth = W;
    using Mask = LaneMask<W>;
    using Uint = Lanes<uint32_t, W>;
    using Int = Lanes<int32_t, W>;
};
template<typename F>
using MaskOf = typename LaneTraits<F>::Mask;
template<typename F>
using UintOf = typename LaneTraits<F>::Uint;
template<typename F>
using IntOf = typename LaneTraits<F>::Int;
template<typename F>
inline constexpr int kLaneWidth = LaneTraits<F>::kWidth;

// ---- Arithmetic and comparisons ----------------------------------------------------------------

#define FALCOR_LANES_BINARY(op)                                                                          \
    template<typename T, int W>                                                                          \
    FALCOR_LANE_INLINE Lanes<T, W> operator op(const Lanes<T, W>& a, const Lanes<T, W>& b)               \
    {                                                                                                    \
        return Lanes<T, W>(a.v op b.v);                                                                  \
    }                                                                                                    \
    template<typename T, int W>                                                                          \
    FALCOR_LANE_INLINE Lanes<T, W> operator op(const Lanes<T, W>& a, std::type_identity_t<T> s)          \
    {                                                                                                    \
        return Lanes<T, W>(a.v op Lanes<T, W>(s).v);                                                     \
    }                                                                                                    \
    template<typename T, int W>                                                                          \
    FALCOR_LANE_INLINE Lanes<T, W> operator op(std::type_identity_t<T> s, const Lanes<T, W>& a)          \
    {                                                                                                    \
        return Lanes<T, W>(Lanes<T, W>(s).v op a.v);                                                     \
    }                                                                                                    \
    template<typename T, int W>                                                                          \
    FALCOR_LANE_INLINE Lanes<T, W>& operator op##=(Lanes<T, W>& a, const Lanes<T, W>& b)                 \
    {                                                                                                    \
        a.v = a.v op b.v;                                                                                \
        return a;                                                                                        \
    }
FALCOR_LANES_BINARY(+)
FALCOR_LANES_BINARY(-)
FALCOR_LANES_BINARY(*)
FALCOR_LANES_BINARY(/)
FALCOR_LANES_BINARY(&)
FALCOR_LANES_BINARY(|)
FALCOR_LANES_BINARY(^)
#undef FALCOR_LANES_BINARY

template<typename T, int W>
FALCOR_LANE_INLINE Lanes<T, W> operator-(const Lanes<T, W>& a)
{
    return Lanes<T, W>(-a.v);
}
template<typename T, int W>
FALCOR_LANE_INLINE Lanes<T, W> operator<<(const Lanes<T, W>& a, int s)
{
    return Lanes<T, W>(a.v << s);
}
template<typename T, int W>
FALCOR_LANE_INLINE Lanes<T, W> operator>>(const Lanes<T, W>& a, int s)
{
    return Lanes<T, W>(a.v >> s);
}

#define FALCOR_LANES_COMPARE(op)                                                                         \
    template<typename T, int W>                                                                          \
    FALCOR_LANE_INLINE LaneMask<W> operator op(const Lanes<T, W>& a, const Lanes<T, W>& b)               \
    {                                                                                                    \
        return LaneMask<W>(typename LaneMask<W>::Vec(a.v op b.v));                                       \
    }                                                                                                    \
    template<typename T, int W>                                                                          \
    FALCOR_LANE_INLINE LaneMask<W> operator op(const Lanes<T, W>& a, std::type_identity_t<T> s)          \
    {                                                                                                    \
        return a op Lanes<T, W>(s);                                                                      \
    }                                                                                                    \
    template<typename T, int W>                                                                          \
    FALCOR_LANE_INLINE LaneMask<W> operator op(std::type_identity_t<T> s, const Lanes<T, W>& a)          \
    {                                                                                                    \
        return Lanes<T, W>(s) op a;                                                                      \
    }
FALCOR_LANES_COMPARE(<)
FALCOR_LANES_COMPARE(>)
FALCOR_LANES_COMPARE(<=)
FALCOR_LANES_COMPARE(>=)
FALCOR_LANES_COMPARE(==)
FALCOR_LANES_COMPARE(!=)
#undef FALCOR_LANES_COMPARE

template<int W>
FALCOR_LANE_INLINE LaneMask<W> operator&&(const LaneMask<W>& a, const LaneMask<W>& b)
{
    return LaneMask<W>(a.m & b.m);
}
template<int W>
FALCOR_LANE_INLINE LaneMask<W> operator||(const LaneMask<W>& a, const LaneMask<W>& b)
{
    return LaneMask<W>(a.m | b.m);
}
// A uniform condition (bool) with a lane condition.
template<int W>
FALCOR_LANE_INLINE LaneMask<W> operator&&(const LaneMask<W>& a, bool b)
{
    return a && LaneMask<W>(b);
}
template<int W>
FALCOR_LANE_INLINE LaneMask<W> operator&&(bool a, const LaneMask<W>& b)
{
    return LaneMask<W>(a) && b;
}
template<int W>
FALCOR_LANE_INLINE LaneMask<W> operator||(const LaneMask<W>& a, bool b)
{
    return a || LaneMask<W>(b);
}
template<int W>
FALCOR_LANE_INLINE LaneMask<W> operator||(bool a, const LaneMask<W>& b)
{
    return LaneMask<W>(a) || b;
}
template<int W>
FALCOR_LANE_INLINE LaneMask<W> operator!(const LaneMask<W>& a)
{
    return LaneMask<W>(~a.m);
}

// ---- Masks: the same names on bool --------------------------------------------------------------

/// Bit i set when lane i is true.
template<int W>
FALCOR_LANE_INLINE uint32_t laneBits(const LaneMask<W>& a)
{
    uint32_t bits = 0;
    for (int i = 0; i < W; ++i)
        bits |= uint32_t(a.m[i] < 0) << i;
    return bits;
}
FALCOR_LANE_INLINE uint32_t laneBits(bool a) { return a ? 1u : 0u; }

template<int W>
FALCOR_LANE_INLINE bool any(const LaneMask<W>& a)
{
    return laneBits(a) != 0;
}
template<int W>
FALCOR_LANE_INLINE bool all(const LaneMask<W>& a)
{
    return laneBits(a) == (W == 32 ? ~0u : (1u << W) - 1u);
}
FALCOR_LANE_INLINE bool any(bool a) { return a; }
FALCOR_LANE_INLINE bool all(bool a) { return a; }

/// a where mask, b elsewhere.
template<typename T, int W>
FALCOR_LANE_INLINE Lanes<T, W> select(const LaneMask<W>& mask, const Lanes<T, W>& a, const Lanes<T, W>& b)
{
    return Lanes<T, W>(mask.m ? a.v : b.v);
}
template<int W>
FALCOR_LANE_INLINE LaneMask<W> select(const LaneMask<W>& mask, const LaneMask<W>& a, const LaneMask<W>& b)
{
    return LaneMask<W>(mask.m ? a.m : b.m);
}
template<typename T>
    requires std::is_arithmetic_v<T>
FALCOR_LANE_INLINE T select(bool mask, T a, T b)
{
    return mask ? a : b;
}
template<typename T, int N>
FALCOR_LANE_INLINE vector<T, N> select(bool mask, const vector<T, N>& a, const vector<T, N>& b)
{
    return mask ? a : b; // One branch, not one per component.
}
template<typename T, int N, int W>
FALCOR_LANE_INLINE vector<T, N> select(const LaneMask<W>& mask, const vector<T, N>& a, const vector<T, N>& b)
{
    vector<T, N> r;
    for (int i = 0; i < N; ++i)
        r.data[i] = select(mask, a.data[i], b.data[i]);
    return r;
}

/// select(mask, a(), b()), calling only the sides some lane takes: one path computes its own
/// side alone, as a branch would.
template<typename Mask, typename A, typename B>
FALCOR_LANE_INLINE auto selectLazy(const Mask& mask, A&& a, B&& b) -> decltype(a())
{
    if (all(mask))
        return a();
    if (!any(mask))
        return b();
    return select(mask, a(), b());
}

// ---- Functions with std's semantics -------------------------------------------------------------

/// std::min(a, b): b when b < a, else a (NaN in b and equal zeros keep a).
template<typename T, int W>
FALCOR_LANE_INLINE Lanes<T, W> min(const Lanes<T, W>& a, const Lanes<T, W>& b)
{
    return select(b < a, b, a);
}
/// std::max(a, b): b when a < b, else a.
template<typename T, int W>
FALCOR_LANE_INLINE Lanes<T, W> max(const Lanes<T, W>& a, const Lanes<T, W>& b)
{
    return select(a < b, b, a);
}
/// std::clamp(v, lo, hi).
template<typename T, int W>
FALCOR_LANE_INLINE Lanes<T, W> clamp(const Lanes<T, W>& v, const Lanes<T, W>& lo, const Lanes<T, W>& hi)
{
    return select(v < lo, lo, select(hi < v, hi, v));
}
template<int W>
FALCOR_LANE_INLINE Lanes<float, W> abs(const Lanes<float, W>& a)
{
    using U = typename Lanes<uint32_t, W>::Vec;
    return Lanes<float, W>((typename Lanes<float, W>::Vec)((U)a.v & (U{} + 0x7fffffffu)));
}
template<int W>
FALCOR_LANE_INLINE Lanes<float, W> sqrt(const Lanes<float, W>& a)
{
#if defined(__clang__)
    return Lanes<float, W>(__builtin_elementwise_sqrt(a.v));
#else
    Lanes<float, W> r;
    for (int i = 0; i < W; ++i)
        r.v[i] = __builtin_sqrtf(a.v[i]); // One vector sqrt: GCC vectorizes this loop exactly.
    return r;
#endif
}
template<int W>
FALCOR_LANE_INLINE Lanes<float, W> saturate(const Lanes<float, W>& a)
{
    return clamp(a, Lanes<float, W>(0.f), Lanes<float, W>(1.f));
}

// The one-lane forms, so lane-generic code calls `min`, `sqrt`, ... unqualified for F = float too.
template<typename T>
    requires std::is_arithmetic_v<T>
FALCOR_LANE_INLINE T min(T a, T b)
{
    return std::min(a, b);
}
template<typename T>
    requires std::is_arithmetic_v<T>
FALCOR_LANE_INLINE T max(T a, T b)
{
    return std::max(a, b);
}
template<typename T>
    requires std::is_arithmetic_v<T>
FALCOR_LANE_INLINE T clamp(T v, T lo, T hi)
{
    return std::clamp(v, lo, hi);
}
template<typename T>
    requires std::is_floating_point_v<T>
FALCOR_LANE_INLINE T abs(T a)
{
    return std::abs(a);
}
template<typename T>
    requires std::is_floating_point_v<T>
FALCOR_LANE_INLINE T sqrt(T a)
{
    return std::sqrt(a);
}

/// f applied to every lane: the same libm call (the same bits) as the scalar code makes.
template<typename T, int W, typename Fn>
FALCOR_LANE_INLINE auto mapLanes(const Lanes<T, W>& a, Fn&& f)
{
    using R = std::invoke_result_t<Fn, T>;
    Lanes<R, W> r;
    for (int i = 0; i < W; ++i)
        r.v[i] = f(a.v[i]);
    return r;
}
template<typename T, int W, typename Fn>
FALCOR_LANE_INLINE auto mapLanes(const Lanes<T, W>& a, const Lanes<T, W>& b, Fn&& f)
{
    using R = std::invoke_result_t<Fn, T, T>;
    Lanes<R, W> r;
    for (int i = 0; i < W; ++i)
        r.v[i] = f(a.v[i], b.v[i]);
    return r;
}
template<typename T, int W, typename Fn>
FALCOR_LANE_INLINE auto mapLanes(const Lanes<T, W>& a, const Lanes<T, W>& b, const Lanes<T, W>& c, Fn&& f)
{
    using R = std::invoke_result_t<Fn, T, T, T>;
    Lanes<R, W> r;
    for (int i = 0; i < W; ++i)
        r.v[i] = f(a.v[i], b.v[i], c.v[i]);
    return r;
}
template<typename T, typename Fn>
    requires std::is_arithmetic_v<T>
FALCOR_LANE_INLINE auto mapLanes(T a, Fn&& f)
{
    return f(a);
}
template<typename T, typename Fn>
    requires std::is_arithmetic_v<T>
FALCOR_LANE_INLINE auto mapLanes(T a, T b, Fn&& f)
{
    return f(a, b);
}
template<typename T, typename Fn>
    requires std::is_arithmetic_v<T>
FALCOR_LANE_INLINE auto mapLanes(T a, T b, T c, Fn&& f)
{
    return f(a, b, c);
}

// ---- Conversions and memory ---------------------------------------------------------------------

/// Lane-wise value conversion, as static_cast<To> per lane (float(uint32_t) rounds to nearest).
template<typename To, typename From, int W>
FALCOR_LANE_INLINE Lanes<To, W> convertLanes(const Lanes<From, W>& a)
{
    return Lanes<To, W>(__builtin_convertvector(a.v, typename Lanes<To, W>::Vec));
}
/// One lane: static_cast<To>.
template<typename To, typename From>
    requires std::is_arithmetic_v<From>
FALCOR_LANE_INLINE To convertLanes(From x)
{
    return To(x);
}
/// Reinterprets the bits of every lane.
template<typename To, typename From, int W>
FALCOR_LANE_INLINE Lanes<To, W> bitcastLanes(const Lanes<From, W>& a)
{
    return Lanes<To, W>((typename Lanes<To, W>::Vec)a.v);
}

/// base[index[i]] in lane i.
template<typename T, int W, typename I>
FALCOR_LANE_INLINE Lanes<T, W> gather(const T* base, const Lanes<I, W>& index)
{
    Lanes<T, W> r;
    for (int i = 0; i < W; ++i)
        r.v[i] = base[index.v[i]];
    return r;
}
template<typename T, typename I>
    requires std::is_integral_v<I>
FALCOR_LANE_INLINE T gather(const T* base, I index)
{
    return base[index];
}

/// Lane i of a value (a one-lane value is its own lane 0).
template<typename T>
    requires std::is_arithmetic_v<T>
FALCOR_LANE_INLINE T laneValue(T x, int)
{
    return x;
}
template<typename T, int W>
FALCOR_LANE_INLINE T laneValue(const Lanes<T, W>& x, int i)
{
    return x[i];
}
template<int W>
FALCOR_LANE_INLINE bool laneValue(const LaneMask<W>& x, int i)
{
    return x[i];
}
template<typename T, int N>
FALCOR_LANE_INLINE auto laneValue(const vector<T, N>& v, int i)
{
    vector<decltype(laneValue(v.data[0], i)), N> r;
    for (int c = 0; c < N; ++c)
        r.data[c] = laneValue(v.data[c], i);
    return r;
}

/// Sets lane i of `x` to the scalar `s`.
template<typename T>
    requires std::is_arithmetic_v<T>
FALCOR_LANE_INLINE void setLaneValue(T& x, int, T s)
{
    x = s;
}
template<typename T, int W>
FALCOR_LANE_INLINE void setLaneValue(Lanes<T, W>& x, int i, T s)
{
    x.set(i, s);
}
template<int W>
FALCOR_LANE_INLINE void setLaneValue(LaneMask<W>& x, int i, bool s)
{
    x.set(i, s);
}
template<typename T, int N, typename S>
FALCOR_LANE_INLINE void setLaneValue(vector<T, N>& v, int i, const vector<S, N>& s)
{
    for (int c = 0; c < N; ++c)
        setLaneValue(v.data[c], i, s.data[c]);
}
} // namespace falcor
