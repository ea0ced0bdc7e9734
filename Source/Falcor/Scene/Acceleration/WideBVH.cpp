#include "Scene/Acceleration/WideBVH.h"
#include <limits>

namespace falcor::accel
{
namespace
{
struct Collapser
{
    const BinaryBVH& bvh;
    const std::function<uint32_t(const BinaryNode&)>& makeLeaf;
    WideBVH out;

    uint32_t convert(uint32_t binaryIndex)
    {
        const BinaryNode& node = bvh.nodes[binaryIndex];
        if (node.isLeaf())
            return makeLeaf(node);

        uint32_t children[kNodeWidth] = {node.first, node.first + 1};
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

        uint32_t index = uint32_t(out.nodes.size());
        out.nodes.emplace_back();
        WideNode wide;
        for (int i = 0; i < kNodeWidth; ++i)
        {
            AABB b = i < count ? bvh.nodes[children[i]].bounds : AABB();
            for (int a = 0; a < 3; ++a)
            {
                wide.bounds[2 * a][i] = b.minPoint[a];
                wide.bounds[2 * a + 1][i] = b.maxPoint[a];
            }
            wide.child[i] = i < count ? convert(children[i]) : kEmptyRef;
        }
        out.nodes[index] = wide;
        return index;
    }
};
} // namespace

WideBVH collapseToWide(const BinaryBVH& bvh, const std::function<uint32_t(const BinaryNode&)>& makeLeaf)
{
    Collapser c{bvh, makeLeaf, {}};
    if (!bvh.primOrder.empty())
        c.out.root = c.convert(0);
    return std::move(c.out);
}
} // namespace falcor::accel
