#include "Scene/Acceleration/BVHBuilder.h"
#include "Core/ThreadPool.h"
#include <emmintrin.h>
#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

namespace falcor::accel
{
namespace
{
constexpr int kBinCount = 32;
/// Ranges at least this large bin their primitives on the thread pool, in chunks of kBinChunk.
constexpr size_t kParallelBinThreshold = 64 * 1024;
constexpr size_t kBinChunk = 16 * 1024;
/// Ranges at most this large (below the top levels) become independent subtree builds.
constexpr size_t kSubtreeSize = 16 * 1024;
/// Past this depth, splits are median splits so that the tree depth (and traversal stacks) stay bounded.
constexpr uint32_t kMaxSahDepth = 48;

/// A primitive as the builder moves it around: its box, with its index in the (otherwise unused)
/// fourth lane of the lower corner (min/max results in that lane are never read). Ranges of
/// these are partitioned in place, so every pass over a range reads memory sequentially.
struct alignas(16) PrimRef
{
    __m128 lower, upper;

    static PrimRef make(const AABB& b, uint32_t id)
    {
        alignas(16) float lo[4] = {b.minPoint.x(), b.minPoint.y(), b.minPoint.z(), 0.f};
        std::memcpy(&lo[3], &id, sizeof(id));
        return {_mm_load_ps(lo), _mm_setr_ps(b.maxPoint.x(), b.maxPoint.y(), b.maxPoint.z(), 0.f)};
    }
    uint32_t id() const { return uint32_t(_mm_cvtsi128_si32(_mm_castps_si128(_mm_shuffle_ps(lower, lower, 3)))); }
    /// Twice the centroid. The id lane is cleared first: its bits must not enter arithmetic
    /// (as a float they are usually a denormal, slow on some CPUs).
    __m128 centroid2() const
    {
        __m128 xyz = _mm_castsi128_ps(_mm_setr_epi32(-1, -1, -1, 0));
        return _mm_add_ps(_mm_and_ps(lower, xyz), upper);
    }
};

/// Box in SIMD form (lanes x, y, z; the fourth is ignored); empty when lower > upper. No default
/// initialization: bins are many, and only the ones in use are reset.
struct Box
{
    __m128 lower, upper;

    static Box empty()
    {
        return {_mm_set1_ps(std::numeric_limits<float>::infinity()), _mm_set1_ps(-std::numeric_limits<float>::infinity())};
    }
    void grow(__m128 lo, __m128 hi)
    {
        lower = _mm_min_ps(lower, lo);
        upper = _mm_max_ps(upper, hi);
    }
    void grow(const Box& b) { grow(b.lower, b.upper); }
    void grow(__m128 p) { grow(p, p); }
    float3 lowerPoint() const { return lanes(lower); }
    float3 upperPoint() const { return lanes(upper); }
    /// Half the surface area (SAH costs only compare areas).
    float halfArea() const
    {
        float3 d = upperPoint() - lowerPoint();
        return d.x() * d.y() + d.y() * d.z() + d.z() * d.x();
    }
    AABB aabb() const
    {
        AABB b;
        b.minPoint = lowerPoint();
        b.maxPoint = upperPoint();
        return b;
    }
    static float3 lanes(__m128 v)
    {
        alignas(16) float f[4];
        _mm_store_ps(f, v);
        return {f[0], f[1], f[2]};
    }
};

struct Range
{
    uint32_t begin, end;
    Box bounds;
    Box centroids; ///< Bounds of twice the centroids.
    uint32_t size() const { return end - begin; }
    void grow(const PrimRef& p)
    {
        bounds.grow(p.lower, p.upper);
        centroids.grow(p.centroid2());
    }
};

/// Maps (twice) centroids to bins; the same mapping classifies in binning and partitioning.
/// Small ranges use fewer bins (about one per primitive): as good a split, less work.
struct BinMapping
{
    int count;
    __m128 origin, scale;
    float3 scales;
    explicit BinMapping(const Range& r) : count(int(std::clamp<uint32_t>(r.size(), 4, kBinCount)))
    {
        float3 extent = r.centroids.upperPoint() - r.centroids.lowerPoint();
        float n = float(count) * 0.99999f;
        scales = map(extent, [n](float e) { return e > 0.f ? n / e : 0.f; });
        origin = r.centroids.lower;
        scale = _mm_setr_ps(scales.x(), scales.y(), scales.z(), 0.f);
    }
    /// Bins of the primitive along x, y, z (lanes 0..2).
    __m128i bins(const PrimRef& p) const
    {
        __m128 f = _mm_mul_ps(_mm_sub_ps(p.centroid2(), origin), scale);
        f = _mm_min_ps(_mm_max_ps(f, _mm_setzero_ps()), _mm_set1_ps(float(count - 1)));
        return _mm_cvttps_epi32(f);
    }
    int bin(const PrimRef& p, int axis) const
    {
        alignas(16) int32_t b[4];
        _mm_store_si128(reinterpret_cast<__m128i*>(b), bins(p));
        return b[axis];
    }
};

/// Bins of one range (the first `BinMapping::count` of each axis are used).
struct Bins
{
    std::array<std::array<Box, kBinCount>, 3> boxes;
    std::array<std::array<uint32_t, kBinCount>, 3> counts;

    explicit Bins(int used)
    {
        for (int a = 0; a < 3; ++a)
            for (int k = 0; k < used; ++k)
            {
                boxes[a][k] = Box::empty();
                counts[a][k] = 0;
            }
    }

    void add(const PrimRef* prims, size_t n, const BinMapping& m)
    {
        for (size_t i = 0; i < n; ++i)
        {
            alignas(16) int32_t b[4];
            _mm_store_si128(reinterpret_cast<__m128i*>(b), m.bins(prims[i]));
            for (int a = 0; a < 3; ++a)
            {
                boxes[a][b[a]].grow(prims[i].lower, prims[i].upper);
                ++counts[a][b[a]];
            }
        }
    }
    void merge(const Bins& o, int used)
    {
        for (int a = 0; a < 3; ++a)
            for (int k = 0; k < used; ++k)
            {
                boxes[a][k].grow(o.boxes[a][k]);
                counts[a][k] += o.counts[a][k];
            }
    }
};

/// A range waiting to be built: its (placeholder) node, primitives and depth.
struct PendingRange
{
    uint32_t node;
    Range range;
    uint32_t depth;
};

class Builder
{
public:
    Builder(std::vector<PrimRef>& prims, const BuildOptions& options) : mPrims(prims), mOptions(options) {}

    /// Builds the subtree of `range` rooted at nodes[rootIndex]. When `deferred` is given, ranges
    /// of at most kSubtreeSize primitives below the root are not built but recorded there (their
    /// node stays a placeholder).
    void build(std::vector<BinaryNode>& nodes, uint32_t rootIndex, const Range& range, uint32_t depth,
               std::vector<PendingRange>* deferred) const
    {
        std::vector<PendingRange> stack{{rootIndex, range, depth}};
        while (!stack.empty())
        {
            PendingRange item = stack.back();
            stack.pop_back();
            nodes[item.node].bounds = item.range.bounds.aabb();
            if (deferred && item.node != rootIndex && item.range.size() <= kSubtreeSize)
            {
                deferred->push_back(item);
                continue;
            }
            if (item.range.size() <= mOptions.maxLeafSize)
            {
                nodes[item.node].first = item.range.begin;
                nodes[item.node].count = item.range.size();
                continue;
            }
            auto [left, right] = split(item.range, item.depth);
            uint32_t child = uint32_t(nodes.size());
            nodes.resize(nodes.size() + 2);
            nodes[item.node].first = child;
            nodes[item.node].count = 0;
            // Right first so the left subtree is laid out first (depth-first order, better locality).
            stack.push_back({child + 1, right, item.depth + 1});
            stack.push_back({child, left, item.depth + 1});
        }
    }

    Range makeRange(uint32_t begin, uint32_t end) const
    {
        Range r{begin, end, Box::empty(), Box::empty()};
        for (uint32_t i = begin; i < end; ++i)
            r.grow(mPrims[i]);
        return r;
    }

private:
    std::vector<PrimRef>& mPrims;
    BuildOptions mOptions;

    uint32_t blocks(uint32_t n) const { return (n + mOptions.maxLeafSize - 1) / mOptions.maxLeafSize; }

    Bins binRange(const Range& r, const BinMapping& m) const
    {
        Bins bins(m.count);
        if (!mOptions.parallel || r.size() < kParallelBinThreshold)
        {
            bins.add(&mPrims[r.begin], r.size(), m);
            return bins;
        }
        std::vector<Bins> partial((r.size() + kBinChunk - 1) / kBinChunk, Bins(m.count));
        parallelFor(r.size(), kBinChunk, [&](size_t b, size_t e) { partial[b / kBinChunk].add(&mPrims[r.begin + b], e - b, m); });
        for (const Bins& p : partial)
            bins.merge(p, m.count);
        return bins;
    }

    /// Best SAH plane as (axis, first bin on the right); axis -1 when no plane separates anything.
    std::pair<int, int> bestPlane(const Range& r, const Bins& bins, const BinMapping& m) const
    {
        int bestAxis = -1, bestBin = 0;
        float bestCost = std::numeric_limits<float>::infinity();
        for (int a = 0; a < 3; ++a)
        {
            if (m.scales[a] == 0.f)
                continue;
            // Right-to-left sweep of areas, then left-to-right evaluation of every plane.
            std::array<float, kBinCount> rightCost;
            Box box = Box::empty();
            uint32_t count = 0;
            for (int k = m.count - 1; k > 0; --k)
            {
                box.grow(bins.boxes[a][k]);
                count += bins.counts[a][k];
                rightCost[k] = count ? box.halfArea() * float(blocks(count)) : 0.f;
            }
            box = Box::empty();
            count = 0;
            for (int k = 1; k < m.count; ++k)
            {
                box.grow(bins.boxes[a][k - 1]);
                count += bins.counts[a][k - 1];
                if (count == 0 || count == r.size())
                    continue;
                float cost = box.halfArea() * float(blocks(count)) + rightCost[k];
                if (cost < bestCost)
                {
                    bestCost = cost;
                    bestAxis = a;
                    bestBin = k;
                }
            }
        }
        return {bestAxis, bestBin};
    }

    std::pair<Range, Range> split(const Range& r, uint32_t depth) const
    {
        if (depth >= kMaxSahDepth)
            return medianSplit(r);
        BinMapping m(r);
        auto [axis, bin] = bestPlane(r, binRange(r, m), m);
        if (axis < 0)
            return medianSplit(r);

        // In-place partition that also gathers both sides' bounds.
        Range left{r.begin, r.begin, Box::empty(), Box::empty()}, right{r.end, r.end, Box::empty(), Box::empty()};
        uint32_t i = r.begin, j = r.end;
        while (true)
        {
            while (i < j && m.bin(mPrims[i], axis) < bin)
                left.grow(mPrims[i++]);
            while (i < j && m.bin(mPrims[j - 1], axis) >= bin)
                right.grow(mPrims[--j]);
            if (i >= j)
                break;
            std::swap(mPrims[i], mPrims[j - 1]);
        }
        left.end = right.begin = i;
        return {left, right};
    }

    /// Halves the range along the widest centroid axis (also when all centroids coincide).
    std::pair<Range, Range> medianSplit(const Range& r) const
    {
        float3 e = r.centroids.upperPoint() - r.centroids.lowerPoint();
        int a = e.x() >= e.y() && e.x() >= e.z() ? 0 : (e.y() >= e.z() ? 1 : 2);
        uint32_t mid = r.begin + r.size() / 2;
        auto key = [a](const PrimRef& p) { return std::make_pair(Box::lanes(p.centroid2())[a], p.id()); };
        std::nth_element(mPrims.begin() + r.begin, mPrims.begin() + mid, mPrims.begin() + r.end,
                         [&](const PrimRef& p, const PrimRef& q) { return key(p) < key(q); });
        return {makeRange(r.begin, mid), makeRange(mid, r.end)};
    }
};

/// Appends `sub` (a subtree whose root is sub[0]) to `nodes`, replacing the placeholder at `at`.
void splice(std::vector<BinaryNode>& nodes, uint32_t at, const std::vector<BinaryNode>& sub)
{
    uint32_t shift = uint32_t(nodes.size()) - 1; // sub[i] lands at nodes[shift + i] for i >= 1.
    auto relocate = [&](BinaryNode n) {
        if (!n.isLeaf())
            n.first += shift;
        return n;
    };
    nodes[at] = relocate(sub[0]);
    for (size_t i = 1; i < sub.size(); ++i)
        nodes.push_back(relocate(sub[i]));
}

std::vector<PrimRef> makePrimRefs(std::span<const AABB> bounds)
{
    std::vector<PrimRef> prims;
    prims.reserve(bounds.size());
    for (uint32_t i = 0; i < bounds.size(); ++i)
        if (bounds[i].valid())
            prims.push_back(PrimRef::make(bounds[i], i));
    return prims;
}
} // namespace

BinaryBVH buildBinaryBVH(std::span<const AABB> primBounds, const BuildOptions& options)
{
    std::vector<PrimRef> prims = makePrimRefs(primBounds);
    Builder builder(prims, options);
    Range root = builder.makeRange(0, uint32_t(prims.size()));
    BinaryBVH bvh;
    bvh.nodes.resize(1);
    if (root.size() != 0)
    {
        bool split = options.parallel && root.size() > kSubtreeSize;
        std::vector<PendingRange> deferred;
        builder.build(bvh.nodes, 0, root, 0, split ? &deferred : nullptr);

        // Subtrees are independent (disjoint primitive ranges); each gets its own node array.
        std::vector<std::vector<BinaryNode>> subtrees(deferred.size());
        parallelFor(deferred.size(), 1, [&](size_t b, size_t e) {
            for (size_t i = b; i < e; ++i)
            {
                subtrees[i].resize(1);
                builder.build(subtrees[i], 0, deferred[i].range, deferred[i].depth, nullptr);
            }
        });
        for (size_t i = 0; i < deferred.size(); ++i)
            splice(bvh.nodes, deferred[i].node, subtrees[i]);
    }
    bvh.primOrder.reserve(prims.size());
    for (const PrimRef& p : prims)
        bvh.primOrder.push_back(p.id());
    return bvh;
}
} // namespace falcor::accel
