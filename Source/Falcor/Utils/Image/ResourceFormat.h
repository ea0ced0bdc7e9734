#pragma once
#include "Core/Enum.h"
#include <cstdint>

namespace falcor
{
/// Texel formats, with Falcor's names and order.
enum class ResourceFormat : uint32_t
{
    Unknown,
    R8Unorm, R8Snorm, R16Unorm, R16Snorm, RG8Unorm, RG8Snorm, RG16Unorm, RG16Snorm,
    RGB5A1Unorm, RGBA8Unorm, RGBA8Snorm, RGB10A2Unorm, RGB10A2Uint, RGBA16Unorm, RGBA16Snorm,
    RGBA8UnormSrgb,
    R16Float, RG16Float, RGBA16Float, R32Float, RG32Float, RGB32Float, RGBA32Float,
    R11G11B10Float, RGB9E5Float,
    R8Int, R8Uint, R16Int, R16Uint, R32Int, R32Uint,
    RG8Int, RG8Uint, RG16Int, RG16Uint, RG32Int, RG32Uint,
    RGB32Int, RGB32Uint,
    RGBA8Int, RGBA8Uint, RGBA16Int, RGBA16Uint, RGBA32Int, RGBA32Uint,
    BGRA4Unorm, BGRA8Unorm, BGRA8UnormSrgb, BGRX8Unorm, BGRX8UnormSrgb, R5G6B5Unorm,
    D32Float, D32FloatS8Uint, D16Unorm,
    BC1Unorm, BC1UnormSrgb, BC2Unorm, BC2UnormSrgb, BC3Unorm, BC3UnormSrgb, BC4Unorm, BC4Snorm,
    BC5Unorm, BC5Snorm, BC6HS16, BC6HU16, BC7Unorm, BC7UnormSrgb,
    Count
};

/// How the bits of a channel are interpreted.
enum class FormatType
{
    Unknown,
    Float,
    Unorm,
    UnormSrgb,
    Snorm,
    Uint,
    Sint,
};

struct FormatDesc
{
    ResourceFormat format;
    const char* name;
    uint32_t bytesPerTexel;    ///< 0 for block-compressed formats (not supported on the CPU).
    uint32_t channelCount;
    FormatType type;
    uint32_t bitsPerChannel[4]; ///< Channel bits in storage order.
    bool bgr;                  ///< Storage order is B, G, R(, A).
};

FALCOR_API const FormatDesc& getFormatDesc(ResourceFormat format);
inline const char* to_string(ResourceFormat f) { return getFormatDesc(f).name; }
inline uint32_t getFormatBytesPerTexel(ResourceFormat f) { return getFormatDesc(f).bytesPerTexel; }
inline uint32_t getFormatChannelCount(ResourceFormat f) { return getFormatDesc(f).channelCount; }
inline FormatType getFormatType(ResourceFormat f) { return getFormatDesc(f).type; }
inline bool isSrgbFormat(ResourceFormat f) { return getFormatType(f) == FormatType::UnormSrgb; }
inline bool isIntegerFormat(ResourceFormat f) { return getFormatType(f) == FormatType::Uint || getFormatType(f) == FormatType::Sint; }
inline bool isFloatFormat(ResourceFormat f) { return getFormatType(f) == FormatType::Float; }
inline bool isCompressedFormat(ResourceFormat f) { return getFormatDesc(f).bytesPerTexel == 0 && f != ResourceFormat::Unknown; }
/// True if every channel has the same bit width, a multiple of 8 (so channels are addressable).
FALCOR_API bool hasUniformChannels(ResourceFormat f);

FALCOR_API const std::vector<std::pair<ResourceFormat, std::string>>& enumItems(ResourceFormat);
inline const char* enumTypeName(ResourceFormat) { return "ResourceFormat"; }

enum class TextureChannelFlags : uint32_t
{
    None = 0x0,
    Red = 0x1,
    Green = 0x2,
    Blue = 0x4,
    Alpha = 0x8,
    RGB = 0x7,
    RGBA = 0xf,
};
} // namespace falcor
