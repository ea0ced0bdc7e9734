#pragma once
#include "Scene/Acceleration/RayTracing.h"
#include "Utils/HugePageAllocator.h"
#include "Utils/Math/AABB.h"
#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

namespace falcor::accel
{
/// Node of a binary BVH as the builder produces it. Inner nodes have `count == 0` and their two
/// children at `first` and `first + 1`; leaves own primitives [first, first + count) of
/// `BinaryBVH::primOrder`.
struct BinaryNode
{
    AABB bounds;
    uint32_t first = 0;
    uint32_t count = 0;
    bool isLeaf() const { return count != 0; }
};

/// Binary BVH over primitives given by their bounds; node 0 is the root.
struct BinaryBVH
{
    HugePageVector<BinaryNode> nodes;
    HugePageVector<uint32_t> primOrder; ///< Primitive indices in leaf order.
};

using BuildPhases = AccelBuildPhases;

/// Adds the time since the previous lap to a BuildPhases field (when there is somewhere to add it).
class PhaseClock
{
public:
    explicit PhaseClock(BuildPhases* phases) : mPhases(phases), mLast(std::chrono::steady_clock::now()) {}
    void lap(double BuildPhases::*field)
    {
        const auto now = std::chrono::steady_clock::now();
        if (mPhases)
            mPhases->*field += std::chrono::duration<double, std::milli>(now - mLast).count();
        mLast = now;
    }

private:
    BuildPhases* mPhases;
    std::chrono::steady_clock::time_point mLast;
};

struct BuildOptions
{
    uint32_t maxLeafSize = 4; ///< Leaves never hold more; SAH counts leaves in blocks of this size.
    bool parallel = true;     ///< Use the thread pool (callers already inside a task pass false).
    BuildPhases* phases = nullptr; ///< When set, the build adds its phase times here.
};

/// Binned SAH build. The result depends only on the input, never on the thread count: binning is
/// split into fixed chunks whose partial bins are merged in order, subtrees are built into their
/// own node arrays and spliced in a fixed order. Primitives with invalid (empty) bounds are left
/// out.
BinaryBVH buildBinaryBVH(std::span<const AABB> primBounds, const BuildOptions& options);
} // namespace falcor::accel
