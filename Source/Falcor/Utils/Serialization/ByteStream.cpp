#include "Utils/Serialization/ByteStream.h"
#include "Core/ThreadPool.h"
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace falcor
{
namespace
{
constexpr size_t kChunkBytes = size_t(1) << 20;
constexpr uint64_t kMultiplier = 0x9E3779B97F4A7C15ull;

/// Folds a 64-bit word into the running state (multiply-xorshift mixing, as in splitmix64).
uint64_t mix(uint64_t state, uint64_t word)
{
    uint64_t z = (state ^ word) * kMultiplier;
    z ^= z >> 29;
    z *= 0xBF58476D1CE4E5B9ull;
    return z ^ (z >> 32);
}

uint64_t chunkChecksum(std::span<const uint8_t> bytes)
{
    // Four independent lanes keep the multiplier pipeline busy.
    uint64_t lane[4] = {1, 2, 3, 4};
    size_t i = 0;
    for (; i + 32 <= bytes.size(); i += 32)
        for (int k = 0; k < 4; ++k)
        {
            uint64_t word;
            std::memcpy(&word, bytes.data() + i + 8 * k, 8);
            lane[k] = mix(lane[k], word);
        }
    uint64_t state = mix(mix(lane[0], lane[1]), mix(lane[2], lane[3]));
    for (; i < bytes.size(); ++i)
        state = mix(state, bytes[i]);
    return mix(state, bytes.size());
}
} // namespace

void ByteReader::copyDeferred()
{
    parallelFor(mCopies.size(), 1, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i)
            mCopies[i]();
    });
    mCopies.clear();
    mDeferCopies = false;
}

uint64_t contentChecksum(std::span<const uint8_t> bytes)
{
    const size_t chunks = (bytes.size() + kChunkBytes - 1) / kChunkBytes;
    std::vector<uint64_t> sums(chunks);
    parallelFor(chunks, 1, [&](size_t begin, size_t end) {
        for (size_t c = begin; c < end; ++c)
            sums[c] = chunkChecksum(bytes.subspan(c * kChunkBytes, std::min(kChunkBytes, bytes.size() - c * kChunkBytes)));
    });
    uint64_t state = mix(0, bytes.size());
    for (uint64_t s : sums)
        state = mix(state, s);
    return state;
}

namespace
{
struct SealHeader
{
    char tag[8];
    uint32_t version;
    uint32_t reserved;
    uint64_t size;
    uint64_t checksum;
    uint8_t padding[kArrayAlignment - 32];
};
static_assert(sizeof(SealHeader) == kArrayAlignment);
} // namespace

std::vector<uint8_t> sealHeader(std::span<const uint8_t> payload, const char (&tag)[9], uint32_t version)
{
    SealHeader header{};
    std::memcpy(header.tag, tag, 8);
    header.version = version;
    header.size = payload.size();
    header.checksum = contentChecksum(payload);
    std::vector<uint8_t> out(sizeof(header));
    std::memcpy(out.data(), &header, sizeof(header));
    return out;
}

std::span<const uint8_t> unseal(std::span<const uint8_t> sealed, const char (&tag)[9], uint32_t version)
{
    SealHeader header;
    FALCOR_CHECK(sealed.size() >= sizeof(header), "truncated: ", sealed.size(), " bytes, shorter than the header.");
    std::memcpy(&header, sealed.data(), sizeof(header));
    FALCOR_CHECK(std::memcmp(header.tag, tag, 8) == 0, "not a ", std::string(tag, 8), " block.");
    FALCOR_CHECK(header.version == version, "format version ", header.version, ", this build reads version ", version, ".");
    const std::span<const uint8_t> payload = sealed.subspan(sizeof(header));
    FALCOR_CHECK(header.size == payload.size(), "truncated or padded: ", payload.size(), " bytes where ", header.size, " were written.");
    FALCOR_CHECK(contentChecksum(payload) == header.checksum, "damaged: the checksum does not match the contents.");
    return payload;
}

MappedFile::MappedFile(const std::string& path, uint64_t offset)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    FALCOR_CHECK(fd >= 0, "can't open '", path, "'.");
    struct stat st;
    const bool statted = ::fstat(fd, &st) == 0;
    mSize = statted ? size_t(st.st_size) : 0;
    if (statted && mSize > 0 && offset <= mSize)
    {
        int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
        flags |= MAP_POPULATE; // page the file in now, in one call, instead of fault by fault
#endif
        void* p = ::mmap(nullptr, mSize, PROT_READ, flags, fd, 0);
        mData = p == MAP_FAILED ? nullptr : static_cast<const uint8_t*>(p);
    }
    ::close(fd);
    FALCOR_CHECK(statted && offset <= mSize, "'", path, "' is shorter (", mSize, " bytes) than expected (", offset, ").");
    FALCOR_CHECK(mData || mSize == 0, "can't map '", path, "' into memory.");
    mOffset = size_t(offset);
}

MappedFile::~MappedFile()
{
    if (mData)
        ::munmap(const_cast<uint8_t*>(mData), mSize);
}
} // namespace falcor
