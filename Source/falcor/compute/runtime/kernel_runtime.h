// Included after Slang's C++ output: the engine's textures and samplers behind Slang's CPU
// texture interfaces, and the functions the host looks up in every kernel library.
#include "Core/Pass/KernelABI.h"
#include <algorithm>
#include <atomic>
#include <cmath>

#define FALCOR_KERNEL_EXPORT extern "C" __attribute__((visibility("default")))

namespace falcor_kernel
{
std::atomic<uint64_t> gOutOfBoundsCount{0};

struct Float4
{
    float v[4];
};

/// An engine texture seen through one shader type (Texture2D<float4>, RWTexture3D<uint>, ...).
class TextureView final : public IRWTexture
{
public:
    TextureView(const FalcorKernelTextureDesc& desc, uint32_t dimensions, bool isArray, bool writable)
        : mDesc(desc), mDimensions(dimensions), mIsArray(isArray), mWritable(writable)
    {
    }

    TextureDimensions GetDimensions(int mipLevel) override
    {
        const uint32_t mip = mipLevel < 0 ? 0 : uint32_t(mipLevel);
        TextureDimensions dims;
        dims.reset();
        static const uint32_t kShapes[] = {0, SLANG_TEXTURE_1D, SLANG_TEXTURE_2D, SLANG_TEXTURE_3D};
        dims.shape = kShapes[mDimensions] | (mIsArray ? SLANG_TEXTURE_ARRAY_FLAG : 0);
        dims.width = extent(mDesc.width, mip);
        dims.height = mDimensions >= 2 ? extent(mDesc.height, mip) : 0;
        dims.depth = mDimensions == 3 ? extent(mDesc.depth, mip) : 0;
        dims.numberOfLevels = mDesc.mipLevels;
        dims.arrayElementCount = mIsArray ? mDesc.arraySize : 0;
        return dims;
    }

    void Load(const int32_t* loc, void* out, size_t size) override
    {
        uint32_t coord[4] = {};
        const uint32_t n = coordCount();
        for (uint32_t i = 0; i < n; ++i)
            coord[i] = uint32_t(loc[i]);
        const uint32_t mip = mWritable ? 0 : uint32_t(loc[n]);
        read(locate(coord, mip), out, size);
    }

    void* refAt(const uint32_t* loc) override
    {
        if (uint8_t* texel = locate(loc, 0))
            return texel;
        alignas(16) static thread_local uint8_t sink[64];
        return sink;
    }

    void Sample(SamplerState sampler, const float* loc, void* out, size_t size) override
    {
        // Implicit-LOD sampling has no derivatives on a CPU: it samples mip 0.
        SampleLevel(sampler, loc, 0.f, out, size);
    }

    void SampleLevel(SamplerState sampler, const float* loc, float level, void* out, size_t size) override;

private:
    static uint32_t extent(uint32_t size, uint32_t mip) { return std::max(1u, size >> std::min(mip, 31u)); }
    uint32_t coordCount() const { return mDimensions + (mIsArray ? 1 : 0); }

    /// The texel at integer coordinates (array slice last), or null (counted) when outside.
    uint8_t* locate(const uint32_t* coord, uint32_t mip) const
    {
        const uint32_t slice = mIsArray ? coord[mDimensions] : 0;
        const uint32_t w = extent(mDesc.width, mip), h = extent(mDesc.height, mip), d = extent(mDesc.depth, mip);
        const uint32_t x = coord[0], y = mDimensions >= 2 ? coord[1] : 0, z = mDimensions == 3 ? coord[2] : 0;
        if (mip >= mDesc.mipLevels || slice >= mDesc.arraySize || x >= w || y >= h || z >= d)
        {
            gOutOfBoundsCount.fetch_add(1, std::memory_order_relaxed);
            return nullptr;
        }
        const size_t offset = mDesc.subresourceOffsets[size_t(slice) * mDesc.mipLevels + mip];
        return mDesc.data + offset + ((size_t(z) * h + y) * w + x) * mDesc.bytesPerTexel;
    }

    /// Copies a texel into a shader value: raw when layouts agree, else its decoded channels.
    void read(const uint8_t* texel, void* out, size_t size) const
    {
        std::memset(out, 0, size);
        if (!texel)
            return;
        if (mDesc.rawAccess)
        {
            std::memcpy(out, texel, std::min<size_t>(size, mDesc.bytesPerTexel));
            return;
        }
        Float4 value;
        mDesc.decode(texel, value.v, 1);
        std::memcpy(out, value.v, std::min(size, sizeof(value.v)));
    }

    Float4 fetch(int32_t x, int32_t y, int32_t z, uint32_t slice, uint32_t mip, const FalcorKernelSamplerDesc& s) const;

    FalcorKernelTextureDesc mDesc;
    uint32_t mDimensions;
    bool mIsArray, mWritable;
};
} // namespace falcor_kernel

/// Slang only declares the sampler interface; on this host it is the sampler's description.
struct ISamplerState
{
    FalcorKernelSamplerDesc desc;
};

namespace falcor_kernel
{
/// Falcor's TextureAddressingMode applied to one integer coordinate; -1 means the border color.
inline int32_t address(int32_t i, int32_t size, uint32_t mode)
{
    enum { Wrap = 0, Mirror = 1, Clamp = 2, Border = 3, MirrorOnce = 4 };
    switch (mode)
    {
    case Wrap:
        return ((i % size) + size) % size;
    case Mirror:
    {
        const int32_t period = 2 * size, m = ((i % period) + period) % period;
        return m < size ? m : period - 1 - m;
    }
    case Border:
        return i < 0 || i >= size ? -1 : i;
    case MirrorOnce:
        i = i < 0 ? -1 - i : i;
        return std::min(i, size - 1);
    default:
        return std::clamp(i, 0, size - 1);
    }
}

inline Float4 TextureView::fetch(int32_t x, int32_t y, int32_t z, uint32_t slice, uint32_t mip, const FalcorKernelSamplerDesc& s) const
{
    const int32_t size[3] = {int32_t(extent(mDesc.width, mip)), int32_t(extent(mDesc.height, mip)), int32_t(extent(mDesc.depth, mip))};
    const uint32_t modes[3] = {s.addressU, s.addressV, s.addressW};
    int32_t in[3] = {x, y, z};
    uint32_t coord[4] = {};
    for (uint32_t i = 0; i < mDimensions; ++i)
    {
        const int32_t a = address(in[i], size[i], modes[i]);
        if (a < 0)
            return {{s.borderColor[0], s.borderColor[1], s.borderColor[2], s.borderColor[3]}};
        coord[i] = uint32_t(a);
    }
    coord[mDimensions] = slice;
    Float4 value;
    if (mDesc.rawAccess && mDesc.bytesPerTexel <= sizeof(value.v))
    {
        // Raw texels of a float format are its leading float channels.
        value = {{0.f, 0.f, 0.f, 1.f}};
        std::memcpy(value.v, locate(coord, mip), mDesc.bytesPerTexel);
    }
    else
        mDesc.decode(locate(coord, mip), value.v, 1);
    return value;
}

inline void TextureView::SampleLevel(SamplerState sampler, const float* loc, float level, void* out, size_t size)
{
    static const ISamplerState kDefault = {{1, 1, 1, 2, 2, 2, {0.f, 0.f, 0.f, 0.f}}};
    const FalcorKernelSamplerDesc& s = (sampler.state ? *sampler.state : kDefault).desc;
    const uint32_t slice = mIsArray ? uint32_t(std::clamp(std::lround(loc[mDimensions]), 0l, long(mDesc.arraySize) - 1)) : 0;
    const float lod = std::clamp(std::isfinite(level) ? level : 0.f, 0.f, float(mDesc.mipLevels - 1));
    const uint32_t mip0 = s.mipFilter == 1 ? uint32_t(lod) : uint32_t(std::lround(lod));
    const uint32_t mip1 = std::min(mip0 + 1, mDesc.mipLevels - 1);
    const float mipWeight = s.mipFilter == 1 ? lod - float(mip0) : 0.f;

    Float4 result = {{0.f, 0.f, 0.f, 0.f}};
    for (uint32_t level = 0; level < 2; ++level)
    {
        const uint32_t mip = level ? mip1 : mip0;
        const float weight = level ? mipWeight : 1.f - mipWeight;
        if (weight == 0.f)
            continue;
        // Texel-space position; linear filtering blends the 2^d surrounding texels.
        const bool linear = s.magFilter == 1;
        int32_t base[3] = {};
        float frac[3] = {};
        for (uint32_t i = 0; i < mDimensions; ++i)
        {
            const uint32_t n = extent(i == 0 ? mDesc.width : i == 1 ? mDesc.height : mDesc.depth, mip);
            const float t = (std::isfinite(loc[i]) ? loc[i] : 0.f) * float(n) - (linear ? 0.5f : 0.f);
            base[i] = int32_t(std::floor(t));
            frac[i] = linear ? t - std::floor(t) : 0.f;
        }
        const uint32_t corners = linear ? 1u << mDimensions : 1u;
        for (uint32_t c = 0; c < corners; ++c)
        {
            float w = weight;
            int32_t p[3] = {base[0], base[1], base[2]};
            for (uint32_t i = 0; i < mDimensions && linear; ++i)
            {
                const bool up = (c >> i) & 1;
                p[i] += up;
                w *= up ? frac[i] : 1.f - frac[i];
            }
            if (w == 0.f)
                continue;
            const Float4 texel = fetch(p[0], p[1], p[2], slice, mip, s);
            for (int k = 0; k < 4; ++k)
                result.v[k] += w * texel.v[k];
        }
    }
    std::memset(out, 0, size);
    std::memcpy(out, result.v, std::min(size, sizeof(result.v)));
}
} // namespace falcor_kernel

extern "C" void falcorKernelOutOfBounds()
{
    falcor_kernel::gOutOfBoundsCount.fetch_add(1, std::memory_order_relaxed);
}

FALCOR_KERNEL_EXPORT void* falcorKernelCreateTexture(const FalcorKernelTextureDesc* desc, uint32_t dimensions, uint32_t isArray,
                                                     uint32_t writable)
{
    return new falcor_kernel::TextureView(*desc, dimensions, isArray != 0, writable != 0);
}

FALCOR_KERNEL_EXPORT void* falcorKernelCreateSampler(const FalcorKernelSamplerDesc* desc)
{
    return new ISamplerState{*desc};
}

FALCOR_KERNEL_EXPORT void falcorKernelDestroyTexture(void* texture)
{
    delete static_cast<falcor_kernel::TextureView*>(texture);
}

FALCOR_KERNEL_EXPORT void falcorKernelDestroySampler(void* sampler)
{
    delete static_cast<ISamplerState*>(sampler);
}

FALCOR_KERNEL_EXPORT uint64_t falcorKernelTakeOutOfBoundsCount()
{
    return falcor_kernel::gOutOfBoundsCount.exchange(0);
}
