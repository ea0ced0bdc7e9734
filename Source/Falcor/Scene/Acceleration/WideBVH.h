#pragma once
#include "Scene/Acceleration/BVHBuilder.h"
#include "Scene/Acceleration/HugePageAllocator.h"
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

/// The children's boxes, quantized to 8 bits per plane on a per-node grid so a node fits in two
/// cache lines instead of four (traversal waits on memory far more than it computes). Plane
/// `row` (x lower, x upper, y lower, y upper, z lower, z upper) of child i lies at
/// `decodePlane(origin[row / 2], scale[row / 2], q[row][i])`; the codes are rounded outward
/// against that exact float expression, so each decoded box contains the child's true box and
/// culling stays conservative. Slots not in `usedLanes` are empty.
struct alignas(64) WideNode
{
    float origin[3], scale[3];
    uint8_t q[6][kNodeWidth];
    uint32_t child[kNodeWidth];
    uint8_t usedLanes;
};
static_assert(sizeof(WideNode) == 128);

/// The float plane of a code; traversal kernels evaluate the same IEEE operations lane-wise.
inline float decodePlane(float origin, float scale, uint8_t code) { return origin + float(code) * scale; }

/// kNodeWidth-wide BVH; `root` may itself be a leaf reference (or kEmptyRef for no primitives).
struct WideBVH
{
    HugePageVector<WideNode> nodes;
    uint32_t root = kEmptyRef;
};

/// Collapses a binary BVH into wide nodes by repeatedly opening the child with the largest
/// surface area. `makeLeaf` turns a binary leaf into a leaf reference (it is called in depth-first
/// order, so leaf storage follows the traversal order).
WideBVH collapseToWide(const BinaryBVH& bvh, const std::function<uint32_t(const BinaryNode&)>& makeLeaf);
} // namespace falcor::accel
