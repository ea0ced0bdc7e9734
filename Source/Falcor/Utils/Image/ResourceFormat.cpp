#include "Utils/Image/ResourceFormat.h"
#include <array>

namespace falcor
{
namespace
{
using F = ResourceFormat;
using T = FormatType;
// clang-format off
const FormatDesc kFormatDescs[] = {
    {F::Unknown,        "Unknown",        0,  0, T::Unknown,   {0, 0, 0, 0},      false},
    {F::R8Unorm,        "R8Unorm",        1,  1, T::Unorm,     {8, 0, 0, 0},      false},
    {F::R8Snorm,        "R8Snorm",        1,  1, T::Snorm,     {8, 0, 0, 0},      false},
    {F::R16Unorm,       "R16Unorm",       2,  1, T::Unorm,     {16, 0, 0, 0},     false},
    {F::R16Snorm,       "R16Snorm",       2,  1, T::Snorm,     {16, 0, 0, 0},     false},
    {F::RG8Unorm,       "RG8Unorm",       2,  2, T::Unorm,     {8, 8, 0, 0},      false},
    {F::RG8Snorm,       "RG8Snorm",       2,  2, T::Snorm,     {8, 8, 0, 0},      false},
    {F::RG16Unorm,      "RG16Unorm",      4,  2, T::Unorm,     {16, 16, 0, 0},    false},
    {F::RG16Snorm,      "RG16Snorm",      4,  2, T::Snorm,     {16, 16, 0, 0},    false},
    {F::RGB5A1Unorm,    "RGB5A1Unorm",    2,  4, T::Unorm,     {5, 5, 5, 1},      false},
    {F::RGBA8Unorm,     "RGBA8Unorm",     4,  4, T::Unorm,     {8, 8, 8, 8},      false},
    {F::RGBA8Snorm,     "RGBA8Snorm",     4,  4, T::Snorm,     {8, 8, 8, 8},      false},
    {F::RGB10A2Unorm,   "RGB10A2Unorm",   4,  4, T::Unorm,     {10, 10, 10, 2},   false},
    {F::RGB10A2Uint,    "RGB10A2Uint",    4,  4, T::Uint,      {10, 10, 10, 2},   false},
    {F::RGBA16Unorm,    "RGBA16Unorm",    8,  4, T::Unorm,     {16, 16, 16, 16},  false},
    {F::RGBA16Snorm,    "RGBA16Snorm",    8,  4, T::Snorm,     {16, 16, 16, 16},  false},
    {F::RGBA8UnormSrgb, "RGBA8UnormSrgb", 4,  4, T::UnormSrgb, {8, 8, 8, 8},      false},
    {F::R16Float,       "R16Float",       2,  1, T::Float,     {16, 0, 0, 0},     false},
    {F::RG16Float,      "RG16Float",      4,  2, T::Float,     {16, 16, 0, 0},    false},
    {F::RGBA16Float,    "RGBA16Float",    8,  4, T::Float,     {16, 16, 16, 16},  false},
    {F::R32Float,       "R32Float",       4,  1, T::Float,     {32, 0, 0, 0},     false},
    {F::RG32Float,      "RG32Float",      8,  2, T::Float,     {32, 32, 0, 0},    false},
    {F::RGB32Float,     "RGB32Float",     12, 3, T::Float,     {32, 32, 32, 0},   false},
    {F::RGBA32Float,    "RGBA32Float",    16, 4, T::Float,     {32, 32, 32, 32},  false},
    {F::R11G11B10Float, "R11G11B10Float", 4,  3, T::Float,     {11, 11, 10, 0},   false},
    {F::RGB9E5Float,    "RGB9E5Float",    4,  3, T::Float,     {9, 9, 9, 5},      false},
    {F::R8Int,          "R8Int",          1,  1, T::Sint,      {8, 0, 0, 0},      false},
    {F::R8Uint,         "R8Uint",         1,  1, T::Uint,      {8, 0, 0, 0},      false},
    {F::R16Int,         "R16Int",         2,  1, T::Sint,      {16, 0, 0, 0},     false},
    {F::R16Uint,        "R16Uint",        2,  1, T::Uint,      {16, 0, 0, 0},     false},
    {F::R32Int,         "R32Int",         4,  1, T::Sint,      {32, 0, 0, 0},     false},
    {F::R32Uint,        "R32Uint",        4,  1, T::Uint,      {32, 0, 0, 0},     false},
    {F::RG8Int,         "RG8Int",         2,  2, T::Sint,      {8, 8, 0, 0},      false},
    {F::RG8Uint,        "RG8Uint",        2,  2, T::Uint,      {8, 8, 0, 0},      false},
    {F::RG16Int,        "RG16Int",        4,  2, T::Sint,      {16, 16, 0, 0},    false},
    {F::RG16Uint,       "RG16Uint",       4,  2, T::Uint,      {16, 16, 0, 0},    false},
    {F::RG32Int,        "RG32Int",        8,  2, T::Sint,      {32, 32, 0, 0},    false},
    {F::RG32Uint,       "RG32Uint",       8,  2, T::Uint,      {32, 32, 0, 0},    false},
    {F::RGB32Int,       "RGB32Int",       12, 3, T::Sint,      {32, 32, 32, 0},   false},
    {F::RGB32Uint,      "RGB32Uint",      12, 3, T::Uint,      {32, 32, 32, 0},   false},
    {F::RGBA8Int,       "RGBA8Int",       4,  4, T::Sint,      {8, 8, 8, 8},      false},
    {F::RGBA8Uint,      "RGBA8Uint",      4,  4, T::Uint,      {8, 8, 8, 8},      false},
    {F::RGBA16Int,      "RGBA16Int",      8,  4, T::Sint,      {16, 16, 16, 16},  false},
    {F::RGBA16Uint,     "RGBA16Uint",     8,  4, T::Uint,      {16, 16, 16, 16},  false},
    {F::RGBA32Int,      "RGBA32Int",      16, 4, T::Sint,      {32, 32, 32, 32},  false},
    {F::RGBA32Uint,     "RGBA32Uint",     16, 4, T::Uint,      {32, 32, 32, 32},  false},
    {F::BGRA4Unorm,     "BGRA4Unorm",     2,  4, T::Unorm,     {4, 4, 4, 4},      true},
    {F::BGRA8Unorm,     "BGRA8Unorm",     4,  4, T::Unorm,     {8, 8, 8, 8},      true},
    {F::BGRA8UnormSrgb, "BGRA8UnormSrgb", 4,  4, T::UnormSrgb, {8, 8, 8, 8},      true},
    {F::BGRX8Unorm,     "BGRX8Unorm",     4,  4, T::Unorm,     {8, 8, 8, 8},      true},
    {F::BGRX8UnormSrgb, "BGRX8UnormSrgb", 4,  4, T::UnormSrgb, {8, 8, 8, 8},      true},
    {F::R5G6B5Unorm,    "R5G6B5Unorm",    2,  3, T::Unorm,     {5, 6, 5, 0},      false},
    {F::D32Float,       "D32Float",       4,  1, T::Float,     {32, 0, 0, 0},     false},
    {F::D32FloatS8Uint, "D32FloatS8Uint", 8,  2, T::Float,     {32, 8, 0, 0},     false},
    {F::D16Unorm,       "D16Unorm",       2,  1, T::Unorm,     {16, 0, 0, 0},     false},
    {F::BC1Unorm,       "BC1Unorm",       0,  3, T::Unorm,     {0, 0, 0, 0},      false},
    {F::BC1UnormSrgb,   "BC1UnormSrgb",   0,  3, T::UnormSrgb, {0, 0, 0, 0},      false},
    {F::BC2Unorm,       "BC2Unorm",       0,  4, T::Unorm,     {0, 0, 0, 0},      false},
    {F::BC2UnormSrgb,   "BC2UnormSrgb",   0,  4, T::UnormSrgb, {0, 0, 0, 0},      false},
    {F::BC3Unorm,       "BC3Unorm",       0,  4, T::Unorm,     {0, 0, 0, 0},      false},
    {F::BC3UnormSrgb,   "BC3UnormSrgb",   0,  4, T::UnormSrgb, {0, 0, 0, 0},      false},
    {F::BC4Unorm,       "BC4Unorm",       0,  1, T::Unorm,     {0, 0, 0, 0},      false},
    {F::BC4Snorm,       "BC4Snorm",       0,  1, T::Snorm,     {0, 0, 0, 0},      false},
    {F::BC5Unorm,       "BC5Unorm",       0,  2, T::Unorm,     {0, 0, 0, 0},      false},
    {F::BC5Snorm,       "BC5Snorm",       0,  2, T::Snorm,     {0, 0, 0, 0},      false},
    {F::BC6HS16,        "BC6HS16",        0,  3, T::Float,     {0, 0, 0, 0},      false},
    {F::BC6HU16,        "BC6HU16",        0,  3, T::Float,     {0, 0, 0, 0},      false},
    {F::BC7Unorm,       "BC7Unorm",       0,  4, T::Unorm,     {0, 0, 0, 0},      false},
    {F::BC7UnormSrgb,   "BC7UnormSrgb",   0,  4, T::UnormSrgb, {0, 0, 0, 0},      false},
};
// clang-format on
static_assert(std::size(kFormatDescs) == size_t(ResourceFormat::Count));
} // namespace

const FormatDesc& getFormatDesc(ResourceFormat format)
{
    FALCOR_CHECK(uint32_t(format) < uint32_t(ResourceFormat::Count), "Invalid ResourceFormat value ", uint32_t(format), ".");
    return kFormatDescs[uint32_t(format)];
}

bool hasUniformChannels(ResourceFormat f)
{
    const FormatDesc& d = getFormatDesc(f);
    if (d.bytesPerTexel == 0 || d.bytesPerTexel % d.channelCount != 0)
        return false;
    for (uint32_t c = 0; c < d.channelCount; ++c)
        if (d.bitsPerChannel[c] != d.bitsPerChannel[0] || d.bitsPerChannel[c] % 8 != 0)
            return false;
    return f != ResourceFormat::D32FloatS8Uint;
}

const std::vector<std::pair<ResourceFormat, std::string>>& enumItems(ResourceFormat)
{
    static const auto items = []
    {
        std::vector<std::pair<ResourceFormat, std::string>> v;
        for (const auto& d : kFormatDescs)
            v.emplace_back(d.format, d.name);
        return v;
    }();
    return items;
}
} // namespace falcor
