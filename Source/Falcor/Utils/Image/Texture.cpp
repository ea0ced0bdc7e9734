#include "Utils/Image/Texture.h"
#include "Core/Error.h"
#include "Utils/Math/Float16.h"
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace falcor
{
float srgbToLinear(float v)
{
    return v <= 0.04045f ? v / 12.92f : std::pow((v + 0.055f) / 1.055f, 2.4f);
}

float linearToSrgb(float v)
{
    if (!(v > 0.f)) // Also maps NaN to 0.
        return 0.f;
    return v <= 0.0031308f ? v * 12.92f : 1.055f * std::pow(v, 1.f / 2.4f) - 0.055f;
}

namespace
{
// ---- Scalar channel codecs ----------------------------------------------------------------

template<typename S>
constexpr float kUnormMax = float(std::numeric_limits<S>::max());

const std::array<float, 256>& srgbLut()
{
    static const auto lut = []
    {
        std::array<float, 256> t{};
        for (int i = 0; i < 256; ++i)
            t[i] = srgbToLinear(i / 255.f);
        return t;
    }();
    return lut;
}

/// Linear -> 8-bit sRGB without pow, giving the same bytes as round(255 * linearToSrgb(v)).
/// Floats in [2^-13, 1) are split into buckets by their top 11 mantissa bits; each bucket knows
/// the code of its first value, and since a bucket is narrower than any code step, the answer is
/// that code or the next one: one table read and one compare against the exact threshold (the
/// smallest float of each code, found once by bisection). Below 2^-13 the code is 0.
class SrgbEncoder
{
public:
    SrgbEncoder()
    {
        for (int k = 1; k < 256; ++k)
            mThreshold[k] = smallestFloatWithCode(k);
        mThreshold[256] = std::numeric_limits<float>::infinity();
        for (uint32_t i = 0; i < kBucketCount; ++i)
        {
            const float start = std::bit_cast<float>(kFirstBits + (i << kBucketShift));
            const float last = std::bit_cast<float>(kFirstBits + ((i + 1) << kBucketShift) - 1);
            mBucketCode[i] = uint8_t(code(start));
            if (code(last) - code(start) > 1)
                throwError("sRGB encoder table: a bucket spans more than one code step.");
        }
    }

    uint8_t encode(float v) const
    {
        if (!(v >= kFirst)) // NaN, negatives and tiny values
            return 0;
        if (v >= 1.f)
            return 255;
        const uint8_t k = mBucketCode[(std::bit_cast<uint32_t>(v) - kFirstBits) >> kBucketShift];
        return uint8_t(k + (v >= mThreshold[k + 1]));
    }

private:
    static constexpr float kFirst = 0x1p-13f; // code(v) = 0 below: threshold[1] is ~1.5e-4
    static constexpr uint32_t kFirstBits = std::bit_cast<uint32_t>(kFirst);
    static constexpr uint32_t kBucketShift = 12;
    static constexpr uint32_t kBucketCount = (std::bit_cast<uint32_t>(1.f) - kFirstBits) >> kBucketShift;

    static int code(float v) { return int(std::clamp(linearToSrgb(v), 0.f, 1.f) * 255.f + 0.5f); }
    static float smallestFloatWithCode(int k)
    {
        uint32_t lo = 0, hi = std::bit_cast<uint32_t>(1.f); // bisection over float bit patterns
        while (lo < hi)
        {
            uint32_t mid = lo + (hi - lo) / 2;
            if (code(std::bit_cast<float>(mid)) >= k)
                hi = mid;
            else
                lo = mid + 1;
        }
        return std::bit_cast<float>(lo);
    }

    float mThreshold[257];
    uint8_t mBucketCode[kBucketCount];
};

const SrgbEncoder& srgbEncoder()
{
    static const SrgbEncoder encoder;
    return encoder;
}

template<typename S>
S encodeUnorm(float v)
{
    v = std::isnan(v) ? 0.f : std::clamp(v, 0.f, 1.f);
    return S(v * kUnormMax<S> + 0.5f);
}

template<typename S>
S encodeSnorm(float v)
{
    v = std::isnan(v) ? 0.f : std::clamp(v, -1.f, 1.f);
    return S(std::lround(v * kUnormMax<S>));
}

template<typename S>
S encodeInt(float v)
{
    if (std::isnan(v))
        return S(0);
    double d = std::clamp(double(v), double(std::numeric_limits<S>::lowest()), double(std::numeric_limits<S>::max()));
    return S(d);
}

template<typename S, FormatType Type>
float decodeChannel(S s)
{
    if constexpr (Type == FormatType::Float)
    {
        if constexpr (sizeof(S) == 2)
            return f16tof32(s);
        else
            return std::bit_cast<float>(s);
    }
    else if constexpr (Type == FormatType::Unorm)
        return float(s) / kUnormMax<S>;
    else if constexpr (Type == FormatType::UnormSrgb)
        return srgbLut()[s];
    else if constexpr (Type == FormatType::Snorm)
        return std::max(float(s) / kUnormMax<S>, -1.f);
    else
        return float(s);
}

template<typename S, FormatType Type>
S encodeChannel(float v)
{
    if constexpr (Type == FormatType::Float)
    {
        if constexpr (sizeof(S) == 2)
            return f32tof16(v);
        else
            return std::bit_cast<S>(v);
    }
    else if constexpr (Type == FormatType::Unorm)
        return encodeUnorm<S>(v);
    else if constexpr (Type == FormatType::UnormSrgb)
    {
        static_assert(sizeof(S) == 1, "sRGB formats are 8-bit");
        return srgbEncoder().encode(v);
    }
    else if constexpr (Type == FormatType::Snorm)
        return encodeSnorm<S>(v);
    else
        return encodeInt<S>(v);
}

// ---- Formats whose channels are whole bytes of equal size ----------------------------------

/// `S` is the channel storage type, `N` the channel count, `Bgr` swaps R and B, `AlphaChannel`
/// is false for the X of BGRX (it reads as 1 and is written as the maximum).
template<typename S, FormatType Type, int N, bool Bgr = false, bool AlphaChannel = true>
struct UniformCodec
{
    /// Alpha is never sRGB-encoded.
    static constexpr FormatType kAlphaType = Type == FormatType::UnormSrgb ? FormatType::Unorm : Type;
    static void decode(const uint8_t* src, float4* dst, uint32_t count)
    {
        for (uint32_t i = 0; i < count; ++i)
        {
            S c[N];
            std::memcpy(c, src + size_t(i) * sizeof(c), sizeof(c));
            float4 v(0.f, 0.f, 0.f, 1.f);
            for (int k = 0; k < N; ++k)
                v[k] = k == 3 ? decodeChannel<S, kAlphaType>(c[k]) : decodeChannel<S, Type>(c[k]);
            if constexpr (Bgr)
                std::swap(v[0], v[2]);
            if constexpr (!AlphaChannel)
                v[3] = 1.f;
            dst[i] = v;
        }
    }
    static void encode(const float4* src, uint8_t* dst, uint32_t count)
    {
        for (uint32_t i = 0; i < count; ++i)
        {
            float4 v = src[i];
            if constexpr (Bgr)
                std::swap(v[0], v[2]);
            if constexpr (!AlphaChannel)
                v[3] = 1.f;
            S c[N];
            for (int k = 0; k < N; ++k)
                c[k] = k == 3 ? encodeChannel<S, kAlphaType>(v[k]) : encodeChannel<S, Type>(v[k]);
            std::memcpy(dst + size_t(i) * sizeof(c), c, sizeof(c));
        }
    }
};

// ---- Packed formats -------------------------------------------------------------------------

struct BitField
{
    uint32_t shift, bits;
};

/// Unorm/uint channels packed into one 16- or 32-bit word; fields in R, G, B, A order.
template<typename Word, bool IsUnorm, int N, BitField F0, BitField F1, BitField F2, BitField F3 = BitField{0, 0}>
struct PackedCodec
{
    static constexpr BitField kFields[4] = {F0, F1, F2, F3};
    static void decode(const uint8_t* src, float4* dst, uint32_t count)
    {
        for (uint32_t i = 0; i < count; ++i)
        {
            Word w;
            std::memcpy(&w, src + size_t(i) * sizeof(Word), sizeof(Word));
            float4 v(0.f, 0.f, 0.f, 1.f);
            for (int k = 0; k < N; ++k)
            {
                uint32_t maxv = (1u << kFields[k].bits) - 1u;
                uint32_t c = (uint32_t(w) >> kFields[k].shift) & maxv;
                v[k] = IsUnorm ? float(c) / float(maxv) : float(c);
            }
            dst[i] = v;
        }
    }
    static void encode(const float4* src, uint8_t* dst, uint32_t count)
    {
        for (uint32_t i = 0; i < count; ++i)
        {
            uint32_t w = 0;
            for (int k = 0; k < N; ++k)
            {
                uint32_t maxv = (1u << kFields[k].bits) - 1u;
                float v = std::isnan(src[i][k]) ? 0.f : src[i][k];
                uint32_t c = IsUnorm ? uint32_t(std::clamp(v, 0.f, 1.f) * maxv + 0.5f)
                                     : uint32_t(std::clamp(v, 0.f, float(maxv)));
                w |= c << kFields[k].shift;
            }
            Word word = Word(w);
            std::memcpy(dst + size_t(i) * sizeof(Word), &word, sizeof(Word));
        }
    }
};

/// Unsigned small floats of R11G11B10Float (5-bit exponent, no sign).
float decodeSmallFloat(uint32_t bits, uint32_t mantBits)
{
    uint32_t exp = bits >> mantBits, mant = bits & ((1u << mantBits) - 1u);
    if (exp == 31)
        return mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    if (exp == 0)
        return std::ldexp(float(mant), -14 - int(mantBits));
    return std::ldexp(1.f + float(mant) / float(1u << mantBits), int(exp) - 15);
}

uint32_t encodeSmallFloat(float v, uint32_t mantBits)
{
    if (std::isnan(v))
        return (31u << mantBits) | 1u;
    // Via half: same exponent range; then drop the sign and the extra mantissa bits (rounded).
    if (!(v > 0.f))
        return 0;
    uint32_t h = f32tof16(v);
    uint32_t shift = 10 - mantBits;
    uint32_t r = (h + ((1u << (shift - 1)) - 1u) + ((h >> shift) & 1u)) >> shift; // round to nearest even
    uint32_t maxFinite = (30u << mantBits) | ((1u << mantBits) - 1u);
    return (h & 0x7c00u) == 0x7c00u ? (31u << mantBits) : std::min(r, maxFinite);
}

struct R11G11B10Codec
{
    static void decode(const uint8_t* src, float4* dst, uint32_t count)
    {
        for (uint32_t i = 0; i < count; ++i)
        {
            uint32_t w;
            std::memcpy(&w, src + 4 * i, 4);
            dst[i] = {decodeSmallFloat(w & 0x7ff, 6), decodeSmallFloat((w >> 11) & 0x7ff, 6), decodeSmallFloat(w >> 22, 5), 1.f};
        }
    }
    static void encode(const float4* src, uint8_t* dst, uint32_t count)
    {
        for (uint32_t i = 0; i < count; ++i)
        {
            uint32_t w = encodeSmallFloat(src[i][0], 6) | (encodeSmallFloat(src[i][1], 6) << 11) | (encodeSmallFloat(src[i][2], 5) << 22);
            std::memcpy(dst + 4 * i, &w, 4);
        }
    }
};

struct RGB9E5Codec
{
    static void decode(const uint8_t* src, float4* dst, uint32_t count)
    {
        for (uint32_t i = 0; i < count; ++i)
        {
            uint32_t w;
            std::memcpy(&w, src + 4 * i, 4);
            float scale = std::ldexp(1.f, int(w >> 27) - 15 - 9);
            dst[i] = {float(w & 0x1ff) * scale, float((w >> 9) & 0x1ff) * scale, float((w >> 18) & 0x1ff) * scale, 1.f};
        }
    }
    static void encode(const float4* src, uint8_t* dst, uint32_t count)
    {
        constexpr float kMax = 65408.f; // (511/512) * 2^16
        for (uint32_t i = 0; i < count; ++i)
        {
            float c[3];
            for (int k = 0; k < 3; ++k)
                c[k] = std::isnan(src[i][k]) ? 0.f : std::clamp(src[i][k], 0.f, kMax);
            float m = std::max({c[0], c[1], c[2]});
            int e = std::max(-16, int(std::floor(std::log2(std::max(m, 1e-30f))))) + 1 + 15;
            e = std::clamp(e, 0, 31);
            float scale = std::ldexp(1.f, e - 15 - 9);
            if (uint32_t(std::lround(m / scale)) == 512u && e < 31)
                scale *= 2.f, ++e;
            uint32_t w = uint32_t(e) << 27;
            for (int k = 0; k < 3; ++k)
                w |= std::min(uint32_t(std::lround(c[k] / scale)), 511u) << (9 * k);
            std::memcpy(dst + 4 * i, &w, 4);
        }
    }
};

/// Depth-stencil: depth reads into R; stencil is ignored.
struct D32S8Codec
{
    static void decode(const uint8_t* src, float4* dst, uint32_t count)
    {
        for (uint32_t i = 0; i < count; ++i)
        {
            float d;
            std::memcpy(&d, src + 8 * i, 4);
            dst[i] = {d, 0.f, 0.f, 1.f};
        }
    }
    static void encode(const float4* src, uint8_t* dst, uint32_t count)
    {
        for (uint32_t i = 0; i < count; ++i)
        {
            std::memset(dst + 8 * i, 0, 8);
            std::memcpy(dst + 8 * i, &src[i][0], 4);
        }
    }
};

template<typename C>
constexpr Texture::Codec codec()
{
    return {&C::decode, &C::encode};
}

constexpr FormatType Fl = FormatType::Float, Un = FormatType::Unorm, Sr = FormatType::UnormSrgb, Sn = FormatType::Snorm,
                     Ui = FormatType::Uint, Si = FormatType::Sint;
} // namespace

Texture::Codec Texture::getCodec(ResourceFormat format)
{
    using F = ResourceFormat;
    switch (format)
    {
    case F::R8Unorm: return codec<UniformCodec<uint8_t, Un, 1>>();
    case F::R8Snorm: return codec<UniformCodec<int8_t, Sn, 1>>();
    case F::R16Unorm: case F::D16Unorm: return codec<UniformCodec<uint16_t, Un, 1>>();
    case F::R16Snorm: return codec<UniformCodec<int16_t, Sn, 1>>();
    case F::RG8Unorm: return codec<UniformCodec<uint8_t, Un, 2>>();
    case F::RG8Snorm: return codec<UniformCodec<int8_t, Sn, 2>>();
    case F::RG16Unorm: return codec<UniformCodec<uint16_t, Un, 2>>();
    case F::RG16Snorm: return codec<UniformCodec<int16_t, Sn, 2>>();
    case F::RGB5A1Unorm: return codec<PackedCodec<uint16_t, true, 4, BitField{0, 5}, BitField{5, 5}, BitField{10, 5}, BitField{15, 1}>>();
    case F::RGBA8Unorm: return codec<UniformCodec<uint8_t, Un, 4>>();
    case F::RGBA8Snorm: return codec<UniformCodec<int8_t, Sn, 4>>();
    case F::RGB10A2Unorm: return codec<PackedCodec<uint32_t, true, 4, BitField{0, 10}, BitField{10, 10}, BitField{20, 10}, BitField{30, 2}>>();
    case F::RGB10A2Uint: return codec<PackedCodec<uint32_t, false, 4, BitField{0, 10}, BitField{10, 10}, BitField{20, 10}, BitField{30, 2}>>();
    case F::RGBA16Unorm: return codec<UniformCodec<uint16_t, Un, 4>>();
    case F::RGBA16Snorm: return codec<UniformCodec<int16_t, Sn, 4>>();
    case F::RGBA8UnormSrgb: return codec<UniformCodec<uint8_t, Sr, 4>>();
    case F::R16Float: return codec<UniformCodec<uint16_t, Fl, 1>>();
    case F::RG16Float: return codec<UniformCodec<uint16_t, Fl, 2>>();
    case F::RGBA16Float: return codec<UniformCodec<uint16_t, Fl, 4>>();
    case F::R32Float: case F::D32Float: return codec<UniformCodec<uint32_t, Fl, 1>>();
    case F::RG32Float: return codec<UniformCodec<uint32_t, Fl, 2>>();
    case F::RGB32Float: return codec<UniformCodec<uint32_t, Fl, 3>>();
    case F::RGBA32Float: return codec<UniformCodec<uint32_t, Fl, 4>>();
    case F::R11G11B10Float: return codec<R11G11B10Codec>();
    case F::RGB9E5Float: return codec<RGB9E5Codec>();
    case F::R8Int: return codec<UniformCodec<int8_t, Si, 1>>();
    case F::R8Uint: return codec<UniformCodec<uint8_t, Ui, 1>>();
    case F::R16Int: return codec<UniformCodec<int16_t, Si, 1>>();
    case F::R16Uint: return codec<UniformCodec<uint16_t, Ui, 1>>();
    case F::R32Int: return codec<UniformCodec<int32_t, Si, 1>>();
    case F::R32Uint: return codec<UniformCodec<uint32_t, Ui, 1>>();
    case F::RG8Int: return codec<UniformCodec<int8_t, Si, 2>>();
    case F::RG8Uint: return codec<UniformCodec<uint8_t, Ui, 2>>();
    case F::RG16Int: return codec<UniformCodec<int16_t, Si, 2>>();
    case F::RG16Uint: return codec<UniformCodec<uint16_t, Ui, 2>>();
    case F::RG32Int: return codec<UniformCodec<int32_t, Si, 2>>();
    case F::RG32Uint: return codec<UniformCodec<uint32_t, Ui, 2>>();
    case F::RGB32Int: return codec<UniformCodec<int32_t, Si, 3>>();
    case F::RGB32Uint: return codec<UniformCodec<uint32_t, Ui, 3>>();
    case F::RGBA8Int: return codec<UniformCodec<int8_t, Si, 4>>();
    case F::RGBA8Uint: return codec<UniformCodec<uint8_t, Ui, 4>>();
    case F::RGBA16Int: return codec<UniformCodec<int16_t, Si, 4>>();
    case F::RGBA16Uint: return codec<UniformCodec<uint16_t, Ui, 4>>();
    case F::RGBA32Int: return codec<UniformCodec<int32_t, Si, 4>>();
    case F::RGBA32Uint: return codec<UniformCodec<uint32_t, Ui, 4>>();
    case F::BGRA4Unorm: return codec<PackedCodec<uint16_t, true, 4, BitField{8, 4}, BitField{4, 4}, BitField{0, 4}, BitField{12, 4}>>();
    case F::BGRA8Unorm: return codec<UniformCodec<uint8_t, Un, 4, true>>();
    case F::BGRA8UnormSrgb: return codec<UniformCodec<uint8_t, Sr, 4, true>>();
    case F::BGRX8Unorm: return codec<UniformCodec<uint8_t, Un, 4, true, false>>();
    case F::BGRX8UnormSrgb: return codec<UniformCodec<uint8_t, Sr, 4, true, false>>();
    case F::R5G6B5Unorm: return codec<PackedCodec<uint16_t, true, 3, BitField{11, 5}, BitField{5, 6}, BitField{0, 5}>>();
    case F::D32FloatS8Uint: return codec<D32S8Codec>();
    default: throwError("Texture format '", to_string(format), "' is not supported on the CPU.");
    }
}

Texture::Texture(uint32_t width, uint32_t height, uint32_t depth, uint32_t arraySize, uint32_t mipLevels, ResourceFormat format,
                 Type type)
    : mType(type), mWidth(width), mHeight(height), mDepth(depth), mArraySize(arraySize), mMipLevels(mipLevels), mFormat(format),
      mBytesPerTexel(getFormatBytesPerTexel(format)), mCodec(getCodec(format))
{
    size_t total = 0;
    for (uint32_t slice = 0; slice < mArraySize; ++slice)
        for (uint32_t mip = 0; mip < mMipLevels; ++mip)
        {
            mSubresourceOffsets.push_back(total);
            total += getSubresourceSize(mip);
        }
    try
    {
        mStorage.assign(total, 0);
    }
    catch (const std::bad_alloc&)
    {
        throw OutOfMemoryError(concat("Out of memory allocating a ", width, "x", height, "x", depth, " ", to_string(format),
                                      " texture (", (total + (1 << 20) - 1) >> 20, " MiB)."));
    }
}

void Texture::checkSize(uint32_t width, uint32_t height, uint32_t depth, uint32_t arraySize, Type type, const std::string& what)
{
    FALCOR_CHECK(width > 0 && height > 0 && depth > 0 && arraySize > 0, what, ": invalid texture size ", width, "x", height, "x", depth,
                 " (array size ", arraySize, ").");
    const uint32_t limit = type == Type::Texture3D ? kMaxDimension3D : kMaxDimension;
    if (std::max({width, height, depth}) > limit || arraySize > kMaxArraySize)
        throw OutOfMemoryError(concat(what, ": texture size ", width, "x", height, type == Type::Texture3D ? concat("x", depth) : "",
                                      arraySize > 1 ? concat(" (array size ", arraySize, ")") : "", " exceeds the limit of ", limit,
                                      " texels per dimension and ", kMaxArraySize, " array slices."));
}

std::shared_ptr<Texture> Texture::create(uint32_t width, uint32_t height, ResourceFormat format, uint32_t arraySize, uint32_t mipLevels,
                                         uint32_t depth, Type type)
{
    checkSize(width, height, depth, arraySize, type, "Can't create texture");
    FALCOR_CHECK(format != ResourceFormat::Unknown, "Can't create a texture with format 'Unknown'.");
    uint32_t maxMips = 1 + uint32_t(std::floor(std::log2(double(std::max({width, height, depth})))));
    mipLevels = mipLevels == kMaxPossible ? maxMips : std::clamp(mipLevels, 1u, maxMips);
    return std::shared_ptr<Texture>(new Texture(width, height, depth, arraySize, mipLevels, format, type));
}

void Texture::clear(const float4& value)
{
    std::vector<uint8_t> texel(mBytesPerTexel);
    encode(&value, texel.data(), 1);
    bool zero = std::all_of(texel.begin(), texel.end(), [](uint8_t b) { return b == 0; });
    if (zero)
    {
        std::memset(mStorage.data(), 0, mStorage.size());
        return;
    }
    for (size_t i = 0; i < mStorage.size(); i += mBytesPerTexel)
        std::memcpy(mStorage.data() + i, texel.data(), mBytesPerTexel);
}

void Texture::generateMips()
{
    for (uint32_t slice = 0; slice < mArraySize; ++slice)
        for (uint32_t mip = 1; mip < mMipLevels; ++mip)
        {
            uint32_t w = getWidth(mip), h = getHeight(mip), sw = getWidth(mip - 1), sh = getHeight(mip - 1);
            std::vector<float4> r0(sw), r1(sw), out(w);
            for (uint32_t y = 0; y < h; ++y)
            {
                loadRow(std::min(2 * y, sh - 1), r0.data(), mip - 1, slice);
                loadRow(std::min(2 * y + 1, sh - 1), r1.data(), mip - 1, slice);
                for (uint32_t x = 0; x < w; ++x)
                {
                    uint32_t x0 = std::min(2 * x, sw - 1), x1 = std::min(2 * x + 1, sw - 1);
                    out[x] = (r0[x0] + r0[x1] + r1[x0] + r1[x1]) * 0.25f;
                }
                storeRow(y, out.data(), mip, slice);
            }
        }
}
} // namespace falcor
