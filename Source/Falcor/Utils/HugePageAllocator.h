#pragma once
#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace falcor
{
/// Allocator for large arrays: the BVH (nodes, triangle blocks) and mesh data. Blocks of 2 MiB
/// and more are 2 MiB aligned and marked for transparent huge pages: incoherent rays touch
/// memory all over the structure, and with 4 KiB pages most of those touches would also miss
/// the TLB; and filling a new array costs one page fault per 2 MiB instead of per 4 KiB (on
/// virtual machines a fault costs microseconds). Smaller blocks come from the ordinary heap.
template<typename T>
struct HugePageAllocator
{
    using value_type = T;
    static constexpr size_t kHugePage = size_t(2) << 20;

    HugePageAllocator() = default;
    template<typename U>
    HugePageAllocator(const HugePageAllocator<U>&) noexcept
    {}

    T* allocate(size_t n)
    {
        size_t bytes = n * sizeof(T);
        if (bytes < kHugePage)
            return static_cast<T*>(::operator new(bytes, std::align_val_t(alignof(T))));
        size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
        void* p = std::aligned_alloc(kHugePage, rounded);
        if (!p)
            throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        madvise(p, rounded, MADV_HUGEPAGE); // A hint: failure only costs speed.
#endif
        return static_cast<T*>(p);
    }

    void deallocate(T* p, size_t n) noexcept
    {
        if (n * sizeof(T) < kHugePage)
            ::operator delete(p, std::align_val_t(alignof(T)));
        else
            std::free(p);
    }

    template<typename U>
    bool operator==(const HugePageAllocator<U>&) const noexcept
    {
        return true;
    }
};

template<typename T>
using HugePageVector = std::vector<T, HugePageAllocator<T>>;
} // namespace falcor
