#pragma once
#include "Core/Error.h"
#include "Core/Macros.h"
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace falcor
{
constexpr size_t kArrayAlignment = 64;
constexpr size_t alignUp(size_t offset) { return (offset + kArrayAlignment - 1) / kArrayAlignment * kArrayAlignment; }

/// Appends plain values and arrays to a byte buffer in the machine's own layout (caches are
/// read back on the machine that wrote them). Arrays carry their element count.
class ByteWriter
{
public:
    template<typename T>
    void write(const T& value)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        append(&value, sizeof(T));
    }
    /// The count, then the elements starting at a multiple of kArrayAlignment bytes from the start
    /// (so a reader over an aligned buffer can copy them as T in one pass).
    template<typename T>
    void writeArray(std::span<const T> values)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        write<uint64_t>(values.size());
        mBytes.resize(alignUp(mBytes.size()), 0);
        append(values.data(), values.size_bytes());
    }
    void writeString(const std::string& s) { writeArray(std::span<const char>(s.data(), s.size())); }
    std::vector<uint8_t>& bytes() { return mBytes; }

private:
    void append(const void* data, size_t size)
    {
        const auto* p = static_cast<const uint8_t*>(data);
        mBytes.insert(mBytes.end(), p, p + size);
    }
    std::vector<uint8_t> mBytes;
};

/// Reads what a ByteWriter wrote. Every read is bounds-checked: running past the end raises an
/// error naming what was being read, so a truncated or damaged buffer is reported, never trusted.
class ByteReader
{
public:
    explicit ByteReader(std::span<const uint8_t> bytes) : mBytes(bytes) {}

    template<typename T>
    T read(const char* what)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        T value;
        std::memcpy(&value, take(sizeof(T), what), sizeof(T));
        return value;
    }
    /// Reads an array into any container of T with resize() and data() (std::vector, HugePageVector).
    template<typename Container>
    void readArray(Container& out, const char* what)
    {
        using T = typename Container::value_type;
        static_assert(std::is_trivially_copyable_v<T>);
        const uint64_t count = read<uint64_t>(what);
        take(alignUp(mOffset) - mOffset, what);
        FALCOR_CHECK(count <= remaining() / sizeof(T), "truncated data: ", what, " claims ", count, " elements but ", remaining(),
                     " bytes are left.");
        const uint8_t* src = take(size_t(count) * sizeof(T), what);
        auto copy = [&out, src, count] {
            if (reinterpret_cast<uintptr_t>(src) % alignof(T) == 0)
            {
                // One pass over the destination (resize would first zero it).
                const T* first = reinterpret_cast<const T*>(src);
                out.assign(first, first + count);
            }
            else
            {
                out.resize(size_t(count));
                std::memcpy(out.data(), src, size_t(count) * sizeof(T));
            }
        };
        if (mDeferCopies)
            mCopies.push_back(copy);
        else
            copy();
    }
    /// From now on readArray only checks sizes and queues the copy; `copyDeferred` then makes the
    /// queued copies side by side on the pool (large arrays are copied at memory speed on every
    /// core). The containers must stay where they are until then.
    void deferCopies() { mDeferCopies = true; }
    FALCOR_API void copyDeferred();
    std::string readString(const char* what)
    {
        const uint64_t length = read<uint64_t>(what);
        take(alignUp(mOffset) - mOffset, what);
        FALCOR_CHECK(length <= remaining(), "truncated data: ", what, " claims ", length, " characters but ", remaining(), " bytes are left.");
        return std::string(reinterpret_cast<const char*>(take(size_t(length), what)), size_t(length));
    }
    size_t remaining() const { return mBytes.size() - mOffset; }

private:
    const uint8_t* take(size_t size, const char* what)
    {
        FALCOR_CHECK(size <= remaining(), "truncated data: ", size, " bytes of ", what, " needed at byte ", mOffset, " but ", remaining(),
                     " are left.");
        const uint8_t* p = mBytes.data() + mOffset;
        mOffset += size;
        return p;
    }
    std::span<const uint8_t> mBytes;
    size_t mOffset = 0;
    bool mDeferCopies = false;
    std::vector<std::function<void()>> mCopies;
};

/// A 64-bit content checksum of `bytes` for detecting damaged cache files (not cryptographic):
/// 1 MiB chunks are hashed on the pool and combined in order, so the value does not depend on
/// the thread count.
FALCOR_API uint64_t contentChecksum(std::span<const uint8_t> bytes);

/// Sealing bytes for storage: this header (kArrayAlignment bytes: an 8-character tag, a format
/// version, the payload size and its checksum) is stored right before the payload.
FALCOR_API std::vector<uint8_t> sealHeader(std::span<const uint8_t> payload, const char (&tag)[9], uint32_t version);
/// The payload of sealed bytes. Raises saying what is wrong: not a `tag` file, another format
/// version, truncated, or damaged (checksum mismatch).
FALCOR_API std::span<const uint8_t> unseal(std::span<const uint8_t> sealed, const char (&tag)[9], uint32_t version);

/// A file mapped read-only into memory (the OS pages it in; nothing is copied).
class FALCOR_API MappedFile
{
public:
    /// Maps `path` from byte `offset` (a multiple of kArrayAlignment keeps arrays aligned) to its end.
    MappedFile(const std::string& path, uint64_t offset);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    std::span<const uint8_t> bytes() const { return {mData + mOffset, mSize - mOffset}; }

private:
    const uint8_t* mData = nullptr;
    size_t mSize = 0, mOffset = 0;
};
} // namespace falcor
