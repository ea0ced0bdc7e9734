#pragma once
#include "Scene/Acceleration/BVHBuilder.h"
#include "Utils/HugePageAllocator.h"
#include <cstdint>
#include <functional>
#include <vector>

namespace falcor::accel
{
/// Child reference of a wide node: an inner node by index, or (high bit set) a leaf whose
/// payload the owner interprets (a triangle block, an instance).
constexpr uint32_t kLeafBit = 0x80000000u;
constexpr uint32_t kEmptyRef = 0xffffffffu;
inline bool isLeafRef(uint32_t ref) { return (ref & kLeafBit) != 0; }
inline uint32_t leafPayload(uint32_t ref) { return ref & ~kLeafBit; }

/// Width of the BVH nodes: children tested at once by one ray.
constexpr int kNodeWidth = 8;

/// The children's boxes as SIMD rows (x lower, x upper, y lower, y upper, z lower, z upper), so
/// one ray tests all of them at once. Empty slots have lower = +inf and upper = -inf, which no
/// ray overlaps. Four cache lines.
struct alignas(64) WideNode
{
    float bounds[6][kNodeWidth];
    uint32_t child[kNodeWidth];
    uint32_t unused[kNodeWidth] = {}; ///< The rest of the 256 bytes, zeroed so that saved trees are deterministic.
};
static_assert(sizeof(WideNode) == 256);

/// kNodeWidth-wide BVH; `root` may itself be a leaf reference (or kEmptyRef for no primitives).
struct WideBVH
{
    HugePageVector<WideNode> nodes;
    uint32_t root = kEmptyRef;
};

/// Collapses a binary BVH into wide nodes by repeatedly opening the child with the largest
/// surface area. `makeLeaf` turns a binary leaf into a leaf reference (it is called in depth-first
/// order, so leaf storage follows the traversal order).
/// An 8-wide tree and the binary leaves its leaf references stand for: a leaf reference's payload
/// n is the binary leaf bvh.nodes[leafNodes[n]].
struct WideCollapse
{
    WideBVH bvh;
    std::vector<uint32_t> leafNodes;
};

/// Collapses a binary BVH into 8-wide nodes (each node opens its largest-area inner children
/// until it has 8). With `parallel`, subtrees below a fixed size are collapsed side by side on
/// the pool and appended in order after the top nodes: the result depends on the input only.
WideCollapse collapseToWide(const BinaryBVH& bvh, bool parallel);

/// Replaces every leaf reference's payload n with payload(n).
void relabelLeaves(WideBVH& bvh, const std::function<uint32_t(uint32_t)>& payload);
} // namespace falcor::accel
