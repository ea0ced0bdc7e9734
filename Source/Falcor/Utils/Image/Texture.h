#pragma once
#include "Core/Macros.h"
#include "Utils/Image/ResourceFormat.h"
#include "Utils/Math/Vector.h"
#include <memory>
#include <string>
#include <vector>

namespace falcor
{
/// A texture in CPU memory: 1D/2D/3D, with array slices and mip levels, in any uncompressed
/// ResourceFormat. Texels are tightly packed, row by row, top row first. Passes read and write
/// texels either raw (`data()`, `texel<T>()`) or converted to float4 rows (`loadRow`/`storeRow`),
/// which apply the format's decoding (unorm scaling, sRGB, half floats, packed formats).
class FALCOR_API Texture : public std::enable_shared_from_this<Texture>
{
public:
    enum class Type { Texture1D, Texture2D, Texture3D };
    static constexpr uint32_t kMaxPossible = uint32_t(-1);
    /// Falcor's (Direct3D 12's) limits: width and height of 1D/2D textures, each dimension of
    /// 3D textures, and array slices. Larger requests raise instead of allocating.
    static constexpr uint32_t kMaxDimension = 16384;
    static constexpr uint32_t kMaxDimension3D = 2048;
    static constexpr uint32_t kMaxArraySize = 2048;

    /// Checks a size against the limits above; the error starts with `what` (e.g. the field).
    static void checkSize(uint32_t width, uint32_t height, uint32_t depth, uint32_t arraySize, Type type, const std::string& what);

    /// `mipLevels == kMaxPossible` creates a full chain.
    static std::shared_ptr<Texture> create(uint32_t width, uint32_t height, ResourceFormat format, uint32_t arraySize = 1,
                                           uint32_t mipLevels = 1, uint32_t depth = 1, Type type = Type::Texture2D);
    static std::shared_ptr<Texture> create2D(uint32_t width, uint32_t height, ResourceFormat format, uint32_t arraySize = 1,
                                             uint32_t mipLevels = 1)
    {
        return create(width, height, format, arraySize, mipLevels);
    }

    Type getType() const { return mType; }
    uint32_t getWidth(uint32_t mip = 0) const { return mip < mMipLevels ? std::max(1u, mWidth >> mip) : 0; }
    uint32_t getHeight(uint32_t mip = 0) const { return mip < mMipLevels ? std::max(1u, mHeight >> mip) : 0; }
    uint32_t getDepth(uint32_t mip = 0) const { return mip < mMipLevels ? std::max(1u, mDepth >> mip) : 0; }
    uint2 getDims(uint32_t mip = 0) const { return {getWidth(mip), getHeight(mip)}; }
    uint32_t getArraySize() const { return mArraySize; }
    uint32_t getMipCount() const { return mMipLevels; }
    ResourceFormat getFormat() const { return mFormat; }
    uint32_t getBytesPerTexel() const { return mBytesPerTexel; }
    uint32_t getChannelCount() const { return getFormatChannelCount(mFormat); }
    size_t getRowPitch(uint32_t mip = 0) const { return size_t(getWidth(mip)) * mBytesPerTexel; }
    size_t getSubresourceSize(uint32_t mip = 0) const { return getRowPitch(mip) * getHeight(mip) * getDepth(mip); }
    /// Total bytes of all subresources.
    size_t getSizeInBytes() const { return mStorage.size(); }

    uint8_t* data(uint32_t mip = 0, uint32_t arraySlice = 0) { return mStorage.data() + offset(mip, arraySlice); }
    const uint8_t* data(uint32_t mip = 0, uint32_t arraySlice = 0) const { return mStorage.data() + offset(mip, arraySlice); }
    uint8_t* row(uint32_t y, uint32_t mip = 0, uint32_t arraySlice = 0) { return data(mip, arraySlice) + y * getRowPitch(mip); }
    const uint8_t* row(uint32_t y, uint32_t mip = 0, uint32_t arraySlice = 0) const
    {
        return data(mip, arraySlice) + y * getRowPitch(mip);
    }
    template<typename T>
    T& texel(uint32_t x, uint32_t y, uint32_t mip = 0, uint32_t arraySlice = 0)
    {
        return reinterpret_cast<T*>(row(y, mip, arraySlice))[x];
    }

    /// Decodes `count` texels starting at `src` (in this texture's format) to float4.
    /// Missing channels read as 0 (alpha as 1); integer formats convert numerically.
    void decode(const uint8_t* src, float4* dst, uint32_t count) const { mCodec.decode(src, dst, count); }
    /// Encodes float4 values into this texture's format (saturating/rounding like a GPU store).
    void encode(const float4* src, uint8_t* dst, uint32_t count) const { mCodec.encode(src, dst, count); }

    void loadRow(uint32_t y, float4* dst, uint32_t mip = 0, uint32_t arraySlice = 0) const
    {
        decode(row(y, mip, arraySlice), dst, getWidth(mip));
    }
    void storeRow(uint32_t y, const float4* src, uint32_t mip = 0, uint32_t arraySlice = 0)
    {
        encode(src, row(y, mip, arraySlice), getWidth(mip));
    }
    float4 loadTexel(uint32_t x, uint32_t y, uint32_t mip = 0, uint32_t arraySlice = 0) const
    {
        float4 v;
        decode(row(y, mip, arraySlice) + size_t(x) * mBytesPerTexel, &v, 1);
        return v;
    }
    void storeTexel(uint32_t x, uint32_t y, const float4& v, uint32_t mip = 0, uint32_t arraySlice = 0)
    {
        encode(&v, row(y, mip, arraySlice) + size_t(x) * mBytesPerTexel, 1);
    }

    /// Sets every texel of every subresource to `value` (encoded in the texture's format).
    void clear(const float4& value = float4(0.f));
    /// Fills every lower mip level from level 0 with a 2x2 box filter.
    void generateMips();

    /// Debug name (set by the render graph to "<Pass>.<field>").
    const std::string& getName() const { return mName; }
    void setName(std::string name) { mName = std::move(name); }

    /// Byte offset of each subresource in the storage, at [arraySlice * mipCount + mip].
    const size_t* getSubresourceOffsets() const { return mSubresourceOffsets.data(); }

    struct Codec
    {
        void (*decode)(const uint8_t*, float4*, uint32_t);
        void (*encode)(const float4*, uint8_t*, uint32_t);
    };
    static Codec getCodec(ResourceFormat format);

private:
    Texture(uint32_t width, uint32_t height, uint32_t depth, uint32_t arraySize, uint32_t mipLevels, ResourceFormat format, Type type);
    size_t offset(uint32_t mip, uint32_t slice) const { return mSubresourceOffsets[slice * mMipLevels + mip]; }

    Type mType;
    uint32_t mWidth, mHeight, mDepth, mArraySize, mMipLevels;
    ResourceFormat mFormat;
    uint32_t mBytesPerTexel;
    Codec mCodec;
    std::vector<size_t> mSubresourceOffsets;
    std::vector<uint8_t> mStorage;
    std::string mName;
};

using TexturePtr = std::shared_ptr<Texture>;

/// sRGB transfer functions (IEC 61966-2-1).
FALCOR_API float srgbToLinear(float v);
FALCOR_API float linearToSrgb(float v);
} // namespace falcor
