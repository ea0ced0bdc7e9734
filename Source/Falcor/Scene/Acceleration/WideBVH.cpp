#include "Scene/Acceleration/WideBVH.h"
#include "Core/ThreadPool.h"
#include <limits>

namespace falcor::accel
{
namespace
{
/// Binary subtrees with at most this many primitives are collapsed as parallel tasks.
constexpr uint32_t kParallelSubtreePrims = 8 * 1024;

/// Primitives below each binary node (children always follow their parent in the array).
std::vector<uint32_t> primitiveCounts(const BinaryBVH& bvh)
{
    std::vector<uint32_t> counts(bvh.nodes.size());
    for (size_t i = bvh.nodes.size(); i-- > 0;)
    {
        const BinaryNode& n = bvh.nodes[i];
        counts[i] = n.isLeaf() ? n.count : counts[n.first] + counts[n.first + 1];
    }
    return counts;
}

/// A child slot left empty by the top-level pass, for a subtree collapsed separately.
struct DeferredSubtree
{
    uint32_t wideNode;
    int slot;
    uint32_t binaryRoot;
};

struct Collapser
{
    const BinaryBVH& bvh;
    const std::vector<uint32_t>* deferBelow = nullptr; ///< Primitive counts, when deferring subtrees.
    WideCollapse out;
    std::vector<DeferredSubtree> deferred;

    uint32_t convert(uint32_t binaryIndex)
    {
        const BinaryNode& node = bvh.nodes[binaryIndex];
        if (node.isLeaf())
        {
            out.leafNodes.push_back(binaryIndex);
            return kLeafBit | uint32_t(out.leafNodes.size() - 1);
        }
        uint32_t children[kNodeWidth];
        const int count = openChildren(node, children);
        const uint32_t index = uint32_t(out.bvh.nodes.size());
        out.bvh.nodes.emplace_back();
        WideNode wide;
        for (int i = 0; i < kNodeWidth; ++i)
        {
            AABB b = i < count ? bvh.nodes[children[i]].bounds : AABB();
            for (int a = 0; a < 3; ++a)
            {
                wide.bounds[2 * a][i] = b.minPoint[a];
                wide.bounds[2 * a + 1][i] = b.maxPoint[a];
            }
            wide.child[i] = kEmptyRef;
            if (i >= count)
                continue;
            const BinaryNode& c = bvh.nodes[children[i]];
            if (deferBelow && !c.isLeaf() && (*deferBelow)[children[i]] <= kParallelSubtreePrims)
                deferred.push_back({index, i, children[i]});
            else
                wide.child[i] = convert(children[i]);
        }
        out.bvh.nodes[index] = wide;
        return index;
    }

    /// The (up to 8) binary nodes a wide node covers: inner children are opened, largest area first.
    int openChildren(const BinaryNode& node, uint32_t (&children)[kNodeWidth]) const
    {
        children[0] = node.first;
        children[1] = node.first + 1;
        int count = 2;
        while (count < kNodeWidth)
        {
            int open = -1;
            float largest = -1.f;
            for (int i = 0; i < count; ++i)
            {
                const BinaryNode& c = bvh.nodes[children[i]];
                if (!c.isLeaf() && c.bounds.area() > largest)
                {
                    largest = c.bounds.area();
                    open = i;
                }
            }
            if (open < 0)
                break;
            uint32_t first = bvh.nodes[children[open]].first;
            children[open] = first;
            children[count++] = first + 1;
        }
        return count;
    }
};

/// Appends a separately collapsed subtree to `into` and hangs it in its slot.
void splice(WideCollapse& into, const DeferredSubtree& at, const WideCollapse& sub)
{
    const uint32_t nodeShift = uint32_t(into.bvh.nodes.size()), leafShift = uint32_t(into.leafNodes.size());
    auto relocate = [&](uint32_t ref) {
        if (ref == kEmptyRef)
            return ref;
        return isLeafRef(ref) ? kLeafBit | (leafPayload(ref) + leafShift) : ref + nodeShift;
    };
    for (WideNode node : sub.bvh.nodes)
    {
        for (uint32_t& child : node.child)
            child = relocate(child);
        into.bvh.nodes.push_back(node);
    }
    into.leafNodes.insert(into.leafNodes.end(), sub.leafNodes.begin(), sub.leafNodes.end());
    into.bvh.nodes[at.wideNode].child[at.slot] = relocate(sub.bvh.root);
}
} // namespace

WideCollapse collapseToWide(const BinaryBVH& bvh, bool parallel)
{
    if (bvh.primOrder.empty())
        return {};
    const std::vector<uint32_t> counts = parallel ? primitiveCounts(bvh) : std::vector<uint32_t>();
    Collapser top{bvh, parallel ? &counts : nullptr, {}, {}};
    top.out.bvh.root = top.convert(0);
    std::vector<WideCollapse> subtrees(top.deferred.size());
    parallelFor(subtrees.size(), 1, [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i)
        {
            Collapser sub{bvh, nullptr, {}, {}};
            sub.out.bvh.root = sub.convert(top.deferred[i].binaryRoot);
            subtrees[i] = std::move(sub.out);
        }
    });
    for (size_t i = 0; i < subtrees.size(); ++i)
        splice(top.out, top.deferred[i], subtrees[i]);
    return std::move(top.out);
}

void relabelLeaves(WideBVH& bvh, const std::function<uint32_t(uint32_t)>& payload)
{
    auto relabel = [&](uint32_t& ref) {
        if (ref != kEmptyRef && isLeafRef(ref))
            ref = kLeafBit | payload(leafPayload(ref));
    };
    relabel(bvh.root);
    for (WideNode& node : bvh.nodes)
        for (uint32_t& child : node.child)
            relabel(child);
}
} // namespace falcor::accel
