#pragma once
#include <cstdint>
#include <cstring>

namespace falcor
{
/// IEEE 754 binary16 <-> binary32, round-to-nearest-even, with denormals, infinities and NaNs.
inline uint16_t f32tof16(float value)
{
    uint32_t x;
    std::memcpy(&x, &value, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) // Inf or NaN
        return uint16_t(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u | ((absx >> 13) & 0x3ffu) : 0u));
    if (absx >= 0x477ff000u) // Rounds to >= 65520: overflow to infinity.
        return uint16_t(sign | 0x7c00u);
    if (absx < 0x38800000u) // Result is a half denormal (or zero).
    {
        if (absx < 0x33000000u)
            return uint16_t(sign);
        uint32_t mant = (absx & 0x7fffffu) | 0x800000u;
        int shift = 126 - int(absx >> 23); // 14..24
        uint32_t half = mant >> shift;
        uint32_t rem = mant & ((1u << shift) - 1u);
        uint32_t halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (half & 1u)))
            ++half;
        return uint16_t(sign | half);
    }
    uint32_t bits = absx - 0x38000000u; // Rebias exponent 127 -> 15 (in the shifted position).
    uint32_t half = bits >> 13;
    uint32_t rem = bits & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1u)))
        ++half;
    return uint16_t(sign | half);
}

inline float f16tof32(uint16_t h)
{
    uint32_t sign = uint32_t(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t x;
    if (exp == 0x1f)
        x = sign | 0x7f800000u | (mant << 13);
    else if (exp != 0)
        x = sign | ((exp + 112u) << 23) | (mant << 13);
    else if (mant == 0)
        x = sign;
    else
    {
        // Denormal half: normalize.
        int e = -1;
        do
        {
            mant <<= 1;
            ++e;
        } while ((mant & 0x400u) == 0);
        x = sign | (uint32_t(112 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}
} // namespace falcor
