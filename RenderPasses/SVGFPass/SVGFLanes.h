#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

/// SVGF's edge-stopping weight written once for one pixel (`float`) and for four side by side
/// (`FloatVec4`, a GCC/Clang vector: SSE2 on x86-64). Both run the same IEEE operations lane by lane,
/// so a pixel gets the same bits whichever way it is computed. GPU semantics where they differ
/// from C++'s: max and saturate turn NaN into 0 (a missed pixel's zero normal packs to NaN).
namespace svgf::lanes
{
using FloatVec4 = float __attribute__((vector_size(16)));
using IntVec4 = int32_t __attribute__((vector_size(16)));
constexpr int kWidth = 4;

template<typename V>
V splat(float v)
{
    if constexpr (std::is_same_v<V, float>)
        return v;
    else
        return V{v, v, v, v};
}

inline float select(bool mask, float a, float b) { return mask ? a : b; }
inline FloatVec4 select(IntVec4 mask, FloatVec4 a, FloatVec4 b) { return mask ? a : b; }

inline int32_t bitsOf(float v) { return std::bit_cast<int32_t>(v); }
inline IntVec4 bitsOf(FloatVec4 v) { return (IntVec4)v; }
inline float fromBits(int32_t v) { return std::bit_cast<float>(v); }
inline FloatVec4 fromBits(IntVec4 v) { return (FloatVec4)v; }
inline int32_t truncate(float v) { return int32_t(v); }
inline IntVec4 truncate(FloatVec4 v) { return __builtin_convertvector(v, IntVec4); }
inline float toFloat(int32_t v) { return float(v); }
inline FloatVec4 toFloat(IntVec4 v) { return __builtin_convertvector(v, FloatVec4); }

template<typename V>
V load(const float* p)
{
    V v;
    std::memcpy(&v, p, sizeof(V));
    return v;
}

template<typename V>
void store(float* p, V v)
{
    std::memcpy(p, &v, sizeof(V));
}

/// |v| (clears the sign bit, as std::abs).
template<typename V>
V absolute(V v)
{
    return fromBits(bitsOf(v) & 0x7fffffff);
}

template<typename V>
V max0(V v)
{
    return select(v > splat<V>(0.f), v, splat<V>(0.f));
}

template<typename V>
V saturate(V v)
{
    return select(v > splat<V>(0.f), select(v < splat<V>(1.f), v, splat<V>(1.f)), splat<V>(0.f));
}

/// exp(x) for x <= 0 (the edge-stopping weights' argument): a Cody-Waite reduction by ln 2 and
/// Cephes' expf polynomial (within 2 ulp of expf); 0 below -87.3, where expf leaves the normal floats.
template<typename V>
V expNonPositive(V x)
{
    const V low = splat<V>(-87.3f);
    const V clamped = select(x > low, x, low);
    const auto k = truncate(clamped * 1.44269504f - 0.5f); // Truncating a negative rounds up: k = round(x / ln 2).
    const V fk = toFloat(k);
    const V r = (clamped - fk * 0.693359375f) - fk * -2.12194440e-4f;
    V p = splat<V>(1.9875691500e-4f);
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    const V e = (p * r * r + r + 1.f) * fromBits((k + 127) << 23);
    return select(x > low, e, splat<V>(0.f));
}

/// pow(cosine, exponent) for the normal weight. Exponents are usually whole (Falcor's default is
/// 128): those go by repeated squaring, a few multiplications instead of a pow call (a relative
/// difference of at most exponent * 2^-24 from powf).
class NormalPower
{
public:
    explicit NormalPower(float exponent)
        : mExponent(exponent), mWhole(exponent >= 0.f && exponent <= 65536.f && exponent == std::floor(exponent))
    {}

    template<typename V>
    V operator()(V cosine) const
    {
        if (!mWhole)
        {
            if constexpr (std::is_same_v<V, float>)
                return std::pow(cosine, mExponent);
            else
                return V{std::pow(cosine[0], mExponent), std::pow(cosine[1], mExponent), std::pow(cosine[2], mExponent),
                         std::pow(cosine[3], mExponent)};
        }
        V result = splat<V>(1.f), base = cosine;
        for (uint32_t e = uint32_t(mExponent); e != 0; e >>= 1, base *= base)
            if (e & 1u)
                result *= base;
        return result;
    }

private:
    float mExponent;
    bool mWhole;
};

/// Falcor's computeWeight: a neighbour's weight by normal (cosine to the center's), depth (phiDepth
/// 0: no depth test) and luminance.
template<typename V>
V edgeStoppingWeight(V zCenter, V zP, V phiDepth, V normalCosine, const NormalPower& phiNormal, V lumCenter, V lumP, V phiLum)
{
    const V weightNormal = phiNormal(saturate(normalCosine));
    const V ratioZ = absolute(zCenter - zP) / phiDepth; // Divided unconditionally: no branch.
    const V weightZ = select(phiDepth == splat<V>(0.f), splat<V>(0.f), ratioZ);
    const V weightLum = absolute(lumCenter - lumP) / phiLum;
    return expNonPositive(splat<V>(0.f) - max0(weightLum) - max0(weightZ)) * weightNormal;
}
} // namespace svgf::lanes
