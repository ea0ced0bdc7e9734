#include "Utils/Image/ImageIO.h"
#include "Core/AssetResolver.h"
#include "Core/Error.h"
#include "Core/ThreadPool.h"
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

namespace falcor
{
namespace
{
std::mutex gReaderMutex;
ImageReader gReader;

std::string lowerExtension(const std::filesystem::path& path)
{
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

/// Reads one scanline of RGBE bytes (new-style run-length encoded, or flat).
void readScanline(std::istream& in, uint8_t* rgbe, uint32_t width, const std::filesystem::path& path)
{
    uint8_t head[4];
    FALCOR_CHECK(in.read(reinterpret_cast<char*>(head), 4), "unexpected end of file");
    bool rle = width >= 8 && width < 32768 && head[0] == 2 && head[1] == 2 && (uint32_t(head[2]) << 8 | head[3]) == width;
    if (!rle)
    {
        std::memcpy(rgbe, head, 4);
        FALCOR_CHECK(in.read(reinterpret_cast<char*>(rgbe + 4), std::streamsize(width - 1) * 4), "unexpected end of file");
        return;
    }
    std::vector<uint8_t> channel(width);
    for (int c = 0; c < 4; ++c)
    {
        for (uint32_t x = 0; x < width;)
        {
            int count = in.get();
            FALCOR_CHECK(count != EOF, "unexpected end of file");
            if (count > 128)
            {
                count -= 128;
                int value = in.get();
                FALCOR_CHECK(value != EOF && x + count <= width, "corrupt run-length data");
                std::fill_n(channel.begin() + x, count, uint8_t(value));
            }
            else
            {
                FALCOR_CHECK(count > 0 && x + count <= width, "corrupt run-length data");
                FALCOR_CHECK(in.read(reinterpret_cast<char*>(channel.data() + x), count), "unexpected end of file");
            }
            x += count;
        }
        for (uint32_t x = 0; x < width; ++x)
            rgbe[4 * x + c] = channel[x];
    }
}
} // namespace

void setImageReader(ImageReader reader)
{
    std::lock_guard l(gReaderMutex);
    gReader = std::move(reader);
}

Image readRadianceHDR(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw ImporterError(concat("Can't open image file '", path.string(), "'."));
    try
    {
        std::string line;
        std::getline(in, line);
        FALCOR_CHECK(line.rfind("#?", 0) == 0, "not a Radiance HDR file");
        while (std::getline(in, line) && !line.empty())
            FALCOR_CHECK(line.rfind("FORMAT=", 0) != 0 || line == "FORMAT=32-bit_rle_rgbe", "unsupported pixel format '", line, "'");
        std::getline(in, line);
        std::istringstream res(line);
        std::string ay, ax;
        long height = 0, width = 0;
        res >> ay >> height >> ax >> width;
        FALCOR_CHECK(ay == "-Y" && ax == "+X" && width > 0 && height > 0, "unsupported resolution line '", line, "'");

        FALCOR_CHECK(width <= Texture::kMaxDimension && height <= Texture::kMaxDimension, "its size ", width, "x", height,
                     " exceeds the limit of ", Texture::kMaxDimension, " pixels per dimension");
        // The pixels grow with the scanlines read, so a header declaring more than the file holds
        // fails at the first missing scanline, not after allocating the declared size.
        Image img{uint32_t(width), uint32_t(height), ResourceFormat::RGB32Float, {}};
        const size_t rowBytes = size_t(width) * 12;
        std::vector<uint8_t> rgbe(size_t(width) * 4);
        for (long y = 0; y < height; ++y)
        {
            readScanline(in, rgbe.data(), uint32_t(width), path);
            img.data.resize(img.data.size() + rowBytes);
            float* out = reinterpret_cast<float*>(img.data.data() + y * rowBytes);
            for (long x = 0; x < width; ++x, out += 3)
            {
                const uint8_t* p = &rgbe[4 * x];
                float scale = p[3] ? std::ldexp(1.f, int(p[3]) - (128 + 8)) : 0.f;
                out[0] = p[0] * scale, out[1] = p[1] * scale, out[2] = p[2] * scale;
            }
        }
        return img;
    }
    catch (const RuntimeError& e)
    {
        throw ImporterError(concat("Failed to read Radiance HDR image '", path.string(), "': ", e.what(), "."));
    }
}

TexturePtr createTextureFromImage(const Image& image, ResourceFormat format, uint32_t mipLevels)
{
    format = format == ResourceFormat::Unknown ? image.format : format;
    auto tex = Texture::create2D(image.width, image.height, format, 1, mipLevels);
    const size_t rowBytes = size_t(image.width) * getFormatBytesPerTexel(image.format);
    FALCOR_CHECK(image.data.size() == rowBytes * image.height, "Image data has ", image.data.size(), " bytes; ", image.width, "x",
                 image.height, " ", to_string(image.format), " needs ", rowBytes * image.height, ".");
    if (getFormatBytesPerTexel(format) == getFormatBytesPerTexel(image.format))
        std::memcpy(tex->data(), image.data.data(), image.data.size());
    else
    {
        const auto decode = Texture::getCodec(image.format).decode;
        parallelForRows(image.height, [&](uint32_t y) {
            std::vector<float4> row(image.width);
            decode(image.data.data() + y * rowBytes, row.data(), image.width);
            tex->storeRow(y, row.data());
        });
    }
    if (tex->getMipCount() > 1)
        tex->generateMips();
    return tex;
}

Image readImage(const std::filesystem::path& path)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw ImporterError(concat("Image file '", path.string(), "' does not exist."));
    AssetResolver::reportRead(path);
    std::string ext = lowerExtension(path);
    if (ext == ".hdr" || ext == ".pic")
        return readRadianceHDR(path);
    ImageReader reader;
    {
        std::lock_guard l(gReaderMutex);
        reader = gReader;
    }
    if (!reader)
        throw ImporterError(concat("Can't read '", path.string(), "': no image reader is installed for '", ext, "' files."));
    return reader(path);
}
} // namespace falcor
