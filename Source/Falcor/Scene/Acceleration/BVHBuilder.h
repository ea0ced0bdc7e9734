#pragma once
#include "Utils/Math/AABB.h"
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
    std::vector<BinaryNode> nodes;
    std::vector<uint32_t> primOrder; ///< Primitive indices in leaf order.
};

struct BuildOptions
{
    uint32_t maxLeafSize = 4; ///< Leaves never hold more; SAH counts leaves in blocks of this size.
    bool parallel = true;     ///< Use the thread pool (callers already inside a task pass false).
};

/// Binned SAH build. The result depends only on the input, never on the thread count: binning is
/// split into fixed chunks whose partial bins are merged in order, subtrees are built into their
/// own node arrays and spliced in a fixed order. Primitives with invalid (empty) bounds are left
/// out.
BinaryBVH buildBinaryBVH(std::span<const AABB> primBounds, const BuildOptions& options);
} // namespace falcor::accel
