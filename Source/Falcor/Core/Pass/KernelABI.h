#pragma once
// The C ABI between the engine and compute kernels compiled from Slang at run time.
//
// A kernel library is Slang's C++ output for one entry point, compiled with the system C++
// compiler together with falcor/compute/runtime/kernel_runtime.cpp. This header is shared by
// both sides, so it holds plain C types only and includes nothing of the engine.
#include <cstddef>
#include <cstdint>

extern "C" {

/// Slang's `ComputeVaryingInput`: a box of thread groups, end exclusive.
struct FalcorKernelGroupRange
{
    uint32_t startGroupID[3];
    uint32_t endGroupID[3];
};

/// The entry point Slang exports for a range of thread groups.
typedef void (*FalcorKernelFunc)(FalcorKernelGroupRange* groups, void* entryPointParams, void* globalParams);

/// How a texture is seen by a kernel: storage, layout and the format's float codec.
struct FalcorKernelTextureDesc
{
    uint8_t* data;                    ///< Start of all subresources.
    const size_t* subresourceOffsets; ///< Byte offset of (slice, mip) at [slice * mipLevels + mip].
    uint32_t width, height, depth;    ///< Of mip 0.
    uint32_t arraySize, mipLevels;
    uint32_t bytesPerTexel;
    uint32_t dimensions;              ///< 1, 2 or 3.
    /// 1 when the shader's element type has the texel's exact layout (accessed in place);
    /// 0 when texels are decoded to float4 and the shader reads its leading channels.
    uint32_t rawAccess;
    void (*decode)(const uint8_t* src, float* rgbaOut, uint32_t count);
};

/// A sampler as a kernel sees it (Falcor's TextureFilteringMode and TextureAddressingMode values).
struct FalcorKernelSamplerDesc
{
    uint32_t minFilter, magFilter, mipFilter;
    uint32_t addressU, addressV, addressW;
    float borderColor[4];
};

/// Exported by every kernel library (falcor/compute/runtime/kernel_runtime.h):
/// `void* falcorKernelCreateTexture(const FalcorKernelTextureDesc*, uint32_t dimensions, uint32_t isArray, uint32_t writable)`,
/// `void* falcorKernelCreateSampler(const FalcorKernelSamplerDesc*)`, `falcorKernelDestroyTexture(void*)`,
/// `falcorKernelDestroySampler(void*)`, and `uint64_t falcorKernelTakeOutOfBoundsCount()` (accesses outside a
/// resource since the last call).
}
